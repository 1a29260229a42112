//===- ProfileBenchmark.cpp - the partitioner at scale --------------------===//
//
// Times `hwagent-form-regions` followed by `hwagent-profile`, and the whole
// `partition-backends` pipeline (form, profile, estimate, assign, insert
// transfers), on synthetic functions of 1k to 100k ops (parsing and printing
// excluded), and reports the fitted complexity. Targets: form + profile
// <= 2 s at 100k ops (issue 3), the whole pipeline < 2 s at 100k ops
// (issue 12), both growing linearly.
//
//   build/bin/hwagent-bench-profile
//   build/bin/hwagent-bench-profile --emit=100000 > big.mlir   # the input
//
//===----------------------------------------------------------------------===//

#include "SyntheticGraph.h"

#include "Driver/InitAll.h"
#include "HwAgent/IR/HwAgentOps.h"
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

/// Times the passes `addPasses` puts in a pass manager on a fresh clone of
/// the synthetic graph of `state.range(0)` ops (parsing, cloning and the
/// `count` of the result excluded); reports `count` as `counter`.
template <typename AddPasses, typename Count>
void timePipeline(benchmark::State &state, AddPasses addPasses,
                  const char *counter, Count count) {
  int numOps = static_cast<int>(state.range(0));
  MLIRContext &context = hwagent::bench::getBenchContext();
  OwningOpRef<ModuleOp> source = parseSourceString<ModuleOp>(
      hwagent::bench::makeSyntheticGraph(numOps), &context);
  if (!source) {
    state.SkipWithError("synthetic graph did not parse");
    return;
  }
  int64_t counted = 0;
  for (auto _ : state) {
    state.PauseTiming();
    OwningOpRef<ModuleOp> module = source->clone();
    PassManager pm(&context);
    pm.enableVerifier(false);
    if (failed(addPasses(pm))) {
      state.SkipWithError("the pipeline could not be built");
      return;
    }
    state.ResumeTiming();
    if (failed(pm.run(*module))) {
      state.SkipWithError("pipeline failed");
      return;
    }
    state.PauseTiming();
    counted = count(*module);
    module = nullptr;
    state.ResumeTiming();
  }
  state.counters[counter] = static_cast<double>(counted);
  state.counters["ops_per_s"] =
      benchmark::Counter(static_cast<double>(numOps),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.SetComplexityN(numOps);
}

void formRegionsAndProfile(benchmark::State &state) {
  timePipeline(
      state,
      [](PassManager &pm) {
        pm.addPass(hwagent::createFormRegions());
        pm.addPass(hwagent::createProfile());
        return success();
      },
      "regions",
      [](ModuleOp module) {
        int64_t regions = 0;
        module.walk([&](hwagent::RegionOp) { ++regions; });
        return regions;
      });
}

/// `hwagent-opt --partition-backends` without the parser and the printer:
/// the pipeline is built from its registered textual form, as the tool does.
void partitionBackends(benchmark::State &state) {
  timePipeline(
      state,
      [](PassManager &pm) {
        return parsePassPipeline("partition-backends", pm);
      },
      "assigned",
      [](ModuleOp module) {
        int64_t assigned = 0;
        module.walk([&](hwagent::RegionOp region) {
          if (region.getBackendAttr())
            ++assigned;
        });
        return assigned;
      });
}

} // namespace

BENCHMARK(formRegionsAndProfile)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

BENCHMARK(partitionBackends)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--emit=", 7) == 0) {
      std::cout << hwagent::bench::makeSyntheticGraph(std::atoi(argv[i] + 7));
      return 0;
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
