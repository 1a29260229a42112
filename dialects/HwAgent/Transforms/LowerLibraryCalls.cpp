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

#include "LibraryCalls.h"

#include <limits>

namespace mlir::hwagent {
#define GEN_PASS_DEF_LOWERLIBRARYCALLS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent::libcall;

namespace {

constexpr StringLiteral kComputeOnTensor = "byre.compute_on_tensor";

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
