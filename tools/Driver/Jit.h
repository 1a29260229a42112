//===- Jit.h - JIT-compile lowered code for this machine --------*- C++ -*-===//
//
// One way to JIT what hwagent-lower-to-llvm produced, shared by hwagent-run,
// the step benchmarks and hwagent-calibrate (so that calibration measures
// the code training runs): this CPU and its features, LLVM's -O1 pipeline,
// no perf or GDB listeners (they write dumps under the temp directory), and
// the runtime's entry points (program dispatch, the contraction kernel)
// bound by address.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_JIT_H
#define HWAGENT_TOOLS_JIT_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::hwagent {

/// JIT-compiles `module` (LLVM dialect) for the host CPU; null with `error`
/// set when that fails.
std::unique_ptr<ExecutionEngine> createHostJit(ModuleOp module,
                                               std::string &error);

} // namespace mlir::hwagent

#endif // HWAGENT_TOOLS_JIT_H
