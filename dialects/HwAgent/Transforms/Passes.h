//===- Passes.h - hwagent passes --------------------------------*- C++ -*-===//

#ifndef HWAGENT_TRANSFORMS_PASSES_H
#define HWAGENT_TRANSFORMS_PASSES_H

#include "HwAgent/Core/Vocabulary.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/Transforms/RegionFormation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::hwagent {

/// The partition strategies as command-line values: one list for the pass
/// option and the pipeline's.
llvm::cl::ValuesClass strategyValues();

/// The default of hwagent-linalg-to-kernels' min-flops (and of
/// hwagent-lower-to-llvm's and hwagent-run's kernel-min-flops).
constexpr int64_t kDefaultKernelMinFlops = 65536;

/// On the packed entry points hwagent-lower-to-runtime declares
/// (`__hwagent_invoke_<fn>`): the function they call and its argument count;
/// hwagent-emit-invokers defines them and drops both.
inline constexpr llvm::StringLiteral kInvokeOfAttr = "hwagent_rt.invoke_of";
inline constexpr llvm::StringLiteral kInvokeArgsAttr = "hwagent_rt.num_args";

#define GEN_PASS_DECL
#include "HwAgent/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "HwAgent/Transforms/Passes.h.inc"

/// Registers `partition-backends`: form-regions, profile, estimate-costs,
/// assign-backends and insert-transfers with their shared options.
void registerPartitionBackendsPipeline();

struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  PassOptions::Option<int64_t> kernelMinFlops{
      *this, "kernel-min-flops",
      llvm::cl::desc("Contractions of at least this many FLOPs call the "
                     "packed-SGEMM kernel; -1 = none (every op as loops)"),
      llvm::cl::init(kDefaultKernelMinFlops)};
};

/// Adds the passes from lowered (hwagent-free) tensor code to the LLVM
/// dialect: elementwise to linalg, TOSA to linalg, one-shot bufferization,
/// deallocation, large contractions to the kernel, loops, LLVM.
void buildLowerToLLVMPipeline(OpPassManager &pm,
                              const LowerToLLVMOptions &options = {});

/// The part of it from bufferized code (memrefs) to LLVM; also what
/// hwagent-calibrate measures.
std::string
getBufferLoweringPipeline(int64_t kernelMinFlops = kDefaultKernelMinFlops);

/// Registers `hwagent-lower-to-llvm` (the pipeline above) and the upstream
/// passes it uses.
void registerLowerToLLVMPipeline();

} // namespace mlir::hwagent

#endif // HWAGENT_TRANSFORMS_PASSES_H
