//===- StepBenchmark.cpp - a training step of each bundled workload -------===//
//
// JIT-compiles each workload with its compile-time assignment (apple-m4,
// optimal) and times whole training steps on this machine. Counters:
// `target_step_ms` is the step as the target would run it (CPU regions
// measured here, ANE/GPU regions simulated by the device model);
// `sim_share_pct` the simulated share of it. Full-size MLP and LSTM; the CNN
// and transformer in their --small variants (the full CNN step is ~30 GFLOP,
// the full transformer layer far beyond this machine).
//
//   build/bin/hwagent-bench-step
//
//===----------------------------------------------------------------------===//

#include "Driver/TrainingRunner.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

using namespace mlir;

namespace {

void trainingStep(benchmark::State &state, std::string path) {
  DialectRegistry registry;
  hwagent::registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &context);
  if (!module) {
    state.SkipWithError(("cannot parse " + path).c_str());
    return;
  }
  hwagent::RunnerOptions options;
  std::unique_ptr<hwagent::TrainingRunner> runner =
      hwagent::TrainingRunner::create(std::move(module), options, llvm::errs());
  if (!runner) {
    state.SkipWithError("cannot prepare the step");
    return;
  }
  double targetSeconds = 0, simulated = 0;
  int64_t steps = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(runner->step(llvm::errs()));
    hwagent_step_stats_t stats;
    hwagent_session_step_stats(runner->getSession(), &stats);
    targetSeconds += stats.last_step_seconds;
    simulated += stats.last_step_seconds * (stats.share[1] + stats.share[2]);
    ++steps;
  }
  state.counters["target_step_ms"] = targetSeconds / steps * 1e3;
  state.counters["sim_share_pct"] =
      targetSeconds > 0 ? simulated / targetSeconds * 100 : 0;
}

} // namespace

int main(int argc, char **argv) {
  const std::string examples = HWAGENT_SOURCE_DIR "/examples/";
  const std::string small = HWAGENT_SMALL_WORKLOADS "/";
  benchmark::RegisterBenchmark("step/mlp", trainingStep,
                               examples + "mlp_train_step.mlir")
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("step/lstm", trainingStep,
                               examples + "lstm_train_step.mlir")
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("step/cnn_small", trainingStep,
                               small + "cnn_small_train_step.mlir")
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("step/transformer_small", trainingStep,
                               small + "transformer_small_train_step.mlir")
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
