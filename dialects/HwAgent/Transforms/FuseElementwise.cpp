//===- FuseElementwise.cpp - elementwise chains as one loop nest ----------===//
//
// hwagent-fuse-elementwise: linalg's producer-consumer fusion of elementwise
// generics on tensors, limited to what keeps the rest of the lowering's
// decisions: the consumer is elementwise too (an elementwise producer fused
// into a contraction would hide the contraction from
// hwagent-linalg-to-kernels), and the producer's value has no other use (a
// value the backward pass reads again would be computed twice). A chain of
// elementwise ops then reads its inputs and writes its result once instead
// of writing and re-reading a buffer per op. A fused body is capped at
// kMaxFusedOps so that fusing a long chain stays linear.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {

/// Ops a fused body may hold: enough for a chain to stop being bound by
/// memory, small enough that fusing a chain of N ops costs O(N) (each
/// fusion clones both bodies; unbounded, a 2000-op chain went quadratic).
constexpr size_t kMaxFusedOps = 64;

size_t bodyOps(Operation *op) {
  return cast<linalg::GenericOp>(op).getBody()->getOperations().size();
}

bool allParallel(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

struct FuseElementwisePass
    : public hwagent::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          return fused->get().hasOneUse() && allParallel(producer) &&
                 allParallel(fused->getOwner()) &&
                 isa<linalg::GenericOp>(producer) &&
                 isa<linalg::GenericOp>(fused->getOwner()) &&
                 bodyOps(producer) + bodyOps(fused->getOwner()) <= kMaxFusedOps;
        });
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
