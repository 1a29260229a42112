//===- Pipelines.h - lowering pipelines to LLVM -----------------*- C++ -*-===//

#ifndef HWAGENT_PIPELINES_PIPELINES_H
#define HWAGENT_PIPELINES_PIPELINES_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace mlir::hwagent {

/// Registers the upstream passes the lowering pipelines use (and only those).
void registerLoweringPasses();

/// The pipeline from linalg on buffers to the LLVM dialect (see
/// ../shared/design/TOOLCHAIN.md): linalg to loops, affine/scf to cf,
/// memref/math/arith/cf/func/index to LLVM. This is the code the CPU backend
/// runs, so calibration measures it too. The passes of a builtin.module
/// pass manager, without the anchor.
StringRef getBufferLoweringPipeline();

/// Parses `pipeline` (passes on builtin.module, no anchor) and runs it.
LogicalResult runPipeline(ModuleOp module, StringRef pipeline);

} // namespace mlir::hwagent

#endif // HWAGENT_PIPELINES_PIPELINES_H
