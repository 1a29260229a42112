//===- Utils.h - small IR helpers shared by hwagent analyses ----*- C++ -*-===//

#ifndef HWAGENT_ANALYSIS_UTILS_H
#define HWAGENT_ANALYSIS_UTILS_H

#include "mlir/IR/Operation.h"

namespace mlir::hwagent {

/// Calls `fn` on every value `op` reads: its operands and the values its
/// nested bodies capture from above (a linalg body using a scalar defined
/// outside, say).
void forEachInput(Operation *op, function_ref<void(Value)> fn);

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_UTILS_H
