//===- EnergyTest.cpp - energy in the runtime: accounting, objectives -----===//

#include "Adaptive.h"
#include "EnergyCounter.h"
#include "HwAgent/Core/Programs.h"
#include "ModelBuilder.h"
#include "Telemetry.h"
#include "hwagent_rt/hwagent_rt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace hwagent_rt;
using hwagent_test::ModelBuilder;

namespace {

/// Program 0 on the CPU (1 ms), program 1 on the ANE (2 ms; CPU 8 ms), no
/// boundaries. Power: idle cpu 0.5 W, gpu 1 W (the ANE's rail is off);
/// running cpu 5 W, ane 2 W, gpu 10 W; static 1 W; fixed joules 0.1 mJ
/// and 0.2 mJ where each runs.
ModelBuilder powered() {
  ModelBuilder m;
  m.program(HWAGENT_BACKEND_CPU, {1e-3, 0, 0})
      .fixedJoules({1e-4, 0, 0})
      .program(HWAGENT_BACKEND_ANE, {8e-3, 2e-3, 0})
      .fixedJoules({3e-4, 2e-4, 0})
      .power({0.5, 0, 1.0}, {5, 2, 10}, 1.0);
  return m;
}

/// Runs the programs once; returns the backend the last one ran on.
int32_t runStep(std::initializer_list<int64_t> programs) {
  int32_t b = -1;
  for (int64_t id : programs) {
    b = hwagent_rt_select(id); // a pending probe is taken here
    hwagent_rt_begin(id, b);
    hwagent_rt_end(id, b, 0);
  }
  return b;
}

hwagent_session_t *open(const hwagent_model_info_t &info,
                        hwagent_options_t options) {
  hwagent_session_t *s = nullptr;
  EXPECT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK)
      << hwagent_error_message();
  hwagent_session_make_current(s);
  return s;
}

hwagent_options_t simulated() {
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.simulate_cpu = 1;
  return options;
}

/// One step of `programs` in a session of its own: its statistics.
hwagent_step_stats_t stepOnce(const hwagent_model_info_t &info,
                              hwagent_options_t options,
                              std::initializer_list<int64_t> programs) {
  hwagent_session_t *s = open(info, options);
  runStep(programs);
  EXPECT_EQ(hwagent_session_end_step(s, 0), HWAGENT_OK);
  hwagent_step_stats_t step = {};
  EXPECT_EQ(hwagent_session_step_stats(s, &step), HWAGENT_OK);
  hwagent_session_destroy(s);
  return step;
}

// By hand: T = 1 + 2 = 3 ms. Programs 0.1 mJ + 5 W x 1 ms = 5.1 mJ and
// 0.2 mJ + 2 W x 2 ms = 4.2 mJ; static 1 W x 3 ms = 3 mJ; idle: the CPU
// 0.5 W x 2 ms = 1 mJ, the GPU 1 W x 3 ms = 3 mJ. 16.3 mJ in all.
TEST(Energy, StepJoulesAgainstHandComputedValues) {
  ModelBuilder builder = powered();
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = open(info, simulated());
  runStep({0, 1});
  ASSERT_EQ(hwagent_session_end_step(s, 0), HWAGENT_OK);
  hwagent_step_stats_t step;
  ASSERT_EQ(hwagent_session_step_stats(s, &step), HWAGENT_OK);
  EXPECT_NEAR(step.last_step_seconds, 3e-3, 1e-12);
  EXPECT_NEAR(step.last_program_joules, 9.3e-3, 1e-9);
  EXPECT_NEAR(step.last_step_joules, 16.3e-3, 1e-9);
  EXPECT_EQ(step.objective, HWAGENT_OBJECTIVE_TIME);
  EXPECT_EQ(step.power_cap, 0);
  hwagent_program_stats_t p;
  ASSERT_EQ(hwagent_session_program_stats(s, 1, &p), HWAGENT_OK);
  EXPECT_NEAR(p.joules[HWAGENT_BACKEND_ANE], 4.2e-3, 1e-9);
  EXPECT_EQ(p.joules[HWAGENT_BACKEND_CPU], 0);
  hwagent_session_destroy(s);

  // The adaptive runtime's energy pricing is the same account.
  Model model = *loadModel(&info);
  std::vector<int32_t> placement = {HWAGENT_BACKEND_CPU, HWAGENT_BACKEND_ANE};
  auto predicted = [&](size_t p, int b) {
    return model.programs[p].predicted[b];
  };
  EXPECT_NEAR(stepCost(model, Pricing::energy(model), placement, predicted),
              16.3e-3, 1e-9);
  EXPECT_NEAR(stepTime(model, placement, predicted), 3e-3, 1e-12);
  // A blend is seconds plus its weight times joules.
  EXPECT_NEAR(stepCost(model, Pricing::blend(model, 0.5), placement, predicted),
              3e-3 + 0.5 * 16.3e-3, 1e-9);
}

TEST(Energy, BoundariesAreChargedTheHostsPower) {
  ModelBuilder builder;
  builder.links(1e9, 0, 1e-4)
      .program(HWAGENT_BACKEND_CPU, {1e-3, 0, 0})
      .program(HWAGENT_BACKEND_ANE, {8e-3, 2e-3, 0})
      .edge(0, 1, 1000000, 0)
      .power({0, 0, 0}, {0, 0, 0}, 0, /*boundary=*/3.0,
             /*boundaryPerByte=*/1e-9);
  hwagent_model_info_t info = builder.info();
  Model model = *loadModel(&info);
  auto predicted = [&](size_t p, int b) {
    return model.programs[p].predicted[b];
  };
  // 1 MB at 1 GB/s plus 100 us of sync: 1.1 ms at 3 W, 1 mJ per MB.
  EXPECT_NEAR(stepCost(model, Pricing::energy(model), {0, 1}, predicted),
              3.0 * 1.1e-3 + 1e-3, 1e-9);
  EXPECT_NEAR(stepCost(model, Pricing::energy(model), {0, 0}, predicted), 0,
              1e-12);
}

// Found by scripts/fuzz: a predicted time that a scenario's slowdown takes
// past the largest double, on a backend drawing 0 W, made 0 * inf = NaN
// joules, converted to an integer count (undefined behaviour, caught by the
// UBSan build of these tests).
TEST(Energy, OverflowedTimesAtZeroWattsCountNothing) {
  std::string path = testing::TempDir() + "energy-overflow.scenario";
  std::ofstream(path) << "hwagent-scenario 1\nat 0 ane slowdown 10\n";
  ModelBuilder builder;
  builder.program(HWAGENT_BACKEND_ANE, {1e-3, 1e308, 0}).weights(1 << 20);
  builder.compile(HWAGENT_BACKEND_ANE, 1e300, 1e300);
  hwagent_model_info_t info = builder.info();
  hwagent_options_t options = simulated();
  options.scenario_path = path.c_str();
  hwagent_session_t *s = open(info, options);
  runStep({0});
  ASSERT_EQ(hwagent_session_end_step(s, 0), HWAGENT_OK);
  hwagent_step_stats_t step;
  hwagent_session_step_stats(s, &step);
  EXPECT_TRUE(std::isfinite(step.last_step_joules));
  EXPECT_GE(step.last_step_joules, 0);
  hwagent_session_destroy(s);
  std::remove(path.c_str());
}

// Found by scripts/fuzz: energy pricing of a model without power values
// (0 W everywhere) times an unbounded time or link was 0 * inf = NaN, and
// the max-flow solver asserted on the NaN capacity.
TEST(Energy, ZeroPowerAndUnboundedTimesStaySolvable) {
  ModelBuilder builder;
  builder.links(1e-300, 1e-300, 0)
      .program(HWAGENT_BACKEND_ANE, {1e-3, INFINITY, 0})
      .program(HWAGENT_BACKEND_CPU, {1e-3, 0, 0})
      .edge(0, 1, 1 << 20)
      .edge(-1, 0, 1 << 20);
  Model model;
  model.programs = builder.model.programs;
  model.edges = builder.model.edges;
  model.incident.resize(model.programs.size());
  for (int a = 0; a < kNumBackends; ++a)
    for (int b = 0; b < kNumBackends; ++b)
      model.linkPrices[a][b] = {static_cast<hwcore::BackendKind>(a),
                                static_cast<hwcore::BackendKind>(b), 1e-300,
                                1e-300, 0};
  Pricing energy = Pricing::energy(model); // every price 0
  std::vector<int32_t> placement;
  double cost = bestStepTime(
      model,
      [&](size_t p, int b) {
        return energy.program(p, b, model.programs[p].predicted[b]);
      },
      1.0, &placement, energy);
  EXPECT_FALSE(std::isnan(cost));
  EXPECT_EQ(Pricing::times(0.0, INFINITY), 0.0);
}

TEST(Energy, BadPowerValuesAreRefusedByName) {
  auto error = [](ModelBuilder builder) {
    hwagent_model_info_t info = builder.info();
    hwagent_session_t *s = nullptr;
    EXPECT_NE(hwagent_session_create(&info, nullptr, &s), HWAGENT_OK);
    return std::string(hwagent_error_message());
  };
  EXPECT_NE(error(powered().power({-1, 0, 0}, {5, 2, 10}, 1))
                .find("power of backend cpu"),
            std::string::npos);
  EXPECT_NE(error(powered().power({0, 0, 0}, {5, NAN, 10}, 1))
                .find("power of backend ane"),
            std::string::npos);
  EXPECT_NE(error(powered().power({0, 0, 0}, {5, 2, 10}, INFINITY))
                .find("static_power"),
            std::string::npos);
  EXPECT_NE(error(powered().fixedJoules({-1e-3, 0, 0}))
                .find("program 1: fixed joules on cpu"),
            std::string::npos);
  // A megawatt is no chip's: the bound keeps products with seconds finite.
  EXPECT_NE(error(powered().power({0, 0, 0}, {5, 2e7, 10}, 1))
                .find("must be in [0, 1e6]"),
            std::string::npos);
  EXPECT_NE(error(powered().objective(7)).find("objective 7"),
            std::string::npos);
  // The compiler's words for the same cap (hwcore's Limits.h).
  EXPECT_NE(error(powered().objective(0, -2))
                .find("power cap must be watts in [0, 1e6] (0: none), got -2"),
            std::string::npos);

  hwagent_options_t options;
  hwagent_options_init(&options);
  options.objective = 3;
  ModelBuilder builder = powered();
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = nullptr;
  EXPECT_EQ(hwagent_session_create(&info, &options, &s),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hwagent_error_message()).find("option objective"),
            std::string::npos);
  options.objective = -1;
  options.power_cap = NAN;
  EXPECT_EQ(hwagent_session_create(&info, &options, &s),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hwagent_error_message()).find("option power_cap"),
            std::string::npos);

  options.power_cap = -1;
  s = open(info, options);
  EXPECT_EQ(hwagent_session_set_objective(s, 5, 0), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(hwagent_session_set_objective(s, HWAGENT_OBJECTIVE_ENERGY, -3),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hwagent_error_message()).find("power cap"),
            std::string::npos);
  EXPECT_EQ(hwagent_session_set_objective(s, HWAGENT_OBJECTIVE_EDP, 12.5),
            HWAGENT_OK);
  runStep({0, 1});
  hwagent_session_end_step(s, 0);
  hwagent_step_stats_t step;
  hwagent_session_step_stats(s, &step);
  EXPECT_EQ(step.objective, HWAGENT_OBJECTIVE_EDP);
  EXPECT_EQ(step.power_cap, 12.5);
  hwagent_session_destroy(s);
}

/// One program: the GPU is fastest (5 ms at 44 W running), the ANE
/// frugal (10 ms at 5 W), the CPU slow (60 ms at 20 W): the published M4
/// Max large-matmul trade (ENERGY-FACTS.md) in miniature. Compiled for
/// time: on the GPU.
ModelBuilder tradeOff() {
  ModelBuilder m;
  m.program(HWAGENT_BACKEND_GPU, {60e-3, 10e-3, 5e-3})
      .edge(-1, 0, 4000)
      .edge(0, -1, 4000)
      .power({0.5, 0, 0.5}, {20, 5, 44}, 1.0);
  return m;
}

std::string writeScenario(const std::string &text) {
  std::string path = testing::TempDir() + "energy-scenario-" +
                     std::to_string(std::rand()) + ".txt";
  std::ofstream(path) << text;
  return path;
}

/// Runs `steps` adaptive steps and returns the backend per step.
std::vector<int32_t> adaptiveRun(hwagent_session_t *s, int steps) {
  std::vector<int32_t> backends;
  for (int step = 0; step < steps; ++step) {
    backends.push_back(runStep({0}));
    hwagent_session_end_step(s, 0);
  }
  return backends;
}

TEST(Energy, TelemetryEventsSwitchTheObjective) {
  // On battery at step 10 (minimize energy), back on the charger at 30.
  std::string scenario = writeScenario("hwagent-scenario 1\n"
                                       "at 10 objective energy\n"
                                       "at 30 objective time\n");
  hwagent_options_t options = simulated();
  options.adaptive = 1;
  options.scenario_path = scenario.c_str();
  ModelBuilder builder = tradeOff();
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = open(info, options);
  std::vector<int32_t> ran = adaptiveRun(s, 45);
  for (int step = 0; step < 10; ++step)
    EXPECT_EQ(ran[step], HWAGENT_BACKEND_GPU) << "step " << step;
  // Within three steps of each event (a probe of the unmeasured ANE, then
  // the switch), and nothing else.
  for (int step = 13; step < 30; ++step)
    EXPECT_EQ(ran[step], HWAGENT_BACKEND_ANE) << "step " << step;
  for (int step = 33; step < 45; ++step)
    EXPECT_EQ(ran[step], HWAGENT_BACKEND_GPU) << "step " << step;
  hwagent_regret_t regret;
  hwagent_session_regret(s, &regret);
  EXPECT_EQ(regret.switches, 2);
  EXPECT_GT(regret.actual_joules, 0);
  hwagent_session_destroy(s);
  std::remove(scenario.c_str());
}

TEST(Energy, PowerCapKeepsTheFastestPlacementUnderIt) {
  hwagent_options_t options = simulated();
  options.adaptive = 1;
  ModelBuilder builder = tradeOff();
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = open(info, options);
  adaptiveRun(s, 5);
  EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_GPU);
  // A low-power mode: 10 W. The GPU draws ~46 W, the CPU ~22 W, the ANE
  // ~7 W: the ANE is the only placement under the cap.
  ASSERT_EQ(hwagent_session_set_objective(s, HWAGENT_OBJECTIVE_TIME, 10.0),
            HWAGENT_OK);
  std::vector<int32_t> ran = adaptiveRun(s, 10);
  EXPECT_EQ(ran.back(), HWAGENT_BACKEND_ANE);
  hwagent_step_stats_t step;
  hwagent_session_step_stats(s, &step);
  EXPECT_LE(step.last_step_joules / step.last_step_seconds, 10.0);
  // A cap every placement fits leaves the fastest.
  ASSERT_EQ(hwagent_session_set_objective(s, HWAGENT_OBJECTIVE_TIME, 100.0),
            HWAGENT_OK);
  ran = adaptiveRun(s, 10);
  EXPECT_EQ(ran.back(), HWAGENT_BACKEND_GPU);
  hwagent_session_destroy(s);
}

TEST(Energy, EnergyDelayProductAndTheModelsObjective) {
  // Compiled for the energy-delay product: GPU 5 ms x ~0.23 J = 1.1e-3,
  // ANE 10 ms x ~0.07 J = 0.7e-3: the session moves to the ANE unasked.
  hwagent_options_t options = simulated();
  options.adaptive = 1;
  ModelBuilder builder = tradeOff();
  builder.objective(HWAGENT_OBJECTIVE_EDP);
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = open(info, options);
  std::vector<int32_t> ran = adaptiveRun(s, 20);
  EXPECT_EQ(ran.back(), HWAGENT_BACKEND_ANE);
  hwagent_step_stats_t step;
  hwagent_session_step_stats(s, &step);
  EXPECT_EQ(step.objective, HWAGENT_OBJECTIVE_EDP);
  hwagent_session_destroy(s);

  // The options override the model's objective.
  options.objective = HWAGENT_OBJECTIVE_TIME;
  s = open(info, options);
  ran = adaptiveRun(s, 20);
  EXPECT_EQ(ran.back(), HWAGENT_BACKEND_GPU);
  hwagent_session_destroy(s);
}

TEST(Energy, ScenarioObjectiveEventsParseAndErrorsNameTheLine) {
  auto events = parseScenario("hwagent-scenario 1\n"
                              "at 4 power_cap 12.5\n"
                              "at 2 objective edp\n"
                              "at 9 power_cap none\n");
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].objective, HWAGENT_OBJECTIVE_EDP);
  EXPECT_EQ((*events)[0].powerCap, -1);
  EXPECT_EQ((*events)[1].powerCap, 12.5);
  EXPECT_EQ((*events)[2].powerCap, 0);
  auto bad = parseScenario("hwagent-scenario 1\nat 3 objective speed\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2: unknown objective 'speed'"),
            std::string::npos);
  bad = parseScenario("hwagent-scenario 1\n\nat 3 power_cap -4\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 3: power_cap"),
            std::string::npos);
  // CRLF line endings and tabs (issue 38) read as LF and spaces.
  events = parseScenario("hwagent-scenario 1\r\nat 4\tpower_cap 12.5\r\n"
                         "# note\r\n\r\nat 2 objective edp\r\n");
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].powerCap, 12.5);
}

// One formula (HwAgent/Core/Energy.h): the partitioner's exact price of a
// placement and the session's account of the same step, run with every time
// simulated, agree on its seconds, its joules and its objective; so does the
// adaptive runtime's price of the placement. No boundary costs anything here
// (the runtime times none of its own: they run in the host's code).
/// Two regions in a chain from the host and back on every backend of
/// `target` (1 ms and 0.4 ms of compute, a quarter of it of traffic, 2
/// GFLOP each), no boundary syncs, no boundary bytes.
hwcore::StepGraph twoRegions(const hwcore::TargetDescription &target) {
  hwcore::StepGraph g;
  for (hwcore::BackendKind kind : hwcore::kAllBackends)
    g.backends.push_back(*target.lookup(kind));
  unsigned L = g.numLabels();
  g.links.assign(L, std::vector<hwcore::LinkDescription>(L));
  for (unsigned a = 0; a < L; ++a)
    for (unsigned b = 0; b < L; ++b) {
      g.links[a][b] = target.link(g.backends[a].kind, g.backends[b].kind);
      g.links[a][b].sync = 0;
    }
  g.telemetryFactor.assign(L, 1.0);
  g.staticPower = target.staticPower;
  for (double seconds : {1e-3, 4e-4}) {
    std::vector<hwcore::RegionCost> row;
    for (hwcore::BackendKind kind : hwcore::kAllBackends) {
      hwcore::RegionCost c;
      c.backend = kind;
      c.compute = c.computeInputWeights = seconds;
      c.flops = 2000000000;
      c.memory = c.memoryInputWeights = seconds / 4;
      row.push_back(c);
    }
    g.costs.push_back(row);
  }
  g.edges = {{2, 0, 0, 0}, {0, 1, 0, 0}, {1, 2, 0, 0}};
  return g;
}

TEST(Energy, CompilerAndRuntimeAgreeOnAStep) {
  hwcore::TargetDescription target = *hwcore::getBuiltinTarget("apple-m4");
  hwcore::StepGraph g = twoRegions(target);
  g.objective = hwcore::Objective::energy;
  ASSERT_EQ(g.validate(), "");
  // Region 0 on the CPU, region 1 on the ANE: two programs.
  hwcore::StepPlan plan = hwcore::evaluatePlan(g, {0, 1});
  ASSERT_TRUE(plan.legal());
  ASSERT_EQ(plan.programs.size(), 2u);
  ASSERT_GT(plan.idleJoules, 0);

  // The model info the compiler writes for it (ModelTable.cpp): each
  // program's seconds and the joules that do not grow with them, the
  // target's power model.
  hwcore::PowerModel power = hwcore::powerModel(target);
  ModelBuilder builder;
  for (const hwcore::Program &p : plan.programs) {
    hwcore::BackendKind kind = g.backends[p.label].kind;
    std::array<double, 3> predicted = {p.cost.seconds, 0, 0};
    predicted[hwcore::index(kind)] = p.cost.seconds;
    std::array<double, 3> fixed = {};
    fixed[hwcore::index(kind)] =
        p.cost.joules + p.cost.hostJoules -
        power.running[hwcore::index(kind)] * p.cost.seconds;
    builder.program(int32_t(kind), predicted).fixedJoules(fixed);
  }
  builder
      .power(power.idle, power.running, power.staticPower, power.boundary,
             power.boundaryPerByte)
      .objective(HWAGENT_OBJECTIVE_ENERGY);
  hwagent_model_info_t info = builder.info();
  hwagent_step_stats_t step = stepOnce(info, simulated(), {0, 1});
  // The session counts whole nanoseconds and nanojoules per execution:
  // within a few of them (a formula of its own, an idle or static term
  // left out, would be off by millijoules).
  EXPECT_NEAR(step.last_step_seconds, plan.total, 2e-9);
  EXPECT_NEAR(step.last_step_joules, plan.joules, 1e-6);
  EXPECT_NEAR(step.last_program_joules, plan.programJoules, 1e-6);
  EXPECT_NEAR(hwcore::objectiveValue(hwcore::Objective::energy, 0,
                                     step.last_step_seconds,
                                     step.last_step_joules),
              plan.objective, 1e-6);
  EXPECT_GT(plan.staticJoules + plan.idleJoules, 1e-4);

  // The adaptive runtime prices the placement alike.
  Model model = *loadModel(&info);
  std::vector<int32_t> placement = {HWAGENT_BACKEND_CPU, HWAGENT_BACKEND_ANE};
  auto predicted = [&](size_t p, int b) {
    return model.programs[p].predicted[b];
  };
  EXPECT_NEAR(stepCost(model, Pricing::energy(model), placement, predicted),
              plan.joules, 1e-12);
  // And a fourth backend cannot be priced 0: every backend is in the
  // vocabulary's tables (a static_assert ties the C API's count to it).
  EXPECT_EQ(model.powerModel.present.size(), size_t(HWAGENT_NUM_BACKENDS));
}

// Under a power cap the runtime clocks a step as the compiler does
// (hwcore::clockUnderCap on the same step, docs/adaptive.md "Objectives"):
// the model info carries each program's seconds and compute-bound seconds
// at the peak and how each backend's clock scales; the session finds the
// clock that meets the cap and times and prices its simulated programs at
// it. No boundary costs anything here, so both count the same step.
TEST(Energy, CompilerAndRuntimeClockAStepAlike) {
  hwcore::TargetDescription target = *hwcore::getBuiltinTarget("apple-m4");
  hwcore::StepGraph g = twoRegions(target);
  ASSERT_EQ(g.validate(), "");
  // Region 0 on the CPU, region 1 on the GPU; both scale on apple-m4.
  std::vector<unsigned> labels = {0, 2};
  hwcore::StepPlan peak = hwcore::evaluatePlan(g, labels);
  ASSERT_TRUE(peak.legal());
  ASSERT_EQ(peak.programs.size(), 2u);
  double cap = 0.6 * peak.joules / peak.total;
  g.powerCap = cap;
  hwcore::StepPlan plan = hwcore::evaluatePlan(g, labels);
  ASSERT_LT(plan.clock, 0.99);
  ASSERT_GT(plan.clock, 0.2);

  hwcore::PowerModel power = hwcore::powerModel(target);
  ModelBuilder builder;
  for (const hwcore::Program &p : peak.programs) {
    const hwcore::BackendDescription &backend = g.backends[p.label];
    unsigned b = hwcore::index(backend.kind);
    std::array<double, 3> predicted = {p.cost.seconds, 0, 0}, clocked = {},
                          fixed = {};
    predicted[b] = p.cost.seconds;
    clocked[b] = p.cost.clocked;
    fixed[b] =
        p.cost.joules + p.cost.hostJoules - power.running[b] * p.cost.seconds;
    builder.program(int32_t(backend.kind), predicted)
        .fixedJoules(fixed)
        .clocked(clocked)
        .flops(p.cost.flops);
  }
  for (const hwcore::BackendDescription &backend : g.backends)
    builder.clock(int(hwcore::index(backend.kind)), backend.dvfsExponent,
                  backend.minClock, backend.activePower, backend.energyPerFlop);
  builder.power(power.idle, power.running, power.staticPower, power.boundary,
                power.boundaryPerByte);
  hwagent_model_info_t info = builder.info();
  hwagent_options_t options = simulated();
  options.power_cap = cap;
  hwagent_step_stats_t step = stepOnce(info, options, {0, 1});
  EXPECT_NEAR(step.clock, plan.clock, 1e-9);
  EXPECT_NEAR(step.last_step_seconds, plan.total, 2e-9);
  EXPECT_NEAR(step.last_step_joules, plan.joules, 1e-6);
  EXPECT_LE(step.last_step_joules / step.last_step_seconds, cap * 1.0001);
}

// GPU program: 1 ms at the peak, 0.8 ms of it compute-bound; 20 W running
// (18 W its own, which scales as s^3 down to 0.3), 2 mJ fixed per
// execution. The CPU takes 4 ms at 5 W. Under a 10 W cap the GPU clocked
// down stays faster than the CPU.
ModelBuilder clockedGpu() {
  ModelBuilder m;
  m.program(HWAGENT_BACKEND_GPU, {4e-3, 0, 1e-3})
      .fixedJoules({0, 0, 2e-3})
      .clocked({4e-3, 0, 8e-4})
      .power({0, 0, 0}, {5, 0, 20}, 0)
      .clock(HWAGENT_BACKEND_GPU, 3, 0.3, 18);
  return m;
}

// What the simulated GPU measures at the clock is learned back at the peak:
// otherwise each step's estimate would carry the last clock's stretch and
// the clock meeting the cap would drift from step to step.
TEST(Energy, AnAdaptiveSessionUnderACapLearnsAtThePeak) {
  ModelBuilder builder = clockedGpu();
  hwagent_model_info_t info = builder.info();
  hwagent_options_t options = simulated();
  options.power_cap = 10;
  options.adaptive = 1;
  hwagent_session_t *s = open(info, options);
  double first = 0;
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(runStep({0}), HWAGENT_BACKEND_GPU) << "step " << i;
    ASSERT_EQ(hwagent_session_end_step(s, 0), HWAGENT_OK);
    hwagent_step_stats_t step;
    ASSERT_EQ(hwagent_session_step_stats(s, &step), HWAGENT_OK);
    if (i == 0)
      first = step.clock;
    // Within the session's whole nanoseconds (unlearned, the stretch of
    // ~1.25 would move it by hundredths).
    EXPECT_NEAR(step.clock, first, 1e-6) << "step " << i;
    EXPECT_NEAR(step.last_step_joules / step.last_step_seconds, 10, 1e-4)
        << "step " << i;
  }
  hwagent_session_destroy(s);
  // By hand: 18 s^3 + 2 + 2 mJ / (1 ms x (0.2 + 0.8 / s)) = 10 W.
  double s3 = first * first * first;
  EXPECT_NEAR(18 * s3 + 2 + 2 / (0.2 + 0.8 / first), 10, 1e-6);
  // Without a cap the session runs at the peak.
  hwagent_options_t free = simulated();
  s = open(info, free);
  runStep({0});
  ASSERT_EQ(hwagent_session_end_step(s, 0), HWAGENT_OK);
  hwagent_step_stats_t step;
  ASSERT_EQ(hwagent_session_step_stats(s, &step), HWAGENT_OK);
  EXPECT_EQ(step.clock, 1.0);
  EXPECT_NEAR(step.last_step_seconds, 1e-3, 1e-12);
  hwagent_session_destroy(s);
}

// A session that does not adapt finds the clock from the predictions, again
// whenever the cap changes (and only then).
TEST(Energy, AStaticSessionFollowsTheCap) {
  ModelBuilder builder = clockedGpu();
  hwagent_model_info_t info = builder.info();
  hwagent_options_t options = simulated();
  options.power_cap = 10;
  hwagent_session_t *s = open(info, options);
  auto clockAfterAStep = [&] {
    runStep({0});
    EXPECT_EQ(hwagent_session_end_step(s, 0), HWAGENT_OK);
    hwagent_step_stats_t step;
    EXPECT_EQ(hwagent_session_step_stats(s, &step), HWAGENT_OK);
    return step.clock;
  };
  double capped = clockAfterAStep();
  EXPECT_LT(capped, 0.8);
  EXPECT_GT(capped, 0.6);
  EXPECT_EQ(clockAfterAStep(), capped);
  ASSERT_EQ(hwagent_session_set_objective(s, HWAGENT_OBJECTIVE_TIME, 0),
            HWAGENT_OK);
  clockAfterAStep(); // the step before the change ran capped
  EXPECT_EQ(clockAfterAStep(), 1.0);
  ASSERT_EQ(hwagent_session_set_objective(s, HWAGENT_OBJECTIVE_TIME, 10),
            HWAGENT_OK);
  clockAfterAStep();
  EXPECT_EQ(clockAfterAStep(), capped);
  hwagent_session_destroy(s);
}

TEST(Energy, BadClockValuesAreRefusedByName) {
  struct Case {
    const char *what;
    void (*spoil)(hwagent_rt::OwnedModelInfo &);
  } cases[] = {
      {"program 0: compute-bound seconds must be finite, >= 0 and at most "
       "the predicted ones",
       [](hwagent_rt::OwnedModelInfo &m) {
         m.programs[0].clocked[HWAGENT_BACKEND_GPU] = 2e-3;
       }},
      {"clock of backend gpu: dvfs_exponent must be 0 (none) or in [1, 6], "
       "got 7",
       [](hwagent_rt::OwnedModelInfo &m) {
         m.clock.dvfs_exponent[HWAGENT_BACKEND_GPU] = 7;
       }},
      {"clock of backend gpu: min_clock must be in [0, 1], got nan",
       [](hwagent_rt::OwnedModelInfo &m) {
         m.clock.min_clock[HWAGENT_BACKEND_GPU] = std::nan("");
       }},
      {"clock of backend gpu: a backend that scales needs a min_clock above 0",
       [](hwagent_rt::OwnedModelInfo &m) {
         m.clock.min_clock[HWAGENT_BACKEND_GPU] = 0;
       }},
      {"clock of backend gpu: active watts must be finite, >= 0 and at most "
       "the running ones",
       [](hwagent_rt::OwnedModelInfo &m) {
         m.clock.active[HWAGENT_BACKEND_GPU] = 21;
       }},
  };
  for (const Case &c : cases) {
    ModelBuilder builder = clockedGpu();
    c.spoil(builder.model);
    hwagent_model_info_t info = builder.info();
    hwagent_options_t options = simulated();
    hwagent_session_t *s = nullptr;
    EXPECT_NE(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
    EXPECT_NE(std::string(hwagent_error_message()).find(c.what),
              std::string::npos)
        << hwagent_error_message();
  }
}

/// A sysfs tree of the test's own.
class FakeSysfs : public testing::Test {
protected:
  void SetUp() override {
    root = testing::TempDir() + "hwagent-sysfs-" +
           std::to_string(reinterpret_cast<uintptr_t>(this));
    std::filesystem::remove_all(root);
  }
  void TearDown() override { std::filesystem::remove_all(root); }
  void write(const std::string &path, const std::string &text) {
    std::filesystem::create_directories(
        std::filesystem::path(root + "/" + path).parent_path());
    std::ofstream(root + "/" + path) << text << "\n";
  }
  std::string root;
};

TEST_F(FakeSysfs, PowercapPackagesAreSummedAndWrapsHandled) {
  write("class/powercap/intel-rapl:0/energy_uj", "3000000");
  write("class/powercap/intel-rapl:0/max_energy_range_uj", "4000000");
  write("class/powercap/intel-rapl:1/energy_uj", "10");
  write("class/powercap/intel-rapl:1/max_energy_range_uj", "4000000");
  // A subzone (the cores of package 0) is part of its package.
  write("class/powercap/intel-rapl:0:0/energy_uj", "77");
  write("class/powercap/intel-rapl:0:0/max_energy_range_uj", "4000000");
  std::unique_ptr<EnergyCounter> counter = EnergyCounter::open(root);
  ASSERT_TRUE(counter);
  EXPECT_EQ(counter->name(), "powercap:intel-rapl:0");
  EXPECT_EQ(counter->joules(), 0);
  write("class/powercap/intel-rapl:0/energy_uj", "3500000");
  write("class/powercap/intel-rapl:1/energy_uj", "1000010");
  EXPECT_NEAR(counter->joules(), 1.5, 1e-9);
  // Package 0 wraps at 4 J: 3.5 -> 0.25 is 0.75 J.
  write("class/powercap/intel-rapl:0/energy_uj", "250000");
  EXPECT_NEAR(counter->joules(), 2.25, 1e-9);
  // A counter that stops being readable is a failed read, not zero.
  std::filesystem::remove(root + "/class/powercap/intel-rapl:1/energy_uj");
  EXPECT_LT(counter->joules(), 0);
}

TEST_F(FakeSysfs, ACounterThatGoesBackWithoutARangeIsUnavailable) {
  // Issue 38, item 16: range 0 and a decrease printed 1.8e13 J "measured"
  // (the unsigned difference); without a range to wrap at there is no
  // reading, and the next one counts on from the new value.
  write("class/powercap/intel-rapl:0/energy_uj", "3000000");
  write("class/powercap/intel-rapl:0/max_energy_range_uj", "0");
  std::unique_ptr<EnergyCounter> counter = EnergyCounter::open(root);
  ASSERT_TRUE(counter);
  EXPECT_EQ(counter->joules(), 0);
  write("class/powercap/intel-rapl:0/energy_uj", "1000000");
  EXPECT_LT(counter->joules(), 0);
  write("class/powercap/intel-rapl:0/energy_uj", "1500000");
  EXPECT_NEAR(counter->joules(), 0.5, 1e-9);
  // A value past the range it claims cannot have wrapped at it either.
  write("class/powercap/intel-rapl:0/max_energy_range_uj", "4000000");
  std::unique_ptr<EnergyCounter> ranged = EnergyCounter::open(root);
  ASSERT_TRUE(ranged);
  write("class/powercap/intel-rapl:0/energy_uj", "9000000");
  EXPECT_NEAR(ranged->joules(), 7.5, 1e-9);
  write("class/powercap/intel-rapl:0/energy_uj", "1000");
  EXPECT_LT(ranged->joules(), 0);
}

TEST(CpuList, RangesAreCappedAtAKernelsCpuCount) {
  std::vector<int> cpus;
  ASSERT_TRUE(parseCpuList("0,18", cpus));
  EXPECT_EQ(cpus, (std::vector<int>{0, 18}));
  ASSERT_TRUE(parseCpuList("0-3", cpus));
  EXPECT_EQ(cpus.size(), 4u);
  ASSERT_TRUE(parseCpuList("0-8191", cpus));
  EXPECT_EQ(cpus.size(), 8192u);
  // Issue 38, item 18: "0-2147483647" built an 8 GiB list.
  EXPECT_FALSE(parseCpuList("0-2147483647", cpus));
  EXPECT_FALSE(parseCpuList("8192", cpus));
  EXPECT_FALSE(parseCpuList("0-8191,0-8191", cpus));
  EXPECT_FALSE(parseCpuList("3-1", cpus));
  EXPECT_FALSE(parseCpuList("-1", cpus));
  EXPECT_FALSE(parseCpuList("x", cpus));
}

TEST_F(FakeSysfs, AHugeCpumaskOpensNoCounter) {
  write("bus/event_source/devices/power/type", "4242");
  write("bus/event_source/devices/power/events/energy-pkg", "event=0x02");
  write("bus/event_source/devices/power/events/energy-pkg.scale", "2.3e-10");
  write("bus/event_source/devices/power/cpumask", "0-2147483647");
  EXPECT_FALSE(EnergyCounter::open(root));
}

TEST_F(FakeSysfs, NoCounterMeansModelledOnly) {
  write("class/powercap/intel-rapl:0/name", "package-0"); // no energy_uj
  // A power PMU whose event perf cannot open here (no such PMU type).
  write("bus/event_source/devices/power/type", "4242");
  write("bus/event_source/devices/power/events/energy-pkg", "event=0x02");
  write("bus/event_source/devices/power/events/energy-pkg.scale", "2.3e-10");
  EXPECT_FALSE(EnergyCounter::open(root));
  EXPECT_FALSE(EnergyCounter::open(root + "/missing"));

  // Through a session: no counter, -1 joules measured, modelled ones.
  setenv("HWAGENT_SYSFS_ROOT", root.c_str(), 1);
  ModelBuilder builder = powered();
  hwagent_model_info_t info = builder.info();
  hwagent_session_t *s = open(info, simulated());
  EXPECT_EQ(hwagent_session_energy_counter(s), nullptr);
  runStep({0, 1});
  hwagent_session_end_step(s, 0);
  hwagent_step_stats_t step;
  hwagent_session_step_stats(s, &step);
  EXPECT_EQ(step.last_counter_joules, -1);
  EXPECT_GT(step.last_step_joules, 0);
  hwagent_session_destroy(s);

  // With a counter the session reports what it counted over the step.
  write("class/powercap/intel-rapl:0/energy_uj", "1000000");
  write("class/powercap/intel-rapl:0/max_energy_range_uj", "4000000");
  s = open(info, simulated());
  ASSERT_NE(hwagent_session_energy_counter(s), nullptr);
  EXPECT_EQ(std::string(hwagent_session_energy_counter(s)),
            "powercap:intel-rapl:0");
  runStep({0, 1});
  write("class/powercap/intel-rapl:0/energy_uj", "1250000");
  hwagent_session_end_step(s, 0);
  hwagent_session_step_stats(s, &step);
  EXPECT_NEAR(step.last_counter_joules, 0.25, 1e-9);
  hwagent_session_destroy(s);
  unsetenv("HWAGENT_SYSFS_ROOT");
}

} // namespace
