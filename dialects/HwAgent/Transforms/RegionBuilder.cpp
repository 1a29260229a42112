//===- RegionBuilder.cpp - one cluster of ops as an hwagent.region --------===//

#include "HwAgent/Transforms/RegionFormation.h"

#include "HwAgent/Analysis/WorkloadProfile.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::hwagent;

/// Moves the ops of one cluster into a new hwagent.region placed at the first
/// of them; external values become operands (cloneable leaves are cloned),
/// values used outside become results.
RegionOp hwagent::buildRegion(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Operation *> memberSet(ops.begin(), ops.end());
  Block *block = ops.front()->getBlock();

  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *ancestor = block->findAncestorOpInBlock(*user);
            return !ancestor || !memberSet.contains(ancestor);
          }))
        outputs.push_back(result);

  // Name the region after its heaviest op for diagnostics.
  Location loc = ops.front()->getLoc();
  OpBuilder builder(ops.front());
  auto region = RegionOp::create(builder, loc, /*id=*/0,
                                 ValueRange(outputs).getTypes(), ValueRange{});
  Block &body = region.getBodyBlock();
  for (Operation *op : ops)
    op->moveBefore(&body, body.end());
  builder.setInsertionPointToEnd(&body);
  YieldOp::create(builder, loc, outputs);
  for (auto [output, result] : llvm::zip(outputs, region.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !region->isAncestor(use.getOwner());
    });

  // Rewire every use of a value from outside the region.
  llvm::DenseMap<Value, Value> mapped;
  SmallVector<OpOperand *> externalUses;
  SmallVector<Value> inputs;
  bool clonesRead = false;
  auto collect = [&](Operation *root) {
    root->walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        Region *defRegion = operand.get().getParentRegion();
        if (!defRegion || !region->isAncestor(defRegion->getParentOp()))
          externalUses.push_back(&operand);
      }
    });
  };
  for (Operation &op : body)
    collect(&op);
  for (size_t next = 0; next < externalUses.size(); ++next) {
    OpOperand *use = externalUses[next];
    Value value = use->get();
    if (auto it = mapped.find(value); it != mapped.end()) {
      use->set(it->second);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def && isCloneableLeaf(def)) {
      builder.setInsertionPointToStart(&body);
      Operation *clone = builder.clone(*def);
      // Clones go to the top, newest first: one that reads anything (a fill
      // of a cloned tensor.empty, a dynamic size) may need reordering.
      clonesRead |= clone->getNumOperands() > 0;
      // A leaf sized by a value this region computes (tensor.empty(%d) with
      // %d = tensor.dim inside) reads it from inside, not from the region's
      // own result.
      for (OpOperand &operand : clone->getOpOperands())
        if (auto result = dyn_cast<OpResult>(operand.get());
            result && result.getOwner() == region.getOperation())
          operand.set(region.getYield().getValues()[result.getResultNumber()]);
      for (auto [original, copy] :
           llvm::zip(def->getResults(), clone->getResults()))
        mapped[original] = copy;
      collect(clone);
      use->set(mapped[value]);
      continue;
    }
    inputs.push_back(value);
    BlockArgument arg = body.addArgument(value.getType(), value.getLoc());
    mapped[value] = arg;
    use->set(arg);
  }
  region->setOperands(inputs);
  if (clonesRead)
    (void)sortTopologically(&body);
  return region;
}
