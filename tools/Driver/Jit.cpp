//===- Jit.cpp - JIT-compile lowered code for this machine ----------------===//

#include "Driver/Jit.h"

#include "hwagent_rt/hwagent_abi.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

using namespace mlir;

/// Erases the packed wrappers (`void _mlir_<name>(void **)`) ExecutionEngine
/// writes for every function except the C interfaces (`_mlir_ciface_*`), the
/// only ones it invokes. A wrapper unpacks every argument of its function in
/// one basic block: for a step's outlined parts, thousands of memref fields,
/// whose instruction scheduling grew quadratically with the block and was
/// most of an imported model's start-up (docs/importer.md, "Start-up").
static void eraseUnusedWrappers(llvm::Module &module) {
  SmallVector<llvm::Function *> unused;
  for (llvm::Function &wrapper : module) {
    StringRef name = wrapper.getName();
    if (wrapper.isDeclaration() || !name.consume_front("_mlir_") ||
        name.starts_with("_mlir_ciface_") || !wrapper.use_empty() ||
        wrapper.arg_size() != 1 || !wrapper.getReturnType()->isVoidTy())
      continue;
    llvm::Function *wrapped = module.getFunction(name);
    if (wrapped && !wrapped->isDeclaration())
      unused.push_back(&wrapper);
  }
  for (llvm::Function *wrapper : unused)
    wrapper->eraseFromParent();
}

/// Whether `function` computes on floating-point data (scalar or vector):
/// the loops that do a step's work do, the runtime checks and bookkeeping
/// around the calls (ownership of buffers, pointer comparisons) do not.
static bool touchesFloats(const llvm::Function &function) {
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

/// Marks glue for fast code generation: a function whose longest block
/// exceeds `kLongBlock` instructions (the entry points and outlined parts
/// that unpack and pass hundreds of memref descriptors and free the step's
/// buffers) and which has no loop or computes on no floating-point data runs
/// for microseconds per step, while the instruction scheduler's dependence
/// graph grows with the square of its blocks (seconds per function on an
/// imported GPT or MobileNetV2). `optnone` makes instruction selection and
/// register allocation take their fast paths and skips scheduling; the loops
/// that do the work keep -O2 code.
static void fastCodegenForGlue(llvm::Module &module) {
  constexpr size_t kLongBlock = 400;
  for (llvm::Function &function : module) {
    if (function.isDeclaration() ||
        function.hasFnAttribute(llvm::Attribute::OptimizeNone))
      continue;
    size_t longest = 0;
    for (llvm::BasicBlock &block : function)
      longest = std::max(longest, block.size());
    if (longest <= kLongBlock)
      continue;
    SmallVector<std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>>
        backEdges;
    llvm::FindFunctionBackedges(function, backEdges);
    if (!backEdges.empty() && touchesFloats(function))
      continue;
    function.removeFnAttr(llvm::Attribute::AlwaysInline);
    function.addFnAttr(llvm::Attribute::NoInline);
    function.addFnAttr(llvm::Attribute::OptimizeNone);
  }
}

/// LLVM's -O1 module pipeline for `machine`, without loop interleaving.
static void optimizeModule(llvm::Module &module, llvm::TargetMachine *machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopInterleaving = false;
  llvm::PassBuilder builder(machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1);
  pipeline.run(module, modules);
}

std::unique_ptr<ExecutionEngine> hwagent::createHostJit(ModuleOp module,
                                                        std::string &error) {
  auto hostBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!hostBuilder) {
    error =
        "cannot describe this CPU: " + llvm::toString(hostBuilder.takeError());
    return nullptr;
  }
  auto targetMachine = hostBuilder->createTargetMachine();
  if (!targetMachine) {
    error =
        "cannot target this CPU: " + llvm::toString(targetMachine.takeError());
    return nullptr;
  }
  ExecutionEngineOptions engineOptions;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  // LLVM's -O1 module pipeline: the same step times as -O2 on every bundled
  // workload (the contractions are in the kernel; the loops left vectorize
  // either way) and a third less compile time (docs/cpu-backend.md). Loop
  // interleaving is off: on imported steps of hundreds of small loops it
  // multiplied the code instruction selection and scheduling work through
  // (a third of the start-up; docs/importer.md, "Start-up").
  // ExecutionEngineOptions::transformer is a function_ref: the callable must
  // outlive create().
  llvm::TargetMachine *machine = targetMachine->get();
  std::function<llvm::Error(llvm::Module *)> optimize =
      [machine](llvm::Module *m) -> llvm::Error {
    eraseUnusedWrappers(*m);
    optimizeModule(*m, machine);
    fastCodegenForGlue(*m);
    // HWAGENT_JIT_DUMP=file writes the optimized LLVM IR the JIT compiles
    // (for llc / perf comparisons, docs/building.md).
    if (const char *path = std::getenv("HWAGENT_JIT_DUMP")) {
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (!ec)
        m->print(os, nullptr);
    }
    return llvm::Error::success();
  };
  engineOptions.transformer = optimize;
  engineOptions.enableGDBNotificationListener = false;
  // Off by default (it writes dumps under the temp directory); on when
  // profiling the JIT code with `perf record -k 1` + `perf inject --jit`.
  engineOptions.enablePerfNotificationListener =
      std::getenv("HWAGENT_JIT_PERF") != nullptr;
  std::string runnerUtils = HWAGENT_MLIR_C_RUNNER_UTILS;
  SmallVector<StringRef> libs = {runnerUtils};
  engineOptions.sharedLibPaths = libs;
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(*targetMachine));
  if (!engine) {
    error = "JIT failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](const char *name, void *address) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    };
    // The names the compiler emits (hwagent_abi.h, hwagent_kernels.h).
    add(HWAGENT_SELECT_SYMBOL, reinterpret_cast<void *>(&hwagent_rt_select));
    add(HWAGENT_BEGIN_SYMBOL, reinterpret_cast<void *>(&hwagent_rt_begin));
    add(HWAGENT_END_SYMBOL, reinterpret_cast<void *>(&hwagent_rt_end));
    add("_mlir_memref_to_llvm_alloc",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc));
    add("_mlir_memref_to_llvm_aligned_alloc",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc));
    add("_mlir_memref_to_llvm_free",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_free));
    add("_mlir_ciface_" HWAGENT_CONTRACT_F32_SYMBOL,
        reinterpret_cast<void *>(&_mlir_ciface_hwagent_contract_f32));
    add(HWAGENT_PARALLEL_FOR_SYMBOL,
        reinterpret_cast<void *>(&hwagent_parallel_for));
    return map;
  });
  return std::move(*engine);
}
