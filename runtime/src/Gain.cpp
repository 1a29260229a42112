//===- Gain.cpp - what a move gains, how sure, what it costs once --------===//
//
// Adaptive.h's SwitchCosts::fits and estimateGain: the gain per step of
// moving from one placement to another, its standard deviation from the
// moved programs' estimates, and the one-time switching cost.
// docs/adaptive.md "Decision rule".
//
//===----------------------------------------------------------------------===//

#include "Adaptive.h"

namespace hwagent_rt {

bool SwitchCosts::fits(const std::vector<int32_t> &to) const {
  int64_t needed[kNumBackends] = {};
  for (size_t p = 0; p < to.size(); ++p)
    if (!(*built)[p * kNumBackends + to[p]])
      ++needed[to[p]];
  for (int b = 0; b < kNumBackends; ++b)
    if (compilesLeft[b] >= 0 && needed[b] > compilesLeft[b])
      return false;
  return true;
}

GainEstimate estimateGain(const Model &table, const OnlineModel &model,
                          const std::vector<int32_t> &from,
                          const std::vector<int32_t> &to,
                          const SwitchCosts &costs, const Pricing &pricing) {
  GainEstimate g;
  auto estimated = [&](size_t p, int b) { return model.get(p, b).seconds(); };
  g.from = stepCost(table, pricing, from, estimated);
  g.to = stepCost(table, pricing, to, estimated);
  g.gain = g.from - g.to;
  // The uncertainty that decides is that of the placement not running: the
  // running one is measured every step, and a probe measures the other.
  // Linearized: d log t(p, b) = d offset(b) + d deviation(p, b), offsets
  // shared by the moved programs on one backend, deviations independent
  // (boundaries are known prices). Where direct measurements pin an
  // estimate down more than its two terms say, both shrink in proportion.
  auto shrink = [&](size_t p, int b) {
    double separate =
        model.backendOffset(b).variance + model.regionDeviation(p, b).variance;
    return separate > 0 ? model.get(p, b).variance / separate : 0.0;
  };
  double coefficient[kNumBackends] = {};
  double variance = 0;
  for (size_t p = 0; p < from.size(); ++p) {
    if (from[p] == to[p])
      continue;
    // The price's derivative in log-seconds.
    double share = shrink(p, to[p]),
           priced = pricing.perSecond[to[p]] * estimated(p, to[p]);
    coefficient[to[p]] += priced * std::sqrt(share);
    variance +=
        priced * priced * share * model.regionDeviation(p, to[p]).variance;
    g.switchCost += pricing.switching(to[p], costs.move(p, from[p], to[p]));
  }
  for (int b = 0; b < kNumBackends; ++b)
    variance +=
        coefficient[b] * coefficient[b] * model.backendOffset(b).variance;
  g.stdDev = std::sqrt(variance);
  return g;
}

} // namespace hwagent_rt
