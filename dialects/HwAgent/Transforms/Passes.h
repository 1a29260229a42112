//===- Passes.h - hwagent passes --------------------------------*- C++ -*-===//

#ifndef HWAGENT_TRANSFORMS_PASSES_H
#define HWAGENT_TRANSFORMS_PASSES_H

#include "HwAgent/Core/Target.h"
#include "HwAgent/Core/Vocabulary.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/Transforms/RegionFormation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::hwagent {

/// A vocabulary enum as command-line values (its names and descriptions):
/// one list for a pass option, the pipeline's and hwagent-run's.
template <typename Enum, size_t N> struct VocabularyValues {
  const std::array<Enum, N> &all;
  const char *(*name)(Enum);
  const char *(*describe)(Enum);
  template <typename Opt> void apply(Opt &option) const {
    for (Enum value : all)
      option.getParser().addLiteralOption(name(value), value, describe(value));
  }
};
/// The partition strategies (hwcore::kAllStrategies).
inline auto strategyValues() {
  return VocabularyValues<::hwcore::Strategy, ::hwcore::kAllStrategies.size()>{
      ::hwcore::kAllStrategies, ::hwcore::strategyName,
      ::hwcore::strategyDescription};
}
/// The objectives (hwcore::kAllObjectives).
inline auto objectiveValues() {
  return VocabularyValues<::hwcore::Objective, ::hwcore::kAllObjectives.size()>{
      ::hwcore::kAllObjectives, ::hwcore::objectiveName,
      ::hwcore::objectiveDescription};
}

/// The region granularities (kAllGranularities).
inline auto granularityValues() {
  return VocabularyValues<Granularity, kAllGranularities.size()>{
      kAllGranularities, granularityName, granularityDescription};
}

/// The default of hwagent-linalg-to-kernels' min-flops (and of
/// hwagent-lower-to-llvm's and hwagent-run's kernel-min-flops).
constexpr int64_t kDefaultKernelMinFlops = 65536;
/// hwagent-outline-parallel-loops' default `min-work` (body ops x iterations).
constexpr int64_t kDefaultParallelMinWork = 131072;

/// On the packed entry points hwagent-lower-to-runtime declares
/// (`__hwagent_invoke_<fn>`): the function they call and its argument count;
/// hwagent-emit-invokers defines them and drops both.
inline constexpr llvm::StringLiteral kInvokeOfAttr = "hwagent_rt.invoke_of";
inline constexpr llvm::StringLiteral kInvokeArgsAttr = "hwagent_rt.num_args";

#define GEN_PASS_DECL
#include "HwAgent/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "HwAgent/Transforms/Passes.h.inc"

/// The options of `partition-backends`; drivers build the pipeline from them
/// (buildPartitionBackendsPipeline) rather than from pipeline text.
struct PartitionBackendsOptions
    : public PassPipelineOptions<PartitionBackendsOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Built-in target or target JSON"),
                             llvm::cl::init(::hwcore::kDefaultTarget)};
  Option<std::string> telemetry{*this, "telemetry",
                                llvm::cl::desc("Telemetry snapshot JSON"),
                                llvm::cl::init("")};
  Option<std::string> profileDb{*this, "profile-db",
                                llvm::cl::desc("Measured profile JSON"),
                                llvm::cl::init("")};
  Option<std::string> learnedModel{
      *this, "learned-model",
      llvm::cl::desc("Learned cost model file (hwagent-learn)"),
      llvm::cl::init("")};
  Option<::hwcore::Strategy> strategy{
      *this, "strategy", llvm::cl::desc("Assignment strategy"),
      llvm::cl::init(::hwcore::Strategy::optimal), strategyValues()};
  Option<::hwcore::Objective> objective{
      *this, "objective",
      llvm::cl::desc("What the optimal placement minimizes"),
      llvm::cl::init(::hwcore::Objective::time), objectiveValues()};
  Option<double> powerCap{
      *this, "power-cap",
      llvm::cl::desc("Most average watts over the step (0 = no cap)"),
      llvm::cl::init(0.0)};
  Option<bool> explain{*this, "explain",
                       llvm::cl::desc("One remark per region"),
                       llvm::cl::init(false)};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("JSON partition report file"),
                             llvm::cl::init("")};
  Option<std::string> dot{*this, "dot", llvm::cl::desc("Graphviz file"),
                          llvm::cl::init("")};
  Option<std::string> html{
      *this, "html",
      llvm::cl::desc("Self-contained HTML page of the partition"),
      llvm::cl::init("")};
  Option<bool> summary{*this, "summary",
                       llvm::cl::desc("Summary table on stderr"),
                       llvm::cl::init(false)};
  Option<Granularity> granularity{
      *this, "granularity", llvm::cl::desc("Region granularity"),
      llvm::cl::init(Granularity::Fused), granularityValues()};
  Option<bool> training{*this, "training",
                        llvm::cl::desc("Weights change every step"),
                        llvm::cl::init(true)};
  Option<int64_t> updateEvery{
      *this, "update-every",
      llvm::cl::desc("Steps per weight update (gradient accumulation): "
                     "taking new weights is paid once per update"),
      llvm::cl::init(1)};
  Option<bool> weightsAsInputs{
      *this, "weights-as-inputs",
      llvm::cl::desc("Weight arguments arrive anew at every call even outside "
                     "a training step"),
      llvm::cl::init(false)};
  Option<bool> fp16Gradients{
      *this, "fp16-gradients",
      llvm::cl::desc("Allow weight gradients and optimizer updates on fp16 "
                     "backends (with loss scaling)"),
      llvm::cl::init(false)};
  ListOption<std::string> backends{
      *this, "backends",
      llvm::cl::desc("Backends a partition may use (e.g. cpu,ane)")};
};

/// Adds form-regions, profile, estimate-costs, assign-backends and
/// insert-transfers with `options`.
void buildPartitionBackendsPipeline(OpPassManager &pm,
                                    const PartitionBackendsOptions &options);

/// Registers `partition-backends`: form-regions, profile, estimate-costs,
/// assign-backends and insert-transfers with their shared options.
void registerPartitionBackendsPipeline();

struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  PassOptions::Option<int64_t> kernelMinFlops{
      *this, "kernel-min-flops",
      llvm::cl::desc("Contractions of at least this many FLOPs call the "
                     "packed-SGEMM kernel; -1 = none (every op as loops)"),
      llvm::cl::init(kDefaultKernelMinFlops)};
  PassOptions::Option<int64_t> parallelMinWork{
      *this, "parallel-min-work",
      llvm::cl::desc("Top-level parallel loops with at least this much work "
                     "(body ops x iterations) run on the runtime's threads; "
                     "-1 = none (every loop inline, on the calling thread)"),
      llvm::cl::init(kDefaultParallelMinWork)};
  PassOptions::Option<bool> reassociateReductions{
      *this, "reassociate-reductions",
      llvm::cl::desc("Let the JIT vectorize floating-point reductions by "
                     "reassociating their sums "
                     "(hwagent-reassociate-reductions); false keeps each "
                     "sum in its sequential order"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> mergeParallelLoops{
      *this, "merge-parallel-loops",
      llvm::cl::desc("Merge the contiguous innermost parallel loops of each "
                     "op into one that the JIT vectorizes "
                     "(hwagent-merge-parallel-loops)"),
      llvm::cl::init(true)};
};

/// Adds the passes from lowered (hwagent-free) tensor code to the LLVM
/// dialect: elementwise to linalg, TOSA to linalg, one-shot bufferization,
/// deallocation, large contractions to the kernel, loops, LLVM.
void buildLowerToLLVMPipeline(OpPassManager &pm,
                              const LowerToLLVMOptions &options = {});

/// The part of it from bufferized code (memrefs) to LLVM; also what
/// hwagent-calibrate measures.
std::string getBufferLoweringPipeline(const LowerToLLVMOptions &options = {});

/// Registers `hwagent-lower-to-llvm` (the pipeline above) and the upstream
/// passes it uses.
void registerLowerToLLVMPipeline();

} // namespace mlir::hwagent

#endif // HWAGENT_TRANSFORMS_PASSES_H
