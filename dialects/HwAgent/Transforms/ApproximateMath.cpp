//===- ApproximateMath.cpp - math functions without an LLVM lowering ------===//
//
// hwagent-approximate-math: math.erf and math.erfc, which LLVM has no
// instruction for, become MLIR's polynomial approximations (f16/bf16 widened
// to f32 around them), so the CPU code path compiles GELU without calling
// libm (docs/importer.md, "Numerics").
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {

/// The ops approximated (the predicate gets full operation names): those
/// convert-math-to-llvm leaves unconverted.
bool approximated(StringRef name) {
  return name == math::ErfOp::getOperationName() ||
         name == math::ErfcOp::getOperationName();
}

struct ApproximateMathPass
    : public hwagent::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
