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
// hwagent-merge-parallel-loops, its sibling, merges the innermost parallel
// loops of elementwise ops, copies and fills the same way (NCHW's h and w:
// BatchNorm, ReLU6, residual adds, their gradients, the zeros a contraction
// accumulates into), never the outermost loop, which the threads share.
// The ops of each element do not change: results are bit-identical.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_MERGEPARALLELLOOPS
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

/// The static trip count of loops `group` of `op` (nothing if one is
/// dynamic).
std::optional<int64_t> groupTrips(linalg::LinalgOp op,
                                  ArrayRef<int64_t> group) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t trips = 1;
  for (int64_t l : group) {
    if (ShapedType::isDynamic(ranges[l]))
      return std::nullopt;
    trips *= ranges[l];
  }
  return trips;
}

/// The innermost loops of `op` that are all of kind `kind` and can become
/// one loop: every operand indexes them as consecutive dimensions of its
/// own, and those dimensions lie contiguously in its memory. Grown from the
/// innermost loop outwards, down to loop `lowest` at most and no further
/// once the group has `enough` iterations (0: no limit). Empty when fewer
/// than two.
ReassociationIndices innerGroup(linalg::LinalgOp op, utils::IteratorType kind,
                                unsigned lowest, int64_t enough) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned numLoops = op.getNumLoops();
  ReassociationIndices best;
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return best;
  for (unsigned first = numLoops; first-- > lowest;) {
    if (iterators[first] != kind)
      break;
    if (enough > 0 && best.size() >= 2) {
      std::optional<int64_t> trips = groupTrips(op, best);
      if (!trips || *trips >= enough)
        break;
    }
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

/// Merges loops `group` of `op` (a linalg.generic, copy or fill; a fill
/// becomes a generic) into one (memref.collapse_shape of the operands);
/// returns the new op, or `op` where it cannot.
linalg::LinalgOp mergeLoops(linalg::LinalgOp op,
                            const ReassociationIndices &group,
                            RewriterBase &rewriter) {
  if (group.empty() || op.hasIndexSemantics())
    return op;
  rewriter.setInsertionPoint(op);
  if (!isa<linalg::GenericOp, linalg::CopyOp>(op.getOperation())) {
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return op;
    op = *generic;
  }
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, {group}, rewriter);
  if (failed(collapsed))
    return op;
  rewriter.eraseOp(op);
  return collapsed->collapsedOp;
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
      linalg::LinalgOp merged = mergeLoops(
          op, innerGroup(op, utils::IteratorType::reduction, 0, 0), rewriter);
      markReassoc(accumulator(cast<linalg::GenericOp>(merged.getOperation())));
    }
  }
};

struct MergeParallelLoopsPass
    : public hwagent::impl::MergeParallelLoopsBase<MergeParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::GenericOp, linalg::CopyOp, linalg::FillOp>(
              op.getOperation()) &&
          op.hasPureBufferSemantics() && op.getNumLoops() > 2)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // Loop 0 stays as it is: the outermost parallel loop, which
    // hwagent-outline-parallel-loops hands to the threads.
    for (linalg::LinalgOp op : ops)
      (void)mergeLoops(
          op, innerGroup(op, utils::IteratorType::parallel, 1, innerTrips),
          rewriter);
  }
};

} // namespace
