//===- Profile.cpp - the measured profile written for the compiler --------===//
//
// Schema `hwagent.profile-db`, version 2 (docs/cost-model.md), keyed by the
// regions' structural hashes; each entry carries the compiler's prediction
// and the region's learned-cost features, which hwagent-learn trains on. The
// runtime measures programs; each region of a program gets its prediction
// scaled by the program's measured/predicted ratio on that backend (the profile
// apportions a program's time to its regions the way the compiler predicted it
// split).
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "absl/strings/str_format.h"

namespace hwagent_rt {

/// Region `r`'s learned-cost features by name (empty when the compiler
/// emitted none).
static Json regionFeatures(const Model &model, uint32_t r) {
  Json features = Json::object();
  size_t n = model.featureNames.size();
  for (size_t f = 0; f < n; ++f)
    features[model.featureNames[f]] = model.regionFeatures[r * n + f];
  return features;
}

absl::Status Session::writeProfile() {
  if (!options.profile_out)
    return absl::OkStatus();
  Json entries = Json::array();
  for (size_t p = 0; p < model.programs.size(); ++p) {
    const hwagent_program_info_t &program = model.programs[p];
    for (int b = 0; b < kNumBackends; ++b) {
      int64_t n = states[p].executions[b].load();
      if (n == 0 || program.predicted[b] <= 0)
        continue;
      double measured = states[p].nanos[b].load() * 1e-9 / double(n);
      double ratio = measured / program.predicted[b];
      bool simulated = b != HWAGENT_BACKEND_CPU || options.simulate_cpu;
      for (uint32_t r = program.first_region;
           r < program.first_region + program.num_regions; ++r) {
        const hwagent_region_info_t &region = model.regions[r];
        if (region.predicted[b] <= 0)
          continue;
        entries.push_back({{"key", absl::StrFormat("%016x", region.key)},
                           {"backend", hwagent_backend_name(b)},
                           {"seconds", region.predicted[b] * ratio},
                           {"samples", n},
                           {"simulated", simulated},
                           {"predicted", region.predicted[b]},
                           {"features", regionFeatures(model, r)}});
      }
    }
  }
  Json document = {{"schema", "hwagent.profile-db"},
                   {"version", 2},
                   {"target", model.target},
                   {"entries", entries}};
  return writeFileAtomically(options.profile_out, document.dump(2) + "\n");
}

} // namespace hwagent_rt
