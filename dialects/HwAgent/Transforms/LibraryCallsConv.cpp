//===- LibraryCallsConv.cpp - ByteIR library calls: convolutions and their
// gr===//
//
// Part of hwagent-lower-library-calls (LowerLibraryCalls.cpp has the
// callee conventions).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include <limits>

namespace mlir::hwagent::libcall {

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// The forward convolution the attributes of all three convolution calls
/// describe, in canonical NCHW / OIHW form.
struct ConvGeometry {
  Shape stride, padLow, padHigh, lhsDilation, rhsDilation;
  int64_t groups = 1;
  StringRef inputLayout, kernelLayout, outputLayout;
};

static FailureOr<ConvGeometry> readConv(const Call &call, bool forward) {
  ConvGeometry g;
  FailureOr<Shape> stride = call.ints("window_strides", 2, 1);
  FailureOr<Shape> lhs = call.ints("lhs_dilation", 2, 1);
  FailureOr<Shape> rhs = call.ints("rhs_dilation", 2, 1);
  FailureOr<Shape> padding = call.ints("padding", Shape(4, 0));
  FailureOr<int64_t> groups = call.integer("feature_group_count", 1);
  FailureOr<int64_t> batchGroups = call.integer("batch_group_count", 1);
  FailureOr<StringRef> in = call.string("input_layout", "NCHW");
  FailureOr<StringRef> kernel = call.string("kernel_layout", "NCHW");
  FailureOr<StringRef> out = call.string("output_layout", "NCHW");
  if (failed(stride) || failed(lhs) || failed(rhs) || failed(padding) ||
      failed(groups) || failed(batchGroups) || failed(in) || failed(kernel) ||
      failed(out))
    return failure();
  g.stride = *stride;
  g.lhsDilation = *lhs;
  g.rhsDilation = *rhs;
  g.groups = *groups;
  g.inputLayout = *in;
  g.kernelLayout = *kernel;
  g.outputLayout = *out;
  // [[h_lo, h_hi], [w_lo, w_hi]] flattened (mhlo, math/helper.cc), or one
  // value per spatial dimension for both sides.
  const Shape &p = *padding;
  if (p.size() == 4) {
    g.padLow = {p[0], p[2]};
    g.padHigh = {p[1], p[3]};
  } else if (p.size() == 2 || p.size() == 1) {
    g.padLow = g.padHigh = {p.front(), p.back()};
  } else {
    call.error() << "attribute 'padding' has " << p.size()
                 << " values, expected 4 ([h_lo, h_hi, w_lo, w_hi])";
    return failure();
  }
  for (StringRef layout : {g.inputLayout, g.kernelLayout, g.outputLayout})
    if (layout != "NCHW" && layout != "NHWC") {
      call.error() << "layout '" << layout
                   << "' is not supported (NCHW and NHWC are)";
      return failure();
    }
  if (*batchGroups != 1) {
    call.error() << "batch_group_count = " << *batchGroups
                 << " is not supported (only 1)";
    return failure();
  }
  if (g.groups < 1) {
    call.error() << "feature_group_count must be at least 1";
    return failure();
  }
  for (int64_t v :
       llvm::concat<const int64_t>(g.stride, g.lhsDilation, g.rhsDilation))
    if (v < 1) {
      call.error() << "strides and dilations must be at least 1";
      return failure();
    }
  if (!forward &&
      llvm::any_of(g.lhsDilation, [](int64_t v) { return v != 1; })) {
    call.error() << "lhs_dilation other than 1 is not supported on a "
                    "convolution gradient";
    return failure();
  }
  if (auto reversal = call.op->getAttr("window_reversal")) {
    auto dense = dyn_cast<DenseElementsAttr>(reversal);
    if (!dense ||
        llvm::any_of(dense.getValues<bool>(), [](bool r) { return r; })) {
      call.error() << "window_reversal is not supported";
      return failure();
    }
  }
  return g;
}

/// NHWC (activations) or OHWI (filters, ByteIR's "NHWC" kernel layout) to
/// NCHW / OIHW.
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};
constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};

static Value toCanonical(Emitter &e, Value v, StringRef layout) {
  return layout == "NHWC" ? e.transpose(v, kToChannelsFirst) : v;
}
static Shape canonicalShape(ArrayRef<int64_t> shape, StringRef layout) {
  if (layout != "NHWC")
    return Shape(shape);
  return {shape[0], shape[3], shape[1], shape[2]};
}
static Value fromCanonical(Emitter &e, Value v, StringRef layout) {
  return layout == "NHWC" ? e.transpose(v, kToChannelsLast) : v;
}

/// Checks that output extents `out` are what a convolution of `in` (lhs
/// dilation applied) with a `kernel`-sized window gives.
static LogicalResult checkConvShapes(const Call &call, const ConvGeometry &g,
                                     ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                                     ArrayRef<int64_t> y) {
  // x: N C H W, w: F C/G KH KW, y: N F OH OW (canonical).
  auto bad = [&](const llvm::Twine &why) {
    call.error() << why << " (input " << x[0] << "x" << x[1] << "x" << x[2]
                 << "x" << x[3] << ", filter " << w[0] << "x" << w[1] << "x"
                 << w[2] << "x" << w[3] << ", output " << y[0] << "x" << y[1]
                 << "x" << y[2] << "x" << y[3] << ", NCHW)";
    return failure();
  };
  if (x[0] != y[0])
    return bad("input and output batches differ");
  if (x[1] != w[1] * g.groups)
    return bad("the filter's input channels times feature_group_count are "
               "not the input's channels");
  if (w[0] != y[1] || y[1] % g.groups != 0)
    return bad("the filter's output channels are not the output's (or not a "
               "multiple of feature_group_count)");
  for (unsigned d = 0; d < 2; ++d) {
    int64_t dilated = x[2 + d] == 0 ? 0 : (x[2 + d] - 1) * g.lhsDilation[d] + 1;
    int64_t padded = dilated + g.padLow[d] + g.padHigh[d];
    int64_t window = g.rhsDilation[d] * (w[2 + d] - 1) + 1;
    int64_t expected =
        padded < window ? 0 : (padded - window) / g.stride[d] + 1;
    if (expected != y[2 + d])
      return bad(llvm::Twine("the output's spatial extent ") +
                 llvm::Twine(y[2 + d]) + " is not the " +
                 llvm::Twine(expected) +
                 " these strides, padding and dilations give");
  }
  return success();
}

FailureOr<SmallVector<Value>> lowerConv(Emitter &e, const Call &call) {
  FailureOr<ConvGeometry> geometry = readConv(call, /*forward=*/true);
  if (failed(geometry))
    return failure();
  const ConvGeometry &g = *geometry;
  Type t = computeType(call.resultElement(0));
  Value x = toCanonical(e, e.convert(call.input(0), t), g.inputLayout);
  Value w = toCanonical(e, e.convert(call.input(1), t), g.kernelLayout);
  Shape yShape = canonicalShape(call.resultShape(0), g.outputLayout);
  if (failed(checkConvShapes(call, g, shapeOf(x), shapeOf(w), yShape)))
    return failure();
  x = e.interleave(x, {1, 1, g.lhsDilation[0], g.lhsDilation[1]});
  x = e.pad(x, {0, 0, g.padLow[0], g.padLow[1]},
            {0, 0, g.padHigh[0], g.padHigh[1]}, e.scalar(t, 0.0));
  Shape xs(shapeOf(x)), ws(shapeOf(w));
  const Shape &s = g.stride, &d = g.rhsDilation;
  Value y;
  if (g.groups == 1) {
    // loops: n f oh ow | c kh kw
    y = e.contract(
        {x, e.map(7, {e.dim(0), e.dim(4), windowRow(e, 2, 5, s[0], d[0]),
                      windowRow(e, 3, 6, s[1], d[1])})},
        {w, e.map(7, {e.dim(1), e.dim(4), e.dim(5), e.dim(6)})}, yShape,
        e.map(7, {e.dim(0), e.dim(1), e.dim(2), e.dim(3)}), 4, 3);
  } else {
    int64_t groups = g.groups, fg = ws[0] / groups;
    Value xg = e.expand(x, {{0}, {1, 2}, {3}, {4}},
                        {xs[0], groups, xs[1] / groups, xs[2], xs[3]});
    Value wg =
        e.expand(w, {{0, 1}, {2}, {3}, {4}}, {groups, fg, ws[1], ws[2], ws[3]});
    // loops: n g f oh ow | c kh kw
    Value yg = e.contract(
        {xg,
         e.map(8, {e.dim(0), e.dim(1), e.dim(5), windowRow(e, 3, 6, s[0], d[0]),
                   windowRow(e, 4, 7, s[1], d[1])})},
        {wg, e.map(8, {e.dim(1), e.dim(2), e.dim(5), e.dim(6), e.dim(7)})},
        {yShape[0], groups, fg, yShape[2], yShape[3]},
        e.map(8, {e.dim(0), e.dim(1), e.dim(2), e.dim(3), e.dim(4)}), 5, 3);
    y = e.collapse(yg, {{0}, {1, 2}, {3}, {4}});
  }
  y = fromCanonical(e, y, g.outputLayout);
  return SmallVector<Value>{e.convert(y, call.resultElement(0))};
}

/// The 180-degree rotation of an (..., KH, KW) filter.
static Value rotate(Emitter &e, Value w) {
  Shape ws(shapeOf(w));
  unsigned rank = ws.size();
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < rank; ++i)
    exprs.push_back(i + 2 < rank
                        ? e.dim(i)
                        : e.b.getAffineConstantExpr(ws[i] - 1) - e.dim(i));
  return e.generic(Emitter::iterators(rank, 0), {{w, e.map(rank, exprs)}},
                   {{e.empty(ws, elementOf(w)), e.identity(rank)}},
                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                     linalg::YieldOp::create(nb, nl, args[0]);
                   })[0];
}

FailureOr<SmallVector<Value>> lowerConvBackwardData(Emitter &e,
                                                    const Call &call) {
  FailureOr<ConvGeometry> geometry = readConv(call, /*forward=*/false);
  if (failed(geometry))
    return failure();
  const ConvGeometry &g = *geometry;
  Type t = computeType(call.resultElement(0));
  // grad_output is laid out like the forward output, the result like its
  // input.
  Value dy = toCanonical(e, e.convert(call.input(0), t), g.outputLayout);
  Value w = toCanonical(e, e.convert(call.input(1), t), g.kernelLayout);
  Shape xShape = canonicalShape(call.resultShape(0), g.inputLayout);
  Shape ws(shapeOf(w));
  if (failed(checkConvShapes(call, g, xShape, ws, shapeOf(dy))))
    return failure();
  const Shape &d = g.rhsDilation;
  // Zeros between the rows for the stride, then padded (or cropped) to
  // H + d*(K-1) rows: dx[h] = sum_k z[h + k*d] * rotated[k].
  Value z = e.interleave(dy, {1, 1, g.stride[0], g.stride[1]});
  Shape low = {0, 0}, high = {0, 0};
  for (unsigned i = 0; i < 2; ++i) {
    int64_t lo = d[i] * (ws[2 + i] - 1) - g.padLow[i];
    low.push_back(lo);
    high.push_back(xShape[2 + i] + d[i] * (ws[2 + i] - 1) - shapeOf(z)[2 + i] -
                   lo);
  }
  Value zp = e.pad(z, low, high, e.scalar(t, 0.0));
  Value flipped = rotate(e, w);
  Value dx;
  if (g.groups == 1) {
    // loops: n c h w | f kh kw
    dx = e.contract(
        {zp, e.map(7, {e.dim(0), e.dim(4), windowRow(e, 2, 5, 1, d[0]),
                       windowRow(e, 3, 6, 1, d[1])})},
        {flipped, e.map(7, {e.dim(4), e.dim(1), e.dim(5), e.dim(6)})}, xShape,
        e.map(7, {e.dim(0), e.dim(1), e.dim(2), e.dim(3)}), 4, 3);
  } else {
    int64_t groups = g.groups, fg = ws[0] / groups, cg = ws[1];
    Shape zs(shapeOf(zp));
    Value zg = e.expand(zp, {{0}, {1, 2}, {3}, {4}},
                        {zs[0], groups, fg, zs[2], zs[3]});
    Value wg = e.expand(flipped, {{0, 1}, {2}, {3}, {4}},
                        {groups, fg, cg, ws[2], ws[3]});
    // loops: n g c h w | f kh kw
    Value dxg = e.contract(
        {zg,
         e.map(8, {e.dim(0), e.dim(1), e.dim(5), windowRow(e, 3, 6, 1, d[0]),
                   windowRow(e, 4, 7, 1, d[1])})},
        {wg, e.map(8, {e.dim(1), e.dim(5), e.dim(2), e.dim(6), e.dim(7)})},
        {xShape[0], groups, cg, xShape[2], xShape[3]},
        e.map(8, {e.dim(0), e.dim(1), e.dim(2), e.dim(3), e.dim(4)}), 5, 3);
    dx = e.collapse(dxg, {{0}, {1, 2}, {3}, {4}});
  }
  dx = fromCanonical(e, dx, g.inputLayout);
  return SmallVector<Value>{e.convert(dx, call.resultElement(0))};
}

FailureOr<SmallVector<Value>> lowerConvBackwardFilter(Emitter &e,
                                                      const Call &call) {
  FailureOr<ConvGeometry> geometry = readConv(call, /*forward=*/false);
  if (failed(geometry))
    return failure();
  const ConvGeometry &g = *geometry;
  Type t = computeType(call.resultElement(0));
  Value x = toCanonical(e, e.convert(call.input(0), t), g.inputLayout);
  Value dy = toCanonical(e, e.convert(call.input(1), t), g.outputLayout);
  Shape wShape = canonicalShape(call.resultShape(0), g.kernelLayout);
  if (failed(checkConvShapes(call, g, shapeOf(x), wShape, shapeOf(dy))))
    return failure();
  Shape ys(shapeOf(dy));
  const Shape &s = g.stride, &d = g.rhsDilation;
  // The padded input, without the rows no window reads (the bottom of a
  // strided window), so that every index below is in range.
  Value xp = e.pad(x, {0, 0, g.padLow[0], g.padLow[1]},
                   {0, 0, g.padHigh[0], g.padHigh[1]}, e.scalar(t, 0.0));
  Shape xs(shapeOf(xp));
  Shape need = {xs[0], xs[1], (ys[2] - 1) * s[0] + (wShape[2] - 1) * d[0] + 1,
                (ys[3] - 1) * s[1] + (wShape[3] - 1) * d[1] + 1};
  if (need[2] < xs[2] || need[3] < xs[3])
    xp = e.slice(xp, {0, 0, 0, 0}, need, {1, 1, 1, 1});
  Value dw;
  if (g.groups == 1) {
    // loops: f c kh kw | n oh ow
    dw = e.contract(
        {dy, e.map(7, {e.dim(4), e.dim(0), e.dim(5), e.dim(6)})},
        {xp, e.map(7, {e.dim(4), e.dim(1), windowRow(e, 5, 2, s[0], d[0]),
                       windowRow(e, 6, 3, s[1], d[1])})},
        wShape, e.map(7, {e.dim(0), e.dim(1), e.dim(2), e.dim(3)}), 4, 3);
  } else {
    int64_t groups = g.groups, fg = wShape[0] / groups, cg = wShape[1];
    Shape ps(shapeOf(xp));
    Value dyg = e.expand(dy, {{0}, {1, 2}, {3}, {4}},
                         {ys[0], groups, fg, ys[2], ys[3]});
    Value xg = e.expand(xp, {{0}, {1, 2}, {3}, {4}},
                        {ps[0], groups, cg, ps[2], ps[3]});
    // loops: g f c kh kw | n oh ow
    Value dwg = e.contract(
        {dyg, e.map(8, {e.dim(5), e.dim(0), e.dim(1), e.dim(6), e.dim(7)})},
        {xg,
         e.map(8, {e.dim(5), e.dim(0), e.dim(2), windowRow(e, 6, 3, s[0], d[0]),
                   windowRow(e, 7, 4, s[1], d[1])})},
        {groups, fg, cg, wShape[2], wShape[3]},
        e.map(8, {e.dim(0), e.dim(1), e.dim(2), e.dim(3), e.dim(4)}), 5, 3);
    dw = e.collapse(dwg, {{0, 1}, {2}, {3}, {4}});
  }
  dw = fromCanonical(e, dw, g.kernelLayout);
  return SmallVector<Value>{e.convert(dw, call.resultElement(0))};
}

} // namespace mlir::hwagent::libcall
