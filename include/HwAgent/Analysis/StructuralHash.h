//===- StructuralHash.h - stable keys for regions ---------------*- C++ -*-===//

#ifndef HWAGENT_ANALYSIS_STRUCTURALHASH_H
#define HWAGENT_ANALYSIS_STRUCTURALHASH_H

#include "HwAgent/IR/HwAgentOps.h"

#include <string>

namespace mlir::hwagent {

/// A 16-hex-digit key of what `region` computes: its body's ops, attributes,
/// types and use-def structure, with values numbered by position. The same
/// region gets the same key across runs, SSA renamings, locations, region
/// ids and its own features/costs/backend attributes; any change to what it
/// computes changes the key. Measured profiles are keyed by it.
std::string getStructuralHash(RegionOp region);

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_STRUCTURALHASH_H
