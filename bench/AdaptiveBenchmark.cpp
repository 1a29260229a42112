//===- AdaptiveBenchmark.cpp - the adaptive runtime over scenarios --------===//
//
// Partitions a workload (hwagent-opt's --partition-backends, in process),
// reads its model table (the C structs hwagent-lower-to-runtime would emit)
// and drives the runtime through it as the compiled step would (select,
// begin, end per program) for N steps under a scenario, with every
// backend's time simulated so that the truth is known. Reports regret
// against the per-step oracle and against the best fixed placement in
// hindsight, re-partitions, and the steps needed to react to each event.
// `--synthetic N` replaces the workload by N programs in a chain with skip
// edges (step-end cost at scale).
//
//   hwagent-bench-adaptive <step.mlir|--synthetic N> <scenario> [steps]
//       [--static] [--no-telemetry] [--target T]
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Analysis/ModelTable.h"
#include "HwAgent/Core/Target.h"
#include "HwAgent/Tools/InitAll.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_rt.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
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
    std::fprintf(
        stderr,
        "usage: hwagent-bench-adaptive <step.mlir|--synthetic N> "
        "<scenario> [steps] [--static] [--no-telemetry] [--target T]\n");
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
  std::string target = hwcore::kDefaultTarget;
  for (; arg < argc; ++arg) {
    if (!std::strcmp(argv[arg], "--static"))
      adaptive = false;
    else if (!std::strcmp(argv[arg], "--no-telemetry"))
      telemetry = false;
    else if (!std::strcmp(argv[arg], "--target") && arg + 1 < argc)
      target = argv[++arg];
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
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(workload, &context);
    if (!module)
      return 1;
    PassManager pm(&context);
    hwagent::PartitionBackendsOptions partition;
    partition.target = target;
    hwagent::buildPartitionBackendsPipeline(pm, partition);
    if (failed(pm.run(*module)))
      return 1;
    FailureOr<hwagent::ModelTable> built = hwagent::buildModelTable(*module);
    if (failed(built))
      return 1;
    table = std::move(*built);
  }

  hwagent_options_t options;
  hwagent_options_init(&options);
  options.adaptive = adaptive;
  options.use_telemetry = telemetry;
  options.simulate_cpu = 1;
  options.explore_every = 10;
  options.sim_noise = 0.05;
  options.seed = 7;
  options.scenario_path = scenario;
  options.log_path = std::getenv("HWAGENT_LOG");
  hwagent_model_info_t info = table.info();
  hwagent_session_t *session = nullptr;
  if (hwagent_session_create(&info, &options, &session) != HWAGENT_OK) {
    std::fprintf(stderr, "hwagent-bench-adaptive: %s\n",
                 hwagent_error_message());
    return 1;
  }
  hwagent_session_make_current(session);
  uint32_t programs = hwagent_session_num_programs(session);
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    for (uint32_t p = 0; p < programs; ++p) {
      int32_t backend = hwagent_rt_select(p);
      hwagent_rt_begin(p, backend);
      hwagent_rt_end(p, backend, 0);
    }
    hwagent_session_end_step(session, 0.0);
  }
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  hwagent_regret_t regret;
  hwagent_session_regret(session, &regret);
  uint32_t switches = hwagent_session_switch_steps(session, nullptr, 0);
  std::vector<int64_t> switchSteps(switches);
  hwagent_session_switch_steps(session, switchSteps.data(), switches);
  uint32_t count = hwagent_session_scenario_events(session, nullptr, 0);
  std::vector<hwagent_scenario_event_t> events(count);
  hwagent_session_scenario_events(session, events.data(), count);

  std::printf("%s, %s, %d steps, %u programs, %s; %.3f s wall\n",
              synthetic ? "synthetic" : workload.c_str(), scenario, steps,
              programs,
              !adaptive   ? "static (compile-time placement)"
              : telemetry ? "adaptive"
                          : "adaptive, learning from measurements only",
              wall);
  std::printf("  simulated total %.3f ms; regret vs per-step oracle %.2f%%, vs "
              "best fixed in hindsight %.2f%%\n",
              regret.actual_seconds * 1e3,
              100 * (regret.actual_seconds / regret.oracle_seconds - 1),
              100 * (regret.actual_seconds / regret.best_fixed_seconds - 1));
  std::printf("  re-partitions %u, explorations %lld\n", switches,
              static_cast<long long>(regret.explorations));
  // Reaction: the first re-partition from the end of the step before each
  // event (where telemetry announces it) on; 0 steps = the event's first
  // step already ran on the new placement.
  for (size_t e = 0; e < events.size(); ++e) {
    int64_t at = events[e].step;
    int64_t end = e + 1 < events.size() ? events[e + 1].step - 1 : steps;
    int reactions = 0;
    int64_t first = -1;
    for (int64_t s : switchSteps)
      if (s >= at - 1 && s < end) {
        first = first < 0 ? s : first;
        ++reactions;
      }
    if (first >= 0)
      std::printf(
          "  event at step %lld: reacted after %lld steps, %d switches\n",
          static_cast<long long>(at), static_cast<long long>(first - at + 1),
          reactions);
    else
      std::printf("  event at step %lld: no re-partition\n",
                  static_cast<long long>(at));
  }
  return hwagent_session_destroy(session) == HWAGENT_OK ? 0 : 1;
}
