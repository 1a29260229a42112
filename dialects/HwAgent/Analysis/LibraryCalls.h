//===- LibraryCalls.h - the work of opaque library calls --------*- C++ -*-===//

#ifndef HWAGENT_ANALYSIS_LIBRARYCALLS_H
#define HWAGENT_ANALYSIS_LIBRARYCALLS_H

#include "HwAgent/Analysis/WorkloadProfile.h"

#include <optional>

namespace mlir::hwagent::detail {

/// The work of a library call the profiler cannot look into (its callee's
/// name and operand shapes), nullopt when `op` is none it knows.
std::optional<OpWork> estimateLibraryCall(Operation *op);

} // namespace mlir::hwagent::detail

#endif // HWAGENT_ANALYSIS_LIBRARYCALLS_H
