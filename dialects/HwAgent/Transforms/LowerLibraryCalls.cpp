//===- LowerLibraryCalls.cpp - ByteIR library calls as linalg ------------===//
//
// hwagent-lower-library-calls: every `byre.compute_on_tensor` (ByteIR's
// library call on tensors) becomes linalg-on-tensors computing what its
// callee computes. The operand conventions are those of ByteIR's runtime
// kernels (bytedance/byteir, runtime/lib/backends/cuda/providers/default):
//
//  - math/conv.cc, math/conv_backward.cc, math/helper.cc: ConvOp(input,
//    filter) -> output, ConvBackwardDataOp(grad_output, filter) -> grad_input,
//    ConvBackwardFilterOp(input, grad_output) -> grad_filter; the attributes
//    (window_strides, padding as [h_lo, h_hi, w_lo, w_hi], rhs_dilation,
//    layouts) are those of the FORWARD convolution in all three, and cuDNN
//    computes in f32 (CUDNN_DATA_FLOAT);
//  - normalization/batch_norm_training.cc: BatchNormTrainingOp(input, scale,
//    offset) -> output [, mean, variance]; batch_norm_grad.cc:
//    BatchNormGradOp(input, scale, grad_output) -> (grad_input, grad_scale,
//    grad_offset), recomputing the batch mean and variance from the input
//    ("BNBackward would recompute mean and variance");
//  - math/pool.cc: PoolMaxOp(input) -> output (mhlo.reduce_window with max);
//    math/pool_grad.cc: PoolMaxGradOp(input, grad_output) -> grad_input
//    (mhlo.select_and_scatter: each window's maximum takes its gradient);
//  - reduction/reduce_impl.h: Reduce{Sum,Max}Op(input) -> output over
//    `dimensions`, f16 accumulating in f32;
//  - math/matmul.cc: MatmulOp(lhs, rhs) -> output; lhs_contracting_dimension
//    1 reads lhs as MxK (0: KxM), rhs_contracting_dimension 0 reads rhs as
//    KxN (1: NxK), `output_transpose` writes NxM; f16 computes in f32
//    (cublasSgemmEx) unless `compute_on_fp16`.
//
// f16/bf16 calls compute in f32 and round their results. Contractions are
// written the way the PyTorch importer writes them
// (tools/hwagent-import/hwagent_import/lowering/contraction.py): f32
// generics whose body is one multiply-accumulate over affine index sums, so
// hwagent-linalg-to-kernels sends them to the packed SGEMM kernel; the input
// gradient is the stride-1 correlation of the zero-interleaved, padded
// output gradient with the 180-degree-rotated filter, the filter gradient a
// contraction over the padded input. docs/byteir.md.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <numeric>

namespace mlir::hwagent {
#define GEN_PASS_DEF_LOWERLIBRARYCALLS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {

constexpr StringLiteral kComputeOnTensor = "byre.compute_on_tensor";

using Shape = SmallVector<int64_t>;
using utils::IteratorType;

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}
Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}
int64_t product(ArrayRef<int64_t> values) {
  return std::accumulate(values.begin(), values.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// The short dtype name ByteIR's callee suffixes use ("f16", "f32", "i64").
std::string dtypeName(Type t) {
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.isUnsigned() ? "ui" : "i") + std::to_string(i.getWidth());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << t;
  return text;
}

/// f32 for f16, bf16 and f32 (what cuDNN and cuBLAS accumulate in), f64 for
/// f64.
Type computeType(Type t) {
  return t.isF64() ? t : Float32Type::get(t.getContext());
}

/// A scalar cast between float types (or nothing when they agree).
Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// Builds tensor code in front of one library call.
class Emitter {
public:
  explicit Emitter(Operation *op)
      : b(op), loc(op->getLoc()), ctx(op->getContext()) {}

  OpBuilder b;
  Location loc;
  MLIRContext *ctx;

  AffineExpr dim(unsigned i) const { return getAffineDimExpr(i, ctx); }
  AffineMap map(unsigned loops, ArrayRef<AffineExpr> exprs) const {
    return AffineMap::get(loops, 0, exprs, ctx);
  }
  AffineMap identity(unsigned rank) const {
    return AffineMap::getMultiDimIdentityMap(rank, ctx);
  }

  Value scalar(Type t, double v) {
    if (auto f = dyn_cast<FloatType>(t))
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, v));
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, int64_t(v)));
  }
  /// -inf for floats, the most negative value for integers.
  Value lowest(Type t) {
    if (auto f = dyn_cast<FloatType>(t))
      return arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), true)));
    return arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(t,
                         APInt::getSignedMinValue(t.getIntOrFloatBitWidth())));
  }
  Value empty(ArrayRef<int64_t> shape, Type t) {
    return tensor::EmptyOp::create(b, loc, shape, t);
  }
  Value fill(ArrayRef<int64_t> shape, Type t, Value value) {
    return linalg::FillOp::create(b, loc, value, empty(shape, t)).getResult(0);
  }
  Value fill(ArrayRef<int64_t> shape, Type t, double value) {
    return fill(shape, t, scalar(t, value));
  }

  struct Operand {
    Value value;
    AffineMap map;
  };
  using Body = function_ref<void(OpBuilder &, Location, ValueRange)>;
  SmallVector<Value> generic(ArrayRef<IteratorType> iterators,
                             ArrayRef<Operand> ins, ArrayRef<Operand> outs,
                             Body body) {
    SmallVector<Value> inputs, inits;
    SmallVector<AffineMap> maps;
    SmallVector<Type> types;
    for (const Operand &o : ins) {
      inputs.push_back(o.value);
      maps.push_back(o.map);
    }
    for (const Operand &o : outs) {
      inits.push_back(o.value);
      maps.push_back(o.map);
      types.push_back(o.value.getType());
    }
    auto op = linalg::GenericOp::create(b, loc, types, inputs, inits, maps,
                                        iterators, body);
    return SmallVector<Value>(op.getResults());
  }
  static SmallVector<IteratorType> iterators(unsigned parallel,
                                             unsigned reduction) {
    SmallVector<IteratorType> its(parallel, IteratorType::parallel);
    its.append(reduction, IteratorType::reduction);
    return its;
  }

  /// `v` with its elements converted to the float type `t`.
  Value convert(Value v, Type t) {
    if (elementOf(v) == t)
      return v;
    unsigned rank = shapeOf(v).size();
    return generic(iterators(rank, 0), {{v, identity(rank)}},
                   {{empty(shapeOf(v), t), identity(rank)}},
                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                     linalg::YieldOp::create(nb, nl,
                                             castFloat(nb, nl, args[0], t));
                   })[0];
  }

  SmallVector<OpFoldResult> indices(ArrayRef<int64_t> values) {
    return llvm::map_to_vector(
        values, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
  }
  Value slice(Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> strides) {
    return tensor::ExtractSliceOp::create(b, loc, v, indices(offsets),
                                          indices(sizes), indices(strides));
  }
  Value insert(Value source, Value dest, ArrayRef<int64_t> offsets,
               ArrayRef<int64_t> strides) {
    return tensor::InsertSliceOp::create(b, loc, source, dest, indices(offsets),
                                         indices(shapeOf(source)),
                                         indices(strides));
  }
  /// `v` padded by `low`/`high` elements of `value` per dimension; a
  /// negative amount crops instead (mhlo's negative padding).
  Value pad(Value v, ArrayRef<int64_t> low, ArrayRef<int64_t> high,
            Value value) {
    Shape shape(shapeOf(v));
    unsigned rank = shape.size();
    Shape offsets(rank, 0), sizes(shape), lo(rank, 0), hi(rank, 0);
    bool crop = false, grow = false;
    for (unsigned d = 0; d < rank; ++d) {
      if (low[d] < 0) {
        offsets[d] = -low[d];
        sizes[d] += low[d];
        crop = true;
      } else {
        lo[d] = low[d];
      }
      if (high[d] < 0) {
        sizes[d] += high[d];
        crop = true;
      } else {
        hi[d] = high[d];
      }
      grow |= lo[d] > 0 || hi[d] > 0;
    }
    if (crop)
      v = slice(v, offsets, sizes, Shape(rank, 1));
    if (!grow)
      return v;
    Shape padded(sizes);
    for (unsigned d = 0; d < rank; ++d)
      padded[d] += lo[d] + hi[d];
    auto type = RankedTensorType::get(padded, elementOf(v));
    return tensor::PadOp::create(b, loc, type, v, indices(lo), indices(hi),
                                 value);
  }
  /// `v` with zeros between its elements along each dimension (`factors`
  /// apart): lhs dilation, and the output gradient of a strided convolution.
  Value interleave(Value v, ArrayRef<int64_t> factors) {
    if (llvm::all_of(factors, [](int64_t f) { return f == 1; }))
      return v;
    Shape shape(shapeOf(v));
    Shape dilated(shape);
    for (auto [d, f] : llvm::enumerate(factors))
      dilated[d] = shape[d] == 0 ? 0 : (shape[d] - 1) * f + 1;
    Value zeros = fill(dilated, elementOf(v), 0.0);
    return insert(v, zeros, Shape(shape.size(), 0), factors);
  }
  Value transpose(Value v, ArrayRef<int64_t> permutation) {
    Shape shape;
    for (int64_t p : permutation)
      shape.push_back(shapeOf(v)[p]);
    return linalg::TransposeOp::create(b, loc, v, empty(shape, elementOf(v)),
                                       permutation)
        ->getResult(0);
  }
  Value expand(Value v, ArrayRef<ReassociationIndices> groups,
               ArrayRef<int64_t> shape) {
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, elementOf(v)), v, groups);
  }
  Value collapse(Value v, ArrayRef<ReassociationIndices> groups) {
    return tensor::CollapseShapeOp::create(b, loc, v, groups);
  }
  /// out = sum over the reduction loops of a * b (f32 or f64), the form the
  /// contraction kernel recognizes.
  Value contract(Operand lhs, Operand rhs, ArrayRef<int64_t> outShape,
                 AffineMap outMap, unsigned parallel, unsigned reduction) {
    Type t = elementOf(lhs.value);
    Value init = fill(outShape, t, 0.0);
    return generic(
        iterators(parallel, reduction), {lhs, rhs}, {{init, outMap}},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value product = arith::MulFOp::create(nb, nl, args[0], args[1]);
          linalg::YieldOp::create(
              nb, nl,
              arith::AddFOp::create(nb, nl, args[2], product).getResult());
        })[0];
  }
};

//===----------------------------------------------------------------------===//
// One call: its operands, attributes and errors
//===----------------------------------------------------------------------===//

class Call {
public:
  Call(Operation *op, StringRef callee, unsigned numInputs)
      : op(op), callee(callee), base(callee.split('_').first),
        numInputs(numInputs) {}

  Operation *op;
  StringRef callee, base;
  unsigned numInputs;

  Value input(unsigned i) const { return op->getOperand(i); }
  Type resultType(unsigned i) const { return op->getResult(i).getType(); }
  ArrayRef<int64_t> resultShape(unsigned i) const {
    return cast<RankedTensorType>(resultType(i)).getShape();
  }
  Type resultElement(unsigned i) const {
    return cast<RankedTensorType>(resultType(i)).getElementType();
  }

  InFlightDiagnostic error() const {
    return op->emitError() << "library call '" << callee << "': ";
  }

  /// An integer list attribute (a dense elements attribute, an array of
  /// integers or a dense i64 array), `fallback` when absent.
  FailureOr<Shape> ints(StringRef name,
                        std::optional<Shape> fallback = std::nullopt) const {
    Attribute attr = op->getAttr(name);
    Shape values;
    if (!attr) {
      if (fallback)
        return *fallback;
      error() << "needs the attribute '" << name << "'";
      return failure();
    }
    if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
      for (const APInt &v : dense.getValues<APInt>())
        values.push_back(v.getSExtValue());
    } else if (auto array = dyn_cast<DenseI64ArrayAttr>(attr)) {
      values.assign(array.asArrayRef().begin(), array.asArrayRef().end());
    } else if (auto list = dyn_cast<ArrayAttr>(attr)) {
      for (Attribute element : list) {
        auto i = dyn_cast<IntegerAttr>(element);
        if (!i) {
          error() << "attribute '" << name << "' must hold integers";
          return failure();
        }
        values.push_back(i.getInt());
      }
    } else {
      error() << "attribute '" << name << "' must be a list of integers";
      return failure();
    }
    return values;
  }
  /// `ints` with exactly `count` values (a single value is repeated).
  FailureOr<Shape> ints(StringRef name, size_t count, int64_t fallback) const {
    FailureOr<Shape> values = ints(name, Shape(count, fallback));
    if (failed(values))
      return failure();
    if (values->size() == 1 && count > 1)
      values = Shape(count, values->front());
    if (values->size() != count) {
      error() << "attribute '" << name << "' has " << values->size()
              << " values, expected " << count;
      return failure();
    }
    return values;
  }
  FailureOr<int64_t> integer(StringRef name, int64_t fallback) const {
    Attribute attr = op->getAttr(name);
    if (!attr)
      return fallback;
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return i.getInt();
    error() << "attribute '" << name << "' must be an integer";
    return failure();
  }
  FailureOr<double> real(StringRef name, double fallback) const {
    Attribute attr = op->getAttr(name);
    if (!attr)
      return fallback;
    if (auto f = dyn_cast<FloatAttr>(attr))
      return f.getValueAsDouble();
    error() << "attribute '" << name << "' must be a float";
    return failure();
  }
  FailureOr<StringRef> string(StringRef name, StringRef fallback) const {
    Attribute attr = op->getAttr(name);
    if (!attr)
      return fallback;
    if (auto s = dyn_cast<StringAttr>(attr))
      return s.getValue();
    error() << "attribute '" << name << "' must be a string";
    return failure();
  }

  /// Every operand must be a float tensor (integers too if `integers`).
  LogicalResult expectFloats(bool integers = false) const {
    auto check = [&](Type type, StringRef what, unsigned i) -> LogicalResult {
      Type e = cast<RankedTensorType>(type).getElementType();
      if (isa<FloatType>(e) &&
          (e.isF16() || e.isBF16() || e.isF32() || e.isF64()))
        return success();
      if (integers && isa<IntegerType>(e) && e.getIntOrFloatBitWidth() > 1)
        return success();
      error() << what << " #" << i << " is of " << type << " (expected "
              << (integers ? "f16, bf16, f32, f64 or integer"
                           : "f16, bf16, "
                             "f32 or f64")
              << " elements)";
      return failure();
    };
    for (unsigned i = 0; i < numInputs; ++i)
      if (failed(check(input(i).getType(), "input", i)))
        return failure();
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      if (failed(check(resultType(i), "result", i)))
        return failure();
    return success();
  }
};

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

FailureOr<ConvGeometry> readConv(const Call &call, bool forward) {
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

Value toCanonical(Emitter &e, Value v, StringRef layout) {
  return layout == "NHWC" ? e.transpose(v, kToChannelsFirst) : v;
}
Shape canonicalShape(ArrayRef<int64_t> shape, StringRef layout) {
  if (layout != "NHWC")
    return Shape(shape);
  return {shape[0], shape[3], shape[1], shape[2]};
}
Value fromCanonical(Emitter &e, Value v, StringRef layout) {
  return layout == "NHWC" ? e.transpose(v, kToChannelsLast) : v;
}

/// Checks that output extents `out` are what a convolution of `in` (lhs
/// dilation applied) with a `kernel`-sized window gives.
LogicalResult checkConvShapes(const Call &call, const ConvGeometry &g,
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

/// The row of the padded input that output `o` and tap `k` read.
AffineExpr window(Emitter &e, unsigned o, unsigned k, int64_t stride,
                  int64_t dilation) {
  return e.dim(o) * stride + e.dim(k) * dilation;
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
        {x, e.map(7, {e.dim(0), e.dim(4), window(e, 2, 5, s[0], d[0]),
                      window(e, 3, 6, s[1], d[1])})},
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
         e.map(8, {e.dim(0), e.dim(1), e.dim(5), window(e, 3, 6, s[0], d[0]),
                   window(e, 4, 7, s[1], d[1])})},
        {wg, e.map(8, {e.dim(1), e.dim(2), e.dim(5), e.dim(6), e.dim(7)})},
        {yShape[0], groups, fg, yShape[2], yShape[3]},
        e.map(8, {e.dim(0), e.dim(1), e.dim(2), e.dim(3), e.dim(4)}), 5, 3);
    y = e.collapse(yg, {{0}, {1, 2}, {3}, {4}});
  }
  y = fromCanonical(e, y, g.outputLayout);
  return SmallVector<Value>{e.convert(y, call.resultElement(0))};
}

/// The 180-degree rotation of an (..., KH, KW) filter.
Value rotate(Emitter &e, Value w) {
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
        {zp, e.map(7, {e.dim(0), e.dim(4), window(e, 2, 5, 1, d[0]),
                       window(e, 3, 6, 1, d[1])})},
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
        {zg, e.map(8, {e.dim(0), e.dim(1), e.dim(5), window(e, 3, 6, 1, d[0]),
                       window(e, 4, 7, 1, d[1])})},
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
        {xp, e.map(7, {e.dim(4), e.dim(1), window(e, 5, 2, s[0], d[0]),
                       window(e, 6, 3, s[1], d[1])})},
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
         e.map(8, {e.dim(5), e.dim(0), e.dim(2), window(e, 6, 3, s[0], d[0]),
                   window(e, 7, 4, s[1], d[1])})},
        {groups, fg, cg, wShape[2], wShape[3]},
        e.map(8, {e.dim(0), e.dim(1), e.dim(2), e.dim(3), e.dim(4)}), 5, 3);
    dw = e.collapse(dwg, {{0, 1}, {2}, {3}, {4}});
  }
  dw = fromCanonical(e, dw, g.kernelLayout);
  return SmallVector<Value>{e.convert(dw, call.resultElement(0))};
}

//===----------------------------------------------------------------------===//
// Batch normalization
//===----------------------------------------------------------------------===//

/// Per-feature reductions of an input with its feature dimension.
struct Features {
  unsigned rank = 0;
  int64_t feature = 0, channels = 0, count = 0;
  AffineMap all, channel;
};

FailureOr<Features> readFeatures(Emitter &e, const Call &call) {
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

SmallVector<IteratorType> featureIterators(const Features &f) {
  SmallVector<IteratorType> its(f.rank, IteratorType::reduction);
  its[f.feature] = IteratorType::parallel;
  return its;
}

/// Sums over tens of thousands of elements per feature (ResNet's first
/// layer: 50176) lose digits in a sequential f32 sum; cuDNN sums in a tree.
/// The statistics accumulate in f64 instead.
Type accumulatorType(MLIRContext *ctx) { return Float64Type::get(ctx); }

/// `v` (a [C] accumulator) times `factor`, in `t`.
Value scaled(Emitter &e, Value v, double factor, Type t) {
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
std::pair<Value, Value> moments(Emitter &e, const Features &f, Value x) {
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
Value inverseDeviation(Emitter &e, Value variance, double epsilon) {
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

FailureOr<double> readEpsilon(const Call &call) {
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

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

struct Window {
  Shape size, stride, padLow, padHigh, dilation;
};

FailureOr<Window> readWindow(const Call &call, bool gradient) {
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
LogicalResult checkWindows(const Call &call, const Window &w,
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
WindowMaps windowMaps(Emitter &e, const Window &w) {
  unsigned rank = w.size.size();
  SmallVector<AffineExpr> in, win, out;
  for (unsigned d = 0; d < rank; ++d) {
    in.push_back(window(e, d, rank + d, w.stride[d], w.dilation[d]));
    win.push_back(e.dim(rank + d));
    out.push_back(e.dim(d));
  }
  return {e.map(2 * rank, in), e.map(2 * rank, win), e.map(2 * rank, out)};
}

/// The maximum that keeps NaN (mhlo.maximum, cuDNN's CUDNN_PROPAGATE_NAN).
Value maximum(OpBuilder &b, Location loc, Value a, Value c) {
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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Inputs and outputs of each callee (results equal the outputs).
struct Arity {
  StringRef base;
  unsigned inputs;
  SmallVector<unsigned, 2> outputs;
};
const Arity kArities[] = {
    {"ConvOp", 2, {1}},
    {"ConvBackwardDataOp", 2, {1}},
    {"ConvBackwardFilterOp", 2, {1}},
    {"BatchNormTrainingOp", 3, {1, 3}},
    {"BatchNormGradOp", 3, {3}},
    {"PoolMaxOp", 1, {1}},
    {"PoolMaxGradOp", 2, {1}},
    {"ReduceSumOp", 1, {1}},
    {"ReduceMaxOp", 1, {1}},
    {"MatmulOp", 2, {1}},
};

/// Checks the call's shape (operand counts, static ranked tensors, the
/// dtypes its callee name spells) and returns it.
FailureOr<Call> readCall(Operation *op) {
  auto callee = op->getAttrOfType<StringAttr>("callee");
  if (!callee) {
    op->emitError() << "byre.compute_on_tensor without a string 'callee' "
                       "attribute";
    return failure();
  }
  unsigned numInputs = op->getNumOperands() - op->getNumResults();
  if (auto segments =
          op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes")) {
    if (segments.size() != 2 || segments[0] < 0 || segments[1] < 0 ||
        unsigned(segments[0] + segments[1]) != op->getNumOperands()) {
      op->emitError() << "library call '" << callee.getValue()
                      << "': operandSegmentSizes must give the inputs and "
                         "outputs of its "
                      << op->getNumOperands() << " operands";
      return failure();
    }
    numInputs = segments[0];
    if (unsigned(segments[1]) != op->getNumResults()) {
      op->emitError() << "library call '" << callee.getValue()
                      << "': " << segments[1] << " outputs but "
                      << op->getNumResults() << " results";
      return failure();
    }
  } else if (op->getNumOperands() < op->getNumResults()) {
    op->emitError() << "library call '" << callee.getValue()
                    << "': fewer operands than results";
    return failure();
  }
  Call call(op, callee.getValue(), numInputs);
  const Arity *arity = llvm::find_if(
      kArities, [&](const Arity &a) { return a.base == call.base; });
  if (arity == std::end(kArities)) {
    InFlightDiagnostic diag = op->emitError()
                              << "no lowering for library call '"
                              << callee.getValue() << "' (known:";
    for (const Arity &known : kArities)
      diag << " " << known.base;
    diag << ")";
    return failure();
  }
  if (numInputs != arity->inputs ||
      !llvm::is_contained(arity->outputs, op->getNumResults())) {
    InFlightDiagnostic diag =
        call.error() << numInputs << " inputs and " << op->getNumResults()
                     << " outputs, expected " << arity->inputs << " and ";
    llvm::interleave(arity->outputs, diag, " or ");
    return failure();
  }
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults())) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape()) {
      call.error() << "every operand and result must be a tensor of static "
                      "shape, not "
                   << v.getType();
      return failure();
    }
  }
  // "<Base>_<input dtypes>_<output dtypes>", e.g. BatchNormGradOp_f16f32f16_
  // f16f32f32: when the name spells them, they must be the operands'.
  SmallVector<StringRef> parts;
  callee.getValue().split(parts, '_');
  if (parts.size() == 3) {
    std::string ins, outs;
    for (unsigned i = 0; i < numInputs; ++i)
      ins += dtypeName(elementOf(op->getOperand(i)));
    for (Value r : op->getResults())
      outs += dtypeName(elementOf(r));
    if (parts[1] != ins || parts[2] != outs) {
      call.error() << "the callee's name says " << parts[1] << " in, "
                   << parts[2] << " out, but the operands are " << ins
                   << " in, " << outs << " out";
      return failure();
    }
  }
  return call;
}

FailureOr<SmallVector<Value>> lower(const Call &call) {
  Emitter e(call.op);
  StringRef base = call.base;
  if (failed(call.expectFloats(/*integers=*/base == "ReduceSumOp" ||
                               base == "ReduceMaxOp")))
    return failure();
  if (base == "ConvOp")
    return lowerConv(e, call);
  if (base == "ConvBackwardDataOp")
    return lowerConvBackwardData(e, call);
  if (base == "ConvBackwardFilterOp")
    return lowerConvBackwardFilter(e, call);
  if (base == "BatchNormTrainingOp")
    return lowerBatchNormTraining(e, call);
  if (base == "BatchNormGradOp")
    return lowerBatchNormGrad(e, call);
  if (base == "PoolMaxOp")
    return lowerPoolMax(e, call);
  if (base == "PoolMaxGradOp")
    return lowerPoolMaxGrad(e, call);
  if (base == "MatmulOp")
    return lowerMatmul(e, call);
  return lowerReduce(e, call, /*isMax=*/base == "ReduceMaxOp");
}

struct LowerLibraryCallsPass
    : public hwagent::impl::LowerLibraryCallsBase<LowerLibraryCallsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> calls;
    bool failedAny = false;
    getOperation()->walk([&](Operation *op) {
      if (op->getName().getStringRef() == kComputeOnTensor) {
        calls.push_back(op);
      } else if (!op->isRegistered()) {
        op->emitError() << "'" << op->getName()
                        << "' belongs to no registered dialect: hwagent cannot "
                           "compile it (of unregistered ops, only ByteIR's "
                           "byre.compute_on_tensor library calls are lowered; "
                           "docs/byteir.md)";
        failedAny = true;
      }
    });
    for (Operation *op : calls) {
      FailureOr<Call> call = readCall(op);
      FailureOr<SmallVector<Value>> results = failure();
      if (succeeded(call))
        results = lower(*call);
      if (failed(results)) {
        failedAny = true;
        continue;
      }
      // The outputs are destinations only (tensor.empty in ByteIR's code):
      // drop them once nothing else reads them.
      SmallVector<Value> outputs(op->getOperands().drop_front(call->numInputs));
      op->replaceAllUsesWith(*results);
      op->erase();
      llvm::SmallPtrSet<Operation *, 4> destinations;
      for (Value v : outputs)
        if (auto empty = v.getDefiningOp<tensor::EmptyOp>())
          destinations.insert(empty);
      for (Operation *def : destinations)
        if (def->use_empty())
          def->erase();
      ++numLowered;
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
