//===- WorkloadProfile.cpp - per-region features (profile_workload) -------===//
//
// The profiler: the work of every op (its own, a callee's summary, an opaque
// library call's estimate from LibraryCalls.cpp) accumulated into each
// region's #hwagent.features; the phases come from PhaseAnalysis.cpp.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Analysis/WorkloadProfile.h"

#include "LibraryCalls.h"

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
    if (work.kind == OpKind::conv)
      work.winogradFlops = winogradEligibleFlops(op, work.flops);
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
    if (std::optional<OpWork> work = detail::estimateLibraryCall(op))
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
  summary.winogradFlops = features.getWinogradFlops();
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
    winogradFlops =
        std::min(flops, saturatingAdd(winogradFlops, work.winogradFlops));
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
      noteValue(operand, /*boundary=*/false);
    for (Value result : op->getResults())
      noteValue(result, /*boundary=*/false);

    for (unsigned index : work.weightOperands) {
      if (index >= op->getNumOperands())
        continue;
      Value weight = op->getOperand(index);
      Value source = profiler.traceWeightSource(weight);
      if (source && weightSources.insert(source).second) {
        // The narrower of the weight as stored and as the op reads it: an
        // int8 or f16 weight widened by a cast inside the region is read at
        // its own size, as int8 inference kernels read it; one narrowed by
        // another region is read narrowed (docs/workloads.md).
        int64_t bytes = countBytes(weight.getType());
        if (countElements(source.getType()) == countElements(weight.getType()))
          bytes = std::min(bytes, countBytes(source.getType()));
        params = saturatingAdd(params, countElements(weight.getType()));
        paramBytes = saturatingAdd(paramBytes, bytes);
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
    return FeaturesAttr::get(
        context, flops, bytesRead, bytesWritten, params, paramBytes, histogram,
        maxDepth, elementTypes.getArrayRef(), dynamicDims, maxDim, maxRank,
        rows, hasLoops, phase, weightGradient, winogradFlops);
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

  /// Records a value's element type and dimensions. An i1 value inside the
  /// ops (a comparison's mask feeding a select, as PyTorch writes ReLU's
  /// gradient and causal masks) is not a type the backend receives: its
  /// compiler keeps masks in its own form (fp16 0/1 on the ANE). Only i1
  /// crossing the boundary counts.
  void noteValue(Value value, bool boundary = true) {
    if (!seenValues.insert(value).second)
      return;
    Type type = value.getType();
    Type element = getElementTypeOrSelf(type);
    if ((element.isIntOrFloat() || isa<ComplexType>(element)) &&
        (boundary || !element.isInteger(1)))
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
          maxRank = 0, rows = 0, winogradFlops = 0;
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
