//===- FoldConstants.cpp - small constant computations as constants -------===//
//
// Before regions are formed: a linalg.generic that computes a small
// constant from splat constants (torch-mlir's hardswish writes 3 and 6 as
// i64 scalars converted to f32) becomes an arith.constant, so that no
// region and no program boundary exists only because of a constant. A
// constant may be written as a dense splat, a `linalg.fill` of a constant
// scalar (torch-mlir's relu6 and hardswish bounds: 0-d f64 fills truncated
// to f32), a `tensor.splat` of one, or a `linalg.broadcast` of any of these.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/RegionFormation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::hwagent;

/// Results of more elements are left alone: folding them would write a
/// large constant into the binary for what the step computes in no time.
static constexpr int64_t kMaxFoldedElements = 64;

/// The scalar every element of `value` holds when it is a constant: a
/// scalar constant, a dense splat, a fill or `tensor.splat` of a constant
/// scalar, or a broadcast of such a tensor; null otherwise.
static Attribute splatValue(Value value) {
  Attribute constant;
  if (matchPattern(value, m_Constant(&constant))) {
    if (auto elements = dyn_cast<DenseElementsAttr>(constant))
      return elements.isSplat() ? elements.getSplatValue<Attribute>()
                                : Attribute();
    return isa<ShapedType>(value.getType()) ? Attribute() : constant;
  }
  Operation *def = value.getDefiningOp();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    if (!fill.hasPureTensorSemantics() || fill.getInputs().size() != 1 ||
        isa<ShapedType>(fill.getInputs()[0].getType()))
      return {};
    return splatValue(fill.getInputs()[0]);
  }
  if (auto splat = dyn_cast_or_null<tensor::SplatOp>(def))
    return splatValue(splat.getInput());
  if (auto broadcast = dyn_cast_or_null<linalg::BroadcastOp>(def))
    return broadcast.hasPureTensorSemantics() ? splatValue(broadcast.getInput())
                                              : Attribute();
  return {};
}

/// A small static tensor of one constant value written as a `tensor.splat`
/// or a broadcast, as a splat constant; null otherwise. A fill of a constant
/// stays: it is already a leaf that form-regions clones into its users (an
/// accumulator's initializer), and generics fold through it.
static DenseElementsAttr foldSplatOp(Operation *op) {
  if (!isa<tensor::SplatOp, linalg::BroadcastOp>(op) ||
      op->getNumResults() != 1)
    return {};
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  auto scalar = dyn_cast_or_null<TypedAttr>(splatValue(op->getResult(0)));
  if (!scalar || scalar.getType() != type.getElementType())
    return {};
  return DenseElementsAttr::get(type, scalar);
}

/// The constant a linalg.generic computes when each input is a splat
/// constant (a 0-d scalar included) and its body is scalar arithmetic that
/// folds, as a splat of its result type; null otherwise.
static DenseElementsAttr foldSplatGeneric(linalg::GenericOp op) {
  if (op.getNumResults() != 1 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics())
    return {};
  auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  Block &body = op.getRegion().front();
  // The body may not read the init (a reduction or an update in place).
  if (op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return {};
  llvm::DenseMap<Value, Attribute> known;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Attribute value = splatValue(input->get());
    if (!value)
      return {};
    known[body.getArgument(input->getOperandNumber())] = value;
  }
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumResults() != 1 || inner.getNumRegions() != 0 ||
        !isMemoryEffectFree(&inner))
      return {};
    SmallVector<Attribute> operands;
    for (Value operand : inner.getOperands()) {
      Attribute value = known.lookup(operand);
      if (!value && !matchPattern(operand, m_Constant(&value)))
        return {};
      operands.push_back(value);
    }
    SmallVector<OpFoldResult> folded;
    if (failed(inner.fold(operands, folded)) || folded.size() != 1)
      return {};
    Attribute value = dyn_cast<Attribute>(folded.front());
    if (!value) // folded to one of its operands
      value = known.lookup(cast<Value>(folded.front()));
    if (!value)
      return {};
    known[inner.getResult(0)] = value;
  }
  Value yielded = body.getTerminator()->getOperand(0);
  auto scalar = dyn_cast_or_null<TypedAttr>(known.lookup(yielded));
  if (!scalar || scalar.getType() != type.getElementType())
    return {};
  return DenseElementsAttr::get(type, scalar);
}

unsigned hwagent::foldConstantComputations(FunctionOpInterface function) {
  // In order, so that a splat or broadcast feeding a generic folds first.
  SmallVector<Operation *> candidates;
  function->walk([&](Operation *op) {
    if (isa<linalg::GenericOp, tensor::SplatOp, linalg::BroadcastOp>(op))
      candidates.push_back(op);
  });
  unsigned folded = 0;
  llvm::SmallPtrSet<Operation *, 8> erased;
  for (Operation *op : candidates) {
    if (erased.contains(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    DenseElementsAttr value =
        generic ? foldSplatGeneric(generic) : foldSplatOp(op);
    if (!value)
      continue;
    OpBuilder builder(op);
    Value constant =
        arith::ConstantOp::create(builder, op->getLoc(), value).getResult();
    op->getResult(0).replaceAllUsesWith(constant);
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        producers.push_back(def);
    op->erase();
    // What it read (constants, fills, empty inits), when nothing else
    // does, and what those read in turn.
    while (!producers.empty()) {
      Operation *def = producers.pop_back_val();
      if (erased.contains(def) || !def->use_empty() || !isMemoryEffectFree(def))
        continue;
      for (Value operand : def->getOperands())
        if (Operation *inner = operand.getDefiningOp())
          producers.push_back(inner);
      erased.insert(def);
      def->erase();
    }
    ++folded;
  }
  return folded;
}
