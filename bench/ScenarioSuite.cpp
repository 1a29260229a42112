//===- ScenarioSuite.cpp - the adaptive runtime over scenario families ----===//
//
// Generates randomized scenarios for every bundled workload and built-in
// target: one to three events per scenario, each a slowdown of 1.5-10x
// (log-uniform) on a random backend or a thermal state (fair, serious,
// critical), lasting 20-500 steps (log-uniform), overlapping freely, with
// 2-8 % simulator noise. Each runs with the compile-time placement held
// (static) and with the adaptive runtime, with telemetry and from
// measurements only, for every seed asked for, and the suite prints the
// distributions the adaptive runtime is held to (docs/adaptive.md): regret
// against the clairvoyant oracle (median, p90, worst), runs where adaptive
// ends worse than static (by more than 1 point of regret, and by how much),
// the reaction to every change after which another placement is >= 10 %
// faster, the switches per change and the probes.
//
//   hwagent-bench-scenarios [--scenarios N] [--steps S] [--seeds a,b,...]
//       [--no-telemetry | --telemetry-only] [--targets a,b] [--write DIR]
//       [workload.mlir...]
//
// Without workloads: the bundled examples/*_train_step.mlir. A run is
// replayed with `hwagent-bench-adaptive <step> <DIR>/seed<S>/<file> <steps>
// --target T --seed S*1000+i --noise N` (the command is printed for every
// run worse than static by more than a point or over 10 % regret).
//
//===----------------------------------------------------------------------===//

#include "AdaptiveDriver.h"

#include "Driver/InitAll.h"
#include "HwAgent/Core/Target.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// One scenario's text and the noise it runs under.
struct Scenario {
  std::string text;
  double noise = 0;
};

Scenario generate(std::mt19937_64 &rng, int steps) {
  static const char *kBackends[] = {"cpu", "ane", "gpu"};
  static const char *kThermal[] = {"fair", "serious", "critical"};
  std::uniform_int_distribution<int> count(1, 3), backend(0, 2), state(0, 2);
  std::uniform_real_distribution<double> logSlowdown(std::log(1.5),
                                                     std::log(10.0));
  std::uniform_real_distribution<double> logDuration(std::log(20.0),
                                                     std::log(500.0));
  std::uniform_int_distribution<int> start(20, std::max(21, steps - 40));
  std::uniform_real_distribution<double> noise(0.02, 0.08);
  std::bernoulli_distribution thermal(0.2);
  struct Line {
    int step;
    std::string what;
  };
  std::vector<Line> lines;
  int events = count(rng);
  for (int e = 0; e < events; ++e) {
    int at = start(rng);
    int until = at + int(std::exp(logDuration(rng)));
    if (thermal(rng)) {
      lines.push_back({at, std::string("thermal ") + kThermal[state(rng)]});
      lines.push_back({until, "thermal nominal"});
    } else {
      const char *b = kBackends[backend(rng)];
      char factor[32];
      std::snprintf(factor, sizeof factor, "%.2f", std::exp(logSlowdown(rng)));
      lines.push_back({at, std::string(b) + " slowdown " + factor});
      lines.push_back({until, std::string(b) + " slowdown 1"});
    }
  }
  std::stable_sort(
      lines.begin(), lines.end(),
      [](const Line &a, const Line &b) { return a.step < b.step; });
  Scenario scenario;
  scenario.text = "hwagent-scenario 1\n";
  for (const Line &line : lines)
    scenario.text += "at " + std::to_string(line.step) + " " + line.what + "\n";
  scenario.noise = noise(rng);
  return scenario;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1,
                         size_t(q * double(values.size() - 1) + 0.5))];
}

/// What one mode (telemetry, or measurements only) of the adaptive runtime
/// did over a set of runs.
struct Tally {
  std::vector<double> regret;
  // Runs where the placement matters: the static one is >= 1 % off the
  // oracle (elsewhere both are near 0 and say little).
  std::vector<double> contestedStatic, contestedAdaptive;
  std::vector<double> reactions, switchesPer;
  int runs = 0, worseByPoint = 0, worseByBudget = 0, qualifying = 0,
      slowReactions = 0, missed = 0;
  int64_t probes = 0;
  double worstExcess = 0; // points of regret over static, the largest
  double seconds = 0;     // wall time of the adaptive runs

  void add(const Tally &o) {
    auto append = [](std::vector<double> &a, const std::vector<double> &b) {
      a.insert(a.end(), b.begin(), b.end());
    };
    append(regret, o.regret);
    append(contestedStatic, o.contestedStatic);
    append(contestedAdaptive, o.contestedAdaptive);
    append(reactions, o.reactions);
    append(switchesPer, o.switchesPer);
    runs += o.runs;
    worseByPoint += o.worseByPoint;
    worseByBudget += o.worseByBudget;
    qualifying += o.qualifying;
    slowReactions += o.slowReactions;
    missed += o.missed;
    probes += o.probes;
    worstExcess = std::max(worstExcess, o.worstExcess);
    seconds += o.seconds;
  }
};

struct Mode {
  const char *name;
  bool telemetry;
};

struct Config {
  int scenarios = 20, steps = 600;
  std::vector<uint64_t> seeds = {1};
  std::vector<Mode> modes = {{"telemetry", true}, {"measurements only", false}};
  std::vector<std::string> targets = hwcore::builtinTargetNames();
  std::vector<std::string> workloads;
  std::string writeDir;
};

/// The budget of the old comparison: adaptive's actual seconds over
/// static's by more than the 2 % exploration budget.
constexpr double kBudget = 0.02;

double regretOf(const hwagent_regret_t &r) {
  return 100 * (r.actual_seconds / r.oracle_seconds - 1);
}

/// Adds one adaptive run to `tally`, printing what is worth replaying.
void record(Tally &tally, const hwagent::bench::AdaptiveRun &fixed,
            const hwagent::bench::AdaptiveRun &adaptive,
            const std::string &replay) {
  double st = regretOf(fixed.regret), ad = regretOf(adaptive.regret);
  tally.regret.push_back(ad);
  if (st >= 1.0) {
    tally.contestedStatic.push_back(st);
    tally.contestedAdaptive.push_back(ad);
  }
  ++tally.runs;
  tally.probes += adaptive.regret.explorations;
  tally.worstExcess = std::max(tally.worstExcess, ad - st);
  if (ad - st > 1.0)
    ++tally.worseByPoint;
  if (adaptive.regret.actual_seconds >
      fixed.regret.actual_seconds * (1 + kBudget))
    ++tally.worseByBudget;
  if (ad - st > 1.0 || ad > 10.0)
    std::printf("  regret %.2f%% (static %.2f%%, %lld probes): %s\n", ad, st,
                static_cast<long long>(adaptive.regret.explorations),
                replay.c_str());
  for (const hwagent_event_outcome_t &o : adaptive.outcomes) {
    tally.switchesPer.push_back(o.switches);
    if (o.best_gain < 0.10 || o.steps < 10)
      continue;
    ++tally.qualifying;
    if (o.reaction_steps < 0) {
      ++tally.missed;
      continue;
    }
    tally.reactions.push_back(double(o.reaction_steps));
    tally.slowReactions += o.reaction_steps > 3;
  }
}

void printTally(const char *label, const Tally &t) {
  std::printf("%s: %d runs, %.1f s\n", label, t.runs, t.seconds);
  std::printf("  regret, all runs: median %.2f%% p90 %.2f%% worst %.2f%%\n",
              quantile(t.regret, 0.5), quantile(t.regret, 0.9),
              quantile(t.regret, 1.0));
  std::printf(
      "  where placement matters (%zu; static median %.2f%% p90 "
      "%.2f%%): median %.2f%% p90 %.2f%% worst %.2f%%\n",
      t.contestedStatic.size(), quantile(t.contestedStatic, 0.5),
      quantile(t.contestedStatic, 0.9), quantile(t.contestedAdaptive, 0.5),
      quantile(t.contestedAdaptive, 0.9), quantile(t.contestedAdaptive, 1.0));
  std::printf("  worse than static by > 1 point: %d; by > the %.0f%% budget: "
              "%d; largest excess %.2f points\n",
              t.worseByPoint, 100 * kBudget, t.worseByBudget, t.worstExcess);
  std::printf("  changes after which another placement is >= 10%% faster: "
              "%d; reaction median %.0f, p90 %.0f, max %.0f steps; over 3 "
              "steps: %d; none: %d\n",
              t.qualifying, quantile(t.reactions, 0.5),
              quantile(t.reactions, 0.9), quantile(t.reactions, 1.0),
              t.slowReactions, t.missed);
  std::printf("  switches per change: median %.0f, max %.0f; probes: %lld "
              "(%.1f per run)\n",
              quantile(t.switchesPer, 0.5), quantile(t.switchesPer, 1.0),
              static_cast<long long>(t.probes),
              t.runs ? double(t.probes) / t.runs : 0.0);
}

bool writeScenario(const std::string &path, const Scenario &scenario) {
  std::error_code error;
  llvm::raw_fd_ostream out(path, error);
  if (error) {
    std::fprintf(stderr, "hwagent-bench-scenarios: %s: %s\n", path.c_str(),
                 error.message().c_str());
    return false;
  }
  out << "# noise " << scenario.noise << "\n" << scenario.text;
  return true;
}

/// Runs every workload, target and scenario of one seed; one tally per
/// mode. False when a run fails.
bool runSeed(const Config &config, uint64_t seed,
             std::map<std::string, hwagent::ModelTable> &tables,
             const std::string &dir, std::vector<Tally> &tallies) {
  std::mt19937_64 rng(seed);
  tallies.assign(config.modes.size(), Tally());
  for (const std::string &workload : config.workloads) {
    std::string name = llvm::sys::path::stem(workload).str();
    for (const std::string &target : config.targets) {
      const hwagent::ModelTable &table = tables.at(workload + "|" + target);
      for (int s = 0; s < config.scenarios; ++s) {
        Scenario scenario = generate(rng, config.steps);
        SmallString<128> path(dir);
        llvm::sys::path::append(path, name + "-" + target + "-" +
                                          std::to_string(s) + ".scenario");
        if (!writeScenario(path.str().str(), scenario))
          return false;
        hwagent_options_t options;
        hwagent_options_init(&options);
        options.explore_every = 10;
        options.sim_noise = scenario.noise;
        options.seed = seed * 1000 + s;
        options.scenario_path = path.c_str();
        options.adaptive = 0;
        auto fixed = hwagent::bench::runAdaptive(table, options, config.steps);
        if (!fixed)
          return false;
        for (size_t m = 0; m < config.modes.size(); ++m) {
          options.adaptive = 1;
          options.use_telemetry = config.modes[m].telemetry;
          auto start = std::chrono::steady_clock::now();
          auto adaptive =
              hwagent::bench::runAdaptive(table, options, config.steps);
          if (!adaptive)
            return false;
          tallies[m].seconds += std::chrono::duration<double>(
                                    std::chrono::steady_clock::now() - start)
                                    .count();
          char replay[1024];
          std::snprintf(replay, sizeof replay,
                        "%s hwagent-bench-adaptive %s %s %d --target %s "
                        "--seed %llu --noise %g%s",
                        config.modes[m].name, workload.c_str(), path.c_str(),
                        config.steps, target.c_str(),
                        static_cast<unsigned long long>(options.seed),
                        scenario.noise,
                        config.modes[m].telemetry ? "" : " --no-telemetry");
          record(tallies[m], *fixed, *adaptive, replay);
        }
      }
    }
  }
  return true;
}

[[noreturn]] void usage(const char *message, const char *arg) {
  std::fprintf(stderr, "hwagent-bench-scenarios: %s%s\n", message, arg);
  std::exit(2);
}

Config parse(int argc, char **argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        usage("a value is missing after ", argv[i]);
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--scenarios")) {
      config.scenarios = std::atoi(value());
    } else if (!std::strcmp(argv[i], "--steps")) {
      config.steps = std::atoi(value());
    } else if (!std::strcmp(argv[i], "--seed") ||
               !std::strcmp(argv[i], "--seeds")) {
      config.seeds.clear();
      for (llvm::StringRef t : llvm::split(llvm::StringRef(value()), ',')) {
        uint64_t seed = 0;
        if (t.getAsInteger(10, seed))
          usage("a seed is not a number: ", t.str().c_str());
        config.seeds.push_back(seed);
      }
    } else if (!std::strcmp(argv[i], "--no-telemetry")) {
      config.modes = {{"measurements only", false}};
    } else if (!std::strcmp(argv[i], "--telemetry-only")) {
      config.modes = {{"telemetry", true}};
    } else if (!std::strcmp(argv[i], "--write")) {
      config.writeDir = value();
    } else if (!std::strcmp(argv[i], "--targets")) {
      config.targets.clear();
      for (llvm::StringRef t : llvm::split(llvm::StringRef(value()), ','))
        config.targets.push_back(t.str());
    } else if (argv[i][0] == '-') {
      usage("unknown option ", argv[i]);
    } else {
      config.workloads.push_back(argv[i]);
    }
  }
  if (config.scenarios <= 0 || config.steps < 100 || config.seeds.empty())
    usage("--scenarios must be > 0, --steps >= 100 and --seeds name one", "");
  if (config.workloads.empty())
    for (const char *name :
         {"cnn", "mlp", "lstm", "transformer", "digits_cnn", "digits_mlp"})
      config.workloads.push_back(std::string(HWAGENT_SOURCE_DIR) +
                                 "/examples/" + name + "_train_step.mlir");
  return config;
}

} // namespace

int main(int argc, char **argv) {
  Config config = parse(argc, argv);
  SmallString<128> dir(config.writeDir);
  if (dir.empty()) {
    if (llvm::sys::fs::createUniqueDirectory("hwagent-scenarios", dir)) {
      std::fprintf(stderr, "hwagent-bench-scenarios: no temporary directory\n");
      return 1;
    }
  }
  DialectRegistry registry;
  hwagent::registerAllDialects(registry);
  hwagent::registerAllPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::map<std::string, hwagent::ModelTable> tables;
  for (const std::string &workload : config.workloads)
    for (const std::string &target : config.targets) {
      std::optional<hwagent::ModelTable> table =
          hwagent::bench::partitionedTable(context, workload, target);
      if (!table)
        return 1;
      tables.emplace(workload + "|" + target, std::move(*table));
    }
  std::vector<Tally> pooled(config.modes.size());
  for (uint64_t seed : config.seeds) {
    SmallString<128> seedDir(dir);
    llvm::sys::path::append(seedDir, "seed" + std::to_string(seed));
    if (llvm::sys::fs::create_directories(seedDir)) {
      std::fprintf(stderr, "hwagent-bench-scenarios: cannot create %s\n",
                   seedDir.c_str());
      return 1;
    }
    std::vector<Tally> tallies;
    if (!runSeed(config, seed, tables, seedDir.str().str(), tallies))
      return 1;
    for (size_t m = 0; m < config.modes.size(); ++m) {
      std::string label =
          "seed " + std::to_string(seed) + ", " + config.modes[m].name;
      printTally(label.c_str(), tallies[m]);
      pooled[m].add(tallies[m]);
    }
  }
  std::printf("\n%zu seed(s) x %d scenarios x %zu workloads x %zu targets, %d "
              "steps; scenarios in %s\n",
              config.seeds.size(), config.scenarios, config.workloads.size(),
              config.targets.size(), config.steps, dir.c_str());
  for (size_t m = 0; m < config.modes.size(); ++m)
    printTally((std::string("all seeds, ") + config.modes[m].name).c_str(),
               pooled[m]);
  return 0;
}
