//===- TrainingRunner.cpp - JIT a training step and run it ----------------===//

#include "hwagent/Runner/TrainingRunner.h"

#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>

using namespace mlir;
using namespace mlir::hwagent;

void hwagent::registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

float *TrainingRunner::Buffer::data() const {
  return reinterpret_cast<float *>(words[1]) + words[2];
}

int64_t TrainingRunner::Buffer::size() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

TrainingRunner::Buffer TrainingRunner::makeHostBuffer(const std::vector<int64_t> &shape) {
  Buffer b;
  b.shape = shape;
  storage.emplace_back(std::max<int64_t>(1, b.size()));
  float *data = storage.back().data();
  b.words = {reinterpret_cast<int64_t>(data), reinterpret_cast<int64_t>(data), 0};
  for (int64_t d : shape)
    b.words.push_back(d);
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  b.words.insert(b.words.end(), strides.begin(), strides.end());
  return b;
}

std::unique_ptr<TrainingRunner>
TrainingRunner::create(OwningOpRef<ModuleOp> module, const RunnerOptions &options,
                       llvm::raw_ostream &errs) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    registerAllPasses();
    return true;
  }();
  (void)initialized;
  std::unique_ptr<TrainingRunner> r(new TrainingRunner());
  r->entry = options.entry;
  auto fn = module->lookupSymbol<func::FuncOp>(options.entry);
  if (!fn || fn.isExternal()) {
    errs << "hwagent-run: no function @" << options.entry << "\n";
    return nullptr;
  }
  FunctionType type = fn.getFunctionType();
  if (type.getNumResults() < 1 || type.getNumInputs() < type.getNumResults() - 1) {
    errs << "hwagent-run: @" << options.entry
         << " does not follow the training-step convention "
            "(inputs..., params...) -> (loss, params'...)\n";
    return nullptr;
  }
  r->numParams = type.getNumResults() - 1;
  r->numInputs = type.getNumInputs() - r->numParams;
  for (Type t : type.getInputs()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() || !tensor.getElementType().isF32()) {
      errs << "hwagent-run: argument type must be a static f32 tensor, got " << t
           << "\n";
      return nullptr;
    }
    r->shapes.push_back(std::vector<int64_t>(tensor.getShape().begin(),
                                             tensor.getShape().end()));
  }
  for (unsigned p = 0; p < r->numParams; ++p)
    if (type.getResult(p + 1) != type.getInput(r->numInputs + p)) {
      errs << "hwagent-run: result #" << p + 1
           << " does not have the type of parameter #" << p << "\n";
      return nullptr;
    }
  std::vector<bool> oneHot(type.getNumInputs(), false);
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (auto kind = fn.getArgAttrOfType<StringAttr>(i, "hwagent.input"))
      oneHot[i] = kind.getValue() == "one_hot";

  // Refuse steps whose tensors cannot fit: generated code would fail to
  // allocate them. The largest single tensor is a lower bound of the need.
  int64_t largest = 0;
  module->walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(t);
          tensor && tensor.hasStaticShape() && tensor.getElementType().isIntOrFloat())
        largest = std::max<int64_t>(
            largest, tensor.getNumElements() *
                         ((tensor.getElementTypeBitWidth() + 7) / 8));
  });
  hwagent_telemetry_t telemetry = {};
  hwagent_options_t probeOptions;
  hwagent_options_init(&probeOptions);
  hwagent_session_t *probe = nullptr;
  if (hwagent_session_create("hwagent-region-table 1\n", &probeOptions, &probe) ==
      HWAGENT_OK) {
    hwagent_session_telemetry(probe, &telemetry);
    hwagent_session_destroy(probe);
  }
  if (telemetry.free_memory_bytes > 0 && largest > telemetry.free_memory_bytes) {
    errs << llvm::formatv(
        "hwagent-run: @{0} has a tensor of {1:f1} GiB but only {2:f1} GiB of "
        "memory are available; run a smaller variant "
        "(scripts/gen_workloads.py --small)\n",
        options.entry, largest / double(1ull << 30),
        telemetry.free_memory_bytes / double(1ull << 30));
    return nullptr;
  }

  bool partitioned = false;
  module->walk([&](RegionOp) { partitioned = true; });
  PassManager pm(module->getContext());
  std::string pipeline;
  if (!partitioned)
    pipeline = "partition-backends{target=" + options.target +
               " strategy=" + options.strategy + "},";
  pipeline += "hwagent-lower-to-runtime,hwagent-lower-to-llvm";
  if (failed(parsePassPipeline(pipeline, pm, errs)))
    return nullptr;
  auto start = std::chrono::steady_clock::now();
  if (failed(pm.run(*module))) {
    errs << "hwagent-run: lowering failed\n";
    return nullptr;
  }
  ExecutionEngineOptions engineOptions;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  std::string runnerUtils = HWAGENT_MLIR_C_RUNNER_UTILS;
  SmallVector<StringRef> libs = {runnerUtils};
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    errs << "hwagent-run: JIT failed: " << llvm::toString(engine.takeError())
         << "\n";
    return nullptr;
  }
  r->engine = std::move(*engine);
  r->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](const char *name, void *address) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    };
    add("hwagent_rt_select", reinterpret_cast<void *>(&hwagent_rt_select));
    add("hwagent_rt_begin", reinterpret_cast<void *>(&hwagent_rt_begin));
    add("hwagent_rt_end", reinterpret_cast<void *>(&hwagent_rt_end));
    return map;
  });
  r->compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r->module = std::move(module);

  char *table = nullptr;
  if (llvm::Error error = r->engine->invoke("__hwagent_region_table",
                                            ExecutionEngine::result(table))) {
    errs << "hwagent-run: no region table: " << llvm::toString(std::move(error))
         << "\n";
    return nullptr;
  }
  if (hwagent_session_create(table, &options.runtime, &r->session) != HWAGENT_OK) {
    errs << "hwagent-run: cannot create a runtime session (see above)\n";
    return nullptr;
  }
  hwagent_session_make_current(r->session);

  // Deterministic data and parameters: N(0, 1) data (scaled), one-hot rows
  // for inputs marked one_hot, N(0, 1/fan_in) weights, zero biases.
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    Buffer b = r->makeHostBuffer(r->shapes[i]);
    float *data = b.data();
    int64_t n = b.size();
    if (i < r->numInputs && oneHot[i]) {
      int64_t classes = r->shapes[i].back();
      for (int64_t k = 0; k < n; ++k)
        data[k] = (k % classes) == ((k / classes) * 7 + 3) % classes ? 1.0f : 0.0f;
    } else if (i < r->numInputs) {
      for (int64_t k = 0; k < n; ++k)
        data[k] = options.inputScale * normal(rng);
    } else {
      const std::vector<int64_t> &s = r->shapes[i];
      double fan = s.size() == 2 ? s[0] : s.size() > 2 ? double(n) / s[0] : 0;
      float scale = fan > 0 ? float(1.0 / std::sqrt(fan)) : 0.0f;
      for (int64_t k = 0; k < n; ++k)
        data[k] = scale * normal(rng);
    }
    r->args.push_back(std::move(b));
  }
  size_t words = 3;
  for (unsigned p = 0; p < r->numParams; ++p)
    words += 3 + 2 * r->shapes[r->numInputs + p].size();
  r->results.assign(words, 0);
  return r;
}

float TrainingRunner::step(llvm::raw_ostream &errs) {
  hwagent_session_make_current(session);
  std::vector<void *> argPointers, packed;
  int64_t *resultPointer = results.data();
  packed.push_back(&resultPointer);
  for (Buffer &b : args)
    argPointers.push_back(b.words.data());
  for (void *&p : argPointers)
    packed.push_back(&p);
  if (llvm::Error error = engine->invokePacked("_mlir_ciface_" + entry, packed)) {
    errs << "hwagent-run: step failed: " << llvm::toString(std::move(error)) << "\n";
    return NAN;
  }
  float loss = reinterpret_cast<float *>(results[1])[results[2]];
  // The new parameters become the next step's arguments; free what the
  // generated code allocated and nothing references any more.
  std::vector<Buffer> next(args.begin(), args.begin() + numInputs);
  std::vector<int64_t> keep;
  size_t offset = 3;
  for (unsigned p = 0; p < numParams; ++p) {
    Buffer b;
    b.shape = shapes[numInputs + p];
    size_t n = 3 + 2 * b.shape.size();
    b.words.assign(results.begin() + offset, results.begin() + offset + n);
    offset += n;
    keep.push_back(b.words[0]);
    next.push_back(std::move(b));
  }
  auto kept = [&](int64_t p) {
    return std::find(keep.begin(), keep.end(), p) != keep.end();
  };
  for (int64_t allocated : jitOwned)
    if (!kept(allocated))
      std::free(reinterpret_cast<void *>(allocated));
  if (!kept(results[0]))
    std::free(reinterpret_cast<void *>(results[0]));
  jitOwned.clear();
  for (int64_t allocated : keep) {
    bool host = false;
    for (auto &s : storage)
      host |= reinterpret_cast<int64_t>(s.data()) == allocated;
    if (!host && std::find(jitOwned.begin(), jitOwned.end(), allocated) == jitOwned.end())
      jitOwned.push_back(allocated);
  }
  args = std::move(next);
  hwagent_session_end_step(session, loss);
  return loss;
}

std::pair<double, double> TrainingRunner::paramChecksum(unsigned p) const {
  const Buffer &b = args[numInputs + p];
  double sum = 0, sumAbs = 0;
  for (int64_t k = 0; k < b.size(); ++k) {
    sum += b.data()[k];
    sumAbs += std::fabs(b.data()[k]);
  }
  return {sum, sumAbs};
}

TrainingRunner::~TrainingRunner() {
  for (int64_t allocated : jitOwned)
    std::free(reinterpret_cast<void *>(allocated));
  hwagent_session_destroy(session);
}
