//===- TrainingRunner.h - JIT a training step and run it --------*- C++ -*-===//
//
// What hwagent-run and the step benchmarks share: partition a training step
// (unless it already is), lower it to the runtime and LLVM, JIT-compile it,
// make deterministic inputs and parameters, and run steps that feed the
// updated parameters back.
//
// A training step is `(args...) -> (loss, params'...)`: result 0 is the
// loss (a scalar f32), every further result is the new value of one
// argument (a parameter). Which argument: the one marked
// `{hwagent.param = <result index>}`, or given by RunnerOptions::paramArgs
// (`--params` on the command line), or else the arguments of the result's
// type taken in order (so `(inputs..., params...)` and torch-mlir's
// `(params..., inputs...)` both work). The other arguments are inputs:
// f32 data, one-hot rows for `{hwagent.input = "one_hot"}`, or integer
// class labels (i32/i64) in [0, classes). docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_TRAININGRUNNER_H
#define HWAGENT_TOOLS_TRAININGRUNNER_H

#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_rt.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
class DialectRegistry;
} // namespace mlir

namespace mlir::hwagent {

struct RunnerOptions {
  std::string entry = "train_step";
  std::string target = "apple-m4";
  std::string strategy = "optimal";
  /// Extra partition-backends options ("backends=cpu,ane ...").
  std::string partitionOptions;
  /// hwagent-lower-to-llvm's kernel-min-flops (-1: no kernel calls).
  int64_t kernelMinFlops = kDefaultKernelMinFlops;
  uint64_t seed = 1;
  float inputScale = 1.0f;
  /// Argument index updated by each result after the loss (empty: from
  /// `hwagent.param` attributes, else by type and position).
  std::vector<int64_t> paramArgs;
  /// Classes of integer labels (0: the smallest rank-1 parameter's size,
  /// at least 2).
  int64_t classes = 0;
  /// Runtime options (log, trace, faults, scenario, forced backend...).
  hwagent_options_t runtime;

  RunnerOptions() { hwagent_options_init(&runtime); }
};

/// Registers what the runner needs in `registry` (dialects, LLVM
/// translations); call before creating the context.
void registerRunnerDialects(DialectRegistry &registry);

class TrainingRunner {
public:
  /// Prepares `module` (consumed). Errors are reported on `errs`.
  static std::unique_ptr<TrainingRunner> create(OwningOpRef<ModuleOp> module,
                                                const RunnerOptions &options,
                                                llvm::raw_ostream &errs);
  ~TrainingRunner();

  /// Runs one step and ends it in the runtime; returns the loss (NaN and an
  /// error on `errs` when the step cannot run).
  float step(llvm::raw_ostream &errs);
  /// Ends the session: flushes the log and trace, writes the profile.
  /// Returns false (with the message on `errs`) when an output failed.
  bool finish(llvm::raw_ostream &errs);

  hwagent_session_t *getSession() const { return session; }
  unsigned getNumInputs() const { return inputs.size(); }
  unsigned getNumParams() const { return params.size(); }
  double getCompileSeconds() const { return compileSeconds; }
  /// Bytes of the step's largest set of simultaneously live tensors, as
  /// estimated before running it.
  int64_t getPeakBytes() const { return peakBytes; }
  /// Sum and sum of magnitudes of parameter `p`'s current values.
  std::pair<double, double> paramChecksum(unsigned p) const;

private:
  struct Tensor;
  TrainingRunner();

  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  hwagent_session_t *session = nullptr;
  std::string entry;
  double compileSeconds = 0;
  int64_t peakBytes = 0;
  /// Every argument, in order; inputs and params index into it.
  std::vector<std::unique_ptr<Tensor>> args;
  std::vector<unsigned> inputs, params;
  /// Result layout: byte offset of each result in the returned struct.
  std::vector<size_t> resultOffsets;
  std::vector<char> results;
  /// The step's signature, read before lowering (the module holds LLVM
  /// functions afterwards).
  FunctionType stepType;
  /// Buffers the generated code returned that the runner now owns.
  std::vector<void *> owned;
};

} // namespace mlir::hwagent

#endif // HWAGENT_TOOLS_TRAININGRUNNER_H
