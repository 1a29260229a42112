//===- Adaptive.h - online cost learning and re-partitioning ----*- C++ -*-===//
//
// Per region and backend, a Kalman filter on log-seconds: the prior is the
// compiler's prediction, every measurement updates it, and process noise
// added each step lets it track drift (forgetting). At step ends the
// runtime re-solves the assignment with the estimates using the compiler's
// solver (lib/Partition/Solver.cpp, the same source) and switches only when
// the expected gain over a horizon beats the switching cost and the
// uncertainty (hysteresis). docs/adaptive.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_ADAPTIVE_H
#define HWAGENT_RT_ADAPTIVE_H

#include "RegionTable.h"

#include <cmath>
#include <functional>
#include <cstdint>
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
  void reset(const RegionTable &table, const AdaptiveParameters &params);
  /// `samples` measurements of `region` (table index) on `backend` whose
  /// mean is `seconds` (the mean's variance shrinks with their number).
  void update(unsigned region, int backend, double seconds, int64_t samples = 1);
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
  std::vector<int32_t> backends; // per table region
  double currentSeconds = 0;     // predicted step time of the current assignment
  double proposedSeconds = 0;
  double gainStdDev = 0;
  bool switchWorthIt = false;
  const char *reason = "";
};

/// Boundary price between backends a and b for `bytes` (the table's link;
/// f32 data (`converts`) crossing to or from the ANE is also converted).
double linkCost(const RegionTable &table, int a, int b, int64_t bytes,
                bool converts);

/// Re-solves the assignment with the model's estimates and decides whether
/// switching from `current` is worth it. `switchCost` adds the one-time
/// costs of the move (first compile of an unused variant).
Decision decide(const RegionTable &table, const OnlineModel &model,
                const std::vector<int32_t> &current,
                const std::vector<bool> &compiled,
                const AdaptiveParameters &params);

/// The step time of `backends` when region r on backend b costs
/// cost(r, b); boundaries from the table.
template <typename CostFn>
double stepTime(const RegionTable &table, const std::vector<int32_t> &backends,
                CostFn cost) {
  double total = 0;
  for (size_t r = 0; r < table.regions.size(); ++r)
    total += cost(r, backends[r]);
  for (const EdgeInfo &e : table.edges)
    total += linkCost(table, e.fromIndex < 0 ? 0 : backends[e.fromIndex],
                      e.toIndex < 0 ? 0 : backends[e.toIndex], e.bytes, e.converts);
  return total;
}

/// How much the step time of `backends` changes when region `region` alone
/// moves to `backend` (its own cost and its boundaries only).
template <typename CostFn>
double moveDelta(const RegionTable &table, const std::vector<int32_t> &backends,
                 unsigned region, int backend, CostFn cost) {
  int current = backends[region];
  double delta = cost(region, backend) - cost(region, current);
  for (uint32_t index : table.incident[region]) {
    const EdgeInfo &e = table.edges[index];
    auto side = [&](int end, int moved) {
      return end < 0 ? 0 : end == int(region) ? moved : backends[end];
    };
    delta += linkCost(table, side(e.fromIndex, backend), side(e.toIndex, backend),
                      e.bytes, e.converts) -
             linkCost(table, side(e.fromIndex, current), side(e.toIndex, current),
                      e.bytes, e.converts);
  }
  return delta;
}

/// Minimum step time over all assignments when region r on backend b costs
/// cost(r, b) and every boundary is paid `edgeWeight` times.
double bestStepTime(const RegionTable &table,
                    const std::function<double(size_t, int)> &cost,
                    double edgeWeight, std::vector<int32_t> *best = nullptr);

} // namespace hwagent_rt

#endif // HWAGENT_RT_ADAPTIVE_H
