//===- LibraryCallsNorm.cpp - ByteIR library calls: batch normalization
//(trai===//
//
// Part of hwagent-lower-library-calls (LowerLibraryCalls.cpp has the
// callee conventions).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include <limits>

namespace mlir::hwagent::libcall {

//===----------------------------------------------------------------------===//
// Batch normalization
//===----------------------------------------------------------------------===//

/// Per-feature reductions of an input with its feature dimension.
struct Features {
  unsigned rank = 0;
  int64_t feature = 0, channels = 0, count = 0;
  AffineMap all, channel;
};

static FailureOr<Features> readFeatures(Emitter &e, const Call &call) {
  Features f;
  ArrayRef<int64_t> x = shapeOf(call.input(0));
  FailureOr<int64_t> index = call.integer("feature_index", 1);
  if (failed(index))
    return failure();
  f.rank = x.size();
  f.feature = *index;
  if (f.feature < 0 || f.feature >= int64_t(f.rank)) {
    call.error() << "feature_index " << f.feature << " is outside the input's "
                 << f.rank << " dimensions";
    return failure();
  }
  f.channels = x[f.feature];
  f.count = f.channels ? product(x) / f.channels : 0;
  for (unsigned i = 1; i < call.numInputs; ++i) {
    ArrayRef<int64_t> v = shapeOf(call.input(i));
    if (i != 2 || call.base != "BatchNormGradOp")
      if (v.size() != 1 || v[0] != f.channels) {
        call.error() << "input #" << i << " must have the " << f.channels
                     << " features of dimension " << f.feature
                     << " of the input";
        return failure();
      }
  }
  if (f.count == 0) {
    call.error() << "the input has no element per feature";
    return failure();
  }
  f.all = e.identity(f.rank);
  f.channel = e.map(f.rank, {e.dim(f.feature)});
  return f;
}

static SmallVector<IteratorType> featureIterators(const Features &f) {
  SmallVector<IteratorType> its(f.rank, IteratorType::reduction);
  its[f.feature] = IteratorType::parallel;
  return its;
}

/// Sums over tens of thousands of elements per feature (ResNet's first
/// layer: 50176) lose digits in a sequential f32 sum; cuDNN sums in a tree.
/// The statistics accumulate in f64 instead.
static Type accumulatorType(MLIRContext *ctx) { return Float64Type::get(ctx); }

/// `v` (a [C] accumulator) times `factor`, in `t`.
static Value scaled(Emitter &e, Value v, double factor, Type t) {
  Type a = elementOf(v);
  Value k = e.scalar(a, factor);
  AffineMap vector = e.identity(1);
  return e.generic(Emitter::iterators(1, 0), {{v, vector}},
                   {{e.empty(shapeOf(v), t), vector}},
                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                     Value r = arith::MulFOp::create(nb, nl, args[0], k);
                     linalg::YieldOp::create(nb, nl, castFloat(nb, nl, r, t));
                   })[0];
}

/// The batch mean and (biased) variance of `x` per feature, in `x`'s type:
/// two passes (the second over the centred values), accumulated in f64.
static std::pair<Value, Value> moments(Emitter &e, const Features &f, Value x) {
  Type t = elementOf(x);
  Type a = accumulatorType(e.ctx);
  double inverse = 1.0 / double(f.count);
  Value sum = e.generic(
      featureIterators(f), {{x, f.all}},
      {{e.fill({f.channels}, a, 0.0), f.channel}},
      [&](OpBuilder &nb, Location nl, ValueRange v) {
        Value wide = castFloat(nb, nl, v[0], a);
        linalg::YieldOp::create(
            nb, nl, arith::AddFOp::create(nb, nl, v[1], wide).getResult());
      })[0];
  Value mean = scaled(e, sum, inverse, a);
  Value squares = e.generic(
      featureIterators(f), {{x, f.all}, {mean, f.channel}},
      {{e.fill({f.channels}, a, 0.0), f.channel}},
      [&](OpBuilder &nb, Location nl, ValueRange v) {
        Value wide = castFloat(nb, nl, v[0], a);
        Value c = arith::SubFOp::create(nb, nl, wide, v[1]);
        Value sq = arith::MulFOp::create(nb, nl, c, c);
        linalg::YieldOp::create(
            nb, nl, arith::AddFOp::create(nb, nl, v[2], sq).getResult());
      })[0];
  return {scaled(e, mean, 1.0, t), scaled(e, squares, inverse, t)};
}

/// 1 / sqrt(variance + epsilon) per feature.
static Value inverseDeviation(Emitter &e, Value variance, double epsilon) {
  Type t = elementOf(variance);
  Value eps = e.scalar(t, epsilon);
  Value one = e.scalar(t, 1.0);
  AffineMap vector = e.identity(1);
  return e.generic(Emitter::iterators(1, 0), {{variance, vector}},
                   {{e.empty(shapeOf(variance), t), vector}},
                   [&](OpBuilder &nb, Location nl, ValueRange a) {
                     Value v = arith::AddFOp::create(nb, nl, a[0], eps);
                     Value root = math::SqrtOp::create(nb, nl, v);
                     linalg::YieldOp::create(
                         nb, nl,
                         arith::DivFOp::create(nb, nl, one, root).getResult());
                   })[0];
}

static FailureOr<double> readEpsilon(const Call &call) {
  FailureOr<double> epsilon = call.real("epsilon", 1e-5);
  if (succeeded(epsilon) && *epsilon < 0) {
    call.error() << "epsilon must not be negative";
    return failure();
  }
  return epsilon;
}

FailureOr<SmallVector<Value>> lowerBatchNormTraining(Emitter &e,
                                                     const Call &call) {
  FailureOr<Features> features = readFeatures(e, call);
  FailureOr<double> epsilon = readEpsilon(call);
  if (failed(features) || failed(epsilon))
    return failure();
  const Features &f = *features;
  if (call.resultShape(0) != shapeOf(call.input(0))) {
    call.error() << "the output must have the input's shape";
    return failure();
  }
  for (unsigned r = 1; r < call.op->getNumResults(); ++r)
    if (call.resultShape(r) != ArrayRef<int64_t>{f.channels}) {
      call.error() << "result #" << r << " must have the " << f.channels
                   << " features";
      return failure();
    }
  Type t = computeType(elementOf(call.input(0)));
  Value x = e.convert(call.input(0), t);
  Value scale = e.convert(call.input(1), t);
  Value offset = e.convert(call.input(2), t);
  auto [mean, variance] = moments(e, f, x);
  Value rstd = inverseDeviation(e, variance, *epsilon);
  Type out = call.resultElement(0);
  Value y =
      e.generic(Emitter::iterators(f.rank, 0),
                {{x, f.all},
                 {mean, f.channel},
                 {rstd, f.channel},
                 {scale, f.channel},
                 {offset, f.channel}},
                {{e.empty(shapeOf(x), out), f.all}},
                [&](OpBuilder &nb, Location nl, ValueRange a) {
                  Value c = arith::SubFOp::create(nb, nl, a[0], a[1]);
                  Value n = arith::MulFOp::create(nb, nl, c, a[2]);
                  Value s = arith::MulFOp::create(nb, nl, n, a[3]);
                  Value r = arith::AddFOp::create(nb, nl, s, a[4]);
                  linalg::YieldOp::create(nb, nl, castFloat(nb, nl, r, out));
                })[0];
  SmallVector<Value> results = {y};
  if (call.op->getNumResults() == 3) {
    results.push_back(e.convert(mean, call.resultElement(1)));
    results.push_back(e.convert(variance, call.resultElement(2)));
  }
  return results;
}

FailureOr<SmallVector<Value>> lowerBatchNormGrad(Emitter &e, const Call &call) {
  FailureOr<Features> features = readFeatures(e, call);
  FailureOr<double> epsilon = readEpsilon(call);
  if (failed(features) || failed(epsilon))
    return failure();
  const Features &f = *features;
  if (shapeOf(call.input(2)) != shapeOf(call.input(0)) ||
      call.resultShape(0) != shapeOf(call.input(0))) {
    call.error() << "grad_output and grad_input must have the input's shape";
    return failure();
  }
  for (unsigned r = 1; r < 3; ++r)
    if (call.resultShape(r) != ArrayRef<int64_t>{f.channels}) {
      call.error() << "result #" << r << " must have the " << f.channels
                   << " features";
      return failure();
    }
  Type t = computeType(elementOf(call.input(0)));
  Value x = e.convert(call.input(0), t);
  Value scale = e.convert(call.input(1), t);
  Value dy = e.convert(call.input(2), t);
  auto [mean, variance] = moments(e, f, x);
  Value rstd = inverseDeviation(e, variance, *epsilon);
  // grad_offset = sum dy; grad_scale = sum dy * xhat (accumulated in f64).
  Type acc = accumulatorType(e.ctx);
  SmallVector<Value> sums = e.generic(
      featureIterators(f),
      {{dy, f.all}, {x, f.all}, {mean, f.channel}, {rstd, f.channel}},
      {{e.fill({f.channels}, acc, 0.0), f.channel},
       {e.fill({f.channels}, acc, 0.0), f.channel}},
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value c = arith::SubFOp::create(nb, nl, a[1], a[2]);
        Value xhat = arith::MulFOp::create(nb, nl, c, a[3]);
        Value g = castFloat(nb, nl, a[0], acc);
        Value p =
            arith::MulFOp::create(nb, nl, g, castFloat(nb, nl, xhat, acc));
        Value offsetSum = arith::AddFOp::create(nb, nl, a[4], g);
        Value scaleSum = arith::AddFOp::create(nb, nl, a[5], p);
        linalg::YieldOp::create(nb, nl, ValueRange{offsetSum, scaleSum});
      });
  Value gradOffset = scaled(e, sums[0], 1.0, t);
  Value gradScale = scaled(e, sums[1], 1.0, t);
  // dx = scale * rstd * (dy - grad_offset / M - xhat * grad_scale / M).
  Value inverse = e.scalar(t, 1.0 / double(f.count));
  Type out = call.resultElement(0);
  Value dx = e.generic(
      Emitter::iterators(f.rank, 0),
      {{dy, f.all},
       {x, f.all},
       {mean, f.channel},
       {rstd, f.channel},
       {scale, f.channel},
       {gradOffset, f.channel},
       {gradScale, f.channel}},
      {{e.empty(shapeOf(x), out), f.all}},
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value c = arith::SubFOp::create(nb, nl, a[1], a[2]);
        Value xhat = arith::MulFOp::create(nb, nl, c, a[3]);
        Value meanOffset = arith::MulFOp::create(nb, nl, a[5], inverse);
        Value meanScale = arith::MulFOp::create(nb, nl, a[6], inverse);
        Value v = arith::SubFOp::create(nb, nl, a[0], meanOffset);
        Value w = arith::MulFOp::create(nb, nl, xhat, meanScale);
        Value u = arith::SubFOp::create(nb, nl, v, w);
        Value k = arith::MulFOp::create(nb, nl, a[4], a[3]);
        Value r = arith::MulFOp::create(nb, nl, k, u);
        linalg::YieldOp::create(nb, nl, castFloat(nb, nl, r, out));
      })[0];
  return SmallVector<Value>{dx, e.convert(gradScale, call.resultElement(1)),
                            e.convert(gradOffset, call.resultElement(2))};
}

} // namespace mlir::hwagent::libcall
