//===- Target.cpp - hardware descriptions of heterogeneous chips ----------===//

#include "HwAgent/Core/Target.h"

#include "HwAgent/Core/Limits.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace hwcore;

double BackendDescription::peakFor(const std::string &type) const {
  if (auto it = peakFlops.find(type); it != peakFlops.end())
    return it->second;
  if (auto it = peakFlops.find("default"); it != peakFlops.end())
    return it->second;
  double best = 0;
  for (const auto &[name, value] : peakFlops)
    best = std::max(best, value);
  return best;
}

double BackendDescription::efficiencyOf(WorkKind kind) const {
  auto it = kindEfficiency.find(kind);
  return it == kindEfficiency.end() ? 1.0 : it->second;
}

double BackendDescription::threadSpeedup() const {
  return std::pow(static_cast<double>(std::max<int64_t>(threads, 1)),
                  parallelExponent);
}

bool BackendDescription::supports(WeightUpdate mode) const {
  return std::find(weightUpdates.begin(), weightUpdates.end(), mode) !=
         weightUpdates.end();
}

bool BackendDescription::runs(WorkKind kind) const {
  return opKinds.empty() ||
         std::find(opKinds.begin(), opKinds.end(), kind) != opKinds.end();
}

double hwcore::linkCost(const LinkDescription &link, int64_t bytes,
                        int64_t convertBytes) {
  double cost = link.sync + static_cast<double>(bytes) / link.bandwidth;
  if (link.convertBandwidth > 0)
    cost += static_cast<double>(convertBytes) / link.convertBandwidth;
  return cost;
}

const BackendDescription *TargetDescription::lookup(BackendKind kind) const {
  for (const BackendDescription &backend : backends)
    if (backend.kind == kind)
      return &backend;
  return nullptr;
}

LinkDescription TargetDescription::link(BackendKind from,
                                        BackendKind to) const {
  for (const LinkDescription &candidate : links)
    if (candidate.from == from && candidate.to == to)
      return candidate;
  LinkDescription link = defaultLink;
  link.from = from;
  link.to = to;
  return link;
}

namespace {
/// Collects the first range error with its field path.
struct Checker {
  std::string error;
  bool ok() const { return error.empty(); }
  void fail(const std::string &path, const std::string &what) {
    if (error.empty())
      error = path + ": " + what;
  }
  void positive(const std::string &path, double v) {
    if (!(std::isfinite(v) && v > 0))
      fail(path, "must be positive");
  }
  void nonNegative(const std::string &path, double v) {
    if (!(std::isfinite(v) && v >= 0))
      fail(path, "must be non-negative");
  }
  /// Watts or joules both the compiler and the runtime accept (Limits.h).
  void energy(const std::string &path, double v) {
    nonNegative(path, v);
    if (v >= 0 && !physicalEnergy(v)) {
      std::ostringstream os;
      os << v;
      fail(path, "must be in [0, 1e6] (watts or joules, the runtime's "
                 "limit), got " +
                     os.str());
    }
  }
  void unitInterval(const std::string &path, double v) {
    if (!(v > 0 && v <= 1))
      fail(path, "must be in (0, 1]");
  }
};

void checkLink(Checker &c, const std::string &path, const LinkDescription &l) {
  c.positive(path + ".bandwidth", l.bandwidth);
  c.nonNegative(path + ".convert_bandwidth", l.convertBandwidth);
  c.nonNegative(path + ".sync", l.sync);
}
} // namespace

std::string hwcore::validateTarget(const TargetDescription &target) {
  Checker c;
  if (target.name.empty())
    c.fail("name", "must not be empty");
  if (target.backends.empty())
    c.fail("backends", "needs at least one backend");
  for (size_t i = 0; i < target.backends.size(); ++i) {
    const BackendDescription &b = target.backends[i];
    std::string path = "backends[" + std::to_string(i) + "]";
    for (size_t j = 0; j < i; ++j)
      if (target.backends[j].kind == b.kind)
        c.fail(path + ".backend", std::string("backend '") +
                                      backendName(b.kind) +
                                      "' is described twice");
    if (b.peakFlops.empty())
      c.fail(path + ".peak_flops", "needs at least one element type");
    for (const auto &[type, value] : b.peakFlops)
      c.positive(path + ".peak_flops." + type, value);
    c.nonNegative(path + ".matrix_flops", b.matrixFlops);
    for (const auto &[kind, value] : b.kindEfficiency)
      c.unitInterval(path + ".kind_efficiency." + workKindName(kind), value);
    c.positive(path + ".ramp_flops", b.rampFlops);
    c.unitInterval(path + ".ramp_exponent", b.rampExponent);
    c.positive(path + ".bandwidth", b.bandwidth);
    if (b.sramBytes < 0)
      c.fail(path + ".sram_bytes", "must be non-negative");
    if (b.rowAlignment < 0)
      c.fail(path + ".row_alignment", "must be non-negative");
    if (!(std::isfinite(b.spillFactor) && b.spillFactor >= 1))
      c.fail(path + ".spill_factor", "must be at least 1");
    if (!(std::isfinite(b.winogradGain) && b.winogradGain >= 1))
      c.fail(path + ".winograd_gain", "must be at least 1");
    c.nonNegative(path + ".launch", b.launch);
    c.nonNegative(path + ".region_launch", b.regionLaunch);
    c.unitInterval(path + ".input_weight_efficiency", b.inputWeightEfficiency);
    c.nonNegative(path + ".compile", b.compile);
    c.nonNegative(path + ".compile_per_byte", b.compilePerByte);
    c.nonNegative(path + ".reload", b.reload);
    c.nonNegative(path + ".reload_per_byte", b.reloadPerByte);
    if (b.maxWeightBytes < 0)
      c.fail(path + ".max_weight_bytes", "must be non-negative");
    c.nonNegative(path + ".restart", b.restart);
    if (b.maxCompiles < 0)
      c.fail(path + ".max_compiles", "must be non-negative");
    if (b.threads < 1)
      c.fail(path + ".threads", "must be at least 1");
    c.unitInterval(path + ".parallel_exponent", b.parallelExponent);
    for (auto [field, value] : {std::pair{".idle_power", b.idlePower},
                                {".active_power", b.activePower},
                                {".energy_per_flop", b.energyPerFlop},
                                {".energy_per_byte", b.energyPerByte},
                                {".host_power", b.hostPower},
                                {".launch_energy", b.launchEnergy}})
      c.energy(path + field, value);
    if (!(b.dvfsExponent == 0 ||
          (b.dvfsExponent >= 1 && b.dvfsExponent <= 6))) {
      std::ostringstream os;
      os << b.dvfsExponent;
      c.fail(path + ".dvfs_exponent",
             "must be 0 (no frequency scaling) or in [1, 6], got " + os.str());
    }
    c.unitInterval(path + ".min_clock", b.minClock);
    if (b.maxDim < 0)
      c.fail(path + ".max_dim", "must be non-negative");
    if (b.maxRank < 0)
      c.fail(path + ".max_rank", "must be non-negative");
    if (b.computeType != "" && b.computeType != "f16" &&
        b.computeType != "f32" && b.computeType != "bf16")
      c.fail(path + ".compute_type",
             "expected f16, bf16 or f32, got '" + b.computeType + "'");
  }
  checkLink(c, "default_link", target.defaultLink);
  c.energy("static_power", target.staticPower);
  // What the runtime derives from them (a backend's running power is its
  // active power plus the host's feeding it) is held to the same range.
  if (c.ok())
    if (std::string error = checkPowerModel(powerModel(target)); !error.empty())
      c.fail("power", error);
  for (size_t i = 0; i < target.links.size(); ++i) {
    const LinkDescription &l = target.links[i];
    std::string path = "links[" + std::to_string(i) + "]";
    if (l.from == l.to)
      c.fail(path, "a link joins two different backends");
    for (size_t j = 0; j < i; ++j)
      if (target.links[j].from == l.from && target.links[j].to == l.to)
        c.fail(path, "the pair is described twice");
    checkLink(c, path, l);
  }
  return c.error;
}
