//===- LowerToRuntime.cpp - hwagent-lower-to-runtime ----------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "LowerToRuntime.h"

#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <map>

namespace mlir::hwagent {
#define GEN_PASS_DEF_LOWERTORUNTIME
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;

/// `hwagent.transfer` becomes the conversion it stands for.
static void lowerTransfer(TransferOp transfer) {
  OpBuilder b(transfer);
  Location loc = transfer.getLoc();
  Value value = transfer.getInput();
  if (std::optional<ArrayRef<int64_t>> permutation =
          transfer.getPermutation()) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    for (int64_t dim : *permutation)
      shape.push_back(type.getDimSize(dim));
    Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    value = linalg::TransposeOp::create(b, loc, value, init, *permutation)
                ->getResult(0);
  }
  auto from = cast<RankedTensorType>(value.getType());
  auto to = cast<RankedTensorType>(transfer.getResult().getType());
  if (from.getElementType() != to.getElementType()) {
    if (from.getElementTypeBitWidth() > to.getElementTypeBitWidth())
      value = arith::TruncFOp::create(b, loc, to, value);
    else
      value = arith::ExtFOp::create(b, loc, to, value);
  }
  transfer.replaceAllUsesWith(value);
  transfer.erase();
}

/// Undoes the f16 boundary of ANE regions (the conversions
/// hwagent-insert-transfers marked): a program's interface is f32, its CPU
/// variant computes in f32 exactly as the all-CPU step does, and its ANE
/// variant rounds what it stores through f16 (storeInHalf), so a faulting
/// ANE program re-runs on the CPU from unrounded inputs.
static void widenAneBoundaries(ModuleOp module) {
  auto boundary = module.getContext()
                      ->getLoadedDialect<HwAgentDialect>()
                      ->getBoundaryAttrHelper();
  SmallVector<Operation *> marked;
  module.walk([&](Operation *op) {
    if (boundary.isAttrPresent(op))
      marked.push_back(op);
  });
  for (Operation *op : marked) {
    if (auto extend = dyn_cast<arith::ExtFOp>(op)) {
      // region argument (f16) -> extf -> body: the argument becomes f32.
      auto arg = dyn_cast<BlockArgument>(extend.getIn());
      if (!arg)
        continue;
      arg.setType(extend.getType());
      extend.replaceAllUsesWith(arg);
      extend.erase();
    } else if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
      // body -> truncf -> yield: the region's result becomes f32.
      for (OpOperand &use : llvm::make_early_inc_range(trunc->getUses())) {
        auto yield = dyn_cast<YieldOp>(use.getOwner());
        if (!yield)
          continue;
        auto region = cast<RegionOp>(yield->getParentOp());
        region.getResult(use.getOperandNumber())
            .setType(trunc.getIn().getType());
        use.set(trunc.getIn());
      }
      if (trunc->use_empty())
        trunc.erase();
    }
  }
  // Transfers now carry f32 on both sides.
  module.walk([](TransferOp transfer) {
    auto from = cast<RankedTensorType>(transfer.getInput().getType());
    auto to = cast<RankedTensorType>(transfer.getResult().getType());
    if (from.getElementType() != to.getElementType() &&
        to.getElementType().isF16() && from.getElementType().isF32())
      transfer.getResult().setType(to.clone(from.getElementType()));
  });
}

namespace {
struct LowerToRuntimePass
    : public hwagent::impl::LowerToRuntimeBase<LowerToRuntimePass> {
  using LowerToRuntimeBase::LowerToRuntimeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The table first: lowering replaces the regions it reads.
    FailureOr<ModelTable> table = buildModelTable(module);
    if (failed(table))
      return signalPassFailure();
    // The public functions' signatures, before lowering outlines programs.
    SmallVector<StepSignature> signatures;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal() &&
          !fn.getName().starts_with("__hwagent"))
        signatures.push_back(describeFunction(fn));
    widenAneBoundaries(module);
    SymbolTable symbols(module);
    declareRuntimeCalls(module, symbols);

    std::map<Operation *, std::vector<const ProgramGroup *>> byFunction;
    for (const ProgramGroup &group : table->groups)
      byFunction[group.function].push_back(&group);
    for (auto &[function, groups] : byFunction)
      if (failed(makeProgramsContiguous(cast<FunctionOpInterface>(function),
                                        groups)))
        return signalPassFailure();
    for (auto [index, group] : llvm::enumerate(table->groups))
      if (failed(lowerProgram(group, index, table->programs[index], symbols)))
        return signalPassFailure();

    SmallVector<TransferOp> transfers;
    module.walk([&](TransferOp transfer) { transfers.push_back(transfer); });
    for (TransferOp transfer : transfers)
      lowerTransfer(transfer);
    emitModelInfo(module, *table, signatures, emitCInterface);
    stripAnnotations(module);
  }

  /// The output is hwagent-free (what the annotations said is in the model
  /// table), so that mlir-translate and other tools accept it.
  void stripAnnotations(ModuleOp module) {
    module.walk([](Operation *op) {
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (attr.getName().getValue().starts_with("hwagent."))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        op->removeDiscardableAttr(name);
    });
    MLIRContext *ctx = &getContext();
    if (emitCInterface)
      for (auto fn : module.getOps<func::FuncOp>())
        if (fn.isPublic() && !fn.isExternal())
          fn->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  }
};
} // namespace
