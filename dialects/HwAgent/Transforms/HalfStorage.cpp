//===- HalfStorage.cpp - the ANE variant: f16 storage, f32 arithmetic -----===//
//
// The ANE computes with an fp16 datapath: what it keeps between ops is f16.
// The simulator's variant of a program keeps that numerics without
// emulating fp16 arithmetic op by op: every floating-point value the
// program stores (its arguments and the results of its ops) is rounded
// through f16, and each op computes in f32 in between (wide accumulation
// inside an op, as the ANE's accumulators are wider than its storage). The
// variant then runs at the speed of the f32 code plus one conversion pass
// per tensor, which the host's F16C/AVX-512 units vectorize. Infinite
// constants (masks) become fp16's largest finite magnitude (finiteInfinities).
//
//===----------------------------------------------------------------------===//

#include "LowerToRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

/// Rounds what an all-parallel linalg.generic stores through f16 inside its
/// payload (one pass over the data instead of three); false when `op` is
/// not such an op. Reductions are left to the tensor-level rounding: their
/// payload yields partial sums, which the ANE accumulates wide.
static bool roundInPayload(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  if (!llvm::any_of(generic->getResultTypes(),
                    [](Type t) { return static_cast<bool>(halfOf(t)); }))
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  OpBuilder b(yield);
  for (auto [index, result] : llvm::enumerate(generic->getResults())) {
    if (!halfOf(result.getType()))
      continue;
    Value value = yield.getOperand(index);
    Location loc = yield.getLoc();
    auto narrow = arith::TruncFOp::create(b, loc, b.getF16Type(), value);
    auto widen =
        arith::ExtFOp::create(b, loc, b.getF32Type(), narrow.getResult());
    yield->setOperand(index, widen);
  }
  return true;
}

/// fp16's largest finite magnitude.
static constexpr double kHalfMax = 65504.0;

/// Writes the infinities `fn`'s f32 constants hold (the -inf of a causal
/// mask's masked_fill, a max's initial value) as fp16's largest finite
/// magnitude, as models written for the ANE spell their masks: softmax and
/// max give the same results (exp(-65504 - m) is 0 in f16 and f32 alike,
/// and no f16 value is below it), and a program's outputs stay finite, so
/// the runtime's check of the ANE's results (ProgramDispatch.cpp,
/// anyNonFinite) keeps meaning overflow instead of re-running every masked
/// attention program on the CPU.
static void finiteInfinities(func::FuncOp fn) {
  auto finite = [](const APFloat &value) {
    return APFloat(value.isNegative() ? -kHalfMax : kHalfMax);
  };
  fn.walk([&](arith::ConstantOp constant) {
    TypedAttr attr = constant.getValueAttr();
    if (auto scalar = dyn_cast<FloatAttr>(attr)) {
      if (scalar.getType().isF32() && scalar.getValue().isInfinity())
        constant.setValueAttr(FloatAttr::get(
            scalar.getType(), finite(scalar.getValue()).convertToDouble()));
      return;
    }
    auto dense = dyn_cast<DenseFPElementsAttr>(attr);
    if (!dense || !dense.isSplat() || !dense.getElementType().isF32())
      return;
    APFloat splat = dense.getSplatValue<APFloat>();
    if (!splat.isInfinity())
      return;
    bool losesInfo = false;
    APFloat value = finite(splat);
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    constant.setValueAttr(DenseElementsAttr::get(dense.getType(), value));
  });
}

void hwagent::storeInHalf(func::FuncOp fn) {
  finiteInfinities(fn);
  // Elementwise ops on tensors become linalg.generic first (as
  // hwagent-lower-to-llvm would make them), so that their rounding goes
  // into their payload.
  {
    RewritePatternSet patterns(fn.getContext());
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    (void)applyPatternsGreedily(fn, std::move(patterns));
  }
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
    if (roundInPayload(op))
      continue;
    b.setInsertionPointAfter(op);
    for (Value result : op->getResults())
      if (Type half = halfOf(result.getType()))
        round(b, result, half, inserted);
  }
}
