//===- LibraryCalls.h - Lowering ByteIR library calls, shared parts -*- C++
//-*-===//
//
// What the files of hwagent-lower-library-calls share (LowerLibraryCalls.cpp
// reads and dispatches the calls; LibraryCallsConv.cpp, LibraryCallsNorm.cpp
// and LibraryCallsPool.cpp lower them): the tensor-code emitter, one call's
// operands and errors, and the lowering of each callee.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TRANSFORMS_LIBRARYCALLS_H
#define HWAGENT_TRANSFORMS_LIBRARYCALLS_H

#include "HwAgent/Transforms/Passes.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <numeric>
#include <string>

namespace mlir::hwagent::libcall {

using Shape = SmallVector<int64_t>;
using utils::IteratorType;

inline ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}
inline Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}
inline int64_t product(ArrayRef<int64_t> values) {
  return std::accumulate(values.begin(), values.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// The short dtype name ByteIR's callee suffixes use ("f16", "f32", "i64").
inline std::string dtypeName(Type t) {
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
inline Type computeType(Type t) {
  return t.isF64() ? t : Float32Type::get(t.getContext());
}

/// A scalar cast between float types (or nothing when they agree).
inline Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
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

/// The row of the padded input that output loop `o` and window loop `k`
/// read.
inline AffineExpr windowRow(Emitter &e, unsigned o, unsigned k, int64_t stride,
                            int64_t dilation) {
  return e.dim(o) * stride + e.dim(k) * dilation;
}

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

// The lowering of each callee: the call's results, or failure after an
// error on the call.
FailureOr<SmallVector<Value>> lowerConv(Emitter &e, const Call &call);
FailureOr<SmallVector<Value>> lowerConvBackwardData(Emitter &e,
                                                    const Call &call);
FailureOr<SmallVector<Value>> lowerConvBackwardFilter(Emitter &e,
                                                      const Call &call);
FailureOr<SmallVector<Value>> lowerBatchNormTraining(Emitter &e,
                                                     const Call &call);
FailureOr<SmallVector<Value>> lowerBatchNormGrad(Emitter &e, const Call &call);
FailureOr<SmallVector<Value>> lowerPoolMax(Emitter &e, const Call &call);
FailureOr<SmallVector<Value>> lowerPoolMaxGrad(Emitter &e, const Call &call);
FailureOr<SmallVector<Value>> lowerReduce(Emitter &e, const Call &call,
                                          bool isMax);
FailureOr<SmallVector<Value>> lowerMatmul(Emitter &e, const Call &call);

} // namespace mlir::hwagent::libcall

#endif // HWAGENT_TRANSFORMS_LIBRARYCALLS_H
