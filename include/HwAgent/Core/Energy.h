//===- Energy.h - a step's joules and what a placement minimizes -*- C++
//-*-===//
//
// The one formula of a step's energy and of the objective, shared by the
// compiler (the partitioner prices every placement with it) and the runtime
// (sessions account every step and price re-partitions with it), so that
// the two cannot disagree on what "energy-optimal" means
// (docs/cost-model.md "Energy"). Every joule is modelled from the target's
// power values, never measured. No LLVM, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_ENERGY_H
#define HWAGENT_CORE_ENERGY_H

#include "HwAgent/Core/Target.h"

#include <array>

namespace hwcore {

/// A target's power values as a step's energy prices them, per backend
/// (index(kind)). The compiler writes them into the model info
/// (hwagent_power_info_t); the runtime reads them back.
struct PowerModel {
  /// Watts of each backend while it waits, and while a program runs on it
  /// (its active power and the host's feeding it: runningPower).
  std::array<double, kNumBackendKinds> idle{}, running{};
  /// The backends the target has (an absent one draws nothing).
  std::array<bool, kNumBackendKinds> present{};
  /// Watts of the host while it copies and converts at a boundary, joules
  /// per byte crossing one, and the package's static watts over the step.
  double boundary = 0, boundaryPerByte = 0, staticPower = 0;
  /// The backend whose cores copy at boundaries (the host: the CPU).
  BackendKind host = BackendKind::cpu;

  /// Joules of one execution of a program on `backend` taking `seconds`:
  /// the part that does not grow with its time (per FLOP, per byte, the
  /// launch) and its running power over its seconds.
  double programJoules(BackendKind backend, double fixedJoules,
                       double seconds) const {
    return fixedJoules + running[index(backend)] * seconds;
  }
  /// Watts a second of work on `backend` adds to a step whose programs run
  /// one after another: its running power, the static power and every
  /// other backend's idle power (stepEnergy's price per second).
  double marginalWatts(BackendKind backend) const;
  /// The same for a second of the host's work at a boundary.
  double boundaryMarginalWatts() const;
};

/// The target's power model (the host is its CPU).
PowerModel powerModel(const TargetDescription &target);

/// Joules of a step by part.
struct EnergyParts {
  double programs = 0, boundaries = 0, statics = 0, idle = 0;
  double total() const { return programs + boundaries + statics + idle; }
};

/// The energy of a step of `seconds`: its programs' joules, the host's
/// work at the boundaries (boundary watts over `boundarySeconds`, joules
/// per crossing byte), the static power over the step, and every backend's
/// idle power while it waits: `busy` seconds its programs run (the host's
/// boundary seconds added).
EnergyParts stepEnergy(const PowerModel &power, double seconds,
                       double programJoules, double boundarySeconds,
                       double crossingBytes,
                       const std::array<double, kNumBackendKinds> &busy);

/// More than any placement under a power cap costs: one over it costs this
/// times its average power over the cap.
inline constexpr double kOverCap = 1e30;

/// What `objective` makes of a step of `seconds` and `joules`: seconds,
/// joules or their product; a placement over `powerCap` (average watts, 0:
/// none) ranks above every one under it, by its excess. Infinite for an
/// infinite step.
double objectiveValue(Objective objective, double powerCap, double seconds,
                      double joules);

} // namespace hwcore

#endif // HWAGENT_CORE_ENERGY_H
