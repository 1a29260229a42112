//===- Model.cpp - the compiled model a session runs ----------------------===//

#include "Model.h"

#include "HwAgent/Core/Limits.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cmath>

namespace hwagent_rt {

double Model::linkCost(const hwagent_edge_info_t &e, int a, int b) const {
  if (a == b)
    return 0;
  return hwcore::linkCost(linkPrices[a][b], e.bytes, e.convert_bytes);
}

double Model::buildCost(unsigned program, int backend) const {
  return compile[backend] +
         compilePerByte[backend] * double(programs[program].weight_bytes);
}

double Model::weightMoveCost(unsigned program, int a, int b) const {
  int64_t bytes = programs[program].weight_bytes;
  if (a == b || bytes <= 0)
    return 0;
  // Weights are f32 on the host; the ANE holds them as f16.
  return hwcore::linkCost(linkPrices[a][b], bytes, bytes);
}

static bool finiteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

double Model::backendClock(int backend, double clock) const {
  double alpha = this->clock.dvfs_exponent[backend];
  double lowest = this->clock.min_clock[backend];
  if (!(alpha > 0) || !(lowest < 1))
    return 1;
  return std::clamp(clock, lowest, 1.0);
}

double Model::lowestClock() const {
  double lowest = 1;
  for (int b = 0; b < kNumBackends; ++b)
    lowest = std::min(lowest, backendClock(b, 0));
  return lowest;
}

double Model::stretch(unsigned program, int backend, double clock) const {
  double s = backendClock(backend, clock);
  const hwagent_program_info_t &p = programs[program];
  if (s >= 1 || !(p.predicted[backend] > 0))
    return 1;
  return 1 + p.clocked[backend] / p.predicted[backend] * (1 / s - 1);
}

double Model::wattsSaved(int backend, double clock) const {
  double s = backendClock(backend, clock);
  if (s >= 1)
    return 0;
  return this->clock.active[backend] *
         (1 - std::pow(s, this->clock.dvfs_exponent[backend]));
}

double Model::joulesSaved(unsigned program, int backend, double clock) const {
  double s = backendClock(backend, clock);
  if (s >= 1)
    return 0;
  // Never more than the execution's fixed joules (a hostile model's
  // joules per FLOP can exceed them).
  const hwagent_program_info_t &p = programs[program];
  return std::min(
      p.fixed_joules[backend],
      this->clock.per_flop[backend] * double(p.flops) *
          (1 - std::pow(s, this->clock.dvfs_exponent[backend] - 1)));
}

/// Compile prices, compile limits and links per pair of backends.
static absl::Status loadBackends(const hwagent_model_info_t *info, Model &m) {
  for (int a = 0; a < kNumBackends; ++a) {
    m.compile[a] = info->compile[a];
    m.compilePerByte[a] = info->compile_per_byte[a];
    m.maxCompiles[a] = info->max_compiles[a];
    if (!finiteNonNegative(info->compile[a]) ||
        !finiteNonNegative(info->compile_per_byte[a]))
      return absl::InvalidArgumentError(
          absl::StrCat("compile time of backend ", hwagent_backend_name(a),
                       " must be finite and >= 0"));
    if (info->max_compiles[a] < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("compile limit of backend ", hwagent_backend_name(a),
                       " must be >= 0 (0: none), got ", info->max_compiles[a]));
    for (int b = 0; b < kNumBackends; ++b) {
      const hwagent_link_info_t &l = info->links[a][b];
      if (a != b && !(std::isfinite(l.bandwidth) && l.bandwidth > 0 &&
                      finiteNonNegative(l.convert_bandwidth) &&
                      finiteNonNegative(l.sync)))
        return absl::InvalidArgumentError(absl::StrCat(
            "link ", hwagent_backend_name(a), " -> ", hwagent_backend_name(b),
            ": bandwidth must be positive, conversion and sync >= 0"));
      m.links[a][b] = l;
      m.linkPrices[a][b] = {static_cast<hwcore::BackendKind>(a),
                            static_cast<hwcore::BackendKind>(b), l.bandwidth,
                            l.convert_bandwidth, l.sync};
    }
  }
  return absl::OkStatus();
}

/// Every program and region: legal where it runs, finite predictions and
/// joules, regions where the programs say.
static absl::Status checkPrograms(const Model &m) {
  for (size_t i = 0; i < m.programs.size(); ++i) {
    const hwagent_program_info_t &p = m.programs[i];
    auto bad = [&](const std::string &what) {
      return absl::InvalidArgumentError(
          absl::StrCat("program ", i, ": ", what));
    };
    if (!Model::legal(p, HWAGENT_BACKEND_CPU))
      return bad("has no CPU variant to fall back to");
    if (!Model::legal(p, p.assigned))
      return bad("is assigned to a backend it has no variant for");
    if (uint64_t(p.first_region) + p.num_regions > m.regions.size())
      return bad("names regions the model lacks");
    for (int b = 0; b < kNumBackends; ++b)
      if (!finiteNonNegative(p.predicted[b]))
        return bad("predicted times must be finite and >= 0");
    for (int b = 0; b < kNumBackends; ++b)
      if (!finiteNonNegative(p.clocked[b]) || p.clocked[b] > p.predicted[b])
        return bad("compute-bound seconds must be finite, >= 0 and at most "
                   "the predicted ones");
    // The compiler checks the same (hwcore's Limits.h) while it lowers.
    for (hwcore::BackendKind kind : hwcore::kAllBackends) {
      std::string error =
          hwcore::checkFixedJoules(kind, p.fixed_joules[hwcore::index(kind)]);
      if (!error.empty())
        return bad(error);
    }
    if (p.weight_bytes < 0)
      return bad("weight bytes must be >= 0");
  }
  for (size_t i = 0; i < m.regions.size(); ++i) {
    const hwagent_region_info_t &r = m.regions[i];
    if (r.program < 0 || size_t(r.program) >= m.programs.size())
      return absl::InvalidArgumentError(absl::StrCat(
          "region ", i, ": names program ", r.program, " the model lacks"));
    for (int b = 0; b < kNumBackends; ++b)
      if (!finiteNonNegative(r.predicted[b]))
        return absl::InvalidArgumentError(absl::StrCat(
            "region ", i, ": predicted time on ", hwagent_backend_name(b),
            " must be finite and >= 0, got ", r.predicted[b]));
    if (r.flops < 0 || r.bytes < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("region ", i, ": flops and bytes must be >= 0"));
  }
  return absl::OkStatus();
}

/// The power values (as the core's power model), the objective and cap.
static absl::Status loadPower(const hwagent_model_info_t *info, Model &m) {
  m.power = info->power;
  const hwagent_power_info_t &w = info->power;
  // Every backend of the C API is priced: one the target lacks has 0 W.
  for (hwcore::BackendKind kind : hwcore::kAllBackends) {
    unsigned b = hwcore::index(kind);
    m.powerModel.present[b] = true;
    m.powerModel.idle[b] = w.idle[b];
    m.powerModel.running[b] = w.running[b];
  }
  m.powerModel.boundary = w.boundary;
  m.powerModel.boundaryPerByte = w.boundary_per_byte;
  m.powerModel.staticPower = w.static_power;
  m.powerModel.host = hwcore::BackendKind::cpu;
  // The ranges the compiler checked the target's power values against
  // (hwcore's Limits.h): a model info another compiler wrote is held to
  // them here, in the same words.
  if (std::string error = hwcore::checkPowerModel(m.powerModel); !error.empty())
    return absl::InvalidArgumentError(error);
  if (info->objective < 0 || info->objective >= HWAGENT_NUM_OBJECTIVES)
    return absl::InvalidArgumentError(absl::StrCat("objective ",
                                                   info->objective,
                                                   " is not one of time (0), "
                                                   "energy (1), edp (2)"));
  m.objective = info->objective;
  if (std::string error = hwcore::checkPowerCap(info->power_cap);
      !error.empty())
    return absl::InvalidArgumentError(error);
  m.powerCap = info->power_cap;
  return absl::OkStatus();
}

/// The clock model: the ranges the compiler's target check holds
/// (lib/Core/Target.cpp), the scaling watts within the running ones.
static absl::Status loadClock(const hwagent_model_info_t *info, Model &m) {
  m.clock = info->clock;
  const hwagent_clock_info_t &c = info->clock;
  for (int b = 0; b < kNumBackends; ++b) {
    auto bad = [&](const std::string &what) {
      return absl::InvalidArgumentError(absl::StrCat(
          "clock of backend ", hwagent_backend_name(b), ": ", what));
    };
    double alpha = c.dvfs_exponent[b];
    if (!(alpha == 0 || (alpha >= 1 && alpha <= 6)))
      return bad(absl::StrCat("dvfs_exponent must be 0 (none) or in [1, 6], "
                              "got ",
                              alpha));
    if (!(c.min_clock[b] >= 0 && c.min_clock[b] <= 1))
      return bad(
          absl::StrCat("min_clock must be in [0, 1], got ", c.min_clock[b]));
    if (alpha > 0 && c.min_clock[b] < 1 && !(c.min_clock[b] > 0))
      return bad("a backend that scales needs a min_clock above 0");
    if (!finiteNonNegative(c.active[b]) || c.active[b] > m.power.running[b])
      return bad("active watts must be finite, >= 0 and at most the running "
                 "ones");
    if (!finiteNonNegative(c.per_flop[b]))
      return bad("joules per FLOP must be finite and >= 0");
  }
  return absl::OkStatus();
}

/// The boundaries and, per program, those that touch it.
static absl::Status loadEdges(Model &m) {
  m.incident.resize(m.programs.size());
  for (size_t i = 0; i < m.edges.size(); ++i) {
    const hwagent_edge_info_t &e = m.edges[i];
    for (int32_t end : {e.from, e.to})
      if (end < -1 || (end >= 0 && size_t(end) >= m.programs.size()))
        return absl::InvalidArgumentError(
            absl::StrCat("edge ", i, ": names unknown program ", end));
    if (e.bytes < 0 || e.convert_bytes < 0 || e.convert_bytes > e.bytes)
      return absl::InvalidArgumentError(absl::StrCat(
          "edge ", i, ": bytes must be >= 0 and cover the converted bytes"));
    if (e.from >= 0)
      m.incident[e.from].push_back(i);
    if (e.to >= 0 && e.to != e.from)
      m.incident[e.to].push_back(i);
  }
  return absl::OkStatus();
}

/// The regions' learned-cost features: names without holes, finite values.
static absl::Status loadFeatures(const hwagent_model_info_t *info, Model &m) {
  uint32_t n = info->num_features;
  if (n == 0)
    return absl::OkStatus();
  if (!info->feature_names || (info->num_regions && !info->region_features))
    return absl::InvalidArgumentError("model info lists features it lacks");
  for (uint32_t f = 0; f < n; ++f) {
    if (!info->feature_names[f])
      return absl::InvalidArgumentError(
          absl::StrCat("feature ", f, " has no name"));
    m.featureNames.push_back(info->feature_names[f]);
  }
  size_t values = size_t(info->num_regions) * n;
  m.regionFeatures.assign(info->region_features,
                          info->region_features + values);
  for (size_t i = 0; i < values; ++i)
    if (!std::isfinite(m.regionFeatures[i]))
      return absl::InvalidArgumentError(
          absl::StrCat("region ", i / n, ": feature ", m.featureNames[i % n],
                       " is not finite"));
  return absl::OkStatus();
}

absl::StatusOr<Model> loadModel(const hwagent_model_info_t *info) {
  if (!info)
    return absl::InvalidArgumentError("no model");
  if (info->version != HWAGENT_MODEL_INFO_VERSION)
    return absl::InvalidArgumentError(
        absl::StrCat("model info version ", info->version,
                     " is not supported (this runtime reads ",
                     HWAGENT_MODEL_INFO_VERSION, ")"));
  if (info->num_backends != HWAGENT_NUM_BACKENDS)
    return absl::InvalidArgumentError(
        absl::StrCat("model built for ", info->num_backends,
                     " backends, this runtime has ", HWAGENT_NUM_BACKENDS));
  if ((info->num_regions && !info->regions) ||
      (info->num_programs && !info->programs) ||
      (info->num_edges && !info->edges))
    return absl::InvalidArgumentError("model info lists entries it lacks");
  Model m;
  m.target = info->target ? info->target : "unknown";
  m.regions.assign(info->regions, info->regions + info->num_regions);
  m.programs.assign(info->programs, info->programs + info->num_programs);
  m.edges.assign(info->edges, info->edges + info->num_edges);
  // In the order of the struct: a model with several faults is refused for
  // the first.
  if (absl::Status status = loadBackends(info, m); !status.ok())
    return status;
  if (absl::Status status = checkPrograms(m); !status.ok())
    return status;
  if (absl::Status status = loadPower(info, m); !status.ok())
    return status;
  if (absl::Status status = loadClock(info, m); !status.ok())
    return status;
  if (absl::Status status = loadEdges(m); !status.ok())
    return status;
  if (absl::Status status = loadFeatures(info, m); !status.ok())
    return status;
  return m;
}

} // namespace hwagent_rt
