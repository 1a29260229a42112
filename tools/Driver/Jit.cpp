//===- Jit.cpp - JIT-compile lowered code for this machine ----------------===//

#include "Driver/Jit.h"
#include "Driver/JitParts.h"

#include "HwAgent/Version.h"
#include "hwagent_rt/hwagent_abi.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/Caching.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string_view>

using namespace mlir;
using namespace mlir::hwagent;
using namespace mlir::hwagent::jit;

using Clock = std::chrono::steady_clock;

static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// glibc's vector math library (libmvec, part of libc6 like libm), loaded
/// into the process once so that the JIT resolves its functions: true when
/// it is there. With it the loop vectorizer calls _ZGVdN8v_expf and its
/// kin for the exp, log, sin... of a vectorized loop instead of eight scalar
/// libm calls (docs/cpu-backend.md "Vector math").
/// HWAGENT_VECTOR_MATH=0 keeps libm's scalar calls (results as before,
/// closer to correctly rounded).
static bool haveVectorMath() {
  static const bool loaded = [] {
    const char *setting = std::getenv("HWAGENT_VECTOR_MATH");
    if (setting && std::string_view(setting) == "0")
      return false;
    return !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  }();
  return loaded;
}

/// LLVM's -O1 module pipeline for `machine`, without loop interleaving; the
/// math functions vectorize through libmvec where it is loaded.
static void optimizeModule(llvm::Module &module, llvm::TargetMachine *machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopInterleaving = false;
  llvm::PassBuilder builder(machine, tuning);
  llvm::TargetLibraryInfoImpl library(module.getTargetTriple(),
                                      haveVectorMath()
                                          ? llvm::VectorLibrary::LIBMVEC
                                          : llvm::VectorLibrary::NoLibrary);
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1);
  pipeline.run(module, modules);
}

/// HWAGENT_JIT_DUMP=file writes the optimized LLVM IR the JIT compiles (for
/// llc / perf comparisons, docs/building.md): one file, or `file.N` per part
/// when the module was split (HWAGENT_JIT_THREADS=1 gives one).
static void dumpIfAsked(const llvm::Module &module, unsigned index,
                        unsigned parts) {
  const char *path = std::getenv("HWAGENT_JIT_DUMP");
  if (!path)
    return;
  std::string name = path;
  if (parts > 1)
    name += "." + std::to_string(index);
  std::error_code ec;
  llvm::raw_fd_ostream os(name, ec);
  if (!ec)
    module.print(os, nullptr);
}

/// Optimizes `module` and compiles it to an object with a target machine of
/// its own (one per thread: a TargetMachine compiles one module at a time).
static llvm::Error compilePart(llvm::Module &module,
                               llvm::orc::JITTargetMachineBuilder builder,
                               Part &part, unsigned index, unsigned parts) {
  if (part.glue) {
    // Glue gains nothing from optimization, and GlobalISel takes its
    // aggregates (descriptors returned and passed by the dozen) in linear
    // time where SelectionDAG, which FastISel falls back to for them, does
    // not. A function GlobalISel cannot select falls back to SelectionDAG.
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
    builder.getOptions().EnableGlobalISel = true;
    builder.getOptions().GlobalISelAbort = llvm::GlobalISelAbortMode::Disable;
  }
  auto machine = builder.createTargetMachine();
  if (!machine)
    return machine.takeError();
  module.setDataLayout((*machine)->createDataLayout());
  module.setTargetTriple((*machine)->getTargetTriple());
  auto start = Clock::now();
  if (!part.glue) {
    optimizeModule(module, machine->get());
    fastCodegenForGlue(module);
  }
  dumpIfAsked(module, index, parts);
  part.optimize = secondsSince(start);
  start = Clock::now();
  llvm::raw_svector_ostream os(part.object);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("this target cannot emit object files");
  codegen.run(module);
  part.codegen = secondsSince(start);
  return llvm::Error::success();
}

/// The compile threads asked for: `requested`, else HWAGENT_JIT_THREADS;
/// 0 when neither says (then every hardware thread this process may run on,
/// for modules large enough to split).
static unsigned requestedThreads(unsigned requested) {
  if (requested > 0)
    return requested;
  if (const char *value = std::getenv("HWAGENT_JIT_THREADS"))
    if (int n = std::atoi(value); n > 0)
      return unsigned(n);
  return 0;
}

/// Below this many instructions one part compiles faster than splitting,
/// writing and reading the parts costs (unless a thread count was asked
/// for: then the module is split into that many parts whatever its size).
static constexpr size_t kSplitInstructions = 20000;

/// Compiles the parts the cache did not have, each on its own thread in its
/// own LLVMContext (read back from its bitcode).
static llvm::Error
compileMissingParts(MutableArrayRef<Part> parts, unsigned threads,
                    const llvm::orc::JITTargetMachineBuilder &builder) {
  SmallVector<unsigned> missing;
  for (unsigned i = 0; i < parts.size(); ++i)
    if (!parts[i].cached)
      missing.push_back(i);
  if (missing.empty())
    return llvm::Error::success();
  llvm::DefaultThreadPool pool(
      llvm::hardware_concurrency(std::min<size_t>(threads, missing.size())));
  for (unsigned i : missing)
    pool.async([&, i] {
      Part &part = parts[i];
      llvm::LLVMContext context;
      llvm::MemoryBufferRef buffer(
          StringRef(part.bitcode.data(), part.bitcode.size()), "part");
      auto parsed = llvm::parseBitcodeFile(buffer, context);
      llvm::Error error =
          parsed ? compilePart(**parsed, builder, part, i, parts.size())
                 : parsed.takeError();
      if (error)
        part.error = llvm::toString(std::move(error));
    });
  pool.wait();
  for (unsigned i : missing)
    if (!parts[i].error.empty())
      return llvm::createStringError(parts[i].error);
  return llvm::Error::success();
}

/// The symbols the compiler emits calls to, bound to this process's
/// runtime (hwagent_abi.h, hwagent_kernels.h).
static llvm::orc::SymbolMap runtimeSymbols(llvm::orc::LLJIT &jit) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, void *address) {
    map[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                      llvm::JITSymbolFlags::Exported};
  };
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
}

/// An LLJIT that links objects with RuntimeDyld (as MLIR's ExecutionEngine
/// does) and resolves the runtime's entry points, this process's symbols
/// (libc, libm) and MLIR's C runner utilities.
static llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
createLinker(const llvm::DataLayout &layout) {
  // Off by default (it writes dumps under the temp directory); on when
  // profiling the JIT code with `perf record -k 1` + `perf inject --jit`.
  bool perf = std::getenv("HWAGENT_JIT_PERF") != nullptr;
  auto jit =
      llvm::orc::LLJITBuilder()
          .setDataLayout(layout)
          .setObjectLinkingLayerCreator(
              [perf](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer =
                    std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                        session, [](const llvm::MemoryBuffer &) {
                          return std::make_unique<llvm::SectionMemoryManager>();
                        });
                if (perf)
                  if (llvm::JITEventListener *listener =
                          llvm::JITEventListener::createPerfJITEventListener())
                    layer->registerJITEventListener(*listener);
                return std::move(layer);
              })
          .create();
  if (!jit)
    return jit.takeError();
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  // Cached objects call libmvec too: it is loaded before any symbol lookup.
  haveVectorMath();
  char prefix = layout.getGlobalPrefix();
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  auto utils = llvm::orc::DynamicLibrarySearchGenerator::Load(
      HWAGENT_MLIR_C_RUNNER_UTILS, prefix);
  if (!utils)
    return utils.takeError();
  main.addGenerator(std::move(*utils));
  if (llvm::Error error =
          main.define(llvm::orc::absoluteSymbols(runtimeSymbols(**jit))))
    return std::move(error);
  return std::move(*jit);
}

/// Bumped whenever what a part's object is made from changes beyond its IR
/// (the optimization pipeline above, the glue rule, the code model, the
/// vector math library).
static constexpr unsigned kJitFormat = 3;

/// The on-disk cache of compiled parts, as LLVM's ThinLTO cache keeps its
/// objects (llvm::localCache; pruned with llvm::pruneCache): the folder
/// HWAGENT_JIT_CACHE names, "off" for none, by default `hwagent/jit` in the
/// user's cache folder. Null when off or when there is no such folder.
static std::optional<llvm::FileCache> openCache(SmallVectorImpl<Part> &parts) {
  SmallString<256> folder;
  const char *setting = std::getenv("HWAGENT_JIT_CACHE");
  if (setting && (StringRef(setting) == "off" || StringRef(setting) == "0"))
    return std::nullopt;
  if (setting && *setting)
    folder = setting;
  else if (llvm::sys::path::cache_directory(folder))
    llvm::sys::path::append(folder, "hwagent", "jit");
  else
    return std::nullopt;
  auto cache =
      llvm::localCache("hwagent JIT cache", "hwagent-jit", folder,
                       [&parts](unsigned task, const llvm::Twine &,
                                std::unique_ptr<llvm::MemoryBuffer> buffer) {
                         // Called for hits, and for misses once their object is
                         // written (then the compiled object is used; the
                         // read-back one is dropped).
                         if (parts[task].object.empty())
                           parts[task].cached = std::move(buffer);
                       });
  if (!cache) {
    llvm::consumeError(cache.takeError());
    return std::nullopt;
  }
  return std::move(*cache);
}

/// Looks every part up in `cache` by a hash of its bitcode and of what else
/// its object depends on (`salt`: this CPU, LLVM's and hwagent's versions).
static void lookUpParts(llvm::FileCache &cache, MutableArrayRef<Part> parts,
                        StringRef salt) {
  for (unsigned i = 0; i < parts.size(); ++i) {
    std::string keyed(salt);
    keyed.append(parts[i].glue ? "glue\n" : "work\n");
    keyed.append(parts[i].bitcode.begin(), parts[i].bitcode.end());
    llvm::XXH128_hash_t hash =
        llvm::xxh3_128bits(llvm::arrayRefFromStringRef(keyed));
    std::string key = llvm::utohexstr(hash.high64, false, 16) +
                      llvm::utohexstr(hash.low64, false, 16);
    auto store = cache(i, key, "part");
    if (!store) {
      llvm::consumeError(store.takeError());
      continue;
    }
    parts[i].store = std::move(*store);
  }
}

/// Writes the compiled parts' objects to the cache (a failed write only
/// costs the next start-up its hit) and prunes it.
static void storeParts(llvm::FileCache &cache, MutableArrayRef<Part> parts) {
  for (unsigned i = 0; i < parts.size(); ++i) {
    if (!parts[i].store || parts[i].object.empty())
      continue;
    auto stream = parts[i].store(i, "part");
    if (!stream) {
      llvm::consumeError(stream.takeError());
      continue;
    }
    *(*stream)->OS << StringRef(parts[i].object.data(), parts[i].object.size());
    llvm::consumeError((*stream)->commit());
  }
  llvm::CachePruningPolicy policy;
  policy.MaxSizeBytes = uint64_t(1) << 30;
  llvm::pruneCache(cache.getCacheDirectoryPath(), policy);
}

/// What a part's object depends on beside its IR.
static std::string
cacheSalt(const llvm::orc::JITTargetMachineBuilder &builder) {
  return llvm::formatv("hwagent-jit {0} {1} {2} LLVM {3} {4} {5} libmvec {6}\n",
                       kJitFormat, HWAGENT_VERSION, HWAGENT_GIT_COMMIT,
                       LLVM_VERSION_STRING, builder.getCPU(),
                       builder.getFeatures().getString(), haveVectorMath())
      .str();
}

/// Translates `module` to LLVM IR and compiles it into objects: taken from
/// the cache where it has them, in parts on several threads when the module
/// is large and there are threads to share them.
static llvm::Expected<SmallVector<Part>>
compileModule(ModuleOp module,
              const llvm::orc::JITTargetMachineBuilder &builder,
              unsigned threads, JitTimes &times) {
  auto start = Clock::now();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> translated =
      translateModuleToLLVMIR(module, context);
  if (!translated)
    return llvm::createStringError(
        "cannot translate the lowered module to LLVM IR");
  times.translate = secondsSince(start);
  size_t instructions = 0, functions = 0;
  SmallVector<llvm::Function *> glue;
  for (llvm::Function &function : *translated) {
    if (function.isDeclaration())
      continue;
    instructions += function.getInstructionCount();
    if (isGlue(function)) {
      markFastCodegen(function);
      glue.push_back(&function);
      continue;
    }
    ++functions;
  }
  unsigned available =
      threads
          ? threads
          : std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  unsigned count = std::min<size_t>(available, functions);
  if (!threads && instructions < kSplitInstructions)
    count = std::min(count, 1u);
  start = Clock::now();
  SmallVector<Part> parts;
  if (count <= 1 && glue.empty()) {
    parts.resize(1);
  } else {
    parts = splitModule(*translated, glue, count);
  }
  times.parts = parts.size();
  times.threads = std::min<size_t>(available, parts.size());
  times.glue = glue.size();
  std::optional<llvm::FileCache> cache = openCache(parts);
  if (cache && parts.size() == 1) {
    llvm::raw_svector_ostream os(parts[0].bitcode);
    llvm::WriteBitcodeToFile(*translated, os);
  }
  if (cache)
    lookUpParts(*cache, parts, cacheSalt(builder));
  times.split = secondsSince(start);
  start = Clock::now();
  if (parts.size() == 1 && !parts[0].cached) {
    if (llvm::Error error = compilePart(*translated, builder, parts[0], 0, 1))
      return std::move(error);
  } else if (llvm::Error error =
                 compileMissingParts(parts, times.threads, builder)) {
    return std::move(error);
  }
  times.parallel = secondsSince(start);
  for (const Part &part : parts)
    times.cached += part.cached != nullptr;
  if (cache)
    storeParts(*cache, parts);
  return std::move(parts);
}

std::unique_ptr<HostJit> HostJit::create(ModuleOp module, std::string &error,
                                         unsigned threads) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error = "cannot describe this CPU: " + llvm::toString(builder.takeError());
    return nullptr;
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  auto machine = builder->createTargetMachine();
  if (!machine) {
    error = "cannot target this CPU: " + llvm::toString(machine.takeError());
    return nullptr;
  }
  std::unique_ptr<HostJit> host(new HostJit());
  auto parts =
      compileModule(module, *builder, requestedThreads(threads), host->times);
  if (!parts) {
    error = "JIT failed: " + llvm::toString(parts.takeError());
    return nullptr;
  }
  auto start = Clock::now();
  auto jit = createLinker((*machine)->createDataLayout());
  if (!jit) {
    error = "JIT failed: " + llvm::toString(jit.takeError());
    return nullptr;
  }
  for (Part &part : *parts)
    if (llvm::Error failed = (*jit)->addObjectFile(
            part.cached
                ? std::move(part.cached)
                : std::make_unique<llvm::SmallVectorMemoryBuffer>(
                      std::move(part.object), "hwagent-jit-part", false))) {
      error = "JIT failed: " + llvm::toString(std::move(failed));
      return nullptr;
    }
  for (const Part &part : *parts) {
    host->times.optimize += part.optimize;
    host->times.codegen += part.codegen;
  }
  host->times.link = secondsSince(start);
  host->jit = std::move(*jit);
  // HWAGENT_JIT_TIMES=1 prints where the JIT's start-up went (stderr).
  if (std::getenv("HWAGENT_JIT_TIMES")) {
    const JitTimes &t = host->times;
    llvm::errs() << llvm::formatv(
        "hwagent-jit: translate {0:f2} s, split and cache look-up {1:f2} s, "
        "{2} part(s) ({8} cached, {9} glue function(s)) on {3} thread(s) "
        "{4:f2} s (optimize {5:f2} s, codegen {6:f2} s summed), link {7:f2} "
        "s\n",
        t.translate, t.split, t.parts, t.threads, t.parallel, t.optimize,
        t.codegen, t.link, t.cached, t.glue);
  }
  return host;
}

HostJit::~HostJit() = default;

llvm::Expected<void *> HostJit::lookup(llvm::StringRef name) {
  // The first lookup links the objects: start-up that JitTimes counts.
  auto start = Clock::now();
  auto address = jit->lookup(name);
  times.link += secondsSince(start);
  if (!address)
    return address.takeError();
  return address->toPtr<void *>();
}

std::unique_ptr<HostJit> hwagent::createHostJit(ModuleOp module,
                                                std::string &error) {
  return HostJit::create(module, error);
}
