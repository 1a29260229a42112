//===- PhaseAnalysis.cpp - training phases and resident weights -----------===//
//
// Which training phase (forward, backward, optimizer) each op of a step
// belongs to, from explicit #hwagent.phase attributes, names, and the data
// flow from the loss; and which weights stay resident between steps.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Analysis/WorkloadProfile.h"

#include "HwAgent/Analysis/Utils.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::hwagent;

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

namespace {
/// What the training-step convention tells of a step's ops: result 0 is
/// the loss (a scalar) and further results are updated parameters or
/// gradients.
struct StepSlices {
  /// Ops the loss depends on, elementwise updates of parameters (the
  /// optimizer), ops the other results depend on, and forward-side state
  /// (running statistics: see forwardSideState).
  llvm::DenseSet<Operation *> forward, optimizer, reachesResult, forwardState;
};
} // namespace

/// The function's ops with region bodies flattened (`atomic`), and its
/// returns.
static void flattenOps(FunctionOpInterface function,
                       SmallVectorImpl<Operation *> &atomic,
                       SmallVectorImpl<Operation *> &returns) {
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
}

/// Adds to `slice` the producers `roots` depend on, transitively.
static void backwardSlice(ArrayRef<Value> roots,
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
}

/// Forward-side state: results that update state the forward pass does not
/// read (BatchNorm's running mean and variance, counters) from its
/// statistics. A result updates a parameter when, walking back outside the
/// loss's slice, it reaches an argument the forward pass reads (the weight
/// itself, or a gradient, which reads the weights); every other op outside
/// the loss's slice that only results read is forward-side state: neither
/// backward work nor an optimizer update. Atomic ops are in program order,
/// so one pass sees every producer first.
static void forwardSideState(ArrayRef<Operation *> atomic,
                             ArrayRef<Value> others, StepSlices &s) {
  llvm::DenseSet<Value> readByForward;
  for (Operation *op : s.forward)
    forEachInput(op, [&](Value input) {
      if (BlockArgument arg = resolveArgument(input))
        readByForward.insert(arg);
    });
  llvm::DenseSet<Operation *> touchesParameters;
  for (Operation *op : atomic) {
    if (s.forward.contains(op))
      continue;
    bool touches = false;
    forEachInput(op, [&](Value input) {
      if (BlockArgument arg = resolveArgument(input))
        touches |= readByForward.contains(arg);
      else if (Operation *producer = resolveProducer(input))
        touches |= touchesParameters.contains(producer);
    });
    if (touches)
      touchesParameters.insert(op);
  }
  SmallVector<Value> parameterUpdates;
  for (Value value : others) {
    Operation *producer = resolveProducer(value);
    if (!producer || touchesParameters.contains(producer))
      parameterUpdates.push_back(value);
  }
  llvm::DenseSet<Operation *> updateSlice;
  backwardSlice(parameterUpdates, updateSlice);
  for (Operation *op : atomic)
    if (s.reachesResult.contains(op) && !s.forward.contains(op) &&
        !updateSlice.contains(op))
      s.forwardState.insert(op);
}

/// The values `op` computes from: a linalg op's inputs, not the buffers it
/// writes into.
static SmallVector<Value> dataInputs(Operation *op) {
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return llvm::to_vector(dps.getDpsInputs());
  return llvm::to_vector(op->getOperands());
}

static OpKind kindOf(Operation *op) {
  auto feature = dyn_cast<FeatureOpInterface>(op);
  return feature ? feature.getOpKind() : OpKind::opaque;
}

/// Elementwise work, casts and broadcasts, and a division by a root
/// (profiled as normalization), without a reduction: what an update is
/// made of, where a gradient ends in a contraction or a reduction.
static bool isPointwise(Operation *op) {
  OpKind kind = kindOf(op);
  if (kind != OpKind::elementwise && kind != OpKind::data_movement &&
      kind != OpKind::normalization)
    return false;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return !linalgOp || linalgOp.getNumReductionLoops() == 0;
}

/// The rest of the update behind the ops that write the parameters and
/// their state (`s.optimizer`): Adam's bias-corrected moments and
/// denominator, a weight decay. Walking back from the update, a state-only
/// op (`stateOnly`) whose every use is in the update belongs to it.
/// Atomic ops are in program order, so one pass in reverse sees every user
/// of an op before the op.
static void growOptimizer(ArrayRef<Operation *> atomic,
                          const llvm::DenseSet<Operation *> &stateOnly,
                          StepSlices &s) {
  llvm::DenseMap<Operation *, SmallVector<Operation *, 2>> users;
  for (Operation *op : atomic)
    forEachInput(op, [&](Value input) {
      if (Operation *producer = resolveProducer(input))
        users[producer].push_back(op);
    });
  for (Operation *op : llvm::reverse(atomic)) {
    if (s.optimizer.contains(op) || !stateOnly.contains(op))
      continue;
    auto it = users.find(op);
    if (it == users.end())
      continue;
    if (llvm::all_of(it->second, [&](Operation *user) {
          return s.optimizer.contains(user);
        }))
      s.optimizer.insert(op);
  }
}

static StepSlices traceStep(ArrayRef<Operation *> atomic,
                            ArrayRef<Operation *> returns) {
  StepSlices s;
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
  backwardSlice(losses, s.forward);
  backwardSlice(others, s.reachesResult);
  forwardSideState(atomic, others, s);
  // The update's state-only part: elementwise ops outside the loss's slice
  // whose data are the parameters and their state (arguments of a returned
  // type), constants, the new state (a step counter's is forward-side
  // state) and such ops: `p * (1 - lr * wd)`, Adam's bias corrections and
  // sqrt(v) + eps, and the casts and broadcasts between them. A returned
  // elementwise op reading the state, directly or through them, writes the
  // update. A gradient reads the loss's slice, so `sum(x) * w` stays
  // backward work.
  llvm::DenseSet<Operation *> stateOnly;
  for (Operation *op : atomic) {
    OpKind kind = kindOf(op);
    if (s.forward.contains(op) || s.forwardState.contains(op) ||
        !isPointwise(op) || explicitPhase(op))
      continue;
    bool readsState = false, onlyState = true;
    for (Value operand : dataInputs(op)) {
      bool state = false;
      if (BlockArgument arg = resolveArgument(operand)) {
        state = parameterTypes.contains(arg.getType());
      } else if (Operation *producer = resolveProducer(operand)) {
        if (producer->hasTrait<OpTrait::ConstantLike>())
          continue;
        state = stateOnly.contains(producer) ||
                s.optimizer.contains(producer) ||
                s.forwardState.contains(producer);
      }
      readsState |= state;
      onlyState &= state;
    }
    if (!readsState)
      continue;
    if (onlyState)
      stateOnly.insert(op);
    if (kind == OpKind::elementwise && returnedProducers.contains(op))
      s.optimizer.insert(op);
  }
  growOptimizer(atomic, stateOnly, s);
  return s;
}

PhaseAnalysis::PhaseAnalysis(FunctionOpInterface function) {
  functionPhase = declaredPhase(function);
  SmallVector<Operation *> atomic, returns;
  flattenOps(function, atomic, returns);
  StepSlices slices;
  trainingStep = isTrainingStep(function);
  if (trainingStep)
    slices = traceStep(atomic, returns);

  for (Operation *op : atomic) {
    Phase phase = functionPhase;
    if (std::optional<Phase> given = explicitPhase(op)) {
      phase = *given;
    } else if (auto callee = op->getAttrOfType<StringAttr>("callee");
               callee && !op->isRegistered() &&
               phaseFromName(callee.getValue()) == Phase::backward) {
      phase = Phase::backward;
    } else if (trainingStep) {
      if (slices.forward.contains(op) || slices.forwardState.contains(op))
        phase = Phase::forward;
      else if (slices.optimizer.contains(op))
        phase = Phase::optimizer;
      else if (slices.reachesResult.contains(op))
        phase = Phase::backward;
    }
    if (phase != Phase::unknown)
      phases[op] = phase;
  }
  markWeightGradients(slices.optimizer);
}

void PhaseAnalysis::markWeightGradients(
    const llvm::DenseSet<Operation *> &optimizer) {
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
