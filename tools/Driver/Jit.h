//===- Jit.h - JIT-compile lowered code for this machine --------*- C++ -*-===//
//
// One way to JIT what hwagent-lower-to-llvm produced, shared by hwagent-run,
// the step benchmarks and hwagent-calibrate (so that calibration measures
// the code training runs): this CPU and its features, LLVM's -O1 pipeline,
// and the runtime's entry points (program dispatch, the contraction kernel)
// bound by address.
//
// Code generation runs in parallel, as LTO's parallel back end does: the
// translated module is split into linkable parts (llvm::SplitModule, locals
// externalized), each part is optimized and compiled to an object on its own
// thread in its own LLVMContext, and ORC links the objects. An imported
// step is a long list of independent loops, so the parts are balanced and
// start-up scales with the cores (docs/importer.md, "Start-up").
//
// Compiled parts are kept on disk, keyed by a hash of their bitcode, this
// CPU and the versions of LLVM and hwagent (llvm::localCache, as ThinLTO
// keeps its objects): a step compiled before starts without LLVM's work.
// HWAGENT_JIT_CACHE names the folder ("off": none; default: hwagent/jit in
// the user's cache folder).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_JIT_H
#define HWAGENT_TOOLS_JIT_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir::hwagent {

/// Where a JIT start-up's seconds went (wall time; `optimize` and `codegen`
/// add up every part's thread time, so with several threads they can exceed
/// `parallel`, the wall time of that phase).
struct JitTimes {
  double translate = 0; ///< MLIR's LLVM dialect to LLVM IR
  double split = 0;     ///< splitting into parts and writing them out
  double parallel = 0;  ///< optimizing and compiling every part (wall)
  double optimize = 0;  ///< LLVM's -O1 pipeline, summed over the parts
  double codegen = 0;   ///< instruction selection to object, summed
  double link = 0;      ///< adding the objects to the JIT
  unsigned parts = 1;
  unsigned threads = 1;
  unsigned cached = 0; ///< parts whose object came from the on-disk cache
  unsigned glue = 0;   ///< functions compiled unoptimized (Jit.cpp, isGlue)
};

/// The host JIT: compiled code for one lowered module, and its symbols.
class HostJit {
public:
  /// JIT-compiles `module` (LLVM dialect) for the host CPU with up to
  /// `threads` compile threads (0: the environment's HWAGENT_JIT_THREADS,
  /// else every hardware thread); null with `error` set when that fails.
  static std::unique_ptr<HostJit> create(ModuleOp module, std::string &error,
                                         unsigned threads = 0);
  ~HostJit();

  /// The address of `name`, a symbol the module defines (functions by their
  /// LLVM names, e.g. `_mlir_ciface_kernel`); links the objects on the first
  /// call.
  llvm::Expected<void *> lookup(llvm::StringRef name);

  const JitTimes &getTimes() const { return times; }

private:
  HostJit() = default;

  std::unique_ptr<llvm::orc::LLJIT> jit;
  JitTimes times;
};

/// Shorthand for HostJit::create with the default thread count.
std::unique_ptr<HostJit> createHostJit(ModuleOp module, std::string &error);

} // namespace mlir::hwagent

#endif // HWAGENT_TOOLS_JIT_H
