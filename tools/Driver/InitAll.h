//===- InitAll.h - register what hwagent tools parse and run ----*- C++ -*-===//

#ifndef HWAGENT_INITALL_H
#define HWAGENT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::hwagent {

/// Registers the hwagent dialect, the dialects that real training graphs are
/// written in (func, arith, math, tensor, linalg, tosa, scf, cf, bufferization,
/// memref, affine, ml_program) and the external models that give their ops
/// hwagent's interfaces. Deliberately not registerAllDialects: it is slow to
/// build and loads dialects no input of ours uses.
void registerAllDialects(DialectRegistry &registry);

/// Registers every hwagent pass and pipeline with the global pass registry.
void registerAllPasses();

} // namespace mlir::hwagent

#endif // HWAGENT_INITALL_H
