//===- LoweringBenchmark.cpp - the whole compile path on long chains ------===//
//
// Times partition-backends + hwagent-lower-to-runtime + hwagent-lower-to-llvm
// on a training step whose body is a chain of N elementwise ops (every value
// also read by later ops: the shape on which one-shot bufferization and the
// f16 variant used to grow quadratically), parsing excluded, and reports the
// fitted complexity. Target (issue 13): the 1000-op chain in under 5 s.
//
//   build/bin/hwagent-bench-lowering
//   build/bin/hwagent-bench-lowering --emit=1000 > chain.mlir   # the input
//   build/bin/hwagent-bench-lowering --emit=1000,2 > shared.mlir  # shared init
//
//===----------------------------------------------------------------------===//

#include "SyntheticGraph.h"

#include "Driver/InitAll.h"
#include "HwAgent/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>

using namespace mlir;

namespace {

/// The chain's form.
enum Form { kArith, kGenericOwnInit, kGenericSharedInit };

std::string chainText(int numOps, int form) {
  return form == kArith ? hwagent::bench::makeElementwiseChain(numOps)
                        : hwagent::bench::makeGenericChain(
                              numOps, form == kGenericSharedInit);
}

void lowerChain(benchmark::State &state, int form) {
  int numOps = static_cast<int>(state.range(0));
  MLIRContext &context = hwagent::bench::getBenchContext();
  OwningOpRef<ModuleOp> source =
      parseSourceString<ModuleOp>(chainText(numOps, form), &context);
  if (!source) {
    state.SkipWithError("chain did not parse");
    return;
  }
  for (auto _ : state) {
    state.PauseTiming();
    OwningOpRef<ModuleOp> module = source->clone();
    PassManager pm(&context);
    pm.enableVerifier(false);
    hwagent::buildPartitionBackendsPipeline(pm, {});
    pm.addPass(hwagent::createLowerToRuntime());
    hwagent::buildLowerToLLVMPipeline(pm);
    state.ResumeTiming();
    if (failed(pm.run(*module))) {
      state.SkipWithError("lowering failed");
      return;
    }
    state.PauseTiming();
    module = nullptr;
    state.ResumeTiming();
  }
  state.SetComplexityN(numOps);
}

} // namespace

// Arith ops on tensors (converted to generics with fresh outputs), generics
// with an empty each, and generics all writing into one shared empty (what
// CSE makes of per-op empties; issue 24).
BENCHMARK_CAPTURE(lowerChain, arith, kArith)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Complexity();
BENCHMARK_CAPTURE(lowerChain, generic_own_init, kGenericOwnInit)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Complexity();
BENCHMARK_CAPTURE(lowerChain, generic_shared_init, kGenericSharedInit)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Complexity();

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--emit=", 7) == 0) {
      // --emit=N[,form]: form 0 arith, 1 generics, 2 shared init.
      const char *comma = std::strchr(argv[i], ',');
      std::cout << chainText(std::atoi(argv[i] + 7),
                             comma ? std::atoi(comma + 1) : kArith);
      return 0;
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
