//===- LowerToRuntime.h - pieces of hwagent-lower-to-runtime ----*- C++ -*-===//
//
// The lowering to the runtime, by job:
//   ProgramDispatch.cpp  programs made contiguous, outlined into one
//                        function per backend variant, and dispatched
//                        through the runtime (select, begin, end, fallback)
//   HalfStorage.cpp      the ANE variant: f16 storage, f32 arithmetic
//   ModelInfo.cpp        the model table as constant LLVM globals of the
//                        runtime's C types
//   LowerToRuntime.cpp   the pass
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TRANSFORMS_LOWERTORUNTIME_H
#define HWAGENT_TRANSFORMS_LOWERTORUNTIME_H

#include "HwAgent/Analysis/ModelTable.h"
#include "HwAgent/Analysis/StepSignature.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::hwagent {

/// Reorders the ops of `function`'s blocks so that the regions of each
/// program in `groups` are contiguous (a topological order of programs and
/// other ops). Fails when a program is not convex.
LogicalResult makeProgramsContiguous(FunctionOpInterface function,
                                     ArrayRef<const ProgramGroup *> groups);

/// Replaces program `group` (index `program` in the model table) by its
/// dispatch: one function per variant and a run-time choice among them.
LogicalResult lowerProgram(const ProgramGroup &group, int64_t program,
                           const hwagent_program_info_t &info,
                           SymbolTable &symbols);

/// Rewrites `fn` to store every floating-point value in f16 while computing
/// in f32: arguments, and every f32 result of its ops, are rounded through
/// f16 (what the ANE's fp16 datapath keeps). Results keep their types.
/// Infinite f32 constants become +-65504, fp16's largest finite magnitude.
void storeInHalf(func::FuncOp fn);

/// Declares the runtime's entry points (select, begin, end) in `module`.
void declareRuntimeCalls(ModuleOp module, SymbolTable &symbols);

/// Emits `table` as constant globals of the runtime's C types and
/// `__hwagent_model_info() -> !llvm.ptr` returning the model.
void emitModelInfo(ModuleOp module, const ModelTable &table,
                   ArrayRef<StepSignature> signatures, bool withInvokers);

} // namespace mlir::hwagent

#endif // HWAGENT_TRANSFORMS_LOWERTORUNTIME_H
