//===- HalfStorage.cpp - the ANE variant: f16 storage, f32 arithmetic -----===//
//
// The ANE computes with an fp16 datapath: what it keeps between ops is f16.
// The simulator's variant of a program keeps that numerics without
// emulating fp16 arithmetic op by op: every floating-point value the
// program stores (its arguments and the results of its ops) is rounded
// through f16, and each op computes in f32 in between (wide accumulation
// inside an op, as the ANE's accumulators are wider than its storage). The
// variant then runs at the speed of the f32 code plus one conversion pass
// per tensor, which the host's F16C/AVX-512 units vectorize.
//
//===----------------------------------------------------------------------===//

#include "LowerToRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::hwagent;

/// `type` with its f32 elements as f16, or null when it holds no f32.
static Type halfOf(Type type) {
  MLIRContext *ctx = type.getContext();
  if (type.isF32())
    return Float16Type::get(ctx);
  if (auto tensor = dyn_cast<RankedTensorType>(type);
      tensor && tensor.getElementType().isF32())
    return tensor.clone(Float16Type::get(ctx));
  return {};
}

/// Replaces the uses of `value` (except in `keep`) by `value` rounded
/// through f16.
static void round(OpBuilder &b, Value value, Type half,
                  llvm::SmallPtrSetImpl<Operation *> &inserted) {
  Location loc = value.getLoc();
  auto narrow = arith::TruncFOp::create(b, loc, half, value);
  auto widen =
      arith::ExtFOp::create(b, loc, value.getType(), narrow.getResult());
  inserted.insert(narrow);
  inserted.insert(widen);
  value.replaceAllUsesExcept(widen, narrow.getOperation());
}

void hwagent::storeInHalf(func::FuncOp fn) {
  llvm::SmallPtrSet<Operation *, 32> inserted;
  Block &entry = fn.getBody().front();
  OpBuilder b(&entry, entry.begin());
  for (BlockArgument arg : entry.getArguments())
    if (Type half = halfOf(arg.getType()))
      round(b, arg, half, inserted);
  // The arguments' uses now go through the round trip just inserted.
  SmallVector<Operation *> ops;
  fn.getBody().walk([&](Operation *op) {
    // Values inside a linalg body are scalars of one op's arithmetic, not
    // stored data.
    if (op->getParentOfType<linalg::LinalgOp>() ||
        isa<linalg::LinalgOp>(op->getParentOp()))
      return;
    if (inserted.contains(op) || isa<tensor::EmptyOp>(op) ||
        op->getNumResults() == 0)
      return;
    // Values widened from f16 are exact in f16 already.
    if (auto extend = dyn_cast<arith::ExtFOp>(op);
        extend && getElementTypeOrSelf(extend.getIn().getType()).isF16())
      return;
    ops.push_back(op);
  });
  for (Operation *op : ops) {
    b.setInsertionPointAfter(op);
    for (Value result : op->getResults())
      if (Type half = halfOf(result.getType()))
        round(b, result, half, inserted);
  }
}
