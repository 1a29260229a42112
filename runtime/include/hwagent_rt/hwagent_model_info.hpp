/*===- hwagent_model_info.hpp - an owning hwagent_model_info_t ---*- C++ -*-===*
 *
 * C++ only, header-only: the arrays and values behind a
 * hwagent_model_info_t, and the view of them the C ABI takes. The one owning
 * model: the compiler's model table (dialects/HwAgent/Analysis/ModelTable.h)
 *and the runtime's validated copy (runtime/src/Model.h) extend it, tests build
 *it (test/unittests/ModelBuilder.h). Generated code does not use it: it emits
 * the structs as constants.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_MODEL_INFO_HPP
#define HWAGENT_RT_HWAGENT_MODEL_INFO_HPP

#include "hwagent_rt/hwagent_abi.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwagent_rt {

struct OwnedModelInfo {
  std::string target = "unknown";
  std::vector<hwagent_region_info_t> regions;
  std::vector<hwagent_program_info_t> programs;
  std::vector<hwagent_edge_info_t> edges;
  /// links[from][to]; the diagonal is unused.
  hwagent_link_info_t links[HWAGENT_NUM_BACKENDS][HWAGENT_NUM_BACKENDS] = {};
  double compile[HWAGENT_NUM_BACKENDS] = {};
  double compilePerByte[HWAGENT_NUM_BACKENDS] = {};
  int64_t maxCompiles[HWAGENT_NUM_BACKENDS] = {};
  hwagent_power_info_t power = {};
  /// How each backend's clock scales under a cap (all zero: none scales).
  hwagent_clock_info_t clock = {};
  /// A hwagent_objective_t and the power cap (0: none).
  int32_t objective = HWAGENT_OBJECTIVE_TIME;
  double powerCap = 0;
  /// The learned-cost feature names and regions.size() x names values,
  /// row-major (empty: none).
  std::vector<std::string> featureNames;
  std::vector<double> regionFeatures;

  /// A view for hwagent_session_create (valid while this lives and its
  /// vectors do not change); no functions.
  hwagent_model_info_t info() const {
    hwagent_model_info_t info = {};
    info.version = HWAGENT_MODEL_INFO_VERSION;
    info.num_backends = HWAGENT_NUM_BACKENDS;
    info.num_regions = static_cast<uint32_t>(regions.size());
    info.num_programs = static_cast<uint32_t>(programs.size());
    info.num_edges = static_cast<uint32_t>(edges.size());
    info.target = target.c_str();
    info.regions = regions.data();
    info.programs = programs.data();
    info.edges = edges.data();
    for (int a = 0; a < HWAGENT_NUM_BACKENDS; ++a) {
      info.compile[a] = compile[a];
      info.compile_per_byte[a] = compilePerByte[a];
      info.max_compiles[a] = maxCompiles[a];
      for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
        info.links[a][b] = links[a][b];
    }
    info.power = power;
    info.clock = clock;
    info.objective = objective;
    info.power_cap = powerCap;
    featureNameViews.clear();
    for (const std::string &name : featureNames)
      featureNameViews.push_back(name.c_str());
    info.num_features = static_cast<uint32_t>(featureNames.size());
    info.feature_names = featureNameViews.data();
    info.region_features = regionFeatures.data();
    return info;
  }

  /// The C strings info() points feature_names at (rebuilt by each call).
  mutable std::vector<const char *> featureNameViews;
};

} // namespace hwagent_rt

#endif // HWAGENT_RT_HWAGENT_MODEL_INFO_HPP
