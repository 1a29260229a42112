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
  double measurementVariance = 0.01;
  /// Variance added per step to each region's deviation (slow drift) and
  /// to each backend's offset (contention and thermal changes move fast).
  double processVariance = 0.0005;
  /// Per step, a region's deviation decays toward the compiler's prediction
  /// by this share (what a backend-wide change does not explain fades).
  double deviationDecay = 0.01;
  double backendProcessVariance = 0.005;
  /// Steps a switch is expected to pay off over.
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
  /// Forgetting between steps.
  void advance();
  /// A known change of `backend`'s speed by exp(logFactor) (telemetry:
  /// another client's load, a thermal state): a control input that moves
  /// its offset and widens the offset's variance by one measurement's
  /// (telemetry is a proxy that the following measurements correct).
  void shiftBackend(int backend, double logFactor);
  /// The current estimate of region `region` on `backend` (log-seconds with
  /// the combined variance).
  Estimate get(unsigned region, int backend) const;

private:
  AdaptiveParameters params;
  std::vector<double> logPredicted;
  std::vector<Estimate> deviation;
  Estimate offset[kNumBackends];
};

/// A re-partition decision.
struct Decision {
  std::vector<int32_t> backends; // per program
  double currentSeconds = 0; // predicted step time of the current assignment
  double proposedSeconds = 0;
  double gainStdDev = 0;
  bool switchWorthIt = false;
  const char *reason = "";
};

/// Re-solves the assignment with the model's estimates and decides whether
/// switching from `current` is worth it. `switchCost` adds the one-time
/// costs of the move (first compile of an unused variant).
Decision decide(const Model &programs, const OnlineModel &model,
                const std::vector<int32_t> &current,
                const std::vector<bool> &compiled,
                const AdaptiveParameters &params);

/// The step time of `backends` when program p on backend b costs
/// cost(p, b); boundaries from the model (the host is the CPU).
template <typename CostFn>
double stepTime(const Model &model, const std::vector<int32_t> &backends,
                CostFn cost) {
  double total = 0;
  for (size_t p = 0; p < model.programs.size(); ++p)
    total += cost(p, backends[p]);
  for (const hwagent_edge_info_t &e : model.edges)
    total += model.linkCost(e, e.from < 0 ? 0 : backends[e.from],
                            e.to < 0 ? 0 : backends[e.to]);
  return total;
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

/// Minimum step time over all placements when program p on backend b costs
/// cost(p, b) and every boundary is paid `edgeWeight` times.
double bestStepTime(const Model &model,
                    const std::function<double(size_t, int)> &cost,
                    double edgeWeight, std::vector<int32_t> *best = nullptr);

} // namespace hwagent_rt

#endif // HWAGENT_RT_ADAPTIVE_H
