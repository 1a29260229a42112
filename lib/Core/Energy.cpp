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

double hwcore::clockOf(const BackendDescription &backend, double clock) {
  return backend.scalesClock() ? std::clamp(clock, backend.minClock, 1.0) : 1.0;
}

double hwcore::lowestClock(const std::vector<BackendDescription> &backends) {
  double lowest = 1;
  for (const BackendDescription &backend : backends)
    if (backend.scalesClock())
      lowest = std::min(lowest, backend.minClock);
  return lowest;
}

void hwcore::clockProgram(const BackendDescription &backend, ProgramCost &cost,
                          double clock) {
  double s = clockOf(backend, clock);
  if (s >= 1 || !cost.legal)
    return;
  ClockedLoad load;
  load.add(backend, cost);
  double seconds = 0, joules = 0;
  load.at(backend, s, seconds, joules);
  // The host's share stays as priced at the peak, over the longer seconds.
  cost.hostJoules += backend.hostPower * (seconds - cost.seconds);
  cost.joules = joules - cost.hostJoules;
  cost.seconds = seconds;
  cost.compute /= s;
  cost.clocked /= s;
  cost.clock = s;
}

void ClockedLoad::add(const BackendDescription &backend,
                      const ProgramCost &cost) {
  seconds += cost.seconds;
  clocked += cost.clocked;
  double flop = backend.energyPerFlop * double(cost.flops);
  flopJoules += flop;
  // What neither the seconds nor the FLOPs price: traffic and launches.
  otherJoules += cost.joules + cost.hostJoules - flop -
                 runningPower(backend) * cost.seconds;
}

void ClockedLoad::at(const BackendDescription &backend, double clock,
                     double &secs, double &joules) const {
  double s = clockOf(backend, clock);
  double alpha = backend.scalesClock() ? backend.dvfsExponent : 0;
  secs = seconds + (s < 1 ? clocked * (1 / s - 1) : 0);
  joules =
      (backend.activePower * std::pow(s, alpha) + backend.hostPower) * secs +
      flopJoules * (s < 1 ? std::pow(s, alpha - 1) : 1) + otherJoules;
}

double hwcore::clockUnderCap(double cap, double lowest,
                             const std::function<double(double)> &power) {
  if (lowest >= 1 || power(lowest) > cap)
    return std::min(lowest, 1.0);
  // power(lo) <= cap < power(hi); a hair under the cap, so that pricing
  // the plan again (another order of the same sums) stays under it.
  double lo = lowest, hi = 1, target = cap * (1 - 1e-12);
  if (power(lo) > target)
    return lo;
  for (int i = 0; i < 48 && hi - lo > 1e-12; ++i) {
    double mid = (lo + hi) / 2;
    (power(mid) <= target ? lo : hi) = mid;
  }
  return lo;
}
