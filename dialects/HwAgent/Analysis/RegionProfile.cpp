//===- RegionProfile.cpp - a region's features as the core reads them -----===//

#include "HwAgent/Analysis/RegionProfile.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;

const std::string &TypeNames::operator()(Type type) {
  auto [it, inserted] = names.try_emplace(type);
  if (inserted) {
    llvm::raw_string_ostream os(it->second);
    type.print(os);
  }
  return it->second;
}

cm::RegionProfile hwagent::profileOf(FeaturesAttr features,
                                     TypeNames &typeName) {
  cm::RegionProfile profile;
  profile.flops = features.getFlops();
  profile.bytesRead = features.getBytesRead();
  profile.bytesWritten = features.getBytesWritten();
  profile.params = features.getParams();
  profile.paramBytes = features.getParamBytes();
  for (auto [index, count] : llvm::enumerate(features.getOpHistogram()))
    if (index < cm::kNumWorkKinds)
      profile.opHistogram[index] = count;
  for (Type type : features.getElementTypes())
    profile.elementTypes.push_back(typeName(type));
  profile.dynamicDims = features.getDynamicDims();
  profile.maxDim = features.getMaxDim();
  profile.maxRank = features.getMaxRank();
  profile.rows = features.getRows();
  profile.hasLoops = features.getHasLoops();
  profile.phase = static_cast<cm::Phase>(features.getPhase());
  profile.weightGradient = features.getWeightGradient();
  profile.winogradFlops = features.getWinogradFlops();
  return profile;
}
