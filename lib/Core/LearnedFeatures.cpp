//===- LearnedFeatures.cpp - a region's features for learned costs --------===//

#include "HwAgent/Core/LearnedFeatures.h"

#include <cmath>

using namespace hwcore;

static double log2p1(int64_t x) {
  return std::log2(1.0 + static_cast<double>(x > 0 ? x : 0));
}

const std::array<const char *, kNumLearnedFeatures> &
hwcore::learnedFeatureNames() {
  static const std::array<const char *, kNumLearnedFeatures> names = [] {
    static const char *const kinds[kNumWorkKinds] = {
        "share_conv",        "share_depthwise",     "share_matmul",
        "share_elementwise", "share_reduction",     "share_normalization",
        "share_pooling",     "share_data_movement", "share_control_flow",
        "share_opaque"};
    std::array<const char *, kNumLearnedFeatures> all{};
    const char *head[] = {"log2_flops",         "winograd_share",
                          "log2_bytes_read",    "log2_bytes_written",
                          "log2_params",        "log2_param_bytes",
                          "log2_flops_per_byte"};
    const char *tail[] = {"dynamic_dims",    "log2_max_dim",  "max_rank",
                          "log2_rows",       "has_loops",     "phase",
                          "weight_gradient", "half_precision"};
    unsigned i = 0;
    for (const char *name : head)
      all[i++] = name;
    for (const char *name : kinds)
      all[i++] = name;
    for (const char *name : tail)
      all[i++] = name;
    return all;
  }();
  return names;
}

LearnedFeatures hwcore::learnedFeatures(const RegionProfile &p) {
  LearnedFeatures f{};
  unsigned i = 0;
  double flops = static_cast<double>(p.flops > 0 ? p.flops : 0);
  f[i++] = log2p1(p.flops);
  f[i++] = flops > 0 ? static_cast<double>(p.winogradFlops) / flops : 0;
  f[i++] = log2p1(p.bytesRead);
  f[i++] = log2p1(p.bytesWritten);
  f[i++] = log2p1(p.params);
  f[i++] = log2p1(p.paramBytes);
  f[i++] = std::log2((1.0 + flops) / (1.0 + static_cast<double>(p.bytes())));
  int64_t ops = 0;
  for (int64_t count : p.opHistogram)
    ops += count;
  for (int64_t count : p.opHistogram)
    f[i++] = ops > 0 ? static_cast<double>(count) / ops : 0;
  f[i++] = static_cast<double>(p.dynamicDims);
  f[i++] = log2p1(p.maxDim);
  f[i++] = static_cast<double>(p.maxRank);
  f[i++] = log2p1(p.rows);
  f[i++] = p.hasLoops ? 1 : 0;
  f[i++] = static_cast<double>(static_cast<unsigned>(p.phase));
  bool half = false;
  for (const std::string &type : p.elementTypes)
    half |= type == "f16" || type == "bf16";
  f[i++] = p.weightGradient ? 1 : 0;
  f[i++] = half ? 1 : 0;
  return f;
}
