//===- InitAll.cpp - register what hwagent tools parse and run ------------===//

#include "Driver/InitAll.h"

#include "Driver/ReportWriter.h"

#include "HwAgent/Analysis/FeatureModels.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/Transforms/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void hwagent::registerAllDialects(DialectRegistry &registry) {
  registry.insert<
      hwagent::HwAgentDialect, affine::AffineDialect, arith::ArithDialect,
      bufferization::BufferizationDialect, cf::ControlFlowDialect,
      func::FuncDialect, linalg::LinalgDialect, ml_program::MLProgramDialect,
      math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
      tensor::TensorDialect, tosa::TosaDialect, LLVM::LLVMDialect>();
  registerFeatureExternalModels(registry);
  // The partition report's outputs (report=, dot=, html=, summary=).
  registerReportWriter(registry);
  // Bufferization of what hwagent-lower-to-llvm lowers.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
}

void hwagent::registerAllPasses() {
  registerHwAgentPasses();
  registerPartitionBackendsPipeline();
  registerLowerToLLVMPipeline();
}
