//===- OutlineChunks.cpp - long function bodies as calls of short ones ----===//
//
// hwagent-outline-chunks: LLVM's loop passes cost time quadratic in the
// number of loops of one function (IndVarSimplify took 62 % of -O2 on an
// imported 10-step LSTM), so a training step with thousands of small loops
// in one body compiles in minutes. Runs of consecutive top-level ops with at
// most `max-loops` loops each move into private noinline functions, which
// makes start-up linear in the step's size. The outlining itself is
// upstream's: each run is wrapped in an scf.execute_region whose results are
// the values used after it, then outlineSingleBlockRegion turns the region
// into a function and a call.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_OUTLINECHUNKS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {

bool isLoop(Operation *op) {
  return isa<scf::ForOp, scf::ParallelOp, scf::WhileOp>(op) ||
         isa<func::CallOp>(op);
}

/// Loops (and calls) in `op`, itself included: a conditional that holds a
/// program's variants and their transfers counts what it holds.
int64_t loopsIn(Operation *op) {
  int64_t loops = 0;
  op->walk([&](Operation *inner) { loops += isLoop(inner); });
  return loops;
}

/// Runs of the body's ops (terminator excluded), each with at most
/// `maxLoops` loops, nested ones counted (one op holding more makes a run
/// of its own), and `maxOps` ops. Constants stay where they are: they are
/// cloned into every run that reads them.
SmallVector<SmallVector<Operation *>> chunk(Block &body, int64_t maxLoops,
                                            int64_t maxOps) {
  SmallVector<SmallVector<Operation *>> runs(1);
  int64_t loops = 0;
  for (Operation &op : body.without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    int64_t held = loopsIn(&op);
    if (!runs.back().empty() && ((held && loops + held > maxLoops) ||
                                 int64_t(runs.back().size()) >= maxOps)) {
      runs.emplace_back();
      loops = 0;
    }
    runs.back().push_back(&op);
    loops += held;
  }
  return runs;
}

LogicalResult outlineRun(IRRewriter &rewriter, ArrayRef<Operation *> run,
                         StringRef name) {
  llvm::SmallPtrSet<Operation *, 32> inRun(run.begin(), run.end());
  auto inside = [&](Operation *user) {
    for (Operation *op = user; op; op = op->getParentOp())
      if (inRun.contains(op))
        return true;
    return false;
  };
  llvm::SetVector<Value> escaping;
  for (Operation *op : run)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside(user); }))
        escaping.insert(result);

  Location loc = run.front()->getLoc();
  rewriter.setInsertionPoint(run.front());
  auto region = scf::ExecuteRegionOp::create(
      rewriter, loc, ValueRange(escaping.getArrayRef()).getTypes());
  Block *block = rewriter.createBlock(&region.getRegion());
  for (Operation *op : run)
    op->moveBefore(block, block->end());
  rewriter.setInsertionPointToEnd(block);
  scf::YieldOp::create(rewriter, loc, escaping.getArrayRef());
  for (auto [value, result] : llvm::zip(escaping, region.getResults()))
    rewriter.replaceUsesWithIf(value, result, [&](OpOperand &use) {
      return !region->isProperAncestor(use.getOwner());
    });

  // Constants the run reads are cloned in, so the outlined function keeps
  // them as constants (LLVM folds them) instead of taking them as arguments.
  rewriter.setInsertionPointToStart(block);
  IRMapping clones;
  region.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      if (!def || !def->hasTrait<OpTrait::ConstantLike>() ||
          region->isAncestor(def))
        continue;
      if (!clones.contains(def->getResult(0)))
        rewriter.clone(*def, clones);
      operand.set(clones.lookup(operand.get()));
    }
  });

  func::CallOp call;
  FailureOr<func::FuncOp> fn =
      outlineSingleBlockRegion(rewriter, loc, region.getRegion(), name, &call);
  if (failed(fn))
    return failure();
  fn->setPrivate();
  // LLVM would inline a function called once straight back.
  fn->getOperation()->setAttr(
      "passthrough",
      rewriter.getArrayAttr({rewriter.getStringAttr("noinline")}));
  call->moveBefore(region);
  rewriter.replaceOp(region, call.getResults());
  return success();
}

struct OutlineChunksPass
    : public hwagent::impl::OutlineChunksBase<OutlineChunksPass> {
  using OutlineChunksBase::OutlineChunksBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock())
        continue;
      SmallVector<SmallVector<Operation *>> runs =
          chunk(fn.getBody().front(), maxLoops, maxOps);
      if (runs.size() < 2)
        continue;
      for (auto [k, run] : llvm::enumerate(runs)) {
        if (run.empty())
          continue;
        std::string name = (fn.getName() + "_part" + Twine(k)).str();
        unsigned suffix = 0;
        while (symbols.lookup(name))
          name =
              (fn.getName() + "_part" + Twine(k) + "_" + Twine(++suffix)).str();
        if (failed(outlineRun(rewriter, run, name))) {
          fn.emitOpError("hwagent-outline-chunks: cannot outline ops ")
              << k << " of the body";
          return signalPassFailure();
        }
        symbols.insert(module.lookupSymbol(name));
      }
    }
  }
};

} // namespace
