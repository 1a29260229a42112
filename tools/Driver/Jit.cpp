//===- Jit.cpp - JIT-compile lowered code for this machine ----------------===//

#include "Driver/Jit.h"

#include "hwagent_rt/hwagent_abi.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>
#include <functional>

using namespace mlir;

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
    optimizeModule(*m, machine);
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
