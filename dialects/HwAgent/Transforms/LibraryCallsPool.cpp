//===- LibraryCallsPool.cpp - ByteIR library calls: max pooling and its
// gradi===//
//
// Part of hwagent-lower-library-calls (LowerLibraryCalls.cpp has the
// callee conventions).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include <limits>

namespace mlir::hwagent::libcall {

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

struct Window {
  Shape size, stride, padLow, padHigh, dilation;
};

static FailureOr<Window> readWindow(const Call &call, bool gradient) {
  unsigned rank = shapeOf(call.input(0)).size();
  Window w;
  FailureOr<Shape> size = call.ints("window_dimensions");
  FailureOr<Shape> stride = call.ints("window_strides", rank, 1);
  FailureOr<Shape> padding = call.ints("padding", Shape(2 * rank, 0));
  FailureOr<Shape> base = call.ints("base_dilations", rank, 1);
  FailureOr<Shape> dilation = call.ints("window_dilations", rank, 1);
  if (failed(size) || failed(stride) || failed(padding) || failed(base) ||
      failed(dilation))
    return failure();
  if (size->size() != rank) {
    call.error() << "window_dimensions has " << size->size()
                 << " values for an input of rank " << rank;
    return failure();
  }
  if (padding->size() == 1)
    padding = Shape(2 * rank, padding->front());
  if (padding->size() != 2 * rank) {
    call.error() << "padding has " << padding->size() << " values, expected "
                 << 2 * rank << " (a low and a high one per dimension)";
    return failure();
  }
  if (llvm::any_of(*base, [](int64_t v) { return v != 1; })) {
    call.error() << "base_dilations other than 1 are not supported";
    return failure();
  }
  if (gradient && llvm::any_of(*dilation, [](int64_t v) { return v != 1; })) {
    call.error() << "window_dilations other than 1 are not supported on a "
                    "pooling gradient";
    return failure();
  }
  w.size = *size;
  w.stride = *stride;
  w.dilation = *dilation;
  for (unsigned d = 0; d < rank; ++d) {
    w.padLow.push_back((*padding)[2 * d]);
    w.padHigh.push_back((*padding)[2 * d + 1]);
  }
  for (int64_t v : llvm::concat<const int64_t>(w.size, w.stride, w.dilation))
    if (v < 1) {
      call.error() << "window sizes, strides and dilations must be at least 1";
      return failure();
    }
  if (llvm::any_of(llvm::concat<const int64_t>(w.padLow, w.padHigh),
                   [](int64_t v) { return v < 0; })) {
    call.error() << "negative padding is not supported";
    return failure();
  }
  return w;
}

/// Checks `out` against the windows over `in`.
static LogicalResult checkWindows(const Call &call, const Window &w,
                                  ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  if (in.size() != out.size()) {
    call.error() << "input and output ranks differ";
    return failure();
  }
  for (unsigned d = 0; d < in.size(); ++d) {
    int64_t padded = in[d] + w.padLow[d] + w.padHigh[d];
    int64_t span = w.dilation[d] * (w.size[d] - 1) + 1;
    int64_t expected = padded < span ? 0 : (padded - span) / w.stride[d] + 1;
    if (out[d] != expected) {
      call.error() << "dimension " << d << " of the output is " << out[d]
                   << ", the windows give " << expected;
      return failure();
    }
  }
  return success();
}

/// Loops: the output's dimensions, then the window's. Maps of the padded
/// input, of the window-shaped operand that gives the window loops their
/// range (its values are never read), and of the output.
struct WindowMaps {
  AffineMap input, window, output;
};
static WindowMaps windowMaps(Emitter &e, const Window &w) {
  unsigned rank = w.size.size();
  SmallVector<AffineExpr> in, win, out;
  for (unsigned d = 0; d < rank; ++d) {
    in.push_back(windowRow(e, d, rank + d, w.stride[d], w.dilation[d]));
    win.push_back(e.dim(rank + d));
    out.push_back(e.dim(d));
  }
  return {e.map(2 * rank, in), e.map(2 * rank, win), e.map(2 * rank, out)};
}

/// The maximum that keeps NaN (mhlo.maximum, cuDNN's CUDNN_PROPAGATE_NAN).
static Value maximum(OpBuilder &b, Location loc, Value a, Value c) {
  if (isa<FloatType>(a.getType()))
    return arith::MaximumFOp::create(b, loc, a, c);
  return arith::MaxSIOp::create(b, loc, a, c);
}

FailureOr<SmallVector<Value>> lowerPoolMax(Emitter &e, const Call &call) {
  FailureOr<Window> window = readWindow(call, /*gradient=*/false);
  if (failed(window))
    return failure();
  const Window &w = *window;
  Value x = call.input(0);
  Type t = elementOf(x);
  if (t != call.resultElement(0)) {
    call.error() << "the output's element type must be the input's";
    return failure();
  }
  if (failed(checkWindows(call, w, shapeOf(x), call.resultShape(0))))
    return failure();
  unsigned rank = w.size.size();
  Value xp = e.pad(x, w.padLow, w.padHigh, e.lowest(t));
  WindowMaps maps = windowMaps(e, w);
  Value init = e.fill(call.resultShape(0), t, e.lowest(t));
  return e.generic(
      Emitter::iterators(rank, rank),
      {{xp, maps.input}, {e.empty(w.size, t), maps.window}},
      {{init, maps.output}}, [&](OpBuilder &nb, Location nl, ValueRange a) {
        linalg::YieldOp::create(nb, nl, maximum(nb, nl, a[2], a[0]));
      });
}

FailureOr<SmallVector<Value>> lowerPoolMaxGrad(Emitter &e, const Call &call) {
  FailureOr<Window> window = readWindow(call, /*gradient=*/true);
  if (failed(window))
    return failure();
  const Window &w = *window;
  Value x = call.input(0), dy = call.input(1);
  Type t = elementOf(x);
  if (call.resultShape(0) != shapeOf(x) || elementOf(dy) != t ||
      call.resultElement(0) != t) {
    call.error() << "grad_input must have the input's shape and every "
                    "operand its element type";
    return failure();
  }
  if (!isa<FloatType>(t)) {
    call.error() << "only float pooling gradients are supported";
    return failure();
  }
  if (failed(checkWindows(call, w, shapeOf(x), shapeOf(dy))))
    return failure();
  unsigned rank = w.size.size();
  Shape out(shapeOf(dy));
  // Which tap of each window holds its maximum: the first in window order
  // (mhlo.select_and_scatter with `ge`), NaN counting as the largest. The
  // smallest flat tap among equal values is kept whatever order the loops
  // run in.
  Value xp = e.pad(x, w.padLow, w.padHigh, e.lowest(t));
  WindowMaps maps = windowMaps(e, w);
  Type i32 = e.b.getI32Type();
  Value best = e.fill(out, t, e.lowest(t));
  Value first = e.fill(out, i32, double(std::numeric_limits<int32_t>::max()));
  Shape tapStride(rank, 1);
  for (int d = int(rank) - 2; d >= 0; --d)
    tapStride[d] = tapStride[d + 1] * w.size[d + 1];
  Value taps = e.generic(
      Emitter::iterators(rank, rank),
      {{xp, maps.input}, {e.empty(w.size, t), maps.window}},
      {{best, maps.output}, {first, maps.output}},
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value v = a[0], current = a[2], index = a[3];
        Value flat = arith::ConstantIndexOp::create(nb, nl, 0);
        for (unsigned d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, nl, rank + d);
          Value s = arith::ConstantIndexOp::create(nb, nl, tapStride[d]);
          flat = arith::AddIOp::create(nb, nl, flat,
                                       arith::MulIOp::create(nb, nl, i, s));
        }
        flat = arith::IndexCastOp::create(nb, nl, i32, flat);
        using P = arith::CmpFPredicate;
        Value vNaN = arith::CmpFOp::create(nb, nl, P::UNO, v, v);
        Value cNaN = arith::CmpFOp::create(nb, nl, P::UNO, current, current);
        Value cNumber = arith::CmpFOp::create(nb, nl, P::ORD, current, current);
        // v > current, NaN above every number.
        Value greater = arith::SelectOp::create(
            nb, nl, vNaN, cNumber,
            arith::CmpFOp::create(nb, nl, P::OGT, v, current));
        Value equal = arith::OrIOp::create(
            nb, nl, arith::AndIOp::create(nb, nl, vNaN, cNaN),
            arith::CmpFOp::create(nb, nl, P::OEQ, v, current));
        Value earlier = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                              flat, index);
        Value better = arith::OrIOp::create(
            nb, nl, greater, arith::AndIOp::create(nb, nl, equal, earlier));
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{arith::SelectOp::create(nb, nl, better, v, current),
                       arith::SelectOp::create(nb, nl, better, flat, index)});
      })[1];
  // Every tap adds its outputs' gradients where it holds the maximum: one
  // strided slice update of the padded gradient per tap, in f32.
  Type ct = computeType(t);
  Shape padded;
  for (unsigned d = 0; d < rank; ++d)
    padded.push_back(std::max(shapeOf(x)[d] + w.padLow[d] + w.padHigh[d],
                              (out[d] - 1) * w.stride[d] + w.size[d]));
  Value acc = e.fill(padded, ct, 0.0);
  AffineMap id = e.identity(rank);
  Value zero = e.scalar(ct, 0.0);
  int64_t numTaps = product(w.size);
  for (int64_t tap = 0; tap < numTaps; ++tap) {
    Shape offsets;
    for (unsigned d = 0; d < rank; ++d)
      offsets.push_back((tap / tapStride[d]) % w.size[d]);
    Value current = e.slice(acc, offsets, out, w.stride);
    Value tapValue = e.scalar(i32, double(tap));
    Value updated = e.generic(
        Emitter::iterators(rank, 0), {{current, id}, {dy, id}, {taps, id}},
        {{e.empty(out, ct), id}},
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value hit = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                            a[2], tapValue);
          Value g = castFloat(nb, nl, a[1], ct);
          Value add = arith::SelectOp::create(nb, nl, hit, g, zero);
          linalg::YieldOp::create(
              nb, nl, arith::AddFOp::create(nb, nl, a[0], add).getResult());
        })[0];
    acc = e.insert(updated, acc, offsets, w.stride);
  }
  Value dx = e.slice(acc, w.padLow, shapeOf(x), Shape(rank, 1));
  return SmallVector<Value>{e.convert(dx, t)};
}

//===----------------------------------------------------------------------===//
// Reductions and matmul
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerReduce(Emitter &e, const Call &call,
                                          bool isMax) {
  Value x = call.input(0);
  Shape in(shapeOf(x));
  unsigned rank = in.size();
  FailureOr<Shape> dims = call.ints("dimensions");
  if (failed(dims))
    return failure();
  SmallVector<bool> reduced(rank, false);
  for (int64_t d : *dims) {
    if (d < 0 || d >= int64_t(rank) || reduced[d]) {
      call.error() << "dimensions must name distinct dimensions of the "
                      "input's "
                   << rank;
      return failure();
    }
    reduced[d] = true;
  }
  Shape kept;
  SmallVector<AffineExpr> outExprs;
  SmallVector<IteratorType> its;
  for (unsigned d = 0; d < rank; ++d) {
    its.push_back(reduced[d] ? IteratorType::reduction
                             : IteratorType::parallel);
    if (!reduced[d]) {
      kept.push_back(in[d]);
      outExprs.push_back(e.dim(d));
    }
  }
  if (call.resultShape(0) != ArrayRef<int64_t>(kept)) {
    call.error() << "the output's shape is not the input's without the "
                    "reduced dimensions";
    return failure();
  }
  Type t = elementOf(x);
  Type out = call.resultElement(0);
  bool isFloat = isa<FloatType>(t);
  if (isFloat != isa<FloatType>(out) || (!isFloat && t != out)) {
    call.error() << "the output's element type does not match the input's";
    return failure();
  }
  // Sums of f16/bf16 accumulate in f32 (reduce_impl.h); a maximum is exact
  // in the input's type.
  Type acc = isFloat && !isMax ? computeType(t) : t;
  Value init =
      isMax ? e.fill(kept, acc, e.lowest(acc)) : e.fill(kept, acc, 0.0);
  Value r =
      e.generic(its, {{x, e.identity(rank)}}, {{init, e.map(rank, outExprs)}},
                [&](OpBuilder &nb, Location nl, ValueRange a) {
                  Value v = a[0];
                  if (isFloat)
                    v = castFloat(nb, nl, v, acc);
                  Value next;
                  if (isMax)
                    next = maximum(nb, nl, a[1], v);
                  else if (isFloat)
                    next = arith::AddFOp::create(nb, nl, a[1], v);
                  else
                    next = arith::AddIOp::create(nb, nl, a[1], v);
                  linalg::YieldOp::create(nb, nl, next);
                })[0];
  return SmallVector<Value>{isFloat ? e.convert(r, out) : r};
}

FailureOr<SmallVector<Value>> lowerMatmul(Emitter &e, const Call &call) {
  Value lhs = call.input(0), rhs = call.input(1);
  ArrayRef<int64_t> a = shapeOf(lhs), b = shapeOf(rhs);
  if (a.size() != 2 || b.size() != 2 || call.resultShape(0).size() != 2) {
    call.error() << "only 2-D operands are supported";
    return failure();
  }
  FailureOr<int64_t> lc = call.integer("lhs_contracting_dimension", 1);
  FailureOr<int64_t> rc = call.integer("rhs_contracting_dimension", 0);
  if (failed(lc) || failed(rc))
    return failure();
  if ((*lc != 0 && *lc != 1) || (*rc != 0 && *rc != 1)) {
    call.error() << "contracting dimensions must be 0 or 1";
    return failure();
  }
  bool outputTranspose = call.op->hasAttr("output_transpose");
  int64_t m = a[1 - *lc], k = a[*lc], n = b[1 - *rc];
  Shape expected = outputTranspose ? Shape{n, m} : Shape{m, n};
  if (b[*rc] != k || call.resultShape(0) != ArrayRef<int64_t>(expected)) {
    call.error() << "operands " << a[0] << "x" << a[1] << " and " << b[0] << "x"
                 << b[1] << " contracted over dimensions " << *lc << " and "
                 << *rc << " do not give the " << expected[0] << "x"
                 << expected[1] << " output";
    return failure();
  }
  Type out = call.resultElement(0);
  // compute_on_fp16 asks cuBLAS for an f16 accumulation (cublasHgemm).
  Type t = call.op->hasAttr("compute_on_fp16") && elementOf(lhs).isF16()
               ? elementOf(lhs)
               : computeType(out);
  // loops: m n | k
  AffineExpr dm = e.dim(0), dn = e.dim(1), dk = e.dim(2);
  Value r = e.contract(
      {e.convert(lhs, t), e.map(3, *lc == 1 ? SmallVector<AffineExpr>{dm, dk}
                                            : SmallVector<AffineExpr>{dk, dm})},
      {e.convert(rhs, t), e.map(3, *rc == 0 ? SmallVector<AffineExpr>{dk, dn}
                                            : SmallVector<AffineExpr>{dn, dk})},
      expected,
      e.map(3, outputTranspose ? SmallVector<AffineExpr>{dn, dm}
                               : SmallVector<AffineExpr>{dm, dn}),
      2, 1);
  return SmallVector<Value>{e.convert(r, out)};
}

} // namespace mlir::hwagent::libcall
