//===- Options.cpp - checking session options -----------------------------===//

#include "Session.h"

#include "HwAgent/Core/Limits.h"

#include "absl/strings/str_cat.h"

#include <cmath>

namespace hwagent_rt {

using hwcore::kMaxCpuThreads;

absl::Status validateOptions(const hwagent_options_t &o) {
  // Numeric options out of range are refused, not clamped.
  auto bad = [](const char *name, double value, const char *what) {
    return absl::InvalidArgumentError(
        absl::StrCat("option ", name, " must be ", what, ", got ", value));
  };
  if (!(std::isfinite(o.sim_noise) && o.sim_noise >= 0))
    return bad("sim_noise", o.sim_noise, "finite and >= 0");
  if (o.explore_every < 0)
    return bad("explore_every", o.explore_every, ">= 0");
  if (!(std::isfinite(o.explore_budget) && o.explore_budget >= 0 &&
        o.explore_budget <= 1))
    return bad("explore_budget", o.explore_budget, "in [0, 1]");
  if (!(std::isfinite(o.horizon) && o.horizon >= 0))
    return bad("horizon", o.horizon, "finite and >= 0");
  if (o.cpu_threads < 0 || o.cpu_threads > kMaxCpuThreads)
    return bad("cpu_threads", o.cpu_threads,
               absl::StrCat("in [0, ", kMaxCpuThreads, "]").c_str());
  if (o.fault_program < -1)
    return bad("fault_program", double(o.fault_program),
               "-1 (none) or a program");
  if (o.fault_step < -1)
    return bad("fault_step", double(o.fault_step), "-1 (every step) or a step");
  if (o.objective < -1 || o.objective >= HWAGENT_NUM_OBJECTIVES)
    return bad("objective", o.objective, "-1 (the model's) or an objective");
  if (o.power_cap != -1 && !hwcore::physicalEnergy(o.power_cap))
    return bad("power_cap", o.power_cap,
               "watts in [0, 1e6] (0: none) or -1 (the model's)");
  if (o.force_backend < -1 || o.force_backend >= kNumBackends)
    return bad("force_backend", o.force_backend, "-1 or a backend");
  return absl::OkStatus();
}

} // namespace hwagent_rt
