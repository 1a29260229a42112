//===- Telemetry.cpp - host telemetry and scripted scenarios --------------===//

#include "Telemetry.h"

#include "HwAgent/Core/Limits.h"
#include "HwAgent/Core/Vocabulary.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <time.h>
#include <unistd.h>

namespace hwagent_rt {

double thermalFactor(int state) {
  if (state < 0 || state > HWAGENT_THERMAL_CRITICAL)
    return 1.0;
  return hwcore::thermalFactor(static_cast<hwcore::ThermalState>(state));
}

hwagent_telemetry_t readHostTelemetry(CpuUtilization &cpu) {
  hwagent_telemetry_t t = {};
  t.utilization[HWAGENT_BACKEND_CPU] = std::max(0.0, cpu.sample());
  ThermalReading zones = readThermalZones();
  t.thermal_zones = zones.zones;
  t.max_temperature_c = zones.maxCelsius;
  t.thermal_state = zones.maxCelsius >= 95   ? HWAGENT_THERMAL_CRITICAL
                    : zones.maxCelsius >= 85 ? HWAGENT_THERMAL_SERIOUS
                    : zones.maxCelsius >= 75 ? HWAGENT_THERMAL_FAIR
                                             : HWAGENT_THERMAL_NOMINAL;
  t.free_memory_bytes = readAvailableMemory();
  return t;
}

absl::StatusOr<std::vector<ScenarioEvent>>
parseScenario(absl::string_view text) {
  std::vector<ScenarioEvent> events;
  int lineNumber = 0;
  bool sawHeader = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++lineNumber;
    line = line.substr(0, line.find('#'));
    // Fields split on any blank, '\r' included: a file saved with CRLF line
    // endings (a Windows editor) reads as it shows.
    std::vector<absl::string_view> f =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r\v\f"), absl::SkipEmpty());
    if (f.empty())
      continue;
    auto bad = [&](absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat("scenario line ", lineNumber, ": ", what));
    };
    if (!sawHeader) {
      if (f.size() != 2 || f[0] != "hwagent-scenario" || f[1] != "1")
        return bad("expected 'hwagent-scenario 1'");
      sawHeader = true;
      continue;
    }
    ScenarioEvent e;
    if (f.size() < 4 || f[0] != "at" || !absl::SimpleAtoi(f[1], &e.step) ||
        e.step < 0)
      return bad("expected 'at <step> ...'");
    if (f[2] == "thermal" && f.size() == 4) {
      std::optional<hwcore::ThermalState> state = hwcore::parseThermalStateName(
          std::string_view(f[3].data(), f[3].size()));
      if (!state)
        return bad(absl::StrCat("unknown thermal state '", f[3], "'"));
      e.thermal = static_cast<int>(*state);
    } else if (f.size() == 5 && f[3] == "slowdown") {
      std::optional<hwcore::BackendKind> backend =
          hwcore::parseBackendName(std::string_view(f[2].data(), f[2].size()));
      if (!backend)
        return bad(absl::StrCat("unknown backend '", f[2], "'"));
      e.backend = static_cast<int>(*backend);
      if (!absl::SimpleAtod(f[4], &e.slowdown) || !std::isfinite(e.slowdown) ||
          !(e.slowdown >= 1.0))
        return bad("slowdown must be a finite number >= 1");
    } else if (f[2] == "objective" && f.size() == 4) {
      std::optional<hwcore::Objective> objective = hwcore::parseObjectiveName(
          std::string_view(f[3].data(), f[3].size()));
      if (!objective)
        return bad(
            absl::StrCat("unknown objective '", f[3], "' (time, energy, edp)"));
      e.objective = static_cast<int>(*objective);
    } else if (f[2] == "power_cap" && f.size() == 4) {
      if (f[3] == "none")
        e.powerCap = 0;
      else if (!absl::SimpleAtod(f[3], &e.powerCap) || !(e.powerCap > 0) ||
               !hwcore::physicalEnergy(e.powerCap))
        return bad("power_cap must be watts in (0, 1e6] or 'none'");
    } else {
      return bad("expected '<backend> slowdown <factor>', 'thermal <state>', "
                 "'objective <name>' or 'power_cap <watts|none>'");
    }
    events.push_back(e);
  }
  if (!sawHeader)
    return absl::InvalidArgumentError("scenario is empty");
  std::stable_sort(events.begin(), events.end(),
                   [](const ScenarioEvent &a, const ScenarioEvent &b) {
                     return a.step < b.step;
                   });
  return events;
}

double othersBusyCores(double machineSeconds, double ownSeconds,
                       double wallSeconds) {
  if (!(wallSeconds > 0))
    return -1;
  return std::max(0.0, (machineSeconds - ownSeconds) / wallSeconds);
}

int threadsUnderContention(int configured, int online, double othersBusy) {
  configured = std::max(configured, 1);
  if (!(othersBusy > 0))
    return configured;
  int taken = static_cast<int>(std::ceil(othersBusy - 0.25));
  if (taken <= 0)
    return configured;
  return std::clamp(online - taken, 1, configured);
}

/// The machine's busy and total ticks so far (the "cpu" line of
/// /proc/stat: idle and iowait are not busy); false when unreadable.
/// HWAGENT_PROC_ROOT points the reader at another tree (tests that count
/// threads point it at an empty one, so that no load around them changes
/// the count).
static bool readCpuTicks(uint64_t &busy, uint64_t &total) {
  const char *root = std::getenv("HWAGENT_PROC_ROOT");
  std::ifstream stat(root && *root ? std::string(root) + "/stat"
                                   : std::string("/proc/stat"));
  std::string label;
  uint64_t values[8] = {};
  if (!(stat >> label) || label != "cpu")
    return false;
  for (uint64_t &v : values)
    stat >> v;
  busy = total = 0;
  for (int i = 0; i < 8; ++i) {
    total += values[i];
    if (i != 3 && i != 4)
      busy += values[i];
  }
  return true;
}

double Contention::sample(double minSeconds) {
  // The clocks first: /proc/stat is read only when a sample is due.
  timespec process = {}, wall = {};
  clock_gettime(CLOCK_MONOTONIC, &wall);
  double wallSeconds = wall.tv_sec + wall.tv_nsec * 1e-9;
  if (started && wallSeconds - lastWall < minSeconds)
    return -1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &process);
  double processSeconds = process.tv_sec + process.tv_nsec * 1e-9;
  uint64_t busy = 0, total = 0;
  if (!readCpuTicks(busy, total))
    return -1;
  double ticks = double(sysconf(_SC_CLK_TCK));
  double others = -1;
  if (started && ticks > 0 && busy >= lastBusy)
    others =
        othersBusyCores(double(busy - lastBusy) / ticks,
                        processSeconds - lastProcess, wallSeconds - lastWall);
  started = true;
  lastBusy = busy;
  lastProcess = processSeconds;
  lastWall = wallSeconds;
  return others;
}

double CpuUtilization::sample() {
  uint64_t busy = 0, total = 0;
  if (!readCpuTicks(busy, total))
    return -1;
  double share = -1;
  if (lastTotal && total > lastTotal)
    share = double(busy - lastBusy) / double(total - lastTotal);
  lastBusy = busy;
  lastTotal = total;
  return share;
}

ThermalReading readThermalZones() {
  ThermalReading reading;
  for (int zone = 0; zone < 64; ++zone) {
    std::ifstream file(
        absl::StrCat("/sys/class/thermal/thermal_zone", zone, "/temp"));
    if (!file)
      break;
    long milli = 0;
    if (file >> milli) {
      ++reading.zones;
      reading.maxCelsius = std::max(reading.maxCelsius, milli / 1000.0);
    }
  }
  return reading;
}

int64_t readAvailableMemory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kb;
  std::string unit;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemAvailable:")
      return kb * 1024;
  return 0;
}

} // namespace hwagent_rt
