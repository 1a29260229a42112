//===- Energy.cpp - a step's joules and what a placement minimizes --------===//

#include "HwAgent/Core/Energy.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace hwcore;

double PowerModel::marginalWatts(BackendKind backend) const {
  double watts = running[index(backend)] + staticPower;
  for (BackendKind other : kAllBackends)
    if (other != backend && present[index(other)])
      watts += idle[index(other)];
  return watts;
}

double PowerModel::boundaryMarginalWatts() const {
  double watts = boundary + staticPower;
  for (BackendKind other : kAllBackends)
    if (other != host && present[index(other)])
      watts += idle[index(other)];
  return watts;
}

PowerModel hwcore::powerModel(const TargetDescription &target) {
  PowerModel power;
  power.staticPower = target.staticPower;
  for (const BackendDescription &backend : target.backends) {
    unsigned b = index(backend.kind);
    power.present[b] = true;
    power.idle[b] = backend.idlePower;
    power.running[b] = runningPower(backend);
    if (backend.kind == power.host) {
      power.boundary = boundaryPower(backend);
      power.boundaryPerByte = boundaryJoulesPerByte(backend);
    }
  }
  return power;
}

EnergyParts
hwcore::stepEnergy(const PowerModel &power, double seconds,
                   double programJoules, double boundarySeconds,
                   double crossingBytes,
                   const std::array<double, kNumBackendKinds> &busy) {
  EnergyParts parts;
  parts.programs = programJoules;
  parts.boundaries =
      boundarySeconds * power.boundary + power.boundaryPerByte * crossingBytes;
  parts.statics = power.staticPower * seconds;
  for (BackendKind kind : kAllBackends) {
    unsigned b = index(kind);
    if (!power.present[b])
      continue;
    double running = busy[b] + (kind == power.host ? boundarySeconds : 0);
    parts.idle += power.idle[b] * std::max(0.0, seconds - running);
  }
  return parts;
}

double hwcore::objectiveValue(Objective objective, double powerCap,
                              double seconds, double joules) {
  if (!std::isfinite(seconds))
    return std::numeric_limits<double>::infinity();
  double value = seconds;
  switch (objective) {
  case Objective::time:
    break;
  case Objective::energy:
    value = joules;
    break;
  case Objective::edp:
    value = joules * seconds;
    break;
  }
  // Over the cap: ranked by the relative excess, above every placement
  // under it (a multiple of kOverCap, so that the excess stays visible).
  // The excess saturates below infinity: with a cap of 1e-310 W or a power
  // of 1e300 W every placement stays comparable (and finite) instead of
  // all becoming +inf, which the search cannot rank.
  if (powerCap > 0 && seconds > 0 && joules / seconds > powerCap) {
    double excess = joules / seconds / powerCap;
    constexpr double kMostExcess =
        std::numeric_limits<double>::max() / kOverCap;
    return kOverCap * (std::isfinite(excess) ? std::min(excess, kMostExcess)
                                             : kMostExcess);
  }
  return value;
}
