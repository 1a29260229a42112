//===- EnergyCounter.h - the host's energy counter --------------*- C++ -*-===//
//
// The CPU's energy as this machine's kernel counts it, where it exposes a
// counter: powercap's package zones (/sys/class/powercap/intel-rapl:N,
// Intel RAPL and AMD's RAPL-compatible counters; energy_uj wraps at
// max_energy_range_uj), else perf's power PMU (power/energy-pkg/, one
// system-wide counter per package, as `perf stat -e power/energy-pkg/`
// reads it). Both count the whole package (every process, the uncore), and
// both are usually readable only by root or with perf_event_paranoid <= 0:
// without one every joule a session reports is modelled and says so.
// docs/runtime.md "Energy".
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_ENERGYCOUNTER_H
#define HWAGENT_RT_ENERGYCOUNTER_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hwagent_rt {

/// The CPUs of a sysfs CPU list ("0", "0,18", "0-1"); false for a list
/// that is malformed or names more than hwcore::kMaxCpus CPUs or one past
/// them.
bool parseCpuList(const std::string &text, std::vector<int> &cpus);

class EnergyCounter {
public:
  /// The first readable counter under `sysfs` (the sysfs root: "/sys", or
  /// a test's tree); null when none is.
  static std::unique_ptr<EnergyCounter> open(const std::string &sysfs);
  ~EnergyCounter();
  EnergyCounter(const EnergyCounter &) = delete;
  EnergyCounter &operator=(const EnergyCounter &) = delete;

  /// Joules counted since the counter was opened; negative when a read
  /// fails or a counter went back without a known range to wrap at (the
  /// reading is unavailable; later ones count on from the new value).
  double joules();
  /// "powercap:intel-rapl:0" or "perf:power/energy-pkg/".
  const std::string &name() const { return source; }

private:
  EnergyCounter() = default;
  /// A powercap zone: its energy file, the wrap range and the last raw
  /// value (microjoules).
  struct Zone {
    std::string path;
    uint64_t range = 0, last = 0;
  };
  std::string source;
  std::vector<Zone> zones;
  /// perf: one descriptor per package, joules per count.
  std::vector<int> fds;
  std::vector<uint64_t> perfStart;
  double scale = 0;
  double total = 0;
};

} // namespace hwagent_rt

#endif // HWAGENT_RT_ENERGYCOUNTER_H
