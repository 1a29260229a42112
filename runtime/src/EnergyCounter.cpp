//===- EnergyCounter.cpp - the host's energy counter ----------------------===//

#include "EnergyCounter.h"

#include "HwAgent/Core/Limits.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <algorithm>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <linux/perf_event.h>
#include <sstream>
#include <sys/syscall.h>
#include <unistd.h>

namespace hwagent_rt {

/// The file's first line, trimmed; false when it cannot be read.
static bool readLine(const std::string &path, std::string &line) {
  std::ifstream file(path);
  if (!file || !std::getline(file, line))
    return false;
  line = std::string(absl::StripAsciiWhitespace(line));
  return true;
}

static bool readUnsigned(const std::string &path, uint64_t &value) {
  std::string line;
  return readLine(path, line) && absl::SimpleAtoi(line, &value);
}

/// powercap's top-level zones (intel-rapl:N, the packages; their subzones
/// intel-rapl:N:M are parts of them), sorted.
static std::vector<std::string> packageZones(const std::string &root) {
  std::vector<std::string> names;
  if (DIR *dir = opendir(root.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.rfind("intel-rapl:", 0) == 0 &&
          std::count(name.begin(), name.end(), ':') == 1)
        names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool parseCpuList(const std::string &text, std::vector<int> &cpus) {
  cpus.clear();
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    std::pair<std::string, std::string> range = absl::StrSplit(part, '-');
    int first = 0, last = 0;
    if (!absl::SimpleAtoi(range.first, &first))
      return false;
    last = first;
    if (!range.second.empty() && !absl::SimpleAtoi(range.second, &last))
      return false;
    // A CPU past any kernel's count, or a range of more of them than that,
    // is no machine's (a "0-2147483647" built an 8 GiB list).
    if (first < 0 || last < first || last >= hwcore::kMaxCpus ||
        int64_t(cpus.size()) + (last - first + 1) > hwcore::kMaxCpus)
      return false;
    for (int cpu = first; cpu <= last; ++cpu)
      cpus.push_back(cpu);
  }
  return true;
}

std::unique_ptr<EnergyCounter> EnergyCounter::open(const std::string &sysfs) {
  std::unique_ptr<EnergyCounter> counter(new EnergyCounter());
  std::string powercap = sysfs + "/class/powercap";
  for (const std::string &name : packageZones(powercap)) {
    Zone zone;
    zone.path = powercap + "/" + name + "/energy_uj";
    if (!readUnsigned(zone.path, zone.last) ||
        !readUnsigned(powercap + "/" + name + "/max_energy_range_uj",
                      zone.range))
      continue;
    counter->zones.push_back(zone);
    if (counter->source.empty())
      counter->source = "powercap:" + name;
  }
  if (!counter->zones.empty())
    return counter;

  // perf's power PMU: its type, the event's config ("event=0x02") and scale.
  std::string pmu = sysfs + "/bus/event_source/devices/power";
  uint64_t type = 0;
  std::string event, scale, mask;
  if (!readUnsigned(pmu + "/type", type) ||
      !readLine(pmu + "/events/energy-pkg", event) ||
      !readLine(pmu + "/events/energy-pkg.scale", scale) ||
      !absl::SimpleAtod(scale, &counter->scale) || counter->scale <= 0)
    return nullptr;
  uint64_t config = 0;
  absl::string_view value = event;
  if (!absl::ConsumePrefix(&value, "event=") ||
      !absl::SimpleHexAtoi(value, &config))
    return nullptr;
  std::vector<int> cpus = {0};
  // A cpumask that names no CPU list hwagent believes leaves the host
  // without a counter (its joules modelled), as an unreadable one would.
  if (readLine(pmu + "/cpumask", mask) && !parseCpuList(mask, cpus))
    return nullptr;
  for (int cpu : cpus) {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof(attr));
    attr.type = static_cast<uint32_t>(type);
    attr.size = sizeof(attr);
    attr.config = config;
    long fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
    if (fd < 0)
      return nullptr; // the destructor closes the ones opened
    counter->fds.push_back(static_cast<int>(fd));
    uint64_t start = 0;
    if (::read(static_cast<int>(fd), &start, sizeof(start)) != sizeof(start))
      return nullptr;
    counter->perfStart.push_back(start);
  }
  if (counter->fds.empty())
    return nullptr;
  counter->source = "perf:power/energy-pkg/";
  return counter;
}

EnergyCounter::~EnergyCounter() {
  for (int fd : fds)
    ::close(fd);
}

double EnergyCounter::joules() {
  if (!fds.empty()) {
    double sum = 0;
    for (size_t i = 0; i < fds.size(); ++i) {
      uint64_t count = 0;
      if (::read(fds[i], &count, sizeof(count)) != sizeof(count))
        return -1;
      sum += double(count - perfStart[i]) * scale;
    }
    return sum;
  }
  for (Zone &zone : zones) {
    uint64_t now = 0;
    if (!readUnsigned(zone.path, now))
      return -1;
    // The counter wraps at its range; one that went back without a range
    // to wrap at (or past it) has no reading to give: unavailable, not the
    // 2^64 microjoules an unsigned difference would make of it.
    uint64_t last = zone.last;
    zone.last = now;
    if (now >= last) {
      total += double(now - last) * 1e-6;
      continue;
    }
    if (zone.range == 0 || last > zone.range || now > zone.range)
      return -1;
    total += double(zone.range - last + now) * 1e-6;
  }
  return total;
}

} // namespace hwagent_rt
