//===- RegionProfile.h - a region's features as the core reads them -*- C++
//-*-===//
//
// `#hwagent.features` converted to hwcore's RegionProfile, the one place
// the cost pass (which prices it) and the model table (which emits its
// learned-cost features for the runtime's profile) read it, so that a
// learned model sees the same numbers in training and in use.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_REGIONPROFILE_H
#define HWAGENT_ANALYSIS_REGIONPROFILE_H

#include "HwAgent/Core/CostModel.h"
#include "HwAgent/IR/HwAgentAttrs.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::hwagent {

/// Element type names, printed once per type (printing sets up an AsmState,
/// which costs more than the rest of a region's profile).
class TypeNames {
public:
  const std::string &operator()(Type type);

private:
  llvm::DenseMap<Type, std::string> names;
};

/// The profile of `features`; unsupported ops are left to the caller (they
/// need the region's body).
hwcore::RegionProfile profileOf(FeaturesAttr features, TypeNames &typeName);

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_REGIONPROFILE_H
