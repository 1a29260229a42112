//===- PassContext.h - hwagent's context on MLIR's errors -------*- C++ -*-===//
//
// An error MLIR emits while a pass runs names the op's location, not which
// of hwagent's steps was running on which input. The drivers add that: a
// note on every error naming the tool, the pass and its step in the
// pipeline, the function it ran on, the input file, and what to try.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_DRIVER_PASSCONTEXT_H
#define HWAGENT_DRIVER_PASSCONTEXT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::hwagent {

/// Instruments `pm` (call after its passes are added) and registers a
/// diagnostic handler on its context that attaches to every error emitted
/// while a pass runs a note: "while <tool> ran the pass '<pass>' (step k of
/// n: ...) on 'func.func @f' of <inputFile>; <hint>". `hint` says what to
/// do; "{0}" in it is replaced by the pass's argument. The handler passes
/// every diagnostic on (the tool's handler still prints it) and stays
/// registered as long as the context lives.
void attachPassContext(PassManager &pm, llvm::StringRef tool,
                       llvm::StringRef inputFile, llvm::StringRef hint);

/// While it lives, `context`'s errors are printed through `sourceMgr`
/// (the input's line quoted, their notes -- a pass's context among them --
/// printed, the op not dumped) and its warnings and remarks stay quiet, as
/// with MLIR's default handler: what a driver that lowers shows.
class ErrorsOnlyDiagnostics {
public:
  ErrorsOnlyDiagnostics(llvm::SourceMgr &sourceMgr, MLIRContext *context);

private:
  SourceMgrDiagnosticHandler printer;
  ScopedDiagnosticHandler errorsOnly;
};

} // namespace mlir::hwagent

#endif // HWAGENT_DRIVER_PASSCONTEXT_H
