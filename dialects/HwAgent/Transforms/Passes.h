//===- Passes.h - hwagent passes --------------------------------*- C++ -*-===//

#ifndef HWAGENT_TRANSFORMS_PASSES_H
#define HWAGENT_TRANSFORMS_PASSES_H

#include "HwAgent/IR/HwAgentDialect.h"
#include "hwagent/Analysis/RegionFormation.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::hwagent {

#define GEN_PASS_DECL
#include "HwAgent/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "HwAgent/Transforms/Passes.h.inc"

} // namespace mlir::hwagent

#endif // HWAGENT_TRANSFORMS_PASSES_H
