//===- LearnedFeatures.h - a region's features for learned costs -*- C++
//-*-===//
//
// The numeric feature vector a learned cost model reads: one fixed, named
// list computed from a region's profile (the `#hwagent.features` the cost
// pass prices), the same in the compiler, which emits it into the model
// info, in the runtime, which writes it into the profile database, and in
// the learner (docs/cost-model.md "Learned correction"). Sizes enter as
// log2(1 + x) so that trees split on orders of magnitude. No LLVM, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_LEARNEDFEATURES_H
#define HWAGENT_CORE_LEARNEDFEATURES_H

#include "HwAgent/Core/CostModel.h"

#include <array>

namespace hwcore {

/// flops, winograd share, bytes read/written, params, param bytes,
/// arithmetic intensity, one share per work kind, dynamic dims, max dim,
/// max rank, rows, loops, phase, weight gradient, half precision.
constexpr unsigned kNumLearnedFeatures = 7 + kNumWorkKinds + 8;

using LearnedFeatures = std::array<double, kNumLearnedFeatures>;

/// The names, in the order of the vector ("log2_flops", "share_conv", ...).
const std::array<const char *, kNumLearnedFeatures> &learnedFeatureNames();

/// The vector of `profile` (unsupported ops do not enter: such regions are
/// illegal on the accelerators and priced the same on the CPU).
LearnedFeatures learnedFeatures(const RegionProfile &profile);

/// The name of the extra input every learned model reads after the region's
/// features: log10 of the analytic prediction on the backend, seconds.
constexpr const char *kAnalyticFeatureName = "log10_analytic_seconds";

} // namespace hwcore

#endif // HWAGENT_CORE_LEARNEDFEATURES_H
