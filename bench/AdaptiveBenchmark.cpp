//===- AdaptiveBenchmark.cpp - the adaptive runtime over scenarios --------===//
//
// Drives the runtime through a workload's region table (as the compiled step
// would: select, begin, end per region) for N steps under a scenario, with
// every backend's time simulated so that the truth is known, and reports:
// regret against the per-step oracle and against the best fixed assignment
// in hindsight, re-partitions, and the steps needed to react to each event.
// Targets (issue 7): react within 3 steps of a 3x ANE slowdown, at most 2
// switches per event, regret <= 5 % over 1000 steps against the oracle.
//
//   hwagent-bench-adaptive <table> <scenario> [steps] [--static]
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_rt.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string readFile(const char *path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: hwagent-bench-adaptive <table> <scenario> [steps] "
                         "[--static] [--no-telemetry]\n");
    return 2;
  }
  std::string table = readFile(argv[1]);
  int steps = argc > 3 && argv[3][0] != '-' ? std::atoi(argv[3]) : 1000;
  bool adaptive = true, telemetry = true;
  for (int i = 3; i < argc; ++i) {
    adaptive &= std::strcmp(argv[i], "--static") != 0;
    telemetry &= std::strcmp(argv[i], "--no-telemetry") != 0;
  }
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.adaptive = adaptive;
  options.use_telemetry = telemetry;
  options.simulate_cpu = 1;
  options.explore_every = 10;
  options.sim_noise = 0.05;
  options.seed = 7;
  options.scenario_path = argv[2];
  options.log_path = std::getenv("HWAGENT_LOG");
  hwagent_session_t *session = nullptr;
  if (hwagent_session_create(table.c_str(), &options, &session) != HWAGENT_OK)
    return 1;
  hwagent_session_make_current(session);
  uint32_t regions = hwagent_session_num_regions(session);
  std::vector<int64_t> ids(regions);
  for (uint32_t i = 0; i < regions; ++i) {
    hwagent_region_stats_t stats;
    hwagent_session_region_stats(session, i, &stats);
    ids[i] = stats.region_id;
  }
  for (int step = 0; step < steps; ++step) {
    for (int64_t id : ids) {
      int32_t backend = hwagent_rt_select(id);
      hwagent_rt_begin(id, backend);
      hwagent_rt_end(id, backend, 0);
    }
    hwagent_session_end_step(session, 0.0);
  }
  hwagent_regret_t regret;
  hwagent_session_regret(session, &regret);
  int64_t switchSteps[1024];
  uint32_t switches = hwagent_session_switch_steps(session, switchSteps, 1024);

  // Reaction: the first re-partition from the end of the step before each
  // scenario event (where telemetry announces it) on; 0 steps = the event's
  // first step already ran on the new assignment.
  std::vector<int64_t> events;
  std::istringstream scenario(readFile(argv[2]));
  std::string line;
  while (std::getline(scenario, line)) {
    long long at;
    if (std::sscanf(line.c_str(), "at %lld", &at) == 1)
      events.push_back(at);
  }
  std::printf("%s, %s, %d steps, %u regions, %s\n", argv[1], argv[2], steps,
              regions,
              !adaptive   ? "static (compile-time assignment)"
              : telemetry ? "adaptive"
                          : "adaptive, learning from measurements only (no telemetry)");
  std::printf("  simulated total %.3f ms; regret vs per-step oracle %.2f%%, vs best "
              "fixed in hindsight %.2f%%\n",
              regret.actual_seconds * 1e3,
              100 * (regret.actual_seconds / regret.oracle_seconds - 1),
              100 * (regret.actual_seconds / regret.best_fixed_seconds - 1));
  std::printf("  re-partitions %u, explorations %lld\n", switches,
              static_cast<long long>(regret.explorations));
  for (size_t e = 0; e < events.size(); ++e) {
    int64_t end = e + 1 < events.size() ? events[e + 1] - 1 : steps;
    int count = 0;
    int64_t first = -1;
    for (uint32_t i = 0; i < std::min<uint32_t>(switches, 1024); ++i)
      if (switchSteps[i] >= events[e] - 1 && switchSteps[i] < end) {
        if (first < 0)
          first = switchSteps[i];
        ++count;
      }
    if (first >= 0)
      std::printf("  event at step %lld: reacted after %lld steps, %d switches\n",
                  static_cast<long long>(events[e]),
                  static_cast<long long>(first - events[e] + 1), count);
    else
      std::printf("  event at step %lld: no re-partition\n",
                  static_cast<long long>(events[e]));
  }
  hwagent_session_destroy(session);
  return 0;
}
