//===- Options.cpp - checking session options -----------------------------===//

#include "Session.h"

#include "absl/strings/str_cat.h"

#include <cmath>

namespace hwagent_rt {

/// More threads than this per loop only oversubscribes (issue 38: 2^31-1
/// was accepted and ran 1,650 threads per loop on 2 cores).
constexpr int32_t kMaxCpuThreads = 1024;

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
  if (!(std::isfinite(o.power_cap) &&
        ((o.power_cap >= 0 && o.power_cap <= 1e6) || o.power_cap == -1)))
    return bad("power_cap", o.power_cap,
               "finite watts >= 0 (0: none) or -1 (the model's)");
  if (o.force_backend < -1 || o.force_backend >= kNumBackends)
    return bad("force_backend", o.force_backend, "-1 or a backend");
  return absl::OkStatus();
}

} // namespace hwagent_rt
