//===- Telemetry.h - host telemetry and scripted scenarios ------*- C++ -*-===//

#ifndef HWAGENT_RT_TELEMETRY_H
#define HWAGENT_RT_TELEMETRY_H

#include "hwagent_rt/hwagent_rt.h"

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include <cstdint>
#include <vector>

namespace hwagent_rt {

/// One scripted event: from `step` on, `backend`'s simulated/charged time is
/// multiplied by `slowdown` (another app uses it), or the thermal state
/// changes.
struct ScenarioEvent {
  int64_t step = 0;
  int backend = -1;     // -1 for another event
  double slowdown = 1;  // >= 1
  int thermal = -1;     // 0..3 for a thermal event
  int objective = -1;   // a hwagent_objective_t the session switches to
  double powerCap = -1; // watts (0: lifted), -1: no cap event
};

/// Parses a scenario file:
///   hwagent-scenario 1
///   at <step> <cpu|ane|gpu> slowdown <factor>
///   at <step> thermal <nominal|fair|serious|critical>
///   at <step> objective <time|energy|edp>     (e.g. the machine went on
///                                              battery)
///   at <step> power_cap <watts|none>          (a low-power mode)
/// ('#' starts a comment). Events are returned sorted by step; errors name
/// the line (a slowdown must be a finite number >= 1).
absl::StatusOr<std::vector<ScenarioEvent>>
parseScenario(absl::string_view text);

/// Time multiplier of a thermal state (hwagent_thermal_t): the core's.
double thermalFactor(int state);

/// Busy share of the machine's CPUs between two calls (from /proc/stat);
/// -1 when unavailable.
class CpuUtilization {
public:
  double sample();

private:
  uint64_t lastBusy = 0, lastTotal = 0;
};

/// Cores other processes kept busy between two calls: the machine's busy
/// time (/proc/stat) less this process's CPU time, over the wall time;
/// -1 when unavailable or too soon (under `minSeconds` since the last
/// sample: /proc/stat counts in 10 ms ticks).
class Contention {
public:
  double sample(double minSeconds = 0.2);

private:
  uint64_t lastBusy = 0;
  double lastProcess = 0, lastWall = 0;
  bool started = false;
};

/// Cores kept busy by others when the machine was busy `machineSeconds`
/// (all cores) and this process ran `ownSeconds` over `wallSeconds`.
double othersBusyCores(double machineSeconds, double ownSeconds,
                       double wallSeconds);

/// The kernel threads to use when other processes keep `othersBusy` cores
/// busy, out of `configured` on a machine of `online` CPUs: at most the
/// cores the others leave free (a core counts as taken from 0.25 busy: a
/// thread that must share a core with a busy process makes every thread of
/// a parallel region wait for it), at most `configured`, at least one. With
/// no core taken, `configured` as it is (even above `online`).
int threadsUnderContention(int configured, int online, double othersBusy);
/// The same with every online CPU configured.
inline int threadsUnderContention(int online, double othersBusy) {
  return threadsUnderContention(online, online, othersBusy);
}

struct ThermalReading {
  int zones = 0;
  double maxCelsius = -1;
};
ThermalReading readThermalZones();
int64_t readAvailableMemory();

/// The host's telemetry (no scenario): CPU busy share since `cpu`'s last
/// sample, thermal zones, available memory.
hwagent_telemetry_t readHostTelemetry(CpuUtilization &cpu);

} // namespace hwagent_rt

#endif // HWAGENT_RT_TELEMETRY_H
