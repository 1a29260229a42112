//===- AdaptiveBenchmark.cpp - the adaptive runtime over scenarios --------===//
//
// Partitions a workload (hwagent-opt's --partition-backends, in process),
// reads its model table (the C structs hwagent-lower-to-runtime would emit)
// and drives the runtime through it as the compiled step would (select,
// begin, end per program) for N steps under a scenario, with every
// backend's time simulated so that the truth is known (AdaptiveDriver.h).
// Reports regret against the clairvoyant oracle and against the best fixed
// placement in hindsight, re-partitions and probes, and per change of
// conditions what a better placement was worth and how the runtime reacted.
// `--synthetic N` replaces the workload by N programs in a chain with skip
// edges (step-end cost at scale).
//
//   hwagent-bench-adaptive <step.mlir|--synthetic N> <scenario> [steps]
//       [--static] [--no-telemetry] [--target T] [--seed S] [--noise N]
//
//===----------------------------------------------------------------------===//

#include "AdaptiveDriver.h"

#include "Driver/InitAll.h"
#include "HwAgent/Analysis/ModelTable.h"
#include "HwAgent/Core/Target.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_rt.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mlir;

/// N programs in a chain with a skip edge every third one, predictions
/// drawn at random, 15 % of accelerator variants missing.
static hwagent::ModelTable syntheticTable(unsigned n) {
  hwagent::ModelTable table;
  table.target = "synthetic";
  std::mt19937 rng(n);
  std::uniform_real_distribution<double> time(1e-5, 5e-3);
  std::uniform_real_distribution<double> bytes(1e3, 1e7);
  std::bernoulli_distribution missing(0.15);
  for (int a = 0; a < HWAGENT_NUM_BACKENDS; ++a)
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
      table.links[a][b] = {1.2e11, 6e10, 2e-5};
  for (unsigned p = 0; p < n; ++p) {
    hwagent_region_info_t region = {};
    region.key = p;
    region.id = p;
    region.program = p;
    region.legal_mask = 1;
    hwagent_program_info_t program = {};
    program.first_region = p;
    program.num_regions = 1;
    program.legal_mask = 1;
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
      if (b > 0 && missing(rng))
        continue;
      program.legal_mask |= 1u << b;
      program.predicted[b] = region.predicted[b] = time(rng);
    }
    region.legal_mask = program.legal_mask;
    table.regions.push_back(region);
    table.programs.push_back(program);
    if (p > 0)
      table.edges.push_back(
          {int32_t(p - 1), int32_t(p), int64_t(bytes(rng)), 0});
    if (p >= 4 && p % 3 == 0)
      table.edges.push_back(
          {int32_t(p - 4), int32_t(p), int64_t(bytes(rng)), 0});
  }
  return table;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: hwagent-bench-adaptive <step.mlir|--synthetic N> "
                 "<scenario> [steps] [--static] [--no-telemetry] [--target T] "
                 "[--seed S] [--noise N]\n");
    return 2;
  }
  int arg = 1;
  std::string workload = argv[arg++];
  unsigned synthetic = 0;
  if (workload == "--synthetic")
    synthetic = std::atoi(argv[arg++]);
  const char *scenario = argv[arg++];
  int steps = arg < argc && argv[arg][0] != '-' ? std::atoi(argv[arg++]) : 1000;
  bool adaptive = true, telemetry = true;
  uint64_t seed = 7;
  double noise = 0.05;
  std::string target = hwcore::kDefaultTarget;
  for (; arg < argc; ++arg) {
    if (!std::strcmp(argv[arg], "--static"))
      adaptive = false;
    else if (!std::strcmp(argv[arg], "--no-telemetry"))
      telemetry = false;
    else if (!std::strcmp(argv[arg], "--target") && arg + 1 < argc)
      target = argv[++arg];
    else if (!std::strcmp(argv[arg], "--seed") && arg + 1 < argc)
      seed = std::strtoull(argv[++arg], nullptr, 10);
    else if (!std::strcmp(argv[arg], "--noise") && arg + 1 < argc)
      noise = std::atof(argv[++arg]);
  }

  DialectRegistry registry;
  hwagent::registerAllDialects(registry);
  hwagent::registerAllPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  hwagent::ModelTable table;
  if (synthetic) {
    table = syntheticTable(synthetic);
  } else {
    std::optional<hwagent::ModelTable> built =
        hwagent::bench::partitionedTable(context, workload, target);
    if (!built)
      return 1;
    table = std::move(*built);
  }

  hwagent_options_t options;
  hwagent_options_init(&options);
  options.adaptive = adaptive;
  options.use_telemetry = telemetry;
  options.explore_every = 10;
  options.sim_noise = noise;
  options.seed = seed;
  options.scenario_path = scenario;
  options.log_path = std::getenv("HWAGENT_LOG");
  std::optional<hwagent::bench::AdaptiveRun> run =
      hwagent::bench::runAdaptive(table, options, steps);
  if (!run)
    return 1;
  const hwagent_regret_t &regret = run->regret;
  std::printf("%s, %s, %d steps, %u programs, %s; %.3f s wall\n",
              synthetic ? "synthetic" : workload.c_str(), scenario, steps,
              run->programs,
              !adaptive   ? "static (compile-time placement)"
              : telemetry ? "adaptive"
                          : "adaptive, learning from measurements only",
              run->wallSeconds);
  std::printf("  simulated total %.3f ms (switching %.3f ms); regret vs "
              "clairvoyant oracle %.2f%%, vs best fixed in hindsight %.2f%%\n",
              regret.actual_seconds * 1e3, regret.switch_seconds * 1e3,
              100 * (regret.actual_seconds / regret.oracle_seconds - 1),
              100 * (regret.actual_seconds / regret.best_fixed_seconds - 1));
  std::printf("  re-partitions %lld, probes %lld, variants built %lld\n",
              static_cast<long long>(regret.switches),
              static_cast<long long>(regret.explorations),
              static_cast<long long>(regret.compiles));
  // Reaction: the first re-partition from the end of the step before each
  // change (where telemetry announces it) on; 0 steps = the change's first
  // step already ran on the new placement.
  for (const hwagent_event_outcome_t &o : run->outcomes) {
    std::printf("  change at step %lld (%lld steps): best placement %.1f%% "
                "faster than the one in use; ",
                static_cast<long long>(o.step), static_cast<long long>(o.steps),
                100 * o.best_gain);
    if (o.reaction_steps >= 0)
      std::printf("reacted after %lld steps, %d switches, %d probes\n",
                  static_cast<long long>(o.reaction_steps), o.switches,
                  o.probes);
    else
      std::printf("no re-partition, %d probes\n", o.probes);
  }
  return 0;
}
