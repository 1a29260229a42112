//===- FeatureModels.h - feature hooks for ops we do not own ----*- C++ -*-===//
//
// External models of hwagent::FeatureOpInterface for the linalg, tosa, tensor,
// memref, bufferization, arith, math, scf and cf dialects (the CIRCT
// RuntimeCostEstimateInterfaceImpl pattern). Counting conventions:
// docs/features.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_FEATUREMODELS_H
#define HWAGENT_ANALYSIS_FEATUREMODELS_H

#include "mlir/IR/Types.h"

#include <cstdint>

namespace mlir {
class DialectRegistry;
class Operation;
class Region;
} // namespace mlir

namespace mlir::hwagent {

/// Attaches FeatureOpInterface to the ops of every dialect hwagent profiles.
void registerFeatureExternalModels(DialectRegistry &registry);

/// int64 arithmetic that saturates at INT64_MAX instead of overflowing:
/// shapes of 2^31 and beyond are valid IR, and a wrapped product would price
/// the largest regions as free. Inputs are non-negative counts.
int64_t saturatingMul(int64_t a, int64_t b);
int64_t saturatingAdd(int64_t a, int64_t b);

/// Elements of `type`: the product of the static extents of a shaped type,
/// each dynamic extent counted as 1 (so a lower bound); 1 for scalars.
int64_t countElements(Type type);

/// Bytes of `type` (elements times the element width rounded up to bytes).
int64_t countBytes(Type type);

/// `flops` when `op` (a convolution of `flops` FLOPs) has a 3x3 window,
/// unit strides and dilations and more than one input channel: what
/// Winograd's minimal filtering F(2x2,3x3) runs with fewer multiplies (the
/// convolution libraries of GPUs pick it for these); 0 otherwise.
int64_t winogradEligibleFlops(Operation *op, int64_t flops);

/// Arithmetic operations in one execution of a payload region (a linalg body):
/// each arith/math op counts 1, constants and casts count 0.
int64_t countPayloadFlops(Region &payload);

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_FEATUREMODELS_H
