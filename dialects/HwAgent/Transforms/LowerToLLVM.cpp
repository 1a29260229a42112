//===- LowerToLLVM.cpp - the hwagent-lower-to-llvm pipeline ---------------===//
//
// From hwagent-free tensor code (after hwagent-lower-to-runtime) to the LLVM
// dialect: the pipeline of ../shared/design/TOOLCHAIN.md, plus elementwise
// and TOSA to linalg first, and loop-carried buffers allowed (the LSTM).
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"
#include "hwagent/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void hwagent::buildLowerToLLVMPipeline(OpPassManager &pm) {
  std::string pipeline =
      "func.func(convert-elementwise-to-linalg, tosa-to-linalg-named, "
      "tosa-to-linalg, tosa-to-arith, tosa-to-tensor), "
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map "
      "allow-return-allocs-from-loops}, "
      "buffer-deallocation-pipeline, convert-bufferization-to-memref, " +
      getBufferLoweringPipeline().str();
  (void)parsePassPipeline(pipeline, pm);
}

void hwagent::registerLowerToLLVMPipeline() {
  registerLoweringPasses();
  registerConvertElementwiseToLinalgPass();
  registerConvertBufferizationToMemRefPass();
  registerTosaToLinalgNamed();
  registerTosaToLinalg();
  registerTosaToArithPass();
  registerTosaToTensorPass();
  bufferization::registerOneShotBufferizePass();
  bufferization::registerBufferizationPipelines();
  PassPipelineRegistration<>(
      "hwagent-lower-to-llvm",
      "Bufferize and lower hwagent-free tensor code to the LLVM dialect "
      "(after hwagent-lower-to-runtime)",
      buildLowerToLLVMPipeline);
}
