//===- Reductions.cpp - reductions that the JIT can vectorize -------------===//
//
// hwagent-reassociate-reductions prepares the reductions that are not
// contractions (BatchNorm's per-channel sums and their gradients, softmax's
// maximum and sum, losses, bias gradients) for LLVM's loop vectorizer.
// convert-linalg-to-(parallel-)loops turns each into a scalar chain
// `acc = acc + x[i]`, which the vectorizer may only split into vector lanes
// when the floating-point add may be reassociated; and the innermost loop of
// an NCHW reduction over (n, h, w) is the width alone, often 8-16 elements,
// which LLVM unrolls fully before it vectorizes. So this pass, on bufferized
// ops after hwagent-order-loops:
//
// - merges the innermost reduction loops that walk every operand
//   contiguously into one loop (h and w of NCHW: one loop of h x w
//   elements; linalg::collapseOpIterationDims with memref.collapse_shape);
// - marks the op that accumulates into the output (arith.addf, mulf,
//   maximumf, minimumf, maxnumf, minnumf applied to the output's block
//   argument and yielded) with `fastmath<reassoc>`, which
//   convert-arith-to-llvm carries onto the LLVM instruction.
//
// Numerics: each output element is still computed by one thread with one
// fixed order for a given CPU (the lanes of the vector width the JIT picks,
// then their sum), so the results do not depend on the thread count and do
// not change between runs; they do differ in the last bits from the
// sequential order (docs/cpu-backend.md, "Reductions").
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_REASSOCIATEREDUCTIONS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {

/// The op of `op`'s body that combines the output's current value with the
/// rest of the body, when it is an associative floating-point op whose
/// result is yielded and the output is read nowhere else; null otherwise.
Operation *accumulator(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 0)
    return nullptr;
  Block *body = op.getBody();
  BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!isa<FloatType>(out.getType()) || !out.hasOneUse())
    return nullptr;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Operation *combine = yield.getValues()[0].getDefiningOp();
  if (!combine || combine != *out.getUsers().begin() ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp>(combine))
    return nullptr;
  return combine;
}

/// Whether the dimensions `first`..`first + count - 1` of `type` can be
/// merged into one without a copy (memref.collapse_shape's own rule).
bool contiguous(MemRefType type, unsigned first, unsigned count) {
  SmallVector<ReassociationIndices> groups;
  for (unsigned d = 0; d < unsigned(type.getRank()); ++d)
    if (d <= first || d >= first + count)
      groups.push_back({int64_t(d)});
    else
      groups.back().push_back(d);
  return memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups);
}

/// The innermost loops of `op` that are all reductions and can become one
/// loop: every operand indexes them as consecutive dimensions of its own,
/// and those dimensions lie contiguously in its memory. Empty when fewer
/// than two.
ReassociationIndices innerReductionGroup(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned numLoops = op.getNumLoops();
  ReassociationIndices best;
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return best;
  for (unsigned first = numLoops; first-- > 0;) {
    if (iterators[first] != utils::IteratorType::reduction)
      break;
    ReassociationIndices group;
    for (unsigned l = first; l < numLoops; ++l)
      group.push_back(l);
    if (group.size() < 2)
      continue;
    if (!linalg::areDimSequencesPreserved(maps, {group}))
      break;
    bool ok = true;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      std::optional<unsigned> at =
          map.getResultPosition(getAffineDimExpr(first, op.getContext()));
      if (!at)
        continue;
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !contiguous(type, *at, group.size())) {
        ok = false;
        break;
      }
    }
    if (!ok)
      break;
    best = group;
  }
  return best;
}

/// Adds `reassoc` to the fast-math flags of `op`.
void markReassoc(Operation *op) {
  auto fastMath = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue();
  op->setAttr(fastMath.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::reassoc));
}

struct ReassociateReductionsPass
    : public hwagent::impl::ReassociateReductionsBase<
          ReassociateReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureBufferSemantics() && op.getNumReductionLoops() > 0 &&
          accumulator(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      ReassociationIndices group = innerReductionGroup(op);
      if (!group.empty() && !op.hasIndexSemantics()) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::CollapseResult> collapsed =
            linalg::collapseOpIterationDims(op, {group}, rewriter);
        if (succeeded(collapsed)) {
          rewriter.eraseOp(op);
          op = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
        }
      }
      markReassoc(accumulator(op));
    }
  }
};

} // namespace
