//===- Limits.h - the ranges compiler and runtime both accept ---*- C++ -*-===//
//
// One table of the physical limits on power values, energies and power caps,
// shared by the compiler (target files, hwagent-opt's pass options,
// hwagent-run's options) and the runtime (the model info a session loads,
// its options, scenario files), so that a value hwagent-opt accepts is never
// refused by hwagent-run only after compiling, and both say it in the same
// words (issue 38, item 19; docs/runtime.md "Limits"). No LLVM, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_LIMITS_H
#define HWAGENT_CORE_LIMITS_H

#include "HwAgent/Core/Energy.h"

#include <string>

namespace hwcore {

/// Watts past a megawatt and joules past a megajoule (a program's, or a
/// FLOP's, byte's or launch's) describe no chip; the bound keeps every
/// product of them with a step's seconds finite.
inline constexpr double kMaxWatts = 1e6;
inline constexpr double kMaxJoules = 1e6;

/// More CPU threads than this per loop only oversubscribes (issue 38:
/// 2^31-1 was accepted and ran 1,650 threads per loop on 2 cores):
/// hwagent-run's --cpu-threads and the runtime's cpu_threads.
inline constexpr int kMaxCpuThreads = 1024;
/// CPUs a kernel's CPU list (sysfs cpumask, "0-3,8") may name: glibc's
/// CPU_SETSIZE is 1024, Linux's largest NR_CPUS 8192.
inline constexpr int kMaxCpus = 8192;

/// Finite and in [0, kMaxWatts] (kMaxJoules is the same number).
bool physicalEnergy(double value);

/// "" when `watts` is a power cap both accept (finite, in [0, kMaxWatts],
/// 0: none), else the message: "power cap must be watts in [0, 1e6] (0:
/// none), got <watts>".
std::string checkPowerCap(double watts);

/// "" when every watt of `power` is in range, else the first value out of
/// range: "power of backend <b>: idle and running watts must be in [0,
/// 1e6], got <w>" or "power: boundary, boundary_per_byte and static_power
/// must be in [0, 1e6], got <w>". The compiler checks the power model of a
/// target with it, the runtime the one a model info carries.
std::string checkPowerModel(const PowerModel &power);

/// "" when a program's fixed joules on `backend` are in range, else
/// "fixed joules on <b> must be in [0, 1e6], got <j>".
std::string checkFixedJoules(BackendKind backend, double joules);

} // namespace hwcore

#endif // HWAGENT_CORE_LIMITS_H
