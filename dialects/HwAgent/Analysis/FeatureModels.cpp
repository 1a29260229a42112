//===- FeatureModels.cpp - feature hooks for ops we do not own ------------===//
//
// Each dialect's ops get hwagent::FeatureOpInterface as an external model, so
// the profiler asks ops for their work instead of switching on op names.
// The conventions (what counts as a FLOP, which operand is a weight) are
// documented in docs/features.md; tests in
// test/Transforms/hwagent-profile*.mlir check them against hand counts.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Analysis/FeatureModels.h"

#include "HwAgent/IR/HwAgentInterfaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::hwagent;

int64_t hwagent::saturatingMul(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::numeric_limits<int64_t>::max();
  return result;
}

int64_t hwagent::saturatingAdd(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::numeric_limits<int64_t>::max();
  return result;
}

int64_t hwagent::countElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return 1;
  int64_t elements = 1;
  for (int64_t dim : shaped.getShape())
    elements = saturatingMul(elements, ShapedType::isDynamic(dim) ? 1 : dim);
  return elements;
}

int64_t hwagent::countBytes(Type type) {
  Type element = getElementTypeOrSelf(type);
  int64_t bits = 0;
  if (element.isIntOrFloat())
    bits = element.getIntOrFloatBitWidth();
  else if (element.isIndex())
    bits = 64;
  else if (auto complex = dyn_cast<ComplexType>(element);
           complex && complex.getElementType().isIntOrFloat())
    bits = 2 * complex.getElementType().getIntOrFloatBitWidth();
  return saturatingMul(countElements(type), (bits + 7) / 8);
}

/// Whether `op` does arithmetic in the sense of our FLOP count.
static bool isArithmetic(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() || isa<CastOpInterface>(op))
    return false;
  Dialect *dialect = op->getDialect();
  return isa_and_nonnull<arith::ArithDialect, math::MathDialect>(dialect);
}

int64_t hwagent::countPayloadFlops(Region &payload) {
  int64_t flops = 0;
  payload.walk([&](Operation *op) {
    if (isArithmetic(op))
      ++flops;
  });
  return flops;
}

/// Whether the payload contains a square root (the signature of a
/// normalization: batch/layer norm compute 1/sqrt(var + eps)).
static bool hasSquareRoot(Region &payload) {
  bool found = false;
  payload.walk([&](Operation *op) {
    if (isa<math::RsqrtOp, math::SqrtOp>(op))
      found = true;
  });
  return found;
}

static bool hasMultiply(Region &payload) {
  bool found = false;
  payload.walk([&](Operation *op) {
    if (isa<arith::MulFOp, arith::MulIOp>(op))
      found = true;
  });
  return found;
}

//===----------------------------------------------------------------------===//
// linalg
//===----------------------------------------------------------------------===//

/// Inputs of a structured op. linalg.generic answers from its properties;
/// DestinationStyleOpInterface's accessors build the operand-segment
/// attribute on every call, which costs more than the classification.
static unsigned countInputs(linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic.getInputs().size();
  return op.getNumDpsInputs();
}

static OpKind classifyLinalg(linalg::LinalgOp op) {
  Region &payload = op->getRegion(0);
  if (isa<linalg::FillOp, linalg::CopyOp, linalg::TransposeOp,
          linalg::BroadcastOp>(op.getOperation()))
    return OpKind::data_movement;
  // Named contractions are contractions whatever their maps (the quantized
  // ones read zero points as two more inputs).
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::BatchReduceMatmulOp,
          linalg::MatvecOp, linalg::VecmatOp, linalg::BatchMatvecOp,
          linalg::DotOp, linalg::ContractOp, linalg::QuantizedMatmulOp,
          linalg::QuantizedBatchMatmulOp>(op.getOperation()))
    return OpKind::matmul;
  // Contractions and convolutions (pooling included) reduce over at least
  // one loop and read two operands; checking that first keeps the costly
  // map analyses below off the elementwise ops that make up most graphs.
  bool reduces = op.getNumReductionLoops() > 0;
  if (reduces && countInputs(op) == 2) {
    if (linalg::isaContractionOpInterface(op))
      return OpKind::matmul;
    if (FailureOr<linalg::ConvolutionDimensions> dims =
            linalg::inferConvolutionDims(op);
        succeeded(dims)) {
      if (!hasMultiply(payload))
        return OpKind::pooling;
      if (dims->inputChannel.empty() && !dims->depth.empty())
        return OpKind::depthwise;
      return OpKind::conv;
    }
  }
  bool arithmetic = countPayloadFlops(payload) > 0;
  if (hasSquareRoot(payload))
    return OpKind::normalization;
  if (reduces)
    return OpKind::reduction;
  return arithmetic ? OpKind::elementwise : OpKind::data_movement;
}

/// LinalgOp::getStaticLoopRanges read off the indexing maps directly: each
/// loop takes the size of the first operand dimension it indexes bare (which
/// is what inverting the concatenated maps picks). Loops only reached through
/// compound expressions (convolution windows) take the general path, which
/// composes affine maps in the context.
static SmallVector<int64_t> staticLoopRanges(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> ranges(numLoops, ShapedType::kDynamic);
  SmallVector<bool> known(numLoops, false);
  unsigned numKnown = 0;
  for (auto [operand, map] :
       llvm::zip(op->getOperands(), op.getIndexingMapsArray())) {
    ArrayRef<int64_t> shape;
    if (auto shaped = dyn_cast<ShapedType>(operand.getType());
        shaped && shaped.hasRank())
      shape = shaped.getShape();
    if (shape.size() != map.getNumResults())
      continue;
    for (auto [dim, expr] : llvm::enumerate(map.getResults()))
      if (auto loop = dyn_cast<AffineDimExpr>(expr);
          loop && loop.getPosition() < numLoops && !known[loop.getPosition()]) {
        known[loop.getPosition()] = true;
        ranges[loop.getPosition()] = shape[dim];
        ++numKnown;
      }
  }
  if (numKnown != numLoops)
    return op.getStaticLoopRanges();
  return ranges;
}

namespace {
template <typename OpT>
struct LinalgStructuredModel
    : public FeatureOpInterface::ExternalModel<LinalgStructuredModel<OpT>,
                                               OpT> {
  OpKind getOpKind(Operation *op) const {
    return classifyLinalg(cast<linalg::LinalgOp>(op));
  }
  int64_t getFlopCount(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    int64_t perPoint = countPayloadFlops(op->getRegion(0));
    if (perPoint == 0)
      return 0;
    int64_t points = 1;
    for (int64_t range : staticLoopRanges(linalgOp))
      points = saturatingMul(points, ShapedType::isDynamic(range) ? 1 : range);
    return saturatingMul(points, perPoint);
  }
  SmallVector<unsigned> getWeightOperandIndices(Operation *op) const {
    switch (getOpKind(op)) {
    case OpKind::conv:
    case OpKind::depthwise:
    case OpKind::matmul:
      return {1};
    default:
      return {};
    }
  }
};

/// linalg.softmax is not a structured op: max, subtract, exp, sum and divide
/// per element, 5 FLOPs.
struct SoftmaxModel
    : public FeatureOpInterface::ExternalModel<SoftmaxModel,
                                               linalg::SoftmaxOp> {
  OpKind getOpKind(Operation *) const { return OpKind::normalization; }
  int64_t getFlopCount(Operation *op) const {
    return saturatingMul(5, countElements(op->getResult(0).getType()));
  }
};

/// pack/unpack only move data.
template <typename OpT>
struct DataMovementModel
    : public FeatureOpInterface::ExternalModel<DataMovementModel<OpT>, OpT> {
  OpKind getOpKind(Operation *) const { return OpKind::data_movement; }
  int64_t getFlopCount(Operation *) const { return 0; }
};

template <typename... OpTs> void attachLinalgStructured(MLIRContext *ctx) {
  (OpTs::template attachInterface<LinalgStructuredModel<OpTs>>(*ctx), ...);
}

template <typename... OpTs> void attachDataMovement(MLIRContext *ctx) {
  (OpTs::template attachInterface<DataMovementModel<OpTs>>(*ctx), ...);
}
} // namespace

//===----------------------------------------------------------------------===//
// tosa (TOSA 1.0 operand layouts)
//===----------------------------------------------------------------------===//

static int64_t dim(Value value, unsigned index) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || index >= type.getRank() || type.isDynamicDim(index))
    return 1;
  return type.getDimSize(index);
}

static int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values)
    result = saturatingMul(result, v);
  return result;
}

static OpKind classifyTosa(Operation *op) {
  return TypeSwitch<Operation *, OpKind>(op)
      .Case<tosa::Conv2DOp, tosa::Conv3DOp, tosa::TransposeConv2DOp>(
          [](auto) { return OpKind::conv; })
      .Case<tosa::DepthwiseConv2DOp>([](auto) { return OpKind::depthwise; })
      .Case<tosa::MatMulOp, tosa::MatmulTBlockScaledOp>(
          [](auto) { return OpKind::matmul; })
      .Case<tosa::AvgPool2dOp, tosa::MaxPool2dOp>(
          [](auto) { return OpKind::pooling; })
      .Case<tosa::ReduceAllOp, tosa::ReduceAnyOp, tosa::ReduceMaxOp,
            tosa::ReduceMinOp, tosa::ReduceProductOp, tosa::ReduceSumOp,
            tosa::ArgMaxOp>([](auto) { return OpKind::reduction; })
      .Case<tosa::ReshapeOp, tosa::TransposeOp, tosa::ConcatOp, tosa::PadOp,
            tosa::SliceOp, tosa::TileOp, tosa::GatherOp, tosa::ScatterOp,
            tosa::ReverseOp, tosa::IdentityOp, tosa::ResizeOp, tosa::ConstOp,
            tosa::ConstShapeOp, tosa::DimOp>(
          [](auto) { return OpKind::data_movement; })
      .Case<tosa::WhileOp, tosa::IfOp, tosa::YieldOp>(
          [](auto) { return OpKind::control_flow; })
      .Case<tosa::CustomOp, tosa::FFT2dOp, tosa::RFFT2dOp, tosa::VariableOp,
            tosa::VariableReadOp, tosa::VariableWriteOp>(
          [](auto) { return OpKind::opaque; })
      .Default([](Operation *op) {
        // Shape arithmetic on !tosa.shape values is bookkeeping.
        if (op->getNumResults() == 1 &&
            isa<tosa::shapeType>(op->getResult(0).getType()))
          return OpKind::data_movement;
        return OpKind::elementwise;
      });
}

int64_t mlir::hwagent::winogradEligibleFlops(Operation *op, int64_t flops) {
  auto unit = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v == 1; });
  };
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op)) {
    Value w = conv.getWeight(); // [O, KH, KW, I]
    bool eligible = dim(w, 1) == 3 && dim(w, 2) == 3 && dim(w, 3) > 1 &&
                    unit(conv.getStride()) && unit(conv.getDilation());
    return eligible ? flops : 0;
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 0;
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(linalgOp);
  if (failed(dims) || dims->filterLoop.size() != 2 ||
      dims->inputChannel.empty() || !unit(dims->strides) ||
      !unit(dims->dilations))
    return 0;
  SmallVector<int64_t> ranges = staticLoopRanges(linalgOp);
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return 0;
  int64_t inputChannels = 1;
  for (unsigned loop : dims->inputChannel)
    inputChannels = saturatingMul(inputChannels, ranges[loop]);
  bool eligible =
      inputChannels > 1 && llvm::all_of(dims->filterLoop, [&](unsigned loop) {
        return ranges[loop] == 3;
      });
  return eligible ? flops : 0;
}

static int64_t tosaFlops(Operation *op) {
  auto outElements = [&] {
    return op->getNumResults() ? countElements(op->getResult(0).getType()) : 0;
  };
  return TypeSwitch<Operation *, int64_t>(op)
      // Multiply-add per output element and kernel tap, plus the bias add.
      .Case<tosa::Conv2DOp>([&](tosa::Conv2DOp conv) {
        Value w = conv.getWeight();
        return saturatingAdd(
            product({2, outElements(), dim(w, 1), dim(w, 2), dim(w, 3)}),
            outElements());
      })
      .Case<tosa::Conv3DOp>([&](tosa::Conv3DOp conv) {
        Value w = conv.getWeight();
        return saturatingAdd(product({2, outElements(), dim(w, 1), dim(w, 2),
                                      dim(w, 3), dim(w, 4)}),
                             outElements());
      })
      .Case<tosa::DepthwiseConv2DOp>([&](tosa::DepthwiseConv2DOp conv) {
        Value w = conv.getWeight();
        return saturatingAdd(product({2, outElements(), dim(w, 0), dim(w, 1)}),
                             outElements());
      })
      .Case<tosa::TransposeConv2DOp>([&](tosa::TransposeConv2DOp conv) {
        // Every input element meets every filter tap of every output channel.
        Value in = conv.getInput(), w = conv.getWeight();
        return saturatingAdd(product({2, countElements(in.getType()), dim(w, 0),
                                      dim(w, 1), dim(w, 2)}),
                             outElements());
      })
      .Case<tosa::MatMulOp>([&](tosa::MatMulOp matmul) {
        return product({2, outElements(), dim(matmul.getA(), 2)});
      })
      .Case<tosa::AvgPool2dOp>([&](tosa::AvgPool2dOp pool) {
        return saturatingAdd(
            saturatingMul(outElements(), product(pool.getKernel())),
            outElements());
      })
      .Case<tosa::MaxPool2dOp>([&](tosa::MaxPool2dOp pool) {
        return saturatingMul(outElements(), product(pool.getKernel()));
      })
      .Case<tosa::ReduceAllOp, tosa::ReduceAnyOp, tosa::ReduceMaxOp,
            tosa::ReduceMinOp, tosa::ReduceProductOp, tosa::ReduceSumOp,
            tosa::ArgMaxOp>([&](Operation *reduce) {
        return countElements(reduce->getOperand(0).getType());
      })
      .Case<tosa::CastOp>([](auto) { return 0; })
      .Default([&](Operation *other) -> int64_t {
        OpKind kind = classifyTosa(other);
        return kind == OpKind::elementwise ? outElements() : 0;
      });
}

namespace {
template <typename OpT>
struct TosaModel
    : public FeatureOpInterface::ExternalModel<TosaModel<OpT>, OpT> {
  OpKind getOpKind(Operation *op) const { return classifyTosa(op); }
  int64_t getFlopCount(Operation *op) const { return tosaFlops(op); }
  SmallVector<unsigned> getWeightOperandIndices(Operation *op) const {
    switch (classifyTosa(op)) {
    case OpKind::conv:
    case OpKind::depthwise:
    case OpKind::matmul:
      return {1};
    default:
      return {};
    }
  }
};

template <typename... OpTs> void attachTosa(MLIRContext *ctx) {
  (OpTs::template attachInterface<TosaModel<OpTs>>(*ctx), ...);
}

//===----------------------------------------------------------------------===//
// arith / math: elementwise on scalars or tensors
//===----------------------------------------------------------------------===//

template <typename OpT>
struct ElementwiseModel
    : public FeatureOpInterface::ExternalModel<ElementwiseModel<OpT>, OpT> {
  OpKind getOpKind(Operation *) const { return OpKind::elementwise; }
  int64_t getFlopCount(Operation *op) const {
    // Scalar arithmetic outside a payload is host bookkeeping (index and
    // flag computations), not work a backend is dispatched for.
    if (!isArithmetic(op) || op->getNumResults() == 0 ||
        !isa<ShapedType>(op->getResult(0).getType()))
      return 0;
    return countElements(op->getResult(0).getType());
  }
};

template <typename... OpTs> void attachElementwise(MLIRContext *ctx) {
  (OpTs::template attachInterface<ElementwiseModel<OpTs>>(*ctx), ...);
}

//===----------------------------------------------------------------------===//
// scf / cf: control flow, FLOPs of the bodies times static trip counts
//===----------------------------------------------------------------------===//

/// FLOPs of the ops directly in `region` (nested bodies are counted by their
/// parent ops' own models).
int64_t regionFlops(Region &region) {
  int64_t flops = 0;
  for (Block &block : region)
    for (Operation &op : block)
      if (auto feature = dyn_cast<FeatureOpInterface>(&op))
        flops = saturatingAdd(flops, feature.getFlopCount());
  return flops;
}

template <typename OpT>
struct ControlFlowModel
    : public FeatureOpInterface::ExternalModel<ControlFlowModel<OpT>, OpT> {
  OpKind getOpKind(Operation *) const { return OpKind::control_flow; }
  int64_t getFlopCount(Operation *op) const {
    int64_t flops = 0;
    if constexpr (std::is_same_v<OpT, scf::IfOp>) {
      // The more expensive branch.
      for (Region &region : op->getRegions())
        flops = std::max(flops, regionFlops(region));
      return flops;
    } else {
      for (Region &region : op->getRegions())
        flops = saturatingAdd(flops, regionFlops(region));
      int64_t trips = 1;
      if (auto loop = dyn_cast<LoopLikeOpInterface>(op))
        if (std::optional<APInt> count = loop.getStaticTripCount())
          trips = std::max<int64_t>(count->getSExtValue(), 0);
      return saturatingMul(flops, trips);
    }
  }
};

template <typename... OpTs> void attachControlFlow(MLIRContext *ctx) {
  (OpTs::template attachInterface<ControlFlowModel<OpTs>>(*ctx), ...);
}
} // namespace

void hwagent::registerFeatureExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachLinalgStructured<linalg::GenericOp,
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
                           >(ctx);
    linalg::SoftmaxOp::attachInterface<SoftmaxModel>(*ctx);
    attachDataMovement<linalg::PackOp, linalg::UnPackOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    attachTosa<
#define GET_OP_LIST
#include "mlir/Dialect/Tosa/IR/TosaOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attachDataMovement<
#define GET_OP_LIST
#include "mlir/Dialect/Tensor/IR/TensorOps.cpp.inc"
        >(ctx);
  });
  // Buffers: allocation, copies, views and the tensor/buffer boundary only
  // move (or reserve) data.
  registry.addExtension(+[](MLIRContext *ctx, memref::MemRefDialect *) {
    attachDataMovement<
#define GET_OP_LIST
#include "mlir/Dialect/MemRef/IR/MemRefOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(
      +[](MLIRContext *ctx, bufferization::BufferizationDialect *) {
        attachDataMovement<
#define GET_OP_LIST
#include "mlir/Dialect/Bufferization/IR/BufferizationOps.cpp.inc"
            >(ctx);
      });
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    attachControlFlow<scf::ForOp, scf::WhileOp, scf::IfOp, scf::ForallOp,
                      scf::ParallelOp, scf::IndexSwitchOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, cf::ControlFlowDialect *) {
    attachControlFlow<cf::BranchOp, cf::CondBranchOp, cf::SwitchOp,
                      cf::AssertOp>(ctx);
  });
}
