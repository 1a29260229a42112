//===- TrainingRunner.h - JIT a training step and run it --------*- C++ -*-===//
//
// What the trainer (tools/Trainer) and the step benchmarks share: check a
// training step and describe its buffers from the IR (prepare), then
// partition it (unless it already is), lower it to the runtime and LLVM,
// JIT-compile it (compile), and run steps through the runtime's named
// binding (hwagent_step_t), which copies every parameter's new value back
// into its buffer. Between the two the caller checks and loads its data and
// parameters into the buffers, so that a wrong file fails before the JIT.
//
// A training step is `(args...) -> (loss, params'...)`; which argument each
// result updates and every value's name and role: StepSignature.h. The
// other arguments are inputs (data) and labels. Without a dataset they are
// filled deterministically from the seed: N(0, 1) data, one-hot rows for
// `{hwagent.input = "one_hot"}`, integer class labels in [0, classes),
// N(0, 1/fan_in) parameters. An evaluation function (`@eval_step` by
// default) is compiled with the step when the module has it; its arguments
// named like the step's parameters share their buffers. docs/runtime.md,
// docs/training.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_TRAININGRUNNER_H
#define HWAGENT_TOOLS_TRAININGRUNNER_H

#include "HwAgent/Core/Target.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_rt.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::hwagent {

class HostJit;
struct JitTimes;

struct RunnerOptions {
  std::string entry = "train_step";
  /// The step's file, named in the context of compile errors.
  std::string inputFile;
  /// The evaluation function, compiled and run when the module has it.
  std::string evalEntry = "eval_step";
  std::string target = hwcore::kDefaultTarget;
  hwcore::Strategy strategy = hwcore::Strategy::optimal;
  /// What the optimal placement minimizes and the power cap (0 = none).
  hwcore::Objective objective = hwcore::Objective::time;
  double powerCap = 0;
  /// Extra partition-backends options ("backends=cpu,ane ...").
  std::string partitionOptions;
  /// Where the partitioner writes its JSON report (empty: nowhere).
  std::string partitionReport;
  /// hwagent-lower-to-llvm's kernel-min-flops (-1: no kernel calls).
  int64_t kernelMinFlops = kDefaultKernelMinFlops;
  /// hwagent-lower-to-llvm's parallel-min-work (-1: every loop inline).
  int64_t parallelMinWork = kDefaultParallelMinWork;
  /// hwagent-lower-to-llvm's reassociate-reductions (false: every sum in its
  /// sequential order, not vectorized).
  bool reassociateReductions = true;
  /// hwagent-lower-to-llvm's merge-parallel-loops.
  bool mergeParallelLoops = true;
  uint64_t seed = 1;
  float inputScale = 1.0f;
  /// Argument index updated by each result after the loss (empty: from
  /// `hwagent.param` attributes, else by type and position).
  std::vector<int64_t> paramArgs;
  /// Classes of integer labels (0: the smallest rank-1 parameter's size,
  /// at least 2).
  int64_t classes = 0;
  /// The results after the loss are outputs (a step that returns
  /// gradients): no argument is updated (StepSignature.h, kNoUpdatesAttr).
  bool noUpdates = false;
  /// Runtime options (log, trace, faults, scenario, forced backend...).
  hwagent_options_t runtime;

  RunnerOptions() { hwagent_options_init(&runtime); }
};

/// Registers what the runner needs in `registry` (dialects, LLVM
/// translations); call before creating the context.
void registerRunnerDialects(DialectRegistry &registry);

/// The function a run trains: `preferred` when the module has it, else the
/// module's only public function with a body (a step another compiler
/// exported: ByteIR's @main), else `preferred` (the runner then names
/// what is missing).
std::string defaultEntry(ModuleOp module, llvm::StringRef preferred);

/// Pins programs as hwagent-run's `--pin <program>=<backend>` says, each
/// in turn; false (with the message) at the first malformed or refused one.
bool applyPins(hwagent_session_t *session, llvm::ArrayRef<std::string> pins,
               llvm::raw_ostream &errs);

/// The host buffer of one argument of a compiled function.
struct ArgBuffer {
  std::string name;
  hwagent_role_t role = HWAGENT_ROLE_INPUT;
  hwagent_dtype_t dtype = HWAGENT_DTYPE_F32;
  std::vector<int64_t> shape;
  int64_t elements = 1;
  /// Storage (empty when the buffer is another function's: `shared`).
  std::vector<char> storage;
  /// The buffer it uses when it shares one (an evaluation function's
  /// parameter), else null.
  ArgBuffer *shared = nullptr;

  char *data() { return shared ? shared->data() : storage.data(); }
  const char *data() const { return shared ? shared->data() : storage.data(); }
  int64_t bytes() const { return elements * hwagent_dtype_size(dtype); }
};

class TrainingRunner {
public:
  /// Checks `module`'s step before compiling anything (the function, its
  /// loss, its arguments, the parameters' mapping, the memory its tensors
  /// need) and holds one host buffer per argument of the step and of the
  /// evaluation function, described from the IR (the names, roles, dtypes
  /// and shapes the compiled model info will carry). Errors on `errs`.
  static std::unique_ptr<TrainingRunner> prepare(OwningOpRef<ModuleOp> module,
                                                 const RunnerOptions &options,
                                                 llvm::raw_ostream &errs);
  /// Partitions, lowers and JIT-compiles the step, creates the session and
  /// binds the buffers by name. A buffer whose flag in `supplied` (the
  /// step's) or `evalSupplied` (the evaluation function's) is set holds the
  /// caller's data (a dataset's inputs, a checkpoint's parameters); the
  /// others get seeded contents. Empty vectors: none supplied.
  bool compile(const std::vector<bool> &supplied,
               const std::vector<bool> &evalSupplied, llvm::raw_ostream &errs);
  /// prepare and compile with nothing supplied.
  static std::unique_ptr<TrainingRunner> create(OwningOpRef<ModuleOp> module,
                                                const RunnerOptions &options,
                                                llvm::raw_ostream &errs);
  ~TrainingRunner();

  /// Runs one step and ends it in the runtime; returns the loss (NaN and an
  /// error on `errs` when the step cannot run).
  float step(llvm::raw_ostream &errs);
  /// Runs the evaluation function once on its buffers (not a training step
  /// for the runtime's statistics); `results` gets each scalar result by
  /// name. False (with the error) when it cannot run.
  bool evaluate(std::vector<std::pair<std::string, double>> &results,
                llvm::raw_ostream &errs);
  /// Writes the last step's loss and outputs (every result that updates no
  /// parameter) to `path` as safetensors, by name. False (with the error on
  /// `errs`) when it cannot.
  bool saveOutputs(const std::string &path, llvm::raw_ostream &errs) const;
  /// Ends the session: flushes the log and trace, writes the profile.
  /// Returns false (with the message on `errs`) when an output failed.
  bool finish(llvm::raw_ostream &errs);

  /// Before compile(): forgets the evaluation function and erases it from
  /// the module when nothing else calls it. A run without held-out data
  /// never evaluates, and the function is a fifth of an imported step's
  /// code to compile (docs/importer.md, "Start-up").
  void dropEvaluation();

  hwagent_session_t *getSession() const { return session; }
  /// The training step's arguments, in order, and the evaluation
  /// function's (empty without one).
  std::vector<ArgBuffer> &getArgs() { return args; }
  std::vector<ArgBuffer> &getEvalArgs() { return evalArgs; }
  bool hasEval() const { return !evalEntry.empty(); }
  const std::string &getEntry() const { return entry; }
  const std::string &getEvalEntry() const { return evalEntry; }
  /// Argument indices of the parameters (in result order) and the rest.
  const std::vector<unsigned> &getParams() const { return params; }
  const std::vector<unsigned> &getInputs() const { return inputs; }
  unsigned getNumInputs() const { return inputs.size(); }
  unsigned getNumParams() const { return params.size(); }
  /// The whole start-up: partitioning, lowering and the JIT (translation,
  /// optimization, code generation, linking).
  double getCompileSeconds() const { return compileSeconds; }
  /// The MLIR part of it (parsing excluded: partitioning and lowering).
  double getPipelineSeconds() const { return pipelineSeconds; }
  /// The JIT's part of it, by phase.
  const JitTimes &getJitTimes() const;
  /// Bytes of the step's largest set of simultaneously live tensors, as
  /// estimated before running it.
  int64_t getPeakBytes() const { return peakBytes; }
  /// Parameter `p`'s current values summarized: their sum, the sum of their
  /// magnitudes, and a hash of their bytes (equal only when every bit is).
  struct ParamChecksum {
    double sum = 0, sumAbs = 0;
    uint64_t bits = 0;
  };
  ParamChecksum paramChecksum(unsigned p) const;

private:
  TrainingRunner();
  /// The pass pipeline from typed options and the JIT.
  bool lowerAndJit(llvm::raw_ostream &errs);
  /// The session and steps of the compiled model.
  bool createSession(llvm::raw_ostream &errs);

  RunnerOptions options;
  /// Which f32 arguments are one-hot labels (step, evaluation function).
  std::vector<bool> oneHot, evalOneHot;
  int64_t classes = 2;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<HostJit> engine;
  hwagent_session_t *session = nullptr;
  hwagent_step_t *trainStep = nullptr;
  hwagent_step_t *evalStep = nullptr;
  std::string entry, evalEntry;
  double compileSeconds = 0;
  double pipelineSeconds = 0;
  int64_t peakBytes = 0;
  std::vector<ArgBuffer> args, evalArgs;
  std::vector<unsigned> inputs, params;
};

} // namespace mlir::hwagent

#endif // HWAGENT_TOOLS_TRAININGRUNNER_H
