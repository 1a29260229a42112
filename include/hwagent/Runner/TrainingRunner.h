//===- TrainingRunner.h - JIT a training step and run it --------*- C++ -*-===//
//
// What hwagent-run and the step benchmarks share: partition a training step
// (unless it already is), lower it to the runtime and LLVM, JIT-compile it,
// make deterministic inputs and parameters, and run steps that feed the
// updated parameters back (signature convention: docs/workloads.md).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RUNNER_TRAININGRUNNER_H
#define HWAGENT_RUNNER_TRAININGRUNNER_H

#include "hwagent_rt/hwagent_rt.h"

#include "mlir/IR/BuiltinOps.h"
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
  uint64_t seed = 1;
  float inputScale = 1.0f;
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

  hwagent_session_t *getSession() const { return session; }
  unsigned getNumInputs() const { return numInputs; }
  unsigned getNumParams() const { return numParams; }
  double getCompileSeconds() const { return compileSeconds; }
  /// Sum and sum of magnitudes of parameter `p`'s current values.
  std::pair<double, double> paramChecksum(unsigned p) const;

private:
  struct Buffer {
    std::vector<int64_t> shape;
    std::vector<int64_t> words; // memref descriptor
    float *data() const;
    int64_t size() const;
  };
  TrainingRunner() = default;
  Buffer makeHostBuffer(const std::vector<int64_t> &shape);

  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  hwagent_session_t *session = nullptr;
  std::string entry;
  unsigned numInputs = 0, numParams = 0;
  double compileSeconds = 0;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<float>> storage;
  std::vector<Buffer> args;
  std::vector<int64_t> results;
  std::vector<int64_t> jitOwned;
};

} // namespace mlir::hwagent

#endif // HWAGENT_RUNNER_TRAININGRUNNER_H
