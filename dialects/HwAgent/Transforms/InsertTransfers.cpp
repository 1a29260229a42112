//===- InsertTransfers.cpp - hwagent-insert-transfers ---------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/Analysis/StructuralHash.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <map>

namespace mlir::hwagent {
#define GEN_PASS_DEF_INSERTTRANSFERS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;

/// The type a tensor has on the ANE: f32 data travels and is kept as f16.
static Type aneType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isF32())
    return type;
  return tensor.clone(Float16Type::get(type.getContext()));
}

static Backend backendOf(Operation *producer) {
  if (auto region = dyn_cast_or_null<RegionOp>(producer))
    if (std::optional<Backend> backend = region.getBackend())
      return *backend;
  return Backend::cpu;
}

namespace {
struct InsertTransfersPass
    : public hwagent::impl::InsertTransfersBase<InsertTransfersPass> {
  using InsertTransfersBase::InsertTransfersBase;

  void runOnOperation() override {
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      SmallVector<RegionOp> regions;
      bool unassigned = false, done = false;
      function->walk([&](Operation *op) {
        if (auto region = dyn_cast<RegionOp>(op)) {
          regions.push_back(region);
          unassigned |= !region.getBackend();
        }
        done |= isa<TransferOp>(op);
      });
      if (regions.empty() || done)
        continue;
      if (unassigned) {
        mlir::emitError(function.getLoc())
            << "hwagent-insert-transfers: regions without a "
               "backend; run hwagent-assign-backends first";
        return signalPassFailure();
      }
      insertTransfers(regions);
    }
  }

  void insertTransfers(ArrayRef<RegionOp> regions) {
    // 1. ANE regions take and give f16 at their boundary. Their structural
    // key is kept from before the casts, so measured profiles still match
    // the regions estimate-costs sees.
    StructuralHasher hasher;
    for (RegionOp region : regions) {
      if (region.getBackend() != Backend::ane)
        continue;
      region.getContext()
          ->getLoadedDialect<HwAgentDialect>()
          ->getKeyAttrHelper()
          .setAttr(region,
                   StringAttr::get(region.getContext(), hasher(region)));
      Block &body = region.getBodyBlock();
      OpBuilder builder(&body, body.begin());
      auto boundary = region.getContext()
                          ->getLoadedDialect<HwAgentDialect>()
                          ->getBoundaryAttrHelper();
      for (BlockArgument arg : body.getArguments()) {
        Type original = arg.getType(), narrow = aneType(original);
        if (narrow == original)
          continue;
        arg.setType(narrow);
        auto widened =
            arith::ExtFOp::create(builder, arg.getLoc(), original, arg);
        boundary.setAttr(widened, builder.getUnitAttr());
        arg.replaceAllUsesExcept(widened, widened);
      }
      YieldOp yield = region.getYield();
      builder.setInsertionPoint(yield);
      for (auto [index, result] : llvm::enumerate(region.getResults())) {
        Type original = result.getType(), narrow = aneType(original);
        if (narrow == original)
          continue;
        auto narrowed = arith::TruncFOp::create(builder, yield.getLoc(), narrow,
                                                yield.getValues()[index]);
        boundary.setAttr(narrowed, builder.getUnitAttr());
        yield->setOperand(index, narrowed);
        originalType[result] = original;
        result.setType(narrow);
      }
    }

    // 2. One transfer per value and destination backend, right after the
    // value is defined, shared by every consumer there.
    auto transferTo = [&](Value value, Backend destination,
                          Type destinationType) -> Value {
      Backend source = backendOf(value.getDefiningOp());
      if (source == destination || !isa<RankedTensorType>(value.getType()))
        return value;
      auto key = std::make_pair(value.getAsOpaquePointer(),
                                static_cast<unsigned>(destination));
      if (auto it = transfers.find(key); it != transfers.end())
        return it->second;
      OpBuilder builder(value.getContext());
      if (Operation *def = value.getDefiningOp())
        builder.setInsertionPointAfter(def);
      else
        builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
      Value transfer =
          TransferOp::create(builder, value.getLoc(), destinationType, value,
                             BackendAttr::get(value.getContext(), source),
                             BackendAttr::get(value.getContext(), destination),
                             DenseI64ArrayAttr());
      transfers[key] = transfer;
      return transfer;
    };

    for (RegionOp region : regions) {
      Backend destination = *region.getBackend();
      Block &body = region.getBodyBlock();
      for (OpOperand &operand : region->getOpOperands()) {
        Type expected = body.getArgument(operand.getOperandNumber()).getType();
        Value moved = transferTo(operand.get(), destination, expected);
        if (moved != operand.get())
          operand.set(moved);
      }
    }

    // 3. Results read outside regions (returned, host ops) go to the CPU.
    for (RegionOp region : regions) {
      if (region.getBackend() == Backend::cpu)
        continue;
      for (OpResult result : region->getResults()) {
        Type hostType = result.getType();
        if (auto it = originalType.find(result); it != originalType.end())
          hostType = it->second;
        SmallVector<OpOperand *> hostUses;
        for (OpOperand &use : result.getUses())
          if (!isa<RegionOp, TransferOp>(use.getOwner()))
            hostUses.push_back(&use);
        if (hostUses.empty())
          continue;
        Value moved = transferTo(result, Backend::cpu, hostType);
        for (OpOperand *use : hostUses)
          use->set(moved);
      }
    }
  }

  llvm::DenseMap<Value, Type> originalType;
  std::map<std::pair<void *, unsigned>, Value> transfers;
};
} // namespace
