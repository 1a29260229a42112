//===- Passes.h - hwagent passes --------------------------------*- C++ -*-===//

#ifndef HWAGENT_TRANSFORMS_PASSES_H
#define HWAGENT_TRANSFORMS_PASSES_H

#include "HwAgent/IR/HwAgentDialect.h"
#include "hwagent/Analysis/Partitioner.h"
#include "hwagent/Analysis/RegionFormation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::hwagent {

#define GEN_PASS_DECL
#include "HwAgent/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "HwAgent/Transforms/Passes.h.inc"

/// Registers `partition-backends`: form-regions, profile, estimate-costs,
/// assign-backends and insert-transfers with their shared options.
void registerPartitionBackendsPipeline();

} // namespace mlir::hwagent

#endif // HWAGENT_TRANSFORMS_PASSES_H
