//===- JitParts.cpp - the JIT's module split into parts ------------------===//
//
// Glue and the split (JitParts.h).
//
//===----------------------------------------------------------------------===//

#include "Driver/JitParts.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>

using namespace mlir::hwagent;
using llvm::ArrayRef;
using llvm::dyn_cast;
using llvm::SmallVector;

namespace {

/// Whether `function` computes on floating-point data (scalar or vector):
/// the loops that do a step's work do, the runtime checks and bookkeeping
/// around the calls (ownership of buffers, pointer comparisons) do not.
bool touchesFloats(const llvm::Function &function) {
  auto isFloat = [](llvm::Type *type) {
    return type->getScalarType()->isFloatingPointTy();
  };
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &inst : block) {
      if (isFloat(inst.getType()))
        return true;
      for (const llvm::Value *operand : inst.operands())
        if (isFloat(operand->getType()))
          return true;
    }
  return false;
}

/// Gives every local symbol of `module` a name and external, hidden
/// linkage, so that parts compiled apart link (as llvm::SplitModule does).
void externalizeLocals(llvm::Module &module) {
  unsigned unnamed = 0;
  auto externalize = [&](llvm::GlobalValue &value) {
    if (!value.hasLocalLinkage())
      return;
    if (!value.hasName())
      value.setName("__hwagent_jit_local." + llvm::Twine(unnamed++));
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::Function &function : module)
    externalize(function);
  for (llvm::GlobalVariable &variable : module.globals())
    externalize(variable);
  for (llvm::GlobalAlias &alias : module.aliases())
    externalize(alias);
}

} // namespace

/// Whether `function` is glue: its longest block exceeds `kLongBlock`
/// instructions (the entry points and outlined parts that unpack and pass
/// hundreds of memref descriptors and free the step's buffers) and it has no
/// loop or computes on no floating-point data. Glue runs for microseconds
/// per step, while SelectionDAG's dependence graph grows with the square of
/// its blocks and every descriptor crosses a call as an aggregate that fast
/// instruction selection cannot take (seconds per function on an imported
/// GPT or MobileNetV2). The loops that do the work are never glue.
bool jit::isGlue(const llvm::Function &function) {
  constexpr size_t kLongBlock = 400;
  if (function.isDeclaration())
    return false;
  size_t longest = 0;
  for (const llvm::BasicBlock &block : function)
    longest = std::max(longest, block.size());
  if (longest <= kLongBlock)
    return false;
  SmallVector<std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>>
      backEdges;
  llvm::FindFunctionBackedges(function, backEdges);
  return backEdges.empty() || !touchesFloats(function);
}

void jit::markFastCodegen(llvm::Function &function) {
  function.removeFnAttr(llvm::Attribute::AlwaysInline);
  function.addFnAttr(llvm::Attribute::NoInline);
  function.addFnAttr(llvm::Attribute::OptimizeNone);
}

void jit::fastCodegenForGlue(llvm::Module &module) {
  for (llvm::Function &function : module)
    if (!function.hasFnAttribute(llvm::Attribute::OptimizeNone) &&
        isGlue(function))
      markFastCodegen(function);
}

SmallVector<jit::Part> jit::splitModule(llvm::Module &module,
                                        ArrayRef<llvm::Function *> glue,
                                        unsigned workParts) {
  externalizeLocals(module);
  SmallVector<Part> parts(workParts);
  llvm::DenseMap<const llvm::Function *, unsigned> owner;
  if (!glue.empty()) {
    Part &gluePart = parts.emplace_back();
    gluePart.glue = true;
    for (llvm::Function *function : glue) {
      owner[function] = parts.size() - 1;
      gluePart.instructions += function->getInstructionCount();
    }
  }
  SmallVector<llvm::Function *> work;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && !owner.count(&function))
      work.push_back(&function);
  llvm::stable_sort(work, [](llvm::Function *a, llvm::Function *b) {
    return a->getInstructionCount() > b->getInstructionCount();
  });
  for (llvm::Function *function : work) {
    auto lightest = std::min_element(parts.begin(), parts.begin() + workParts,
                                     [](const Part &a, const Part &b) {
                                       return a.instructions < b.instructions;
                                     });
    owner[function] = lightest - parts.begin();
    lightest->instructions += function->getInstructionCount();
  }
  for (unsigned i = 0; i < parts.size(); ++i) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          if (const auto *function = dyn_cast<llvm::Function>(value))
            return owner.lookup(function) == i;
          return i == 0;
        });
    llvm::raw_svector_ostream os(parts[i].bitcode);
    llvm::WriteBitcodeToFile(*part, os);
  }
  llvm::stable_sort(parts, [](const Part &a, const Part &b) {
    return a.instructions > b.instructions;
  });
  return parts;
}
