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

#include "HwAgent/Core/CostModel.h"
#include "HwAgent/Core/Target.h"

#include <array>
#include <functional>
#include <vector>

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

/// Frequency scaling under a power cap (docs/partitioning.md "Power cap"):
/// a backend that scales (BackendDescription::scalesClock) runs at
/// max(clock, its minClock) of its peak; one that does not stays at 1.
double clockOf(const BackendDescription &backend, double clock);
/// The lowest clock any of `backends` can run at (1: none scales).
double lowestClock(const std::vector<BackendDescription> &backends);

/// `cost` (priced at the peak) run at `clock`: its compute-bound seconds
/// (ProgramCost::clocked) grow as 1/s, the backend's active power falls as
/// s ^ dvfsExponent and its joules per FLOP as s ^ (dvfsExponent - 1); its
/// traffic, launches, weight handling and the host's feeding power stay.
void clockProgram(const BackendDescription &backend, ProgramCost &cost,
                  double clock);

/// The programs of one backend in a step, summed: enough to price them at
/// any clock without pricing each program again (the same as clockProgram
/// on each, summed).
struct ClockedLoad {
  double seconds = 0, clocked = 0, flopJoules = 0, otherJoules = 0;
  void add(const BackendDescription &backend, const ProgramCost &cost);
  /// Seconds and joules (backend and host) of the programs at `clock`.
  void at(const BackendDescription &backend, double clock, double &secs,
          double &joules) const;
};

/// The highest clock in [lowest, 1] whose step meets `cap` watts, by
/// bisection on `power(clock)` (average watts of the step at that clock,
/// which falls with the clock); `lowest` when even it does not.
double clockUnderCap(double cap, double lowest,
                     const std::function<double(double)> &power);

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
