//===- Pipelines.cpp - lowering pipelines to LLVM -------------------------===//

#include "hwagent/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void hwagent::registerLoweringPasses() {
  registerConvertLinalgToLoopsPass();
  registerLowerAffinePass();
  registerSCFToControlFlowPass();
  memref::registerExpandStridedMetadataPass();
  registerFinalizeMemRefToLLVMConversionPass();
  registerConvertMathToLLVMPass();
  registerArithToLLVMConversionPass();
  registerConvertControlFlowToLLVMPass();
  registerConvertFuncToLLVMPass();
  registerConvertIndexToLLVMPass();
  registerReconcileUnrealizedCastsPass();
}

StringRef hwagent::getBufferLoweringPipeline() {
  return "func.func(convert-linalg-to-loops), expand-strided-metadata, "
         "lower-affine, convert-scf-to-cf, "
         "finalize-memref-to-llvm, convert-math-to-llvm, "
         "convert-arith-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, "
         "convert-index-to-llvm, reconcile-unrealized-casts";
}

LogicalResult hwagent::runPipeline(ModuleOp module, StringRef pipeline) {
  PassManager pm(module->getName());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return module.emitError() << "invalid pipeline: " << error;
  return pm.run(module);
}
