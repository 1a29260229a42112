//===- ScenarioSuite.cpp - the adaptive runtime over scenario families ----===//
//
// Generates randomized scenarios for every bundled workload and built-in
// target: one to three events per scenario, each a slowdown of 1.5-10x
// (log-uniform) on a random backend or a thermal state (fair, serious,
// critical), lasting 20-500 steps (log-uniform), overlapping freely, with
// 2-8 % simulator noise. Each runs with the compile-time placement held
// (static) and with the adaptive runtime, and the suite prints the
// distributions the adaptive runtime is held to (docs/adaptive.md):
// regret against the clairvoyant oracle (median, p90), runs where adaptive
// is worse than static by more than the exploration budget, the reaction to
// every change after which another placement is >= 10 % faster, and the
// switches per change.
//
//   hwagent-bench-scenarios [--scenarios N] [--steps S] [--seed X]
//       [--no-telemetry] [--targets a,b] [--write DIR] [workload.mlir...]
//
// Without workloads: the bundled examples/*_train_step.mlir.
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
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

} // namespace

int main(int argc, char **argv) {
  int scenarios = 20, steps = 600;
  uint64_t seed = 1;
  bool telemetry = true;
  std::string writeDir;
  std::vector<std::string> targets = hwcore::builtinTargetNames();
  std::vector<std::string> workloads;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "hwagent-bench-scenarios: %s needs a value\n",
                     argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--scenarios"))
      scenarios = std::atoi(value());
    else if (!std::strcmp(argv[i], "--steps"))
      steps = std::atoi(value());
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(value(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--no-telemetry"))
      telemetry = false;
    else if (!std::strcmp(argv[i], "--write"))
      writeDir = value();
    else if (!std::strcmp(argv[i], "--targets")) {
      targets.clear();
      for (llvm::StringRef t : llvm::split(llvm::StringRef(value()), ','))
        targets.push_back(t.str());
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr, "hwagent-bench-scenarios: unknown option %s\n",
                   argv[i]);
      return 2;
    } else {
      workloads.push_back(argv[i]);
    }
  }
  if (scenarios <= 0 || steps < 100) {
    std::fprintf(stderr, "hwagent-bench-scenarios: --scenarios must be > 0 "
                         "and --steps >= 100\n");
    return 2;
  }
  if (workloads.empty())
    for (const char *name :
         {"cnn", "mlp", "lstm", "transformer", "digits_cnn", "digits_mlp"})
      workloads.push_back(std::string(HWAGENT_SOURCE_DIR) + "/examples/" +
                          name + "_train_step.mlir");
  SmallString<128> dir(writeDir);
  if (dir.empty()) {
    if (llvm::sys::fs::createUniqueDirectory("hwagent-scenarios", dir)) {
      std::fprintf(stderr, "hwagent-bench-scenarios: no temporary directory\n");
      return 1;
    }
  } else if (llvm::sys::fs::create_directories(dir)) {
    std::fprintf(stderr, "hwagent-bench-scenarios: cannot create %s\n",
                 dir.c_str());
    return 1;
  }

  DialectRegistry registry;
  hwagent::registerAllDialects(registry);
  hwagent::registerAllPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::mt19937_64 rng(seed);
  std::vector<double> staticRegret, adaptiveRegret, reactions, switchesPer;
  // Runs where the placement matters: the static one is >= 1 % off the
  // oracle (elsewhere both are near 0 and say little).
  std::vector<double> contestedStatic, contestedAdaptive;
  int runs = 0, worseThanStatic = 0, qualifying = 0, slowReactions = 0,
      missed = 0;
  double budget = 0.02;
  std::printf("%-18s %-13s %9s %9s %9s %9s %7s %7s\n", "workload", "target",
              "static50", "static90", "adapt50", "adapt90", "react90",
              "switch");
  for (const std::string &workload : workloads) {
    std::string name = llvm::sys::path::stem(workload).str();
    for (const std::string &target : targets) {
      std::optional<hwagent::ModelTable> table =
          hwagent::bench::partitionedTable(context, workload, target);
      if (!table)
        return 1;
      std::vector<double> pairStatic, pairAdaptive, pairReaction;
      int pairSwitchMax = 0;
      for (int s = 0; s < scenarios; ++s) {
        Scenario scenario = generate(rng, steps);
        SmallString<128> path(dir);
        llvm::sys::path::append(path, name + "-" + target + "-" +
                                          std::to_string(s) + ".scenario");
        std::error_code error;
        llvm::raw_fd_ostream out(path, error);
        if (error) {
          std::fprintf(stderr, "hwagent-bench-scenarios: %s: %s\n",
                       path.c_str(), error.message().c_str());
          return 1;
        }
        out << "# noise " << scenario.noise << "\n" << scenario.text;
        out.close();
        hwagent_options_t options;
        hwagent_options_init(&options);
        options.use_telemetry = telemetry;
        options.explore_every = 10;
        options.sim_noise = scenario.noise;
        options.seed = seed * 1000 + s;
        options.scenario_path = path.c_str();
        options.adaptive = 0;
        auto fixed = hwagent::bench::runAdaptive(*table, options, steps);
        options.adaptive = 1;
        auto adaptive = hwagent::bench::runAdaptive(*table, options, steps);
        if (!fixed || !adaptive)
          return 1;
        auto regretOf = [](const hwagent_regret_t &r) {
          return 100 * (r.actual_seconds / r.oracle_seconds - 1);
        };
        double st = regretOf(fixed->regret), ad = regretOf(adaptive->regret);
        pairStatic.push_back(st);
        pairAdaptive.push_back(ad);
        if (ad > 5.0)
          std::printf("  adaptive regret %.2f%% (static %.2f%%): %s\n", ad, st,
                      path.c_str());
        if (st >= 1.0) {
          contestedStatic.push_back(st);
          contestedAdaptive.push_back(ad);
        }
        ++runs;
        if (adaptive->regret.actual_seconds >
            fixed->regret.actual_seconds * (1 + budget)) {
          ++worseThanStatic;
          std::printf("  worse than static by over the budget: %s (%.2f%% vs "
                      "%.2f%%)\n",
                      path.c_str(), ad, st);
        }
        for (const hwagent_event_outcome_t &o : adaptive->outcomes) {
          switchesPer.push_back(o.switches);
          if (o.switches > 2)
            std::printf("  %d switches after the change at step %lld: %s\n",
                        o.switches, static_cast<long long>(o.step),
                        path.c_str());
          pairSwitchMax = std::max(pairSwitchMax, int(o.switches));
          if (o.best_gain < 0.10 || o.steps < 10)
            continue;
          ++qualifying;
          if (o.reaction_steps < 0) {
            ++missed;
            std::printf("  no reaction to the change at step %lld (%.0f%% to "
                        "gain): %s\n",
                        static_cast<long long>(o.step), 100 * o.best_gain,
                        path.c_str());
            continue;
          }
          reactions.push_back(double(o.reaction_steps));
          pairReaction.push_back(double(o.reaction_steps));
          slowReactions += o.reaction_steps > 3;
        }
      }
      staticRegret.insert(staticRegret.end(), pairStatic.begin(),
                          pairStatic.end());
      adaptiveRegret.insert(adaptiveRegret.end(), pairAdaptive.begin(),
                            pairAdaptive.end());
      std::printf("%-18s %-13s %8.2f%% %8.2f%% %8.2f%% %8.2f%% %7.0f %7d\n",
                  name.substr(0, 18).c_str(), target.c_str(),
                  quantile(pairStatic, 0.5), quantile(pairStatic, 0.9),
                  quantile(pairAdaptive, 0.5), quantile(pairAdaptive, 0.9),
                  quantile(pairReaction, 0.9), pairSwitchMax);
    }
  }
  std::printf("\n%d runs of %d steps, %s; scenarios in %s\n", runs, steps,
              telemetry ? "telemetry on" : "measurements only", dir.c_str());
  std::printf("regret vs clairvoyant oracle: static median %.2f%% p90 %.2f%%; "
              "adaptive median %.2f%% p90 %.2f%% max %.2f%%\n",
              quantile(staticRegret, 0.5), quantile(staticRegret, 0.9),
              quantile(adaptiveRegret, 0.5), quantile(adaptiveRegret, 0.9),
              quantile(adaptiveRegret, 1.0));
  std::printf("runs where the static placement is >= 1%% off (%zu): static "
              "median %.2f%% p90 %.2f%%; adaptive median %.2f%% p90 %.2f%% "
              "max %.2f%%\n",
              contestedStatic.size(), quantile(contestedStatic, 0.5),
              quantile(contestedStatic, 0.9), quantile(contestedAdaptive, 0.5),
              quantile(contestedAdaptive, 0.9),
              quantile(contestedAdaptive, 1.0));
  std::printf("adaptive worse than static by more than the %.0f%% budget: %d "
              "of %d runs\n",
              100 * budget, worseThanStatic, runs);
  std::printf("changes after which another placement is >= 10%% faster: %d; "
              "reaction median %.0f, p90 %.0f, max %.0f steps; over 3 steps: "
              "%d; none: %d\n",
              qualifying, quantile(reactions, 0.5), quantile(reactions, 0.9),
              quantile(reactions, 1.0), slowReactions, missed);
  std::printf("switches per change: median %.0f, p90 %.0f, max %.0f\n",
              quantile(switchesPer, 0.5), quantile(switchesPer, 0.9),
              quantile(switchesPer, 1.0));
  return 0;
}
