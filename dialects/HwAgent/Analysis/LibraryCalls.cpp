//===- LibraryCalls.cpp - the work of opaque library calls ----------------===//
//
// What an op the profiler cannot see into costs: ByteIR's
// byre.compute_on_tensor and similar library calls, estimated from their
// callee's name and operand shapes (WorkloadProfiler::getOpWork asks).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "HwAgent/Analysis/FeatureModels.h"
#include "HwAgent/Analysis/Utils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::hwagent;

static int64_t extent(Value value, unsigned index) {
  auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
  if (!type || index >= type.getRank() || type.isDynamicDim(index))
    return 1;
  return type.getDimSize(index);
}

static int64_t elementsOf(Value value) {
  return value ? countElements(value.getType()) : 0;
}

/// Kernel taps per output element of a filter laid out [F, C/groups, ...].
static int64_t filterTaps(Value filter) {
  int64_t outChannels = extent(filter, 0);
  return outChannels ? elementsOf(filter) / outChannels : 0;
}

static int64_t productOf(Attribute attr) {
  int64_t result = 1;
  if (auto dense = dyn_cast_or_null<DenseIntElementsAttr>(attr))
    for (const APInt &v : dense.getValues<APInt>())
      result *= v.getSExtValue();
  return result;
}

/// Estimates a library call from its callee name (up to the first '_') and
/// operand shapes; the formulas are documented in docs/features.md.
std::optional<OpWork> hwagent::detail::estimateLibraryCall(Operation *op) {
  auto callee = op->getAttrOfType<StringAttr>("callee");
  if (!callee)
    return std::nullopt;
  StringRef base = callee.getValue().split('_').first;
  unsigned numInputs = op->getNumOperands();
  if (auto segments =
          op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
      segments && !segments.empty())
    numInputs = std::min<unsigned>(segments[0], op->getNumOperands());
  auto in = [&](unsigned i) -> Value {
    return i < numInputs ? op->getOperand(i) : Value();
  };
  auto out = [&](unsigned i) -> Value {
    return i < op->getNumResults() ? op->getResult(i) : Value();
  };
  auto groups = op->getAttrOfType<IntegerAttr>("feature_group_count");
  OpKind convKind =
      groups && groups.getInt() > 1 ? OpKind::depthwise : OpKind::conv;

  OpWork work;
  if (base == "ConvOp") {
    work.kind = convKind;
    work.flops = 2 * elementsOf(out(0)) * filterTaps(in(1));
    work.weightOperands = {1};
  } else if (base == "ConvBackwardDataOp") {
    work.kind = convKind;
    work.flops = 2 * elementsOf(in(0)) * filterTaps(in(1));
    work.weightOperands = {1};
  } else if (base == "ConvBackwardFilterOp") {
    work.kind = convKind;
    work.flops = 2 * elementsOf(in(1)) * filterTaps(out(0));
  } else if (base == "MatmulOp") {
    auto contracting =
        op->getAttrOfType<IntegerAttr>("lhs_contracting_dimension");
    int64_t k = extent(in(0), contracting ? contracting.getInt() : 1);
    work.kind = OpKind::matmul;
    work.flops = 2 * elementsOf(out(0)) * k;
    work.weightOperands = {1};
  } else if (base == "BatchNormTrainingOp") {
    work.kind = OpKind::normalization;
    work.flops = 8 * elementsOf(in(0));
  } else if (base == "BatchNormGradOp") {
    work.kind = OpKind::normalization;
    work.flops = 10 * elementsOf(in(0));
  } else if (base == "PoolMaxOp" || base == "PoolAvgOp") {
    work.kind = OpKind::pooling;
    work.flops =
        elementsOf(out(0)) * productOf(op->getAttr("window_dimensions"));
  } else if (base == "PoolMaxGradOp") {
    work.kind = OpKind::pooling;
    work.flops =
        elementsOf(in(1)) * (productOf(op->getAttr("window_dimensions")) + 1);
  } else if (base == "ReduceSumOp" || base == "ReduceMaxOp" ||
             base == "ReduceMinOp" || base == "ReduceProdOp") {
    work.kind = OpKind::reduction;
    work.flops = elementsOf(in(0));
  } else {
    return std::nullopt;
  }
  work.histogram[static_cast<unsigned>(work.kind)] = 1;
  return work;
}
