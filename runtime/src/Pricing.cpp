//===- Pricing.cpp - what the adaptive runtime minimizes ------------------===//
//
// The prices of the adaptive decision (Adaptive.h's Pricing): the step
// time, the step's joules as the session accounts them, and blends of both.
// docs/adaptive.md "Objectives".
//
//===----------------------------------------------------------------------===//

#include "Adaptive.h"

#include "HwAgent/Core/Energy.h"

namespace hwagent_rt {

const Pricing &Pricing::time() {
  static const Pricing seconds;
  return seconds;
}

/// Per program and backend, Model::stretch at `clock` (empty at the peak).
static std::vector<double> stretches(const Model &model, double clock) {
  std::vector<double> stretch;
  if (clock >= 1)
    return stretch;
  stretch.resize(model.programs.size() * kNumBackends);
  for (size_t i = 0; i < model.programs.size(); ++i)
    for (int b = 0; b < kNumBackends; ++b)
      stretch[i * kNumBackends + b] = model.stretch(i, b, clock);
  return stretch;
}

Pricing Pricing::time(const Model &model, double clock) {
  Pricing p;
  p.clock = clock;
  p.stretch = stretches(model, clock);
  return p;
}

Pricing Pricing::energy(const Model &model, double clock) {
  // The core's step energy as a price per second of each backend's work
  // (its running power, the static power and every other backend's idle
  // power) and per boundary: what Session::endStep accounts
  // (hwcore::stepEnergy) when the programs run one after another.
  const hwcore::PowerModel &power = model.powerModel;
  Pricing p;
  p.unit = "J";
  p.better = "lower predicted step energy";
  for (hwcore::BackendKind kind : hwcore::kAllBackends) {
    p.perSecond[hwcore::index(kind)] =
        power.marginalWatts(kind) -
        model.wattsSaved(hwcore::index(kind), clock);
    // Builds and weight moves run on the host.
    p.switchPerSecond[hwcore::index(kind)] =
        power.marginalWatts(hwcore::BackendKind::cpu);
  }
  p.fixed.resize(model.programs.size() * kNumBackends);
  for (size_t i = 0; i < model.programs.size(); ++i)
    for (int b = 0; b < kNumBackends; ++b)
      p.fixed[i * kNumBackends + b] =
          model.programs[i].fixed_joules[b] - model.joulesSaved(i, b, clock);
  p.boundaryPerSecond = power.boundaryMarginalWatts();
  p.perCrossingByte = power.boundaryPerByte;
  p.clock = clock;
  p.stretch = stretches(model, clock);
  return p;
}

Pricing Pricing::blend(const Model &model, double joulesWeight, double clock) {
  Pricing p = energy(model, clock);
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

double clockUnderCap(const Model &model, double cap,
                     const std::vector<int32_t> &backends,
                     const std::function<double(size_t, int)> &seconds) {
  double lowest = model.lowestClock();
  if (!(cap > 0) || lowest >= 1)
    return 1;
  // The step as the session accounts it (Session::end and endStep, the
  // same calls): its programs at the clock, then hwcore::stepEnergy's
  // static and idle power; the boundaries run inside the host's code and
  // are not timed apart.
  auto power = [&](double clock) {
    double step = 0, programJoules = 0;
    std::array<double, hwcore::kNumBackendKinds> busy{};
    for (size_t p = 0; p < backends.size(); ++p) {
      int b = backends[p];
      double t = seconds(p, b) * model.stretch(p, b, clock);
      step += t;
      busy[b] += t;
      programJoules += model.programJoules(p, b, t, clock);
    }
    double joules =
        hwcore::stepEnergy(model.powerModel, step, programJoules, 0, 0, busy)
            .total();
    return step > 0 ? joules / step : 0.0;
  };
  if (power(1) <= cap)
    return 1;
  return hwcore::clockUnderCap(cap, lowest, power);
}

} // namespace hwagent_rt
