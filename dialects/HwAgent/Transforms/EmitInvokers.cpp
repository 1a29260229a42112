//===- EmitInvokers.cpp - the packed entry points of the model ------------===//
//
// Defines the `__hwagent_invoke_<fn>(ptr)` functions hwagent-lower-to-runtime
// declared (the model info's function table points at them) once
// func-to-llvm has made `_mlir_ciface_<fn>`: slot i of the array holds the
// address of argument i, slot N the address of the results.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_EMITINVOKERS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;

namespace {
struct EmitInvokersPass
    : public hwagent::impl::EmitInvokersBase<EmitInvokersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> invokers;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn->hasAttr(hwagent::kInvokeOfAttr))
        invokers.push_back(fn);
    for (LLVM::LLVMFuncOp invoker : invokers)
      if (failed(define(module, invoker)))
        return signalPassFailure();
  }

  LogicalResult define(ModuleOp module, LLVM::LLVMFuncOp invoker) {
    auto of = invoker->getAttrOfType<StringAttr>(hwagent::kInvokeOfAttr);
    auto numArgsAttr =
        invoker->getAttrOfType<IntegerAttr>(hwagent::kInvokeArgsAttr);
    if (!of || !numArgsAttr)
      return invoker.emitError("malformed packed entry point declaration");
    invoker->removeAttr(hwagent::kInvokeOfAttr);
    invoker->removeAttr(hwagent::kInvokeArgsAttr);
    if (!invoker.isExternal())
      return success();
    auto ciface = module.lookupSymbol<LLVM::LLVMFuncOp>(
        ("_mlir_ciface_" + of.getValue()).str());
    if (!ciface)
      return invoker.emitError("no C interface _mlir_ciface_")
             << of.getValue() << " to call (lower with emit-c-interface)";
    int64_t numArgs = numArgsAttr.getInt();
    LLVM::LLVMFunctionType type = ciface.getFunctionType();
    unsigned numParams = type.getNumParams();
    bool resultPointer = numParams == unsigned(numArgs) + 1;
    if (!resultPointer && numParams != unsigned(numArgs))
      return invoker.emitError("_mlir_ciface_")
             << of.getValue() << " takes " << numParams << " parameters for "
             << numArgs << " arguments";

    Location loc = invoker.getLoc();
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    OpBuilder b(ctx);
    Block *entry = invoker.addEntryBlock(b);
    b.setInsertionPointToEnd(entry);
    Value packed = entry->getArgument(0);
    auto slot = [&](int64_t i) -> Value {
      Value at = LLVM::GEPOp::create(b, loc, ptr, ptr, packed,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
      return LLVM::LoadOp::create(b, loc, ptr, at);
    };
    SmallVector<Value> operands;
    Value results = slot(numArgs);
    if (resultPointer)
      operands.push_back(results);
    for (int64_t i = 0; i < numArgs; ++i) {
      Type param = type.getParamType(i + (resultPointer ? 1 : 0));
      Value address = slot(i);
      operands.push_back(
          isa<LLVM::LLVMPointerType>(param)
              ? address
              : LLVM::LoadOp::create(b, loc, param, address).getResult());
    }
    auto call = LLVM::CallOp::create(b, loc, ciface, operands);
    if (!isa<LLVM::LLVMVoidType>(type.getReturnType()))
      LLVM::StoreOp::create(b, loc, call.getResult(), results);
    LLVM::ReturnOp::create(b, loc, ValueRange());
    invoker.setLinkage(LLVM::Linkage::Internal);
    return success();
  }
};
} // namespace
