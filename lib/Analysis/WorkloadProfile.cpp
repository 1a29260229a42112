//===- WorkloadProfile.cpp - per-region features (profile_workload) -------===//

#include "HwAgent/Analysis/WorkloadProfile.h"

#include "HwAgent/Analysis/FeatureModels.h"
#include "HwAgent/Analysis/Utils.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::hwagent;

bool hwagent::isCloneableLeaf(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  // A fill of a fresh tensor with a constant is an initializer (the
  // accumulator of a matmul, say), cheaper to recreate than to pass around.
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.hasPureTensorSemantics() &&
           llvm::all_of(op->getOperands(), [](Value operand) {
             Operation *def = operand.getDefiningOp();
             return def && isCloneableLeaf(def);
           });
  if (!op->hasTrait<OpTrait::ConstantLike>() || op->getNumResults() != 1)
    return false;
  auto shaped = dyn_cast<ShapedType>(op->getResult(0).getType());
  return !shaped || (shaped.hasStaticShape() && shaped.getNumElements() <= 1);
}

//===----------------------------------------------------------------------===//
// Library calls (opaque ops such as ByteIR's byre.compute_on_tensor)
//===----------------------------------------------------------------------===//

static int64_t extent(Value value, unsigned index) {
  auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
  if (!type || index >= type.getRank() || type.isDynamicDim(index))
    return 1;
  return type.getDimSize(index);
}

static int64_t elementsOf(Value value) {
  return value ? countElements(value.getType()) : 0;
}

/// Kernel taps per output element of a filter laid out [F, C/groups, ...].
static int64_t filterTaps(Value filter) {
  int64_t outChannels = extent(filter, 0);
  return outChannels ? elementsOf(filter) / outChannels : 0;
}

static int64_t productOf(Attribute attr) {
  int64_t result = 1;
  if (auto dense = dyn_cast_or_null<DenseIntElementsAttr>(attr))
    for (const APInt &v : dense.getValues<APInt>())
      result *= v.getSExtValue();
  return result;
}

/// Estimates a library call from its callee name (up to the first '_') and
/// operand shapes; the formulas are documented in docs/features.md.
static std::optional<OpWork> estimateLibraryCall(Operation *op) {
  auto callee = op->getAttrOfType<StringAttr>("callee");
  if (!callee)
    return std::nullopt;
  StringRef base = callee.getValue().split('_').first;
  unsigned numInputs = op->getNumOperands();
  if (auto segments =
          op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
      segments && !segments.empty())
    numInputs = std::min<unsigned>(segments[0], op->getNumOperands());
  auto in = [&](unsigned i) -> Value {
    return i < numInputs ? op->getOperand(i) : Value();
  };
  auto out = [&](unsigned i) -> Value {
    return i < op->getNumResults() ? op->getResult(i) : Value();
  };
  auto groups = op->getAttrOfType<IntegerAttr>("feature_group_count");
  OpKind convKind =
      groups && groups.getInt() > 1 ? OpKind::depthwise : OpKind::conv;

  OpWork work;
  if (base == "ConvOp") {
    work.kind = convKind;
    work.flops = 2 * elementsOf(out(0)) * filterTaps(in(1));
    work.weightOperands = {1};
  } else if (base == "ConvBackwardDataOp") {
    work.kind = convKind;
    work.flops = 2 * elementsOf(in(0)) * filterTaps(in(1));
    work.weightOperands = {1};
  } else if (base == "ConvBackwardFilterOp") {
    work.kind = convKind;
    work.flops = 2 * elementsOf(in(1)) * filterTaps(out(0));
  } else if (base == "MatmulOp") {
    auto contracting =
        op->getAttrOfType<IntegerAttr>("lhs_contracting_dimension");
    int64_t k = extent(in(0), contracting ? contracting.getInt() : 1);
    work.kind = OpKind::matmul;
    work.flops = 2 * elementsOf(out(0)) * k;
    work.weightOperands = {1};
  } else if (base == "BatchNormTrainingOp") {
    work.kind = OpKind::normalization;
    work.flops = 8 * elementsOf(in(0));
  } else if (base == "BatchNormGradOp") {
    work.kind = OpKind::normalization;
    work.flops = 10 * elementsOf(in(0));
  } else if (base == "PoolMaxOp" || base == "PoolAvgOp") {
    work.kind = OpKind::pooling;
    work.flops =
        elementsOf(out(0)) * productOf(op->getAttr("window_dimensions"));
  } else if (base == "PoolMaxGradOp") {
    work.kind = OpKind::pooling;
    work.flops =
        elementsOf(in(1)) * (productOf(op->getAttr("window_dimensions")) + 1);
  } else if (base == "ReduceSumOp" || base == "ReduceMaxOp" ||
             base == "ReduceMinOp" || base == "ReduceProdOp") {
    work.kind = OpKind::reduction;
    work.flops = elementsOf(in(0));
  } else {
    return std::nullopt;
  }
  work.histogram[static_cast<unsigned>(work.kind)] = 1;
  return work;
}

//===----------------------------------------------------------------------===//
// WorkloadProfiler
//===----------------------------------------------------------------------===//

static bool containsLoop(Operation *op) {
  bool found = false;
  op->walk([&](Operation *nested) {
    if (isa<LoopLikeOpInterface>(nested) ||
        nested->getName().getStringRef() == "tosa.while_loop") {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

OpWork WorkloadProfiler::getOpWork(Operation *op) {
  if (auto feature = dyn_cast<FeatureOpInterface>(op)) {
    OpWork work;
    work.kind = feature.getOpKind();
    work.flops = feature.getFlopCount();
    work.weightOperands = feature.getWeightOperandIndices();
    work.histogram[static_cast<unsigned>(work.kind)] = 1;
    work.hasLoops = op->getNumRegions() > 0 && work.kind == OpKind::control_flow
                        ? containsLoop(op)
                        : false;
    return work;
  }
  if (auto call = dyn_cast<CallOpInterface>(op)) {
    if (auto callee = dyn_cast_or_null<FunctionOpInterface>(
            call.resolveCallableInTable(&symbolTables));
        callee && !callee.isExternal())
      return summarizeCallee(callee);
  }
  if (!op->isRegistered())
    if (std::optional<OpWork> work = estimateLibraryCall(op))
      return *work;
  OpWork work;
  work.kind = OpKind::opaque;
  work.opaque = true;
  work.histogram[static_cast<unsigned>(OpKind::opaque)] = 1;
  return work;
}

OpWork WorkloadProfiler::summarizeCallee(FunctionOpInterface callee) {
  Operation *key = callee.getOperation();
  if (auto it = calleeSummaries.find(key); it != calleeSummaries.end())
    return it->second;
  OpWork summary;
  if (!calleesInProgress.insert(key).second) {
    // Recursion: the call's work cannot be bounded statically.
    summary.kind = OpKind::control_flow;
    summary.opaque = true;
    summary.hasLoops = true;
    summary.histogram[static_cast<unsigned>(OpKind::control_flow)] = 1;
    return summary;
  }
  calleesInProgress.erase(key);
  summarizeCalleesFirst(callee);
  calleesInProgress.insert(key);
  FeaturesAttr features = computeFeatures(callee);
  calleesInProgress.erase(key);
  summary.flops = features.getFlops();
  summary.depth = std::max<int64_t>(1, features.getDepth());
  summary.hasLoops = features.getHasLoops();
  for (auto [index, count] : llvm::enumerate(features.getOpHistogram()))
    summary.histogram[index] = count;
  // The call is named after its heaviest kind of work.
  static constexpr OpKind priority[] = {
      OpKind::opaque,    OpKind::control_flow, OpKind::conv,
      OpKind::depthwise, OpKind::matmul,       OpKind::normalization,
      OpKind::pooling,   OpKind::reduction,    OpKind::elementwise};
  summary.kind = OpKind::data_movement;
  for (OpKind kind : priority)
    if (features.getOpCount(kind) > 0) {
      summary.kind = kind;
      break;
    }
  summary.opaque = summary.kind == OpKind::opaque;
  calleeSummaries[key] = summary;
  return summary;
}

/// Summarizes the functions `root` reaches through calls, deepest first, with
/// an explicit stack: when `root`'s own features are then computed, every
/// call it makes is a cache hit, so a chain of thousands of calls does not
/// recurse thousands of frames deep. Cycles are left to summarizeCallee.
void WorkloadProfiler::summarizeCalleesFirst(FunctionOpInterface root) {
  auto calleesOf = [&](Operation *function) {
    SmallVector<Operation *> callees;
    function->walk([&](CallOpInterface call) {
      if (auto callee = dyn_cast_or_null<FunctionOpInterface>(
              call.resolveCallableInTable(&symbolTables));
          callee && !callee.isExternal())
        callees.push_back(callee);
    });
    return callees;
  };
  struct Frame {
    Operation *function;
    SmallVector<Operation *> callees;
    size_t next = 0;
  };
  SmallVector<Frame> stack;
  llvm::DenseSet<Operation *> onStack;
  stack.push_back({root, calleesOf(root)});
  onStack.insert(root);
  while (!stack.empty()) {
    Frame &top = stack.back();
    if (top.next < top.callees.size()) {
      Operation *callee = top.callees[top.next++];
      if (calleeSummaries.count(callee) || onStack.count(callee) ||
          calleesInProgress.count(callee))
        continue;
      onStack.insert(callee);
      stack.push_back({callee, calleesOf(callee)});
      continue;
    }
    Operation *function = top.function;
    stack.pop_back();
    onStack.erase(function);
    if (function != root.getOperation() && !calleeSummaries.count(function))
      summarizeCallee(cast<FunctionOpInterface>(function));
  }
}

namespace {
/// Sums features over a set of ops in program order.
class FeatureAccumulator {
public:
  FeatureAccumulator(WorkloadProfiler &profiler, const PhaseAnalysis *phases)
      : profiler(profiler), phases(phases) {}

  /// A value entering the set of ops (`inner` is how the ops see it: a
  /// region's body argument for its operand).
  void addBoundaryInput(Value inner) {
    bytesRead = saturatingAdd(bytesRead, countBytes(inner.getType()));
    addRows(inner);
    noteValue(inner);
  }
  void addBoundaryOutput(Value inner) {
    bytesWritten = saturatingAdd(bytesWritten, countBytes(inner.getType()));
    addRows(inner);
    noteValue(inner);
  }

  /// How an op enters the sums: not at all (terminators, cloned leaves), as
  /// data read (a tensor constant used in place), or with its work.
  enum class Contribution { none, data, work };
  static Contribution contributionOf(Operation *op) {
    if (op->hasTrait<OpTrait::IsTerminator>() || isCloneableLeaf(op))
      return Contribution::none;
    if (op->hasTrait<OpTrait::ConstantLike>())
      return Contribution::data;
    return Contribution::work;
  }

  void addOp(Operation *op) {
    switch (contributionOf(op)) {
    case Contribution::none:
      return;
    case Contribution::data:
      addData(op);
      return;
    case Contribution::work:
      addWork(op, profiler.getOpWork(op));
      return;
    }
  }

  void addData(Operation *op) {
    for (Value result : op->getResults())
      addBoundaryInput(result);
  }

  void addWork(Operation *op, const OpWork &work) {
    flops = saturatingAdd(flops, work.flops);
    for (auto [index, count] : llvm::enumerate(work.histogram))
      histogram[index] += count;
    hasLoops |= work.hasLoops;

    int64_t producerDepth = 0;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (auto it = depthOf.find(def); it != depthOf.end())
          producerDepth = std::max(producerDepth, it->second);
    int64_t depth = producerDepth + work.depth;
    depthOf[op] = depth;
    maxDepth = std::max(maxDepth, depth);

    for (Value operand : op->getOperands())
      noteValue(operand);
    for (Value result : op->getResults())
      noteValue(result);

    for (unsigned index : work.weightOperands) {
      if (index >= op->getNumOperands())
        continue;
      Value weight = op->getOperand(index);
      Value source = profiler.traceWeightSource(weight);
      if (source && weightSources.insert(source).second) {
        params = saturatingAdd(params, countElements(weight.getType()));
        paramBytes = saturatingAdd(paramBytes, countBytes(weight.getType()));
      }
      // A weight is no activation: its rows leave the count (as the
      // region sees it, and as the function does).
      for (Value seen : {weight, source})
        if (auto it = rowsOf.find(seen); seen && it != rowsOf.end()) {
          rows -= it->second;
          rowsOf.erase(it);
        }
    }

    if (phases) {
      Phase phase = phases->lookup(op);
      if (phase != Phase::unknown)
        seenPhases.insert(static_cast<unsigned>(phase));
      weightGradient |= phases->isWeightGradient(op);
    }
  }

  FeaturesAttr build(MLIRContext *context) {
    Phase phase = Phase::unknown;
    if (seenPhases.size() == 1)
      phase = static_cast<Phase>(*seenPhases.begin());
    else if (seenPhases.size() > 1)
      phase = Phase::mixed;
    return FeaturesAttr::get(context, flops, bytesRead, bytesWritten, params,
                             paramBytes, histogram, maxDepth,
                             elementTypes.getArrayRef(), dynamicDims, maxDim,
                             maxRank, rows, hasLoops, phase, weightGradient);
  }

private:
  /// Rows of a static tensor crossing the boundary: its elements over its
  /// last extent (a scalar or vector is one row). Constants are no
  /// activations (a backend folds or packs them with the program).
  void addRows(Value value) {
    auto shaped = dyn_cast<ShapedType>(value.getType());
    if (!shaped || !shaped.hasStaticShape() || rowsOf.count(value))
      return;
    Value outer = value;
    if (auto arg = dyn_cast<BlockArgument>(value))
      if (auto region = dyn_cast<RegionOp>(arg.getOwner()->getParentOp()))
        outer = region.getInputs()[arg.getArgNumber()];
    if (Operation *def = outer.getDefiningOp())
      if (def->hasTrait<OpTrait::ConstantLike>())
        return;
    int64_t elements = shaped.getNumElements();
    int64_t last = shaped.getRank() > 0 ? shaped.getShape().back() : 1;
    int64_t count = last > 0 ? elements / last : 0;
    rowsOf[value] = count;
    rows = saturatingAdd(rows, count);
  }

  void noteValue(Value value) {
    if (!seenValues.insert(value).second)
      return;
    Type type = value.getType();
    Type element = getElementTypeOrSelf(type);
    if (element.isIntOrFloat() || isa<ComplexType>(element))
      elementTypes.insert(element);
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      return;
    maxRank = std::max<int64_t>(maxRank, shaped.getRank());
    for (int64_t dim : shaped.getShape()) {
      if (ShapedType::isDynamic(dim))
        ++dynamicDims;
      else
        maxDim = std::max(maxDim, dim);
    }
  }

  WorkloadProfiler &profiler;
  const PhaseAnalysis *phases;
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0, params = 0,
          paramBytes = 0, maxDepth = 0, dynamicDims = 0, maxDim = 0,
          maxRank = 0, rows = 0;
  llvm::DenseMap<Value, int64_t> rowsOf;
  SmallVector<int64_t> histogram = SmallVector<int64_t>(kNumOpKinds, 0);
  bool hasLoops = false;
  llvm::SetVector<Type> elementTypes;
  llvm::DenseSet<Value> seenValues;
  llvm::DenseSet<Value> weightSources;
  llvm::DenseMap<Operation *, int64_t> depthOf;
  std::set<unsigned> seenPhases;
  bool weightGradient = false;
};
} // namespace

/// Adds `region` to `own` (its boundary and ops, when given) and its ops to
/// `total` (a function's sums looking through the region, when given),
/// asking each op for its work once; `onOp` sees every op that does work.
static void
accumulateRegion(WorkloadProfiler &profiler, RegionOp region,
                 FeatureAccumulator *own, FeatureAccumulator *total,
                 function_ref<void(Operation *, const OpWork &)> onOp) {
  using Contribution = FeatureAccumulator::Contribution;
  if (own) {
    for (BlockArgument arg : region.getBodyBlock().getArguments())
      own->addBoundaryInput(arg);
    if (YieldOp yield = region.getYield())
      for (Value value : yield.getValues())
        own->addBoundaryOutput(value);
  }
  for (Operation &op : region.getBodyBlock()) {
    switch (FeatureAccumulator::contributionOf(&op)) {
    case Contribution::none:
      break;
    case Contribution::data:
      for (FeatureAccumulator *acc : {own, total})
        if (acc)
          acc->addData(&op);
      break;
    case Contribution::work: {
      OpWork work = profiler.getOpWork(&op);
      if (onOp)
        onOp(&op, work);
      for (FeatureAccumulator *acc : {own, total})
        if (acc)
          acc->addWork(&op, work);
      break;
    }
    }
  }
}

FeaturesAttr WorkloadProfiler::computeFeatures(
    RegionOp region, const PhaseAnalysis *phases,
    function_ref<void(Operation *, const OpWork &)> onOp) {
  FeatureAccumulator own(*this, phases);
  accumulateRegion(*this, region, &own, /*total=*/nullptr, onOp);
  return own.build(region.getContext());
}

FeaturesAttr WorkloadProfiler::profileFunction(
    FunctionOpInterface function, const PhaseAnalysis *phases,
    function_ref<void(RegionOp, FeaturesAttr)> setRegionFeatures,
    function_ref<void(Operation *, const OpWork &)> onOp) {
  FeatureAccumulator total(*this, phases);
  for (BlockArgument arg : function.getArguments())
    total.addBoundaryInput(arg);
  for (Block &block : function.getFunctionBody()) {
    Operation *terminator =
        block.mightHaveTerminator() ? block.getTerminator() : nullptr;
    if (terminator && terminator->hasTrait<OpTrait::ReturnLike>())
      for (Value value : terminator->getOperands())
        total.addBoundaryOutput(value);
    for (Operation &op : block) {
      auto region = dyn_cast<RegionOp>(op);
      if (!region) {
        total.addOp(&op);
        continue;
      }
      if (!setRegionFeatures) {
        accumulateRegion(*this, region, /*own=*/nullptr, &total, onOp);
        continue;
      }
      FeatureAccumulator own(*this, phases);
      accumulateRegion(*this, region, &own, &total, onOp);
      setRegionFeatures(region, own.build(region.getContext()));
    }
  }
  return total.build(function->getContext());
}

FeaturesAttr WorkloadProfiler::computeFeatures(FunctionOpInterface function,
                                               const PhaseAnalysis *phases) {
  return profileFunction(function, phases, /*setRegionFeatures=*/nullptr);
}

/// Follows a weight operand back through region boundaries, casts and data
/// movement to a function argument or constant; null when it is computed.
Value WorkloadProfiler::traceWeightSource(Value value) {
  for (int steps = 0; steps < 64 && value; ++steps) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Operation *parent = arg.getOwner()->getParentOp();
      if (auto region = dyn_cast<RegionOp>(parent)) {
        value = region.getInputs()[arg.getArgNumber()];
        continue;
      }
      if (isa<FunctionOpInterface>(parent) && arg.getOwner()->isEntryBlock())
        return isa<ShapedType>(value.getType()) ? value : Value();
      return {};
    }
    Operation *def = value.getDefiningOp();
    if (def->hasTrait<OpTrait::ConstantLike>())
      return isa<ShapedType>(value.getType()) ? value : Value();
    if (auto region = dyn_cast<RegionOp>(def)) {
      YieldOp yield = region.getYield();
      if (!yield)
        return {};
      value = yield.getValues()[cast<OpResult>(value).getResultNumber()];
      continue;
    }
    if (def->getNumOperands() == 0 || isCloneableLeaf(def))
      return {};
    OpWork work = getOpWork(def);
    bool movesOnly =
        !work.opaque && (work.kind == OpKind::data_movement || work.flops == 0);
    if (!movesOnly)
      return {};
    value = def->getOperand(0);
  }
  return {};
}

llvm::SmallPtrSet<Value, 8>
WorkloadProfiler::weightArguments(FunctionOpInterface function) {
  llvm::SmallPtrSet<Value, 8> weights;
  // Pre-order, not into linalg payloads (scalar code without weights).
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<RegionOp, YieldOp>(op) || op == function.getOperation())
      return WalkResult::advance();
    // Only the weight operands: FLOP counts are not needed here.
    SmallVector<unsigned> weightOperands;
    if (auto feature = dyn_cast<FeatureOpInterface>(op))
      weightOperands = feature.getWeightOperandIndices();
    else
      weightOperands = getOpWork(op).weightOperands;
    for (unsigned index : weightOperands)
      if (index < op->getNumOperands())
        if (Value source = traceWeightSource(op->getOperand(index));
            source && isa<BlockArgument>(source))
          weights.insert(source);
    return isa<linalg::LinalgOp>(op) ? WalkResult::skip()
                                     : WalkResult::advance();
  });
  return weights;
}

//===----------------------------------------------------------------------===//
// PhaseAnalysis
//===----------------------------------------------------------------------===//

static std::optional<Phase> phaseFromName(StringRef name) {
  std::string lower = name.lower();
  StringRef text(lower);
  if (text.contains("backward") || text.contains("grad") ||
      text.contains("bwd"))
    return Phase::backward;
  if (text.contains("optimizer") || text.contains("sgd") ||
      text.contains("adam") || text.contains("update"))
    return Phase::optimizer;
  if (text.contains("forward") || text.contains("fwd") ||
      text.contains("predict") || text.contains("infer"))
    return Phase::forward;
  return std::nullopt;
}

static std::optional<Phase> explicitPhase(Operation *op) {
  if (auto attr = HwAgentDialect::PhaseAttrHelper(op->getContext()).getAttr(op))
    return attr.getValue();
  return std::nullopt;
}

/// The op computing `value`, looking through hwagent.region boundaries; null
/// for function arguments.
static Operation *resolveProducer(Value value) {
  for (int steps = 0; steps < 8 && value; ++steps) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto region = dyn_cast<RegionOp>(arg.getOwner()->getParentOp());
      if (!region)
        return nullptr;
      value = region.getInputs()[arg.getArgNumber()];
      continue;
    }
    Operation *def = value.getDefiningOp();
    auto region = dyn_cast<RegionOp>(def);
    if (!region)
      return def;
    YieldOp yield = region.getYield();
    if (!yield)
      return nullptr;
    value = yield.getValues()[cast<OpResult>(value).getResultNumber()];
  }
  return nullptr;
}

/// The function argument `value` is, looking through region boundaries.
static BlockArgument resolveArgument(Value value) {
  for (int steps = 0; steps < 8 && value; ++steps) {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg)
      return {};
    auto region = dyn_cast<RegionOp>(arg.getOwner()->getParentOp());
    if (!region)
      return arg;
    value = region.getInputs()[arg.getArgNumber()];
  }
  return {};
}

static bool isScalarLike(Type type) {
  if (type.isIntOrFloat())
    return true;
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasStaticShape() && shaped.getNumElements() <= 1;
}

/// The phase a function declares (attribute) or is named after.
static Phase declaredPhase(FunctionOpInterface function) {
  if (std::optional<Phase> phase = explicitPhase(function))
    return *phase;
  if (std::optional<Phase> named = phaseFromName(function.getName()))
    return *named;
  return Phase::unknown;
}

bool PhaseAnalysis::isTrainingStep(FunctionOpInterface function) {
  return declaredPhase(function) == Phase::unknown &&
         function.getNumResults() >= 2 &&
         isScalarLike(function.getResultTypes()[0]);
}

PhaseAnalysis::PhaseAnalysis(FunctionOpInterface function) {
  functionPhase = declaredPhase(function);

  // Atomic ops: the function's ops with region bodies flattened.
  SmallVector<Operation *> atomic;
  SmallVector<Operation *> returns;
  for (Block &block : function.getFunctionBody())
    for (Operation &op : block) {
      if (auto region = dyn_cast<RegionOp>(op)) {
        for (Operation &inner : region.getBodyBlock())
          if (!isa<YieldOp>(inner))
            atomic.push_back(&inner);
        continue;
      }
      if (op.hasTrait<OpTrait::ReturnLike>())
        returns.push_back(&op);
      else
        atomic.push_back(&op);
    }

  // Data flow of the training-step convention: result 0 is the loss (a
  // scalar) and further results are updated parameters or gradients.
  llvm::DenseSet<Operation *> forward, optimizer, reachesResult;
  trainingStep = isTrainingStep(function);
  if (trainingStep) {
    auto backwardSlice = [&](ArrayRef<Value> roots,
                             llvm::DenseSet<Operation *> &slice) {
      SmallVector<Operation *> worklist;
      for (Value root : roots)
        if (Operation *producer = resolveProducer(root))
          if (slice.insert(producer).second)
            worklist.push_back(producer);
      while (!worklist.empty()) {
        Operation *op = worklist.pop_back_val();
        forEachInput(op, [&](Value input) {
          if (Operation *producer = resolveProducer(input))
            if (slice.insert(producer).second)
              worklist.push_back(producer);
        });
      }
    };
    SmallVector<Value> losses, others;
    llvm::DenseSet<Type> parameterTypes;
    llvm::DenseSet<Operation *> returnedProducers;
    for (Operation *ret : returns) {
      if (ret->getNumOperands() > 0)
        losses.push_back(ret->getOperand(0));
      for (Value value : ret->getOperands().drop_front()) {
        others.push_back(value);
        parameterTypes.insert(value.getType());
        if (Operation *producer = resolveProducer(value))
          returnedProducers.insert(producer);
      }
    }
    backwardSlice(losses, forward);
    backwardSlice(others, reachesResult);
    for (Operation *op : atomic) {
      if (forward.contains(op) || !returnedProducers.contains(op))
        continue;
      auto feature = dyn_cast<FeatureOpInterface>(op);
      if (!feature || feature.getOpKind() != OpKind::elementwise)
        continue;
      bool readsParameter = false;
      for (Value operand : op->getOperands())
        if (BlockArgument arg = resolveArgument(operand))
          readsParameter |= parameterTypes.contains(arg.getType());
      if (readsParameter)
        optimizer.insert(op);
    }
  }

  for (Operation *op : atomic) {
    Phase phase = functionPhase;
    if (std::optional<Phase> given = explicitPhase(op)) {
      phase = *given;
    } else if (auto callee = op->getAttrOfType<StringAttr>("callee");
               callee && !op->isRegistered() &&
               phaseFromName(callee.getValue()) == Phase::backward) {
      phase = Phase::backward;
    } else if (trainingStep) {
      if (forward.contains(op))
        phase = Phase::forward;
      else if (optimizer.contains(op))
        phase = Phase::optimizer;
      else if (reachesResult.contains(op))
        phase = Phase::backward;
    }
    if (phase != Phase::unknown)
      phases[op] = phase;
  }

  // Weight gradients: from each optimizer op back through backward
  // elementwise and data-movement ops to the contraction or reduction that
  // produced the gradient.
  SmallVector<Operation *> worklist(optimizer.begin(), optimizer.end());
  llvm::DenseSet<Operation *> visited(optimizer.begin(), optimizer.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    forEachInput(op, [&](Value input) {
      Operation *producer = resolveProducer(input);
      if (!producer || !visited.insert(producer).second ||
          lookup(producer) != Phase::backward)
        return;
      weightGradients.insert(producer);
      auto feature = dyn_cast<FeatureOpInterface>(producer);
      OpKind kind = feature ? feature.getOpKind() : OpKind::opaque;
      if (kind == OpKind::elementwise || kind == OpKind::data_movement)
        worklist.push_back(producer);
    });
  }
}

Phase PhaseAnalysis::lookup(Operation *op) const {
  auto it = phases.find(op);
  return it == phases.end() ? Phase::unknown : it->second;
}

bool hwagent::weightsChangeEveryStep(FunctionOpInterface function,
                                     bool training) {
  if (auto *dialect =
          function->getContext()->getLoadedDialect<HwAgentDialect>())
    if (Operation *module = function->getParentOp();
        module && dialect->getWeightsAsInputsAttrHelper().isAttrPresent(module))
      return true;
  return training && PhaseAnalysis::isTrainingStep(function);
}

llvm::SmallPtrSet<Value, 8>
hwagent::residentWeights(FunctionOpInterface function, bool training,
                         WorkloadProfiler &profiler) {
  llvm::SmallPtrSet<Value, 8> resident;
  if (!weightsChangeEveryStep(function, training))
    resident = profiler.weightArguments(function);
  // Constants never change: they are compiled into whatever uses them.
  for (Block &block : function.getFunctionBody())
    for (Operation &op : block)
      if (op.hasTrait<OpTrait::ConstantLike>())
        for (Value result : op.getResults())
          if (isa<ShapedType>(result.getType()))
            resident.insert(result);
  return resident;
}
