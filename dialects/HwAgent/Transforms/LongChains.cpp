//===- LongChains.cpp - keep the lowering linear on long op chains --------===//
//
// hwagent-fresh-outputs: a linalg op whose payload never reads an output's
// block argument and whose loops are all parallel overwrites that output
// entirely, so the init tensor only names a buffer to write into. Replacing
// it by a tensor.empty of the op's own (also when the init is one empty that
// several ops share, as CSE leaves them) keeps one-shot bufferization from
// weighing in-place writes into values other ops still read, which is what
// makes it quadratic on long elementwise chains.
//
// hwagent-split-long-blocks: SCF-to-CF splits a block at every loop it
// lowers, moving the rest of the block each time: quadratic in the length
// of a straight-line block. Cutting long blocks into a chain of short ones
// (unconditional branches; every value still dominates its uses) first
// makes that linear. docs/building.md has the benchmark.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_FRESHOUTPUTS
#define GEN_PASS_DEF_SPLITLONGBLOCKS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {
struct FreshOutputsPass : hwagent::impl::FreshOutputsBase<FreshOutputsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          op.getNumParallelLoops() == op.getNumLoops())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      for (OpOperand &init : op.getDpsInitsMutable()) {
        Value value = init.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        // An empty of this op's own is what it should have; one empty
        // shared by several ops (what CSE makes of per-op empties) sends
        // one-shot bufferization into quadratic conflict analysis, so
        // each op gets a fresh one.
        auto empty = value.getDefiningOp<tensor::EmptyOp>();
        if (!type || op.payloadUsesValueFromOperand(&init) ||
            (empty && value.hasOneUse()))
          continue;
        OpBuilder b(op);
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(b, op.getLoc(), value);
        init.set(tensor::EmptyOp::create(b, op.getLoc(), sizes,
                                         type.getElementType()));
      }
    }
  }
};

struct SplitLongBlocksPass
    : hwagent::impl::SplitLongBlocksBase<SplitLongBlocksPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal() || maxOps < 2)
      return;
    // Only the function's own blocks: nested regions (loop bodies) may
    // have to stay single-block.
    SmallVector<Block *> blocks;
    for (Block &block : fn.getBody())
      blocks.push_back(&block);
    for (Block *block : blocks) {
      while (static_cast<int64_t>(block->getOperations().size()) > maxOps) {
        // Split after maxOps - 1 ops (the branch takes the last slot).
        Operation *at = &*std::next(block->begin(), maxOps - 1);
        Block *rest = block->splitBlock(at);
        OpBuilder b = OpBuilder::atBlockEnd(block);
        cf::BranchOp::create(b, at->getLoc(), rest);
        block = rest;
      }
    }
  }
};

} // namespace
