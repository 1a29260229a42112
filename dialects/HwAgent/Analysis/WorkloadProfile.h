//===- WorkloadProfile.h - per-region features (profile_workload) -*- C++
//-*-===//
//
// Computes #hwagent.features for hwagent.region ops and whole functions from
// the per-op FeatureOpInterface, library-call estimators for opaque ops and a
// training-phase analysis. Conventions: docs/features.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_WORKLOADPROFILE_H
#define HWAGENT_ANALYSIS_WORKLOADPROFILE_H

#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <array>
#include <optional>

namespace mlir::hwagent {

/// What one op contributes to the features of the region holding it.
struct OpWork {
  /// Histogram bucket of the op itself.
  OpKind kind = OpKind::opaque;
  int64_t flops = 0;
  /// FLOPs of convolutions Winograd applies to (FeaturesAttr's
  /// winograd_flops).
  int64_t winogradFlops = 0;
  /// Operand positions holding weights (see FeatureOpInterface).
  SmallVector<unsigned> weightOperands;
  /// Ops counted for the histogram: the op itself, or a callee's ops.
  std::array<int64_t, kNumOpKinds> histogram{};
  /// Longest op chain the op stands for (1, or a callee's depth).
  int64_t depth = 1;
  bool hasLoops = false;
  /// No estimator knows the op: its FLOPs are unknown (counted 0).
  bool opaque = false;
};

/// Ops that form-regions clones into every region using them rather than
/// making them region operands: scalar/one-element constants, tensor.empty
/// (a shape, not data) and linalg.fill of such leaves (an initializer).
bool isCloneableLeaf(Operation *op);

/// Training phase of every op of a function (docs/features.md, "Training
/// phase"): an explicit `hwagent.phase` attribute, library callee names
/// (…Backward…, …Grad…), the function name, then data flow of the training
/// step convention (result 0 is the loss, parameters come back updated).
class PhaseAnalysis {
public:
  explicit PhaseAnalysis(FunctionOpInterface function);
  /// Phase of `op`, an op of the function or of a region body in it.
  Phase lookup(Operation *op) const;
  /// Whether `op` computes a gradient of the parameters: a backward
  /// contraction or reduction whose result reaches the optimizer update
  /// through elementwise ops only (a dW, a bias gradient), or one of those
  /// elementwise ops. Input gradients (dX) are not.
  bool isWeightGradient(Operation *op) const {
    return weightGradients.contains(op);
  }
  /// The function is a training step: it returns a scalar loss first and
  /// further results (updated parameters or gradients), so its weights
  /// change every step. A forward pass keeps them.
  bool isTrainingStep() const { return trainingStep; }
  /// The same without analyzing the body: it depends on the signature and
  /// the declared phase only.
  static bool isTrainingStep(FunctionOpInterface function);

private:
  /// The backward ops whose results reach `optimizer` ops through
  /// elementwise and data-movement ops only.
  void markWeightGradients(const llvm::DenseSet<Operation *> &optimizer);

  bool trainingStep = false;
  llvm::DenseMap<Operation *, Phase> phases;
  llvm::DenseSet<Operation *> weightGradients;
  Phase functionPhase = Phase::unknown;
};

/// Profiles regions and functions. Caches callee summaries; one instance per
/// module and thread.
class WorkloadProfiler {
public:
  explicit WorkloadProfiler(Operation *symbolTableOp)
      : symbolTableOp(symbolTableOp) {}

  /// Work of one op. Ops implementing FeatureOpInterface answer themselves;
  /// func.call sums its callee; unregistered library calls with a `callee`
  /// string attribute are estimated from the callee name and operand shapes;
  /// anything else is opaque.
  OpWork getOpWork(Operation *op);

  /// Features of `region`; phases come from `phases` when given. `onOp`
  /// sees every op that does work, with its work.
  FeaturesAttr
  computeFeatures(RegionOp region, const PhaseAnalysis *phases = nullptr,
                  function_ref<void(Operation *, const OpWork &)> onOp = {});

  /// Features of a whole function body as if it were one region (looking
  /// through any hwagent.region already in it).
  FeaturesAttr computeFeatures(FunctionOpInterface function,
                               const PhaseAnalysis *phases = nullptr);

  /// computeFeatures(function) and, passed to `setRegionFeatures` when
  /// given, computeFeatures(region) of every hwagent.region directly in its
  /// body, asking each op for its work once; `onOp` sees every op of those
  /// regions that does work.
  FeaturesAttr profileFunction(
      FunctionOpInterface function, const PhaseAnalysis *phases,
      function_ref<void(RegionOp, FeaturesAttr)> setRegionFeatures,
      function_ref<void(Operation *, const OpWork &)> onOp = nullptr);

  /// The function arguments (or constants) a weight operand comes from,
  /// looking through region boundaries, casts and data movement; null when
  /// it is computed.
  Value traceWeightSource(Value value);

  /// The arguments of `function` that are weights of its contractions.
  llvm::SmallPtrSet<Value, 8> weightArguments(FunctionOpInterface function);

private:
  OpWork summarizeCallee(FunctionOpInterface callee);
  void summarizeCalleesFirst(FunctionOpInterface root);

  Operation *symbolTableOp;
  SymbolTableCollection symbolTables;
  llvm::DenseMap<Operation *, OpWork> calleeSummaries;
  llvm::SmallPtrSet<Operation *, 4> calleesInProgress;
};

/// Data that stays on whatever backend holds it between steps: tensor
/// constants, and the weight arguments of a function whose weights do not
/// change every step (inference, or a forward pass that is not a training
/// step). It crosses no boundary at run time; a training step's weights,
/// updated every step, do. `training` is the estimate's setting.
llvm::SmallPtrSet<Value, 8> residentWeights(FunctionOpInterface function,
                                            bool training,
                                            WorkloadProfiler &profiler);

/// Whether weights change every step in `function`: `training` and the
/// function is a training step.
bool weightsChangeEveryStep(FunctionOpInterface function, bool training);

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_WORKLOADPROFILE_H
