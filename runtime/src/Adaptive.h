//===- Adaptive.h - online cost learning and re-partitioning ----*- C++ -*-===//
//
// Per program and backend, a Kalman filter on log-seconds: the prior is the
// compiler's prediction, every measurement updates it, and process noise
// added each step lets it track drift (forgetting). At step ends the
// runtime re-solves the placement of its programs with the estimates using
// the core's solver (the library the compiler partitions with) and switches
// only when the expected gain over a horizon beats the switching cost and
// the uncertainty (hysteresis). docs/adaptive.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_ADAPTIVE_H
#define HWAGENT_RT_ADAPTIVE_H

#include "Model.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace hwagent_rt {

struct AdaptiveParameters {
  /// Variance of the prior on a region's own log-time deviation from the
  /// compiler's prediction.
  double priorVariance = 0.04;
  /// Variance of the prior on a backend-wide log-time offset (what one
  /// region teaches about a backend carries to all its regions).
  double backendPriorVariance = 0.04;
  /// Variance of one measurement's log-time.
  double measurementVariance = 0.0025;
  /// Variance added per step to each region's deviation (slow drift) and
  /// to each backend's offset (contention and thermal changes move fast).
  double processVariance = 0.0005;
  /// Per step, a region's deviation decays toward the compiler's prediction
  /// by this share (what a backend-wide change does not explain fades).
  double deviationDecay = 0.01;
  double backendProcessVariance = 0.001;
  /// Per step without a measurement, a backend's offset reverts toward
  /// what telemetry last said (0 without it) by this share: contention
  /// and throttling are transient, so the belief in a slowdown nobody
  /// re-measures fades (and a probe eventually checks it).
  double offsetReversion = 0.02;
  /// Steps a switch (and the information of a probe) is expected to pay
  /// off over.
  double horizon = 50;
  /// Minimum relative gain of the step time to switch.
  double minRelativeGain = 0.02;
  /// Standard deviations of the gain's uncertainty it must exceed.
  double confidence = 2.0;
};

struct Estimate {
  double mean = 0;     // log-seconds
  double variance = 0; // of the mean
  int64_t samples = 0;
  /// For a region's deviation: the variance of the whole log-time (offset
  /// plus deviation) as direct measurements of this region and backend
  /// pin it down, which the two terms' separate variances cannot say (a
  /// measurement fixes their sum, not how it splits).
  double sumVariance = 0;
  double seconds() const { return std::exp(mean); }
};

/// log t(r, b) = log predicted(r, b) + offset(b) + deviation(r, b), each
/// term a Gaussian tracked by a Kalman filter.
class OnlineModel {
public:
  void reset(const Model &model, const AdaptiveParameters &params);
  /// `samples` measurements of `region` (a program index) on `backend` whose
  /// mean is `seconds` (the mean's variance shrinks with their number).
  void update(unsigned region, int backend, double seconds,
              int64_t samples = 1);
  /// Forgetting between steps; `measured[b]`: backend b was measured in the
  /// step (an unmeasured offset reverts toward its baseline).
  void advance(const bool *measured = nullptr);
  /// A known change of `backend`'s speed by exp(logFactor) (telemetry:
  /// another client's load, a thermal state): a control input that moves
  /// its offset and its baseline and widens the offset's variance by one
  /// measurement's (telemetry is a proxy that the following measurements
  /// correct).
  void shiftBackend(int backend, double logFactor);
  /// The current estimate of region `region` on `backend` (log-seconds with
  /// the combined variance).
  Estimate get(unsigned region, int backend) const;
  /// The backend-wide offset's estimate (log-seconds).
  const Estimate &backendOffset(int backend) const { return offset[backend]; }
  /// One measurement's log-time variance on `backend`: learned from
  /// consecutive measurements, at least the parameter's.
  double measurementVariance(int backend) const;
  /// Changes detected (a measurement far outside the expected spread) or
  /// announced (telemetry) so far.
  int64_t changes() const { return changeCount; }
  /// The region's own deviation's estimate (log-seconds).
  const Estimate &regionDeviation(unsigned region, int backend) const {
    return deviation[region * kNumBackends + backend];
  }
  /// The fastest the region has been seen to run on `backend`: the lowest
  /// estimate (log-seconds) right after a measurement of it; +infinity
  /// when never measured. Contention and throttling only slow a backend,
  /// so no probe can find the region faster than this (up to the
  /// estimate's noise): what a probe can gain is bounded by it.
  double fastestLog(unsigned region, int backend) const {
    return fastest[region * kNumBackends + backend];
  }
  /// A slowdown of the whole chip (log) seen without telemetry: a probe
  /// found another backend slowed alike with the one running, and what
  /// runs is still slowed by at least this. Unmeasured backends' beliefs
  /// fade toward it, not below, and no probe expects to beat it.
  double chipWideLog() const { return chipWide; }

private:
  AdaptiveParameters params;
  std::vector<double> logPredicted;
  std::vector<Estimate> deviation;
  Estimate offset[kNumBackends];
  double baseline[kNumBackends] = {};
  double noise[kNumBackends] = {};
  int64_t changeCount = 0;
  /// Per region and backend, the last measurement (log) and the step
  /// (`tick`, advanced by advance()) it was made at.
  std::vector<double> lastLog;
  std::vector<int64_t> lastTick;
  std::vector<double> fastest, fastestRelative;
  /// followChipWide's state: per backend, the slowdown beyond their
  /// fastest of the regions measured in this step (sum and count) and in
  /// its last measured step, whether the last step measured it; the
  /// chip-wide slowdown.
  double stepExcess[kNumBackends] = {}, lastExcess[kNumBackends] = {};
  int64_t stepCount[kNumBackends] = {};
  bool wasMeasured[kNumBackends] = {};
  double chipWide = 0;
  void followChipWide(const bool *measured);
  int64_t tick = 0;
};

/// What the adaptive runtime minimizes, as a price per program execution
/// (linear in its seconds) and per boundary: the step time (1 per second),
/// its joules (watts per second, joules per execution), or a blend of both
/// (seconds plus a weight times joules) with which the energy-delay product
/// and a power cap are optimized (Controller.cpp). docs/adaptive.md
/// "Objectives".
struct Pricing {
  PerBackend<double> perSecond = hwcore::perBackend(1.0);
  /// Per program and backend (empty: none).
  std::vector<double> fixed;
  /// Per program and backend, its seconds at `clock` per second at the
  /// peak (empty: the peak clock).
  std::vector<double> stretch;
  /// The chip's clock under a power cap the prices assume (1: the peak).
  double clock = 1;
  double boundaryPerSecond = 1, perCrossingByte = 0;
  /// Per second of switching (builds, weight moves) onto each backend.
  PerBackend<double> switchPerSecond = hwcore::perBackend(1.0);
  /// "s" or "J".
  const char *unit = "s";
  /// The reason a switch to a cheaper placement gives.
  const char *better = "lower predicted step time";

  /// The step time.
  static const Pricing &time();
  /// The step time with the chip at `clock` (Model::stretch).
  static Pricing time(const Model &model, double clock);
  /// The step's joules as the session accounts them (Session::endStep):
  /// every backend idles over the whole step except while it runs, which
  /// makes idle power a price per second of each execution; at `clock`,
  /// each backend's active power and joules per FLOP scaled down.
  static Pricing energy(const Model &model, double clock = 1);
  /// Seconds plus `joulesWeight` (seconds per joule) times joules.
  static Pricing blend(const Model &model, double joulesWeight,
                       double clock = 1);

  /// The price of an execution of program p on backend b that takes
  /// `seconds` at the peak clock.
  double program(size_t p, int b, double seconds) const {
    size_t slot = p * kNumBackends + b;
    return times(perSecond[b],
                 stretch.empty() ? seconds : seconds * stretch[slot]) +
           (fixed.empty() ? 0.0 : fixed[slot]);
  }
  double edge(const Model &model, const hwagent_edge_info_t &e, int a,
              int b) const {
    if (a == b)
      return 0;
    return times(boundaryPerSecond, model.linkCost(e, a, b)) +
           times(perCrossingByte, double(e.bytes));
  }
  double switching(int b, double seconds) const {
    return times(switchPerSecond[b], seconds);
  }
  /// A price of zero per unit costs nothing however many units (0 W times
  /// an unbounded time is 0 J, never NaN).
  static double times(double price, double units) {
    return price == 0 ? 0.0 : price * units;
  }
};

/// What changing program p from backend a to b costs once, as the chip
/// charges it: building its variant when none exists (the ANE compiles a
/// program with its weights, tens of ms: ANE-FACTS.md) and moving its
/// weights. The variant cannot be built when the backend's compile limit is
/// used up.
struct SwitchCosts {
  const Model *model = nullptr;
  /// Per program and backend: a variant exists.
  const std::vector<bool> *built = nullptr;
  /// Compiles still allowed per backend (< 0: no limit).
  PerBackend<int64_t> compilesLeft = hwcore::perBackend<int64_t>(-1);

  bool canRunBuilt(unsigned p, int b) const {
    return (*built)[p * kNumBackends + b];
  }
  bool canRun(unsigned p, int b) const {
    return (*built)[p * kNumBackends + b] || compilesLeft[b] != 0;
  }
  /// One-time seconds of moving p from a to b (0 when a == b).
  double move(unsigned p, int a, int b) const {
    if (a == b)
      return 0;
    double cost = model->weightMoveCost(p, a, b);
    if (!(*built)[p * kNumBackends + b])
      cost += model->buildCost(p, b);
    return cost;
  }
  /// Of `to`, the programs whose variant must be built: none may exceed
  /// the backends' compile limits.
  bool fits(const std::vector<int32_t> &to) const;
};

/// The estimated gain per step of moving from `from` to `to` and the
/// standard deviation of the moved programs' estimates on their new
/// backends (what a probe would measure; the running placement is measured
/// every step): linearized, a backend's shared offset counts once for all
/// the moved programs on it, each program's deviation on its own.
struct GainEstimate {
  /// Per step, in the pricing's unit.
  double from = 0, to = 0;
  double gain = 0, stdDev = 0;
  /// One-time switching cost of the move.
  double switchCost = 0;
};
GainEstimate estimateGain(const Model &table, const OnlineModel &model,
                          const std::vector<int32_t> &from,
                          const std::vector<int32_t> &to,
                          const SwitchCosts &costs,
                          const Pricing &pricing = Pricing::time());

/// A step-end decision: keep the placement, switch to a new one, or probe a
/// placement for one step to learn whether switching pays.
struct Decision {
  enum Action { keep, switchTo, probe } action = keep;
  std::vector<int32_t> backends; // per program: the switch or probe target
  /// The placement the costs below compare with the current one (the
  /// proposal even when it is not switched to).
  std::vector<int32_t> proposal;
  /// The current and the proposed assignment per step in the pricing's
  /// unit, and the gain's standard deviation and the switching cost.
  double currentCost = 0;
  double proposedCost = 0;
  double gainStdDev = 0;
  double switchCost = 0;
  /// For a probe: expected value of its information over the horizon and
  /// its expected cost (extra step time plus switching both ways).
  double probeValue = 0, probeCost = 0;
  const char *reason = "";
  bool switchWorthIt() const { return action == switchTo; }
};

/// Re-solves the assignment with the model's estimates (one-time switching
/// costs amortized over the horizon) and decides: switch when the gain is
/// large and certain enough and pays its switching cost over the horizon;
/// otherwise probe the candidate (the proposal, or the best placement with
/// one backend's estimates at their optimistic bound) whose expected
/// improvement over the horizon exceeds the probe's expected cost by the
/// most, when `probeCredit` (seconds probes may still cost; < 0: probing
/// off) covers it. `rateLimited`: only a proposal that waits on nothing but
/// a measurement of its new backends may be probed. `probeDebt` (what past
/// probes cost beyond their charge and the credit has not repaid yet): a
/// probe the credit does not cover is still made when its expected value
/// net of its cost exceeds the debt.
Decision decide(const Model &programs, const OnlineModel &model,
                const std::vector<int32_t> &current, const SwitchCosts &costs,
                const AdaptiveParameters &params, double probeCredit = -1,
                bool rateLimited = false,
                const Pricing &pricing = Pricing::time(), double probeDebt = 0);

/// The price of a step of `backends` when program p on backend b takes
/// seconds(p, b); boundaries from the model (the host is the CPU).
template <typename SecondsFn>
double stepCost(const Model &model, const Pricing &pricing,
                const std::vector<int32_t> &backends, SecondsFn seconds) {
  double total = 0;
  for (size_t p = 0; p < model.programs.size(); ++p)
    total += pricing.program(p, backends[p], seconds(p, backends[p]));
  for (const hwagent_edge_info_t &e : model.edges)
    total += pricing.edge(model, e, e.from < 0 ? 0 : backends[e.from],
                          e.to < 0 ? 0 : backends[e.to]);
  return total;
}

/// The step time of `backends` when program p on backend b costs
/// cost(p, b) seconds.
template <typename CostFn>
double stepTime(const Model &model, const std::vector<int32_t> &backends,
                CostFn cost) {
  return stepCost(model, Pricing::time(), backends, cost);
}

/// How much the step time of `backends` changes when program `program`
/// alone moves to `backend` (its own cost and its boundaries only).
template <typename CostFn>
double moveDelta(const Model &model, const std::vector<int32_t> &backends,
                 unsigned program, int backend, CostFn cost) {
  int current = backends[program];
  double delta = cost(program, backend) - cost(program, current);
  for (uint32_t index : model.incident[program]) {
    const hwagent_edge_info_t &e = model.edges[index];
    auto side = [&](int end, int moved) {
      return end < 0 ? 0 : end == int(program) ? moved : backends[end];
    };
    delta += model.linkCost(e, side(e.from, backend), side(e.to, backend)) -
             model.linkCost(e, side(e.from, current), side(e.to, current));
  }
  return delta;
}

/// The highest clock (a share of the peak, Model::lowestClock at least) at
/// which the step of `backends`, program p on backend b taking seconds(p, b)
/// at the peak, averages at most `cap` watts as the session accounts them
/// (its programs, Session::endStep):
/// 1 without a cap or when the peak meets it; the lowest clock when even it
/// does not (hwcore::clockUnderCap, the compiler's search).
double clockUnderCap(const Model &model, double cap,
                     const std::vector<int32_t> &backends,
                     const std::function<double(size_t, int)> &seconds);

/// Minimum step cost over all placements when program p on backend b costs
/// cost(p, b) (already priced) and every boundary is paid `edgeWeight` times
/// at `pricing`'s price.
double bestStepTime(const Model &model,
                    const std::function<double(size_t, int)> &cost,
                    double edgeWeight, std::vector<int32_t> *best = nullptr,
                    const Pricing &pricing = Pricing::time());

} // namespace hwagent_rt

#endif // HWAGENT_RT_ADAPTIVE_H
