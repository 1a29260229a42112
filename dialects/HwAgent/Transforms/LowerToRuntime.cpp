//===- LowerToRuntime.cpp - hwagent-lower-to-runtime ----------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/IR/HwAgentOps.h"
#include "hwagent/Analysis/FeatureModels.h"
#include "hwagent/Analysis/StructuralHash.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_LOWERTORUNTIME
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;

static constexpr int kNumBackends = 3;

//===----------------------------------------------------------------------===//
// f16 variants
//===----------------------------------------------------------------------===//

/// `type` with f32 replaced by f16 (scalars and shaped types).
static Type toHalf(Type type) {
  MLIRContext *ctx = type.getContext();
  if (type.isF32())
    return Float16Type::get(ctx);
  if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.getElementType().isF32())
    return shaped.clone(Float16Type::get(ctx));
  return type;
}

static Attribute toHalf(Attribute attr) {
  const llvm::fltSemantics &half = APFloat::IEEEhalf();
  auto convert = [&](APFloat value) {
    bool lost;
    value.convert(half, APFloat::rmNearestTiesToEven, &lost);
    return value;
  };
  if (auto f = dyn_cast<FloatAttr>(attr); f && f.getType().isF32())
    return FloatAttr::get(Float16Type::get(attr.getContext()), convert(f.getValue()));
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr);
      dense && dense.getElementType().isF32())
    return dense.mapValues(Float16Type::get(attr.getContext()),
                           [&](const APFloat &v) {
                             return convert(v).bitcastToAPInt();
                           });
  return attr;
}

/// Rewrites the body of `fn` to compute in f16: f32 arguments are narrowed
/// on entry, every f32 value inside becomes f16, and results are widened
/// back to the function's result types on return. Fails (leaving `fn` to be
/// erased) when the result does not verify.
static LogicalResult computeInHalf(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  OpBuilder builder(&entry, entry.begin());
  llvm::SmallPtrSet<Operation *, 8> boundary;
  for (BlockArgument arg : entry.getArguments()) {
    Type half = toHalf(arg.getType());
    if (half == arg.getType())
      continue;
    auto narrow = arith::TruncFOp::create(builder, arg.getLoc(), half, arg);
    arg.replaceAllUsesExcept(narrow, narrow);
    boundary.insert(narrow);
  }
  fn.getBody().walk([&](Operation *op) {
    if (boundary.contains(op) || isa<func::ReturnOp>(op))
      return;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(toHalf(arg.getType()));
    for (Value result : op->getResults())
      result.setType(toHalf(result.getType()));
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      constant.setValueAttr(cast<TypedAttr>(toHalf(constant.getValue())));
  });
  // Casts between f16 and f32 inside the body are now f16 -> f16: drop them.
  SmallVector<Operation *> identity;
  fn.getBody().walk([&](Operation *op) {
    if (isa<arith::ExtFOp, arith::TruncFOp>(op) && !boundary.contains(op) &&
        op->getOperand(0).getType() == op->getResult(0).getType())
      identity.push_back(op);
  });
  for (Operation *op : identity) {
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
  auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
  builder.setInsertionPoint(ret);
  for (auto [index, type] : llvm::enumerate(fn.getResultTypes())) {
    Value value = ret.getOperand(index);
    if (value.getType() != type)
      ret.setOperand(index, arith::ExtFOp::create(builder, ret.getLoc(), type, value));
  }
  return verify(fn);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct RegionRecord {
  int64_t globalId;
  std::string key;
  int32_t assigned;
  uint32_t legalMask;
  double predicted[kNumBackends] = {0, 0, 0};
  int64_t flops = 0, bytes = 0;
};

struct LowerToRuntimePass
    : public hwagent::impl::LowerToRuntimeBase<LowerToRuntimePass> {
  using LowerToRuntimeBase::LowerToRuntimeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    builder.setInsertionPointToEnd(module.getBody());
    Location loc = module.getLoc();
    auto i32 = builder.getI32Type();
    auto i64 = builder.getI64Type();
    SymbolTable symbols(module);
    auto declare = [&](StringRef name, FunctionType type) {
      if (symbols.lookup(name))
        return;
      auto fn = func::FuncOp::create(builder, loc, name, type);
      fn.setPrivate();
      symbols.insert(fn);
    };
    declare("hwagent_rt_select", builder.getFunctionType({i64}, {i32}));
    declare("hwagent_rt_begin", builder.getFunctionType({i64, i32}, {}));
    declare("hwagent_rt_end", builder.getFunctionType({i64, i32, i32}, {i32}));

    std::vector<RegionRecord> records;
    std::vector<std::array<int64_t, 4>> edges;
    llvm::DenseMap<Operation *, int64_t> globalIdOf;
    SmallVector<RegionOp> regions;
    module.walk([&](RegionOp region) { regions.push_back(region); });
    for (RegionOp region : regions)
      globalIdOf[region] = globalIdOf.size();

    // Edges first: lowering a region replaces it, after which its results
    // no longer name their producer.
    for (RegionOp region : regions)
      collectEdges(region, globalIdOf, edges);
    for (RegionOp region : regions) {
      FailureOr<RegionRecord> record = lowerRegion(region, globalIdOf);
      if (failed(record))
        return signalPassFailure();
      records.push_back(*record);
    }
    // Transfers become the conversion they stand for.
    SmallVector<TransferOp> transfers;
    module.walk([&](TransferOp transfer) { transfers.push_back(transfer); });
    for (TransferOp transfer : transfers)
      lowerTransfer(transfer);

    emitRegionTable(module, records, edges);
    // The output is hwagent-free: drop the annotations (their information is
    // in the region table) so that mlir-translate and other tools accept it.
    auto strip = [](Operation *op) {
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (attr.getName().getValue().starts_with("hwagent."))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        op->removeDiscardableAttr(name);
    };
    module.walk(strip);
    if (emitCInterface)
      for (auto fn : module.getOps<func::FuncOp>())
        if (fn.isPublic() && !fn.isExternal())
          fn->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  }

  /// Whether data of `type` is converted when it crosses to or from the ANE
  /// (non-f16 float tensors; as the partitioner prices it).
  static bool convertsAtTheAne(Type type) {
    Type element = getElementTypeOrSelf(type);
    return isa<ShapedType>(type) && isa<FloatType>(element) && !element.isF16();
  }

  /// Whether `value` is read by an op that is not a region (looking through
  /// transfers): the host reads it.
  static bool readByHost(Value value) {
    return llvm::any_of(value.getUsers(), [](Operation *user) {
      if (auto transfer = dyn_cast<TransferOp>(user))
        return readByHost(transfer.getResult());
      return !isa<RegionOp>(user);
    });
  }

  /// The table's edges of `region`, as the partitioner priced its flows:
  /// one per distinct input, from the region producing it (through
  /// transfers) or the host (-1), and one to the host (-1) per result the
  /// host reads.
  void collectEdges(RegionOp region,
                    const llvm::DenseMap<Operation *, int64_t> &globalIdOf,
                    std::vector<std::array<int64_t, 4>> &edges) {
    llvm::SmallPtrSet<Value, 8> seen;
    for (Value input : region.getInputs()) {
      if (!seen.insert(input).second)
        continue;
      // The value as produced (before any transfer converted it).
      Value source = input;
      while (auto transfer = source.getDefiningOp<TransferOp>())
        source = transfer.getInput();
      Operation *def = source.getDefiningOp();
      int64_t from = -1;
      if (auto it = globalIdOf.find(def); def && it != globalIdOf.end())
        from = it->second;
      edges.push_back({from, globalIdOf.lookup(region), countBytes(source.getType()),
                       convertsAtTheAne(source.getType()) ? 1 : 0});
    }
    for (Value result : region.getResults())
      if (readByHost(result))
        edges.push_back({globalIdOf.lookup(region), -1, countBytes(result.getType()),
                         convertsAtTheAne(result.getType()) ? 1 : 0});
  }

  FailureOr<RegionRecord>
  lowerRegion(RegionOp region, llvm::DenseMap<Operation *, int64_t> &globalIdOf) {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    RegionRecord record;
    record.globalId = globalIdOf.lookup(region);
    if (auto key = region->getAttrOfType<StringAttr>("hwagent.key"))
      record.key = key.str();
    else
      record.key = getStructuralHash(region);
    record.assigned = static_cast<int32_t>(region.getBackend().value_or(Backend::cpu));
    record.legalMask = 0;
    if (CostsAttr costs = region.getCostsAttr()) {
      for (BackendCostAttr entry : costs.getEntries())
        if (entry.getLegal()) {
          unsigned b = static_cast<unsigned>(entry.getBackend());
          record.legalMask |= 1u << b;
          record.predicted[b] = entry.getSeconds().convertToDouble();
        }
    } else {
      record.legalMask = 1u; // no costs: CPU only
    }
    if (!(record.legalMask & 1u))
      return region.emitOpError()
             << "has no legal CPU variant; the runtime needs one to fall back to";
    if (!(record.legalMask & (1u << record.assigned)))
      record.assigned = 0;
    if (FeaturesAttr features = region.getFeaturesAttr()) {
      record.flops = features.getFlops();
      record.bytes = features.getBytesRead() + features.getBytesWritten();
    }

    // Outline the variants.
    auto function = region->getParentOfType<FunctionOpInterface>();
    std::string base = llvm::formatv("__hwagent_{0}_r{1}", function.getName(),
                                     region.getIdAttr().getInt())
                           .str();
    OpBuilder moduleBuilder(ctx);
    moduleBuilder.setInsertionPointToEnd(module.getBody());
    auto outline = [&](StringRef name) {
      auto type = FunctionType::get(ctx, region.getInputs().getTypes(),
                                    region.getResultTypes());
      auto fn = func::FuncOp::create(moduleBuilder, region.getLoc(), name, type);
      fn.setPrivate();
      IRMapping mapping;
      region.getBody().cloneInto(&fn.getBody(), mapping);
      Block &block = fn.getBody().front();
      auto yield = cast<YieldOp>(block.getTerminator());
      OpBuilder b(yield);
      func::ReturnOp::create(b, yield.getLoc(), yield.getValues());
      yield.erase();
      return fn;
    };
    func::FuncOp cpu = outline(base + "_cpu");
    func::FuncOp ane;
    if (record.legalMask & (1u << 1)) {
      ane = outline(base + "_ane");
      if (failed(computeInHalf(ane))) {
        mlir::emitWarning(region.getLoc())
            << "hwagent-lower-to-runtime: region " << region.getIdAttr().getInt()
            << " cannot compute in f16; it gets no ANE variant";
        ane.erase();
        ane = nullptr;
        record.legalMask &= ~(1u << 1);
        if (record.assigned == 1)
          record.assigned = 0;
      }
    }

    // The run-time choice.
    OpBuilder b(region);
    Location loc = region.getLoc();
    Value id = arith::ConstantIntOp::create(b, loc, record.globalId, 64);
    auto backendConst = [&](OpBuilder &builder, int backend) {
      return arith::ConstantIntOp::create(builder, loc, backend, 32);
    };
    Value selected =
        func::CallOp::create(b, loc, "hwagent_rt_select", b.getI32Type(), id)
            .getResult(0);
    Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), selected);
    TypeRange resultTypes = region.getResultTypes();
    ValueRange inputs = region.getInputs();

    auto runVariant = [&](OpBuilder &builder, func::FuncOp fn, int backend) {
      Value backendValue = backendConst(builder, backend);
      func::CallOp::create(builder, loc, "hwagent_rt_begin", TypeRange{},
                           ValueRange{id, backendValue});
      auto call = func::CallOp::create(builder, loc, fn, inputs);
      return std::make_pair(call, backendValue);
    };
    auto runCpu = [&](OpBuilder &builder, int backend) -> SmallVector<Value> {
      auto [call, backendValue] = runVariant(builder, cpu, backend);
      Value zero = backendConst(builder, 0);
      func::CallOp::create(builder, loc, "hwagent_rt_end", builder.getI32Type(),
                           ValueRange{id, backendValue, zero});
      return SmallVector<Value>(call.getResults());
    };

    SmallVector<int64_t> cases;
    if (ane)
      cases.push_back(1);
    if (record.legalMask & (1u << 2))
      cases.push_back(2);
    auto sw = scf::IndexSwitchOp::create(b, loc, resultTypes, index, cases,
                                         cases.size());
    for (auto [position, backend] : llvm::enumerate(cases)) {
      Block &block = sw.getCaseRegions()[position].emplaceBlock();
      OpBuilder cb = OpBuilder::atBlockEnd(&block);
      if (backend == 2) {
        // The GPU is simulated: its numerics are the CPU variant's.
        scf::YieldOp::create(cb, loc, runCpu(cb, 2));
        continue;
      }
      auto [call, backendValue] = runVariant(cb, ane, 1);
      Value nonfinite = anyNonFinite(cb, loc, call.getResults());
      Value fault = func::CallOp::create(cb, loc, "hwagent_rt_end",
                                         cb.getI32Type(),
                                         ValueRange{id, backendValue, nonfinite})
                        .getResult(0);
      Value failed = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::ne,
                                           fault, backendConst(cb, 0));
      auto retry = scf::IfOp::create(cb, loc, resultTypes, failed,
                                     /*withElseRegion=*/true);
      OpBuilder tb = retry.getThenBodyBuilder();
      scf::YieldOp::create(tb, loc, runCpu(tb, 0));
      OpBuilder eb = retry.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, call.getResults());
      scf::YieldOp::create(cb, loc, retry.getResults());
    }
    Block &defaultBlock = sw.getDefaultRegion().emplaceBlock();
    OpBuilder db = OpBuilder::atBlockEnd(&defaultBlock);
    scf::YieldOp::create(db, loc, runCpu(db, 0));

    region->replaceAllUsesWith(sw.getResults());
    region.erase();
    return record;
  }

  /// An i32 that is 1 when any float tensor among `values` holds inf or NaN:
  /// |x| compared unordered-or-equal with +inf is true exactly then.
  Value anyNonFinite(OpBuilder &b, Location loc, ValueRange values) {
    Value any = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (Value value : values) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || !isa<FloatType>(type.getElementType()))
        continue;
      auto floatType = cast<FloatType>(type.getElementType());
      auto boolTensor = RankedTensorType::get({}, b.getI1Type());
      Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, b.getI1Type());
      Value falseValue = arith::ConstantIntOp::create(b, loc, 0, 1);
      init = linalg::FillOp::create(b, loc, falseValue, init).getResult(0);
      unsigned rank = type.getRank();
      SmallVector<AffineMap> maps = {
          b.getMultiDimIdentityMap(rank),
          AffineMap::get(rank, 0, {}, b.getContext())};
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::reduction);
      auto check = linalg::GenericOp::create(
          b, loc, TypeRange{boolTensor}, ValueRange{value}, ValueRange{init},
          maps, iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value magnitude = math::AbsFOp::create(nb, nl, args[0]);
            Value inf = arith::ConstantFloatOp::create(
                nb, nl, floatType,
                APFloat::getInf(floatType.getFloatSemantics()));
            Value bad = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UEQ,
                                              magnitude, inf);
            Value merged = arith::OrIOp::create(nb, nl, args[1], bad);
            linalg::YieldOp::create(nb, nl, merged);
          });
      Value flag = tensor::ExtractOp::create(b, loc, check.getResult(0), ValueRange{});
      any = arith::OrIOp::create(b, loc, any, flag);
    }
    return arith::ExtUIOp::create(b, loc, b.getI32Type(), any);
  }

  void lowerTransfer(TransferOp transfer) {
    OpBuilder b(transfer);
    Location loc = transfer.getLoc();
    Value value = transfer.getInput();
    if (std::optional<ArrayRef<int64_t>> permutation = transfer.getPermutation()) {
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

  void emitRegionTable(ModuleOp module, ArrayRef<RegionRecord> records,
                       ArrayRef<std::array<int64_t, 4>> edges) {
    std::string text = "hwagent-region-table 1\n";
    std::string target = "unknown";
    std::string extra;
    if (auto attr = module->getAttrOfType<TargetAttr>("hwagent.target")) {
      target = attr.getName().str();
      double bandwidth = attr.getTransferBandwidth().convertToDouble();
      extra += llvm::formatv("link {0:e} {1:e} {2:e}\n", bandwidth, bandwidth / 2,
                             attr.getSync().convertToDouble())
                   .str();
      // Ordered pairs with their own price (the default link above prices
      // the rest).
      for (LinkAttr link : attr.getLinks())
        extra += llvm::formatv("pair {0} {1} {2:e} {3:e} {4:e}\n",
                               static_cast<int>(link.getFrom()),
                               static_cast<int>(link.getTo()),
                               link.getBandwidth().convertToDouble(),
                               link.getConvertBandwidth().convertToDouble(),
                               link.getSync().convertToDouble())
                     .str();
      for (DeviceAttr device : attr.getDevices())
        extra += llvm::formatv("compile {0} {1:e}\n",
                               static_cast<int>(device.getBackend()),
                               device.getCompile().convertToDouble())
                     .str();
    }
    text += "target " + target + "\n" + extra;
    for (const RegionRecord &r : records)
      text += llvm::formatv("region {0} {1} {2} {3} {4:e} {5:e} {6:e} {7} {8}\n",
                            r.globalId, r.key, r.assigned, r.legalMask,
                            r.predicted[0], r.predicted[1], r.predicted[2],
                            r.flops, r.bytes)
                  .str();
    for (const auto &e : edges)
      text += llvm::formatv("edge {0} {1} {2} {3}\n", e[0], e[1], e[2], e[3]).str();
    if (!tableOut.empty()) {
      std::error_code error;
      llvm::raw_fd_ostream file(tableOut, error);
      if (error)
        module.emitWarning() << "hwagent-lower-to-runtime: cannot write '"
                             << tableOut << "': " << error.message();
      else
        file << text;
    }
    text.push_back('\0');

    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    Location loc = module.getLoc();
    auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, "__hwagent_region_table_data",
                           b.getStringAttr(text));
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto fn = func::FuncOp::create(b, loc, "__hwagent_region_table",
                                   b.getFunctionType({}, {ptr}));
    OpBuilder body = OpBuilder::atBlockEnd(fn.addEntryBlock());
    Value address =
        LLVM::AddressOfOp::create(body, loc, ptr, "__hwagent_region_table_data");
    func::ReturnOp::create(body, loc, address);
  }
};
} // namespace
