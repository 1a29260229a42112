//===- Pricing.cpp - what the adaptive runtime minimizes ------------------===//
//
// The prices of the adaptive decision (Adaptive.h's Pricing): the step
// time, the step's joules as the session accounts them, and blends of both.
// docs/adaptive.md "Objectives".
//
//===----------------------------------------------------------------------===//

#include "Adaptive.h"

namespace hwagent_rt {

const Pricing &Pricing::time() {
  static const Pricing seconds;
  return seconds;
}

Pricing Pricing::energy(const Model &model) {
  // The core's step energy as a price per second of each backend's work
  // (its running power, the static power and every other backend's idle
  // power) and per boundary: what Session::endStep accounts
  // (hwcore::stepEnergy) when the programs run one after another.
  const hwcore::PowerModel &power = model.powerModel;
  Pricing p;
  p.unit = "J";
  p.better = "lower predicted step energy";
  for (hwcore::BackendKind kind : hwcore::kAllBackends) {
    p.perSecond[hwcore::index(kind)] = power.marginalWatts(kind);
    // Builds and weight moves run on the host.
    p.switchPerSecond[hwcore::index(kind)] =
        power.marginalWatts(hwcore::BackendKind::cpu);
  }
  p.fixed.resize(model.programs.size() * kNumBackends);
  for (size_t i = 0; i < model.programs.size(); ++i)
    for (int b = 0; b < kNumBackends; ++b)
      p.fixed[i * kNumBackends + b] = model.programs[i].fixed_joules[b];
  p.boundaryPerSecond = power.boundaryMarginalWatts();
  p.perCrossingByte = power.boundaryPerByte;
  return p;
}

Pricing Pricing::blend(const Model &model, double joulesWeight) {
  Pricing p = energy(model);
  p.unit = "s";
  p.better = "lower predicted step cost (time and energy blended)";
  for (int b = 0; b < kNumBackends; ++b) {
    p.perSecond[b] = 1 + joulesWeight * p.perSecond[b];
    p.switchPerSecond[b] = 1 + joulesWeight * p.switchPerSecond[b];
  }
  for (double &f : p.fixed)
    f *= joulesWeight;
  p.boundaryPerSecond = 1 + joulesWeight * p.boundaryPerSecond;
  p.perCrossingByte *= joulesWeight;
  return p;
}

} // namespace hwagent_rt
