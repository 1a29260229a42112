//===- LowerToLLVM.cpp - the hwagent-lower-to-llvm pipeline ---------------===//
//
// From hwagent-free tensor code (after hwagent-lower-to-runtime) to the LLVM
// dialect: elementwise and TOSA to linalg, one-shot bufferization with
// function boundaries (loop-carried buffers allowed: the LSTM), ownership-
// based deallocation, large contractions as calls of the runtime's packed
// SGEMM kernel (hwagent-linalg-to-kernels), the rest as loops (the large
// parallel ones run on the runtime's threads: hwagent-outline-parallel-loops),
// then the LLVM dialect (docs/building.md, docs/cpu-backend.md).
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

std::string
hwagent::getBufferLoweringPipeline(const LowerToLLVMOptions &options) {
  int64_t kernelMinFlops = options.kernelMinFlops;
  int64_t parallelMinWork = options.parallelMinWork;
  std::string kernels = kernelMinFlops < 0
                            ? std::string()
                            : "hwagent-linalg-to-kernels{min-flops=" +
                                  std::to_string(kernelMinFlops) + "}, ";
  // Reductions are marked for the vectorizer once their loops are ordered
  // and before they become loops (docs/cpu-backend.md, "Reductions").
  std::string loops = "func.func(hwagent-order-loops, ";
  if (options.reassociateReductions)
    loops += "hwagent-reassociate-reductions, ";
  if (options.mergeParallelLoops)
    loops += "hwagent-merge-parallel-loops, ";
  if (parallelMinWork < 0) {
    loops += "convert-linalg-to-loops), hwagent-outline-chunks, "
             "func.func(hwagent-split-long-blocks), ";
  } else {
    loops += "convert-linalg-to-parallel-loops), hwagent-outline-chunks, "
             "func.func(hwagent-split-long-blocks), "
             "hwagent-outline-parallel-loops{min-work=" +
             std::to_string(parallelMinWork) + "}, ";
  }
  return kernels + "hwagent-expand-strided-copies, hwagent-share-loop-nests, " +
         loops +
         "expand-strided-metadata, "
         "lower-affine, convert-scf-to-cf, convert-vector-to-llvm, "
         "finalize-memref-to-llvm{use-generic-functions}, "
         "convert-math-to-llvm, "
         "convert-arith-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, "
         "convert-index-to-llvm, reconcile-unrealized-casts, "
         "hwagent-emit-invokers, hwagent-define-parallel-dispatch";
}

void hwagent::buildLowerToLLVMPipeline(OpPassManager &pm,
                                       const LowerToLLVMOptions &options) {
  // Deallocation is MLIR's buffer-deallocation-pipeline without
  // buffer-deallocation-simplification: its alias queries grow faster than
  // the function (70 of 87 s of an imported MobileNetV2's lowering); the
  // runtime ownership checks it would have folded are integer code that the
  // JIT compiles on its fast path (Driver/Jit.cpp) and cost no measurable
  // step time (docs/importer.md, "Start-up").
  std::string pipeline =
      "hwagent-lower-library-calls, "
      "func.func(convert-elementwise-to-linalg, tosa-to-linalg-named, "
      "tosa-to-linalg, tosa-to-arith, tosa-to-tensor, "
      "hwagent-fuse-elementwise, "
      "hwagent-fresh-outputs), "
      "hwagent-approximate-math, "
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map "
      "allow-return-allocs-from-loops}, "
      "expand-realloc{emit-deallocs=false}, canonicalize, "
      "ownership-based-buffer-deallocation, canonicalize, "
      "bufferization-lower-deallocations, cse, canonicalize, "
      "convert-bufferization-to-memref, " +
      getBufferLoweringPipeline(options);
  // The pipeline is a constant of this file: failing to parse it is a bug.
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("hwagent-lower-to-llvm: bad built-in pipeline");
}

void hwagent::registerLowerToLLVMPipeline() {
  registerConvertLinalgToLoopsPass();
  registerLowerLibraryCalls();
  registerConvertLinalgToParallelLoopsPass();
  registerOutlineParallelLoops();
  registerOrderLoops();
  registerReassociateReductions();
  registerMergeParallelLoops();
  registerFuseElementwise();
  registerApproximateMath();
  registerDefineParallelDispatch();
  registerLowerAffinePass();
  registerSCFToControlFlowPass();
  registerConvertVectorToLLVMPass();
  registerLinalgToKernels();
  registerFreshOutputs();
  registerSplitLongBlocks();
  registerOutlineChunks();
  registerShareLoopNests();
  registerExpandStridedCopies();
  registerEmitInvokers();
  memref::registerExpandStridedMetadataPass();
  registerFinalizeMemRefToLLVMConversionPass();
  registerConvertMathToLLVMPass();
  registerArithToLLVMConversionPass();
  registerConvertControlFlowToLLVMPass();
  registerConvertFuncToLLVMPass();
  registerConvertIndexToLLVMPass();
  registerReconcileUnrealizedCastsPass();
  registerConvertElementwiseToLinalgPass();
  registerConvertBufferizationToMemRefPass();
  registerTosaToLinalgNamed();
  registerTosaToLinalg();
  registerTosaToArithPass();
  registerTosaToTensorPass();
  bufferization::registerOneShotBufferizePass();
  bufferization::registerBufferizationPipelines();
  memref::registerExpandReallocPass();
  bufferization::registerOwnershipBasedBufferDeallocationPass();
  bufferization::registerLowerDeallocationsPass();
  registerCanonicalizerPass();
  registerCSEPass();
  PassPipelineRegistration<LowerToLLVMOptions>(
      "hwagent-lower-to-llvm",
      "Bufferize and lower hwagent-free tensor code to the LLVM dialect "
      "(after hwagent-lower-to-runtime)",
      buildLowerToLLVMPipeline);
}
