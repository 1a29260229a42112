//===- JitParts.h - the JIT's module split into parts ------------*- C++
//-*-===//
//
// How the host JIT (Jit.cpp) cuts a translated step into parts compiled on
// their own threads: which functions are glue (compiled unoptimized with
// GlobalISel), and the split itself, each function onto the lightest part
// (docs/building.md, "The JIT").
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_DRIVER_JITPARTS_H
#define HWAGENT_DRIVER_JITPARTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Caching.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace mlir::hwagent::jit {

/// One part of the module on its way to an object: its bitcode (what the
/// cache key hashes), then either the cached object or the one compiled
/// here, written to the cache through `store`.
struct Part {
  /// Glue only: compiled unoptimized with GlobalISel (Jit.cpp, compilePart).
  bool glue = false;
  /// Its functions' LLVM instructions (what its compile time scales with).
  size_t instructions = 0;
  llvm::SmallVector<char, 0> bitcode;
  llvm::SmallVector<char, 0> object;
  std::unique_ptr<llvm::MemoryBuffer> cached;
  llvm::AddStreamFn store;
  std::string error;
  double optimize = 0;
  double codegen = 0;
};

/// Whether `function` is glue (JitParts.cpp says which functions are).
bool isGlue(const llvm::Function &function);

/// Marks `function` for code generation's fast paths inside an optimized
/// part: `optnone` skips the instruction scheduler and takes fast register
/// allocation.
void markFastCodegen(llvm::Function &function);

/// After optimization: functions of a work part that became glue (blocks
/// grown long by inlining or unrolling) get the fast paths too.
void fastCodegenForGlue(llvm::Module &module);

/// Splits `module` into linkable parts and writes each part's bitcode: the
/// glue functions (if any) into a part of their own, the others spread over
/// `workParts` parts by size, largest first onto the lightest part (so that
/// the threads finish together, where round robin left one part with most
/// of the work). Global variables go to the first part. Returns the parts
/// ordered by size, largest first (the order they are handed to threads).
llvm::SmallVector<Part> splitModule(llvm::Module &module,
                                    llvm::ArrayRef<llvm::Function *> glue,
                                    unsigned workParts);

} // namespace mlir::hwagent::jit

#endif // HWAGENT_DRIVER_JITPARTS_H
