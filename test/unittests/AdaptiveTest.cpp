//===- AdaptiveTest.cpp - online learning and re-partitioning -------------===//

#include "Adaptive.h"
#include "ModelBuilder.h"
#include "hwagent_rt/hwagent_rt.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

using namespace hwagent_rt;
using hwagent_test::ModelBuilder;

namespace {

/// Two programs in a chain, both best on the ANE; boundaries are cheap
/// compared with the programs so that moving one alone can pay.
ModelBuilder chain() {
  ModelBuilder m;
  m.links(1e11, 5e10, 1e-5)
      .program(HWAGENT_BACKEND_ANE, {4e-3, 1e-3, 0}, 0xb0)
      .program(HWAGENT_BACKEND_ANE, {4e-3, 1e-3, 0}, 0xb1)
      .edge(-1, 0, 4000)
      .edge(0, 1, 4000)
      .edge(1, -1, 4000);
  return m;
}

/// A tiny graph: both programs take 20 us on the CPU, the ANE's launch
/// makes them 60 us there, and every boundary costs 50 us of sync.
ModelBuilder tiny() {
  ModelBuilder m;
  m.links(1e11, 5e10, 5e-5)
      .program(HWAGENT_BACKEND_CPU, {2e-5, 6e-5, 0}, 0xc0)
      .program(HWAGENT_BACKEND_CPU, {2e-5, 6e-5, 0}, 0xc1)
      .edge(-1, 0, 4000)
      .edge(0, 1, 4000)
      .edge(1, -1, 4000);
  return m;
}

Model load(const ModelBuilder &builder) {
  hwagent_model_info_t info = builder.info();
  return *loadModel(&info);
}

/// The online model on chain() from the compiler's predictions, both
/// programs on the ANE, every variant compiled.
class AdaptiveModel : public testing::Test {
protected:
  void SetUp() override { model.reset(table, params); }

  Model table = load(chain());
  OnlineModel model;
  AdaptiveParameters params;
  std::vector<int32_t> current = {1, 1};
  std::vector<bool> compiled =
      std::vector<bool>(table.programs.size() * kNumBackends, true);
};

TEST_F(AdaptiveModel, EstimatesConvergeToMeasurements) {
  EXPECT_NEAR(model.get(0, 1).seconds(), 1e-3, 1e-12); // the prediction
  // The ANE really takes 3 ms for region 0 (noisy measurements).
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (int step = 0; step < 40; ++step) {
    model.update(0, 1, 3e-3 * std::exp(noise(rng)));
    model.advance();
  }
  EXPECT_NEAR(model.get(0, 1).seconds(), 3e-3, 3e-4);
  EXPECT_LT(model.get(0, 1).variance,
            params.priorVariance + params.backendPriorVariance);
  // What region 0 taught about the ANE carries to region 1.
  EXPECT_GT(model.get(1, 1).seconds(), 1.5e-3);
  // Drift: the ANE recovers and the estimate follows.
  for (int step = 0; step < 40; ++step) {
    model.update(0, 1, 1e-3 * std::exp(noise(rng)));
    model.advance();
  }
  EXPECT_NEAR(model.get(0, 1).seconds(), 1e-3, 1.5e-4);
}

TEST_F(AdaptiveModel, NoSwitchOnNoiseAlone) {
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0.0, 0.1); // 10 % noise
  int switches = 0;
  for (int step = 0; step < 500; ++step) {
    for (unsigned r = 0; r < 2; ++r)
      model.update(r, 1, 1e-3 * std::exp(noise(rng)));
    model.advance();
    switches += decide(table, model, current, compiled, params).switchWorthIt;
  }
  EXPECT_EQ(switches, 0);
}

TEST_F(AdaptiveModel, SwitchesWhenTheAneSlowsDown) {
  int reactedAfter = -1;
  for (int step = 0; step < 10 && reactedAfter < 0; ++step) {
    for (unsigned r = 0; r < 2; ++r)
      model.update(r, 1, 6e-3); // 6x slower: the CPU (4 ms) is now better
    model.advance();
    Decision d = decide(table, model, current, compiled, params);
    if (d.switchWorthIt) {
      EXPECT_EQ(d.backends, (std::vector<int32_t>{0, 0}));
      reactedAfter = step + 1;
    }
  }
  EXPECT_GE(reactedAfter, 1);
  EXPECT_LE(reactedAfter, 3);
}

TEST(Adaptive, LinksPriceTheirBoundaries) {
  ModelBuilder builder = chain();
  builder.link(0, 2, 1e10, 0, 5e-5);
  Model model = load(builder);
  hwagent_edge_info_t e = {0, 1, 1000, 1000};
  // cpu -> gpu: its own price, no conversion; cpu -> ane converts the f32
  // bytes; the same backend costs nothing.
  EXPECT_NEAR(model.linkCost(e, 0, 2), 5e-5 + 1000 / 1e10, 1e-15);
  EXPECT_NEAR(model.linkCost(e, 2, 0), 1e-5 + 1000 / 1e11, 1e-15);
  EXPECT_NEAR(model.linkCost(e, 0, 1), 1e-5 + 1000 / 1e11 + 1000 / 5e10, 1e-15);
  EXPECT_EQ(model.linkCost(e, 1, 1), 0);
  hwagent_edge_info_t ints = {0, 1, 1000, 0};
  EXPECT_NEAR(model.linkCost(ints, 0, 1), 1e-5 + 1000 / 1e11, 1e-15);
}

TEST(Adaptive, MoveDeltaIsTheStepTimeDifference) {
  // A chain of 6 programs with a skip edge and host edges; every move of
  // every program from random placements.
  ModelBuilder builder;
  builder.links(1e10, 5e9, 1e-5).link(0, 2, 2e10, 0, 5e-6);
  for (int r = 0; r < 6; ++r)
    builder.program(0, {1e-3 * (r + 1), 5e-4, 7e-4});
  builder.edge(-1, 0, 1000)
      .edge(0, 1, 2000)
      .edge(1, 2, 3000, 0)
      .edge(2, 3, 4000)
      .edge(3, 4, 5000)
      .edge(4, 5, 6000)
      .edge(1, 4, 7000)
      .edge(5, -1, 8000);
  Model table = load(builder);
  auto cost = [&](size_t r, int b) { return table.programs[r].predicted[b]; };
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<int32_t> backends(6);
    for (int32_t &b : backends)
      b = int32_t(rng() % kNumBackends);
    double before = stepTime(table, backends, cost);
    for (unsigned r = 0; r < 6; ++r)
      for (int b = 0; b < kNumBackends; ++b) {
        std::vector<int32_t> moved = backends;
        moved[r] = b;
        EXPECT_NEAR(moveDelta(table, backends, r, b, cost),
                    stepTime(table, moved, cost) - before, 1e-15);
      }
  }
}

std::string writeScenario(const char *text) {
  std::string path = testing::TempDir() + "adaptive.scenario";
  FILE *f = std::fopen(path.c_str(), "w");
  std::fputs(text, f);
  std::fclose(f);
  return path;
}

struct Vetoes {
  std::atomic<int> seen{0};
};

int32_t vetoAll(void *user, const hwagent_repartition_t *event) {
  static_cast<Vetoes *>(user)->seen++;
  EXPECT_EQ(event->num_programs, 2u);
  EXPECT_GT(event->current_seconds, event->proposed_seconds);
  return 1;
}

void runSteps(int steps) {
  for (int step = 0; step < steps; ++step) {
    for (int64_t id : {0, 1}) {
      int32_t b = hwagent_rt_select(id);
      hwagent_rt_begin(id, b);
      hwagent_rt_end(id, b, 0);
    }
  }
}

TEST(Adaptive, VetoedRepartitionIsNotApplied) {
  std::string scenario =
      writeScenario("hwagent-scenario 1\nat 5 ane slowdown 6\n");
  Vetoes vetoes;
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.adaptive = 1;
  options.simulate_cpu = 1;
  options.scenario_path = scenario.c_str();
  options.on_repartition = vetoAll;
  options.on_repartition_user = &vetoes;
  ModelBuilder builder = chain();
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = nullptr;
  ASSERT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
  hwagent_session_make_current(s);
  for (int step = 0; step < 20; ++step) {
    runSteps(1);
    hwagent_session_end_step(s, 0);
  }
  EXPECT_GT(vetoes.seen.load(), 0);
  EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_ANE); // still the ANE
  hwagent_regret_t regret;
  hwagent_session_regret(s, &regret);
  EXPECT_EQ(regret.switches, 0);
  EXPECT_EQ(regret.vetoes, vetoes.seen.load());
  hwagent_session_destroy(s);

  // Without the veto the same run switches to the CPU.
  options.on_repartition = nullptr;
  ASSERT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
  hwagent_session_make_current(s);
  for (int step = 0; step < 20; ++step) {
    runSteps(1);
    hwagent_session_end_step(s, 0);
  }
  EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_CPU);
  hwagent_session_regret(s, &regret);
  EXPECT_GE(regret.switches, 1);
  EXPECT_LE(regret.switches, 2);
  hwagent_session_destroy(s);
}

/// Runs `steps` steps of `table` under `scenario`, adaptive with every
/// time simulated; by default the model learns from measurements only.
hwagent_regret_t runAdaptive(const ModelBuilder &table, const char *scenario,
                             int steps, double budget, int32_t *finalBackend,
                             std::vector<int64_t> *switchSteps = nullptr,
                             bool telemetry = false, int exploreEvery = 5) {
  std::string path = writeScenario(scenario);
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.adaptive = 1;
  options.simulate_cpu = 1;
  options.explore_every = exploreEvery;
  options.explore_budget = budget;
  options.use_telemetry = telemetry;
  options.scenario_path = path.c_str();
  hwagent_session_t *s = nullptr;
  hwagent_regret_t regret = {};
  hwagent_model_info_t info = table.info();
  EXPECT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
  if (!s)
    return regret;
  hwagent_session_make_current(s);
  for (int step = 0; step < steps; ++step) {
    runSteps(1);
    hwagent_session_end_step(s, 0);
  }
  hwagent_session_regret(s, &regret);
  if (finalBackend)
    *finalBackend = hwagent_rt_select(0);
  if (switchSteps) {
    switchSteps->resize(16);
    switchSteps->resize(
        hwagent_session_switch_steps(s, switchSteps->data(), 16));
  }
  hwagent_session_destroy(s);
  return regret;
}

TEST(Adaptive, ExplorationStaysWithinItsBudget) {
  // A probe moves one program to the ANE for a step: 40 us more compute
  // and two 50 us boundaries, 3.5 steps' worth. Probing every 5 steps
  // would cost 70 % of the run; the budget keeps it to its share.
  int32_t backend = -1;
  hwagent_regret_t regret =
      runAdaptive(tiny(), "hwagent-scenario 1\n", 2000, 0.02, &backend);
  EXPECT_EQ(backend, HWAGENT_BACKEND_CPU);
  EXPECT_EQ(regret.switches, 0);
  EXPECT_GE(regret.explorations, 1);  // still probes, rarely
  EXPECT_LE(regret.explorations, 12); // 2000 * 0.02 / 3.5 steps per probe
  double overhead = regret.actual_seconds / regret.oracle_seconds - 1;
  EXPECT_LE(overhead, 0.025);
  // A larger budget buys more probes.
  hwagent_regret_t generous =
      runAdaptive(tiny(), "hwagent-scenario 1\n", 2000, 0.2, nullptr);
  EXPECT_GT(generous.explorations, 3 * regret.explorations);
}

/// The ANE slows down 6x at step 5 and recovers at step 40.
const char *kSlowdownAndRecovery =
    "hwagent-scenario 1\nat 5 ane slowdown 6\nat 40 ane slowdown 1\n";

TEST(Adaptive, ExplorationFindsTheRecovery) {
  // The ANE slows down 6x at step 5 (both programs move to the CPU) and
  // recovers at step 40; only probes can see the recovery. While the ANE
  // is slow a probe costs about a quarter of a step and the credit grows
  // by 2 % of one per step, so a probe comes about every 12 steps.
  int32_t backend = -1;
  std::vector<int64_t> switches;
  hwagent_regret_t regret = runAdaptive(chain(), kSlowdownAndRecovery, 150,
                                        0.02, &backend, &switches);
  EXPECT_EQ(backend, HWAGENT_BACKEND_ANE);
  EXPECT_EQ(regret.switches, 2);
  ASSERT_EQ(switches.size(), 2u);
  EXPECT_GE(switches[0], 5);
  EXPECT_LE(switches[0], 8);
  EXPECT_GE(switches[1], 40);
  EXPECT_LE(switches[1], 40 + 15);
  // A generous budget sees the recovery sooner (and pays for more probes
  // while the ANE is slow).
  runAdaptive(chain(), kSlowdownAndRecovery, 150, 0.2, nullptr, &switches);
  ASSERT_EQ(switches.size(), 2u);
  EXPECT_LE(switches[1], 40 + 6);
}

TEST(Adaptive, TelemetryShiftsTheModelAhead) {
  // The same events announced by telemetry: the model moves before the
  // slow step runs. Moving to the CPU waits at most one step (the CPU was
  // never measured here, so the gain is within the uncertainty until one
  // slow step confirms it); the recovery is taken at the end of the step
  // before it, without probing.
  int32_t backend = -1;
  std::vector<int64_t> switches;
  hwagent_regret_t regret =
      runAdaptive(chain(), kSlowdownAndRecovery, 150, 0.02, &backend, &switches,
                  /*telemetry=*/true, /*exploreEvery=*/0);
  EXPECT_EQ(backend, HWAGENT_BACKEND_ANE);
  EXPECT_EQ(regret.explorations, 0);
  ASSERT_EQ(switches.size(), 2u);
  EXPECT_GE(switches[0], 4);
  EXPECT_LE(switches[0], 5);
  EXPECT_EQ(switches[1], 39);
  EXPECT_LE(regret.actual_seconds / regret.oracle_seconds - 1, 0.01);
  // Learning from measurements only, without probes, never sees the
  // recovery: it stays on the CPU.
  runAdaptive(chain(), kSlowdownAndRecovery, 150, 0.02, &backend, &switches,
              /*telemetry=*/false, /*exploreEvery=*/0);
  EXPECT_EQ(backend, HWAGENT_BACKEND_CPU);
  EXPECT_EQ(switches.size(), 1u);
}

TEST(Adaptive, ConcurrentDispatchDuringRepartition) {
  std::string scenario = writeScenario(
      "hwagent-scenario 1\nat 3 ane slowdown 6\nat 40 ane slowdown 1\n");
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.adaptive = 1;
  options.simulate_cpu = 1;
  options.explore_every = 5;
  options.scenario_path = scenario.c_str();
  ModelBuilder builder = chain();
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = nullptr;
  ASSERT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
  hwagent_session_make_current(s);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> executions{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t)
    workers.emplace_back([&] {
      while (!stop.load()) {
        for (int64_t id : {0, 1}) {
          int32_t b = hwagent_rt_select(id);
          EXPECT_TRUE(b == HWAGENT_BACKEND_CPU || b == HWAGENT_BACKEND_ANE);
          hwagent_rt_begin(id, b);
          hwagent_rt_end(id, b, 0);
          executions++;
        }
      }
    });
  for (int step = 0; step < 80; ++step) {
    runSteps(1);
    hwagent_session_end_step(s, 0);
  }
  stop = true;
  for (std::thread &t : workers)
    t.join();
  int64_t counted = 0;
  for (uint32_t i = 0; i < 2; ++i) {
    hwagent_program_stats_t r;
    hwagent_session_program_stats(s, i, &r);
    counted += r.executions[0] + r.executions[1] + r.executions[2];
  }
  EXPECT_EQ(counted, executions.load() + 80 * 2);
  hwagent_regret_t regret;
  hwagent_session_regret(s, &regret);
  EXPECT_GE(regret.switches, 1);
  hwagent_session_destroy(s);
}

} // namespace
