//===- RegionFormation.h - cluster ops into hwagent.region ------*- C++ -*-===//
//
// Cuts a function into convex regions around compute anchors, fusing the
// elementwise and data-movement ops around them the way IREE forms dispatch
// regions. The clustering works on the def-use DAG of one block; every merge
// keeps the quotient graph acyclic, which is exactly the condition for every
// region to be convex (no use-def path leaves a region and comes back).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TRANSFORMS_REGIONFORMATION_H
#define HWAGENT_TRANSFORMS_REGIONFORMATION_H

#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <cstdint>
#include <optional>

namespace mlir::hwagent {

class WorkloadProfiler;

enum class Granularity {
  /// One region per op.
  PerOp,
  /// One region per compute anchor with the elementwise/data-movement ops
  /// around it; chains of elementwise ops without an anchor fuse together.
  Fused,
  /// One region per contraction (conv, depthwise, matmul) with everything up
  /// to the next contraction (normalization, activation, pooling).
  PerLayer,
};

/// Every granularity, in the order of the table of their names.
inline constexpr std::array<Granularity, 3> kAllGranularities = {
    Granularity::PerOp, Granularity::Fused, Granularity::PerLayer};
/// "per-op", "fused" or "per-layer", and a line for a command line's help:
/// one table (RegionFormation.cpp) that the options and the parser read.
const char *granularityName(Granularity granularity);
const char *granularityDescription(Granularity granularity);
/// Parses a name of granularityName.
std::optional<Granularity> parseGranularity(StringRef name);

struct RegionFormationOptions {
  Granularity granularity = Granularity::Fused;
  /// Most ops (constants and tensor.empty excluded) in one region; 0 = no cap.
  unsigned maxOpsPerRegion = 0;
};

struct RegionFormationStats {
  unsigned regionsFormed = 0;
  unsigned opsClustered = 0;
};

/// Forms regions in every block of `function` (not inside nested ops: a loop
/// is one region with its body). Existing hwagent.region ops are kept and
/// never merged; new ids continue after the largest existing one.
FailureOr<RegionFormationStats>
formRegions(FunctionOpInterface function, WorkloadProfiler &profiler,
            const RegionFormationOptions &options);

/// Moves the ops of one cluster into a new hwagent.region (id 0) placed at
/// the first of them (RegionBuilder.cpp); external values become operands
/// (cloneable leaves are cloned), values used outside become results.
RegionOp buildRegion(ArrayRef<Operation *> ops);

/// Folds the linalg.generic ops of `function` (FoldConstants.cpp) that compute
/// a small constant (every input a splat constant, a 0-d scalar included, the
/// body scalar arithmetic that folds: torch-mlir's hardswish writes 3 and 6 as
/// i64 scalars converted to f32) into arith.constant, so that no region and no
/// program boundary exists only because of a constant; returns how many.
unsigned foldConstantComputations(FunctionOpInterface function);

} // namespace mlir::hwagent

#endif // HWAGENT_TRANSFORMS_REGIONFORMATION_H
