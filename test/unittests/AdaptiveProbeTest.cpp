//===- AdaptiveProbeTest.cpp - what a probe can gain, what it may cost ----===//
//
// docs/adaptive.md "Probes": a probe is bounded by what it can gain (the
// moved programs at the fastest they were seen running), and a debt left by
// an unlucky probe does not block a probe whose expected net value repays
// it.
//
//===----------------------------------------------------------------------===//

#include "Adaptive.h"
#include "ModelBuilder.h"
#include "hwagent_rt/hwagent_rt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace hwagent_rt;
using hwagent_test::ModelBuilder;

namespace {

/// Two programs in a chain on the ANE (1 ms each); the CPU runs them in
/// 1.3 ms. Each holds 4 MB of weights, so moving one costs a conversion.
ModelBuilder nearTie() {
  ModelBuilder m;
  m.links(1e11, 5e10, 1e-5)
      .program(HWAGENT_BACKEND_ANE, {1.3e-3, 1e-3, 0}, 0xd0)
      .weights(4 << 20)
      .program(HWAGENT_BACKEND_ANE, {1.3e-3, 1e-3, 0}, 0xd1)
      .weights(4 << 20)
      .edge(-1, 0, 4000)
      .edge(0, 1, 4000)
      .edge(1, -1, 4000);
  return m;
}

class AdaptiveProbes : public testing::Test {
protected:
  void SetUp() override { model.reset(table, params); }

  /// One step as the session runs it: the programs run on the ANE at
  /// `aneSeconds` each, or on the CPU at `cpuSeconds` where the last
  /// decision probed it (5 % noise); the model learns, forgets, decides.
  Decision step(double aneSeconds, double credit, double debt = 0,
                double cpuSeconds = 1.3e-3) {
    bool measured[kNumBackends] = {};
    for (unsigned r = 0; r < 2; ++r) {
      int b = probed.empty() ? current[r] : probed[r];
      model.update(r, b,
                   (b == HWAGENT_BACKEND_CPU ? cpuSeconds : aneSeconds) *
                       std::exp(noise(rng)));
      measured[b] = true;
    }
    model.advance(measured);
    Decision d = decide(table, model, current, costs, params, credit,
                        /*rateLimited=*/false, Pricing::time(), debt);
    probed.clear();
    if (d.action == Decision::probe)
      probed = d.backends;
    return d;
  }

  // The info points into the builder's arrays: it outlives the load.
  ModelBuilder builder = nearTie();
  Model table = [this] {
    hwagent_model_info_t info = builder.info();
    return *loadModel(&info);
  }();
  OnlineModel model;
  AdaptiveParameters params;
  std::vector<int32_t> current = {HWAGENT_BACKEND_ANE, HWAGENT_BACKEND_ANE};
  std::vector<bool> compiled =
      std::vector<bool>(table.programs.size() * kNumBackends, true);
  SwitchCosts costs = [&] {
    SwitchCosts c;
    c.model = &table;
    c.built = &compiled;
    return c;
  }();
  std::vector<int32_t> probed;
  std::mt19937 rng{3};
  std::normal_distribution<double> noise{0.0, 0.05};
};

TEST_F(AdaptiveProbes, QuietRunStopsProbingOnceTheAlternativeIsKnown) {
  // The CPU, never measured, is worth one look (the prior allows it to be
  // faster). Once measured 30 % slower, its estimate's spread grows back
  // while nothing runs there, but it cannot run faster than it was seen:
  // no probe can gain, so none is made in 500 quiet steps. (Before the
  // bound: a probe every few steps, each costing 30 % of a step.)
  int probes = 0, probesAfterFirst = 0;
  for (int s = 0; s < 500; ++s) {
    Decision d = step(1e-3, /*credit=*/1.0);
    EXPECT_FALSE(d.switchWorthIt()) << "step " << s;
    if (d.action == Decision::probe)
      probesAfterFirst += probes++ > 0;
  }
  EXPECT_LE(probes, 1);
  EXPECT_EQ(probesAfterFirst, 0);

  // Something to gain again: the ANE slows 3x (measured on the programs in
  // use). The CPU at its best now wins by far and the switch follows at
  // once (its estimates rest on a measurement made long ago: probed first).
  int reactedAfter = -1;
  for (int s = 0; s < 5 && reactedAfter < 0; ++s)
    if (step(3e-3, /*credit=*/1.0).switchWorthIt())
      reactedAfter = s + 1;
  EXPECT_GE(reactedAfter, 1);
  EXPECT_LE(reactedAfter, 2);
}

TEST_F(AdaptiveProbes, DebtDoesNotBlockAProbeThatRepaysIt) {
  // The CPU is measured once, then the ANE slows 3x: probing the CPU again
  // (not measured for 100 steps) is worth about 50 steps x 3.4 ms.
  while (step(1e-3, 1.0).action != Decision::probe) {
  }
  for (int s = 0; s < 100; ++s)
    step(1e-3, 1.0);
  for (unsigned r = 0; r < 2; ++r)
    model.update(r, HWAGENT_BACKEND_ANE, 3e-3);
  model.advance();
  // No credit and a debt of ten steps: the probe's expected net value
  // exceeds it, so it is made.
  Decision withSmallDebt = decide(table, model, current, costs, params,
                                  /*probeCredit=*/0.0, false, Pricing::time(),
                                  /*probeDebt=*/0.02);
  EXPECT_EQ(withSmallDebt.action, Decision::probe)
      << withSmallDebt.reason << " value " << withSmallDebt.probeValue;
  EXPECT_GT(withSmallDebt.probeValue - withSmallDebt.probeCost, 0.02);
  EXPECT_GT(withSmallDebt.probeCost, 0.0);
  // A debt larger than anything the probe could repay keeps the budget.
  Decision withLargeDebt = decide(table, model, current, costs, params, 0.0,
                                  false, Pricing::time(), /*probeDebt=*/10.0);
  EXPECT_NE(withLargeDebt.action, Decision::probe);
}

TEST_F(AdaptiveProbes, ChipWideThrottleIsLearnedFromOneProbe) {
  // Without telemetry a thermal throttle (3x on every backend) looks like
  // the ANE slowing down: the CPU, at its fastest, would win, and is
  // probed. The probe finds it throttled alike, so the slowdown is the
  // chip's: the CPU's belief no longer fades below it and it is not
  // probed again while the ANE stays throttled. (Before: the belief faded
  // back within about 20 steps and the CPU was probed again, 12 times in
  // a 239-step throttle of the transformer on apple-m1.)
  for (int s = 0; s < 100; ++s)
    step(1e-3, 1.0);
  int probes = 0;
  for (int s = 0; s < 300; ++s) {
    Decision d = step(3e-3, 1.0, 0, 3.9e-3);
    EXPECT_FALSE(d.switchWorthIt()) << "step " << s;
    probes += d.action == Decision::probe;
  }
  EXPECT_GE(probes, 1);
  EXPECT_LE(probes, 2);
  EXPECT_GT(model.chipWideLog(), std::log(2.0));
  // The throttle ends: what runs is at its best again, so is the chip.
  for (int s = 0; s < 5; ++s)
    step(1e-3, 1.0);
  EXPECT_EQ(model.chipWideLog(), 0.0);
}

TEST_F(AdaptiveProbes, TwoContentionsThatDisagreeAreNoThrottle) {
  // The ANE slows 3x and a probe finds the CPU contended too, but 2.6x:
  // 14 % apart, two slowdowns of their own, not one of the chip (until
  // 2026-12-07 the 25 % change threshold let them pass for one, and the
  // CPU's recovery was never probed: the transformer on apple-a16, 48.7 %
  // regret on the scenario suite's seed 10). The CPU then recovers while
  // the ANE stays slowed: it is probed again and taken.
  for (int s = 0; s < 100; ++s)
    step(1e-3, 1.0);
  int probes = 0;
  for (int s = 0; s < 10; ++s)
    probes += step(3e-3, 1.0, 0, 3.35e-3).action == Decision::probe;
  EXPECT_GE(probes, 1);
  EXPECT_EQ(model.chipWideLog(), 0.0);
  int switchedAfter = -1;
  for (int s = 0; s < 150 && switchedAfter < 0; ++s)
    if (step(3e-3, 1.0).switchWorthIt())
      switchedAfter = s;
  EXPECT_GE(switchedAfter, 0);
  EXPECT_LE(switchedAfter, 100);
}

} // namespace
