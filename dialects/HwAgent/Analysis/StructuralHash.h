//===- StructuralHash.h - stable keys for regions ---------------*- C++ -*-===//

#ifndef HWAGENT_ANALYSIS_STRUCTURALHASH_H
#define HWAGENT_ANALYSIS_STRUCTURALHASH_H

#include "HwAgent/IR/HwAgentOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"

#include <string>

namespace mlir::hwagent {

/// A 16-hex-digit key of what `region` computes: its body's ops, attributes,
/// types and use-def structure, with values numbered by position. The same
/// region gets the same key across runs, SSA renamings, locations, region
/// ids and its own features/costs/backend attributes; any change to what it
/// computes changes the key. Measured profiles are keyed by it.
std::string getStructuralHash(RegionOp region);

/// The same keys for many regions: remembers the text of every type and
/// attribute dictionary it printed (most regions of a graph share a few),
/// which makes keying a 100k-op graph several times faster. Ops it has seen
/// stand for their properties: it lives no longer than the IR it hashed,
/// and that IR's ops keep their attributes while it lives.
class StructuralHasher {
public:
  std::string operator()(RegionOp region);

private:
  friend class CanonicalPrinter;
  llvm::DenseMap<Type, std::string> types;
  llvm::DenseMap<Attribute, std::string> attributes;
  llvm::DenseMap<size_t,
                 llvm::SmallVector<std::pair<Operation *, std::string>, 1>>
      propertyTexts;
  llvm::SmallString<0> text;
};

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_STRUCTURALHASH_H
