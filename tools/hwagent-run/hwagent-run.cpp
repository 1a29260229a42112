//===- hwagent-run.cpp - JIT a training step and train with the runtime ---===//
//
//   hwagent-run train_step.mlir [--steps N] [--target apple-m4] [--seed S]
//       [--strategy optimal] [--backend auto|cpu|ane] [--log run.jsonl]
//       [--trace trace.json] [--fault-region R [--fault-step K]]
//
// Partitions the step (unless it already is), lowers it to the runtime and
// LLVM, JIT-compiles it and runs N steps, feeding the updated parameters
// back (convention: docs/workloads.md). Inputs are deterministic from the
// seed. Every ANE time it prints is simulated; CPU times are measured.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent/InitAll.h"
#include "hwagent_rt/hwagent_rt.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<train_step.mlir>"),
                                      cl::Required);
static cl::opt<std::string> entry("entry", cl::desc("Function to run"),
                                  cl::init("train_step"));
static cl::opt<int> steps("steps", cl::desc("Training steps"), cl::init(10));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of inputs and noise"),
                              cl::init(1));
static cl::opt<std::string> target("target", cl::desc("Target for partitioning"),
                                   cl::init("apple-m4"));
static cl::opt<std::string> strategy("strategy",
                                     cl::desc("optimal|greedy|local|cpu|ane"),
                                     cl::init("optimal"));
static cl::opt<std::string> backend("backend",
                                    cl::desc("auto (the partition), cpu or ane"),
                                    cl::init("auto"));
static cl::opt<std::string> logPath("log", cl::desc("JSON Lines log"),
                                    cl::init(""));
static cl::opt<std::string> tracePath("trace", cl::desc("Chrome trace file"),
                                      cl::init(""));
static cl::opt<int64_t> faultRegion("fault-region",
                                    cl::desc("Inject an ANE fault on this region"),
                                    cl::init(-1));
static cl::opt<int64_t> faultStep("fault-step",
                                  cl::desc("... at this step (-1 = every step)"),
                                  cl::init(-1));
static cl::opt<double> simNoise("sim-noise",
                                cl::desc("Relative noise of simulated times"),
                                cl::init(0.0));
static cl::opt<int> printEvery("print-every", cl::desc("Progress every N steps"),
                               cl::init(1));
static cl::opt<std::string> scenarioPath(
    "scenario", cl::desc("Scenario file scripting contention/thermal events"),
    cl::init(""));
static cl::list<std::string> pins("pin",
                                  cl::desc("Pin a region: <id>=cpu|ane|gpu"),
                                  cl::CommaSeparated);
static cl::opt<float> inputScale("input-scale",
                                 cl::desc("Scale of the generated inputs"),
                                 cl::init(1.0f));
static cl::opt<bool> printParams("print-params",
                                 cl::desc("Print a checksum of every parameter at the end"),
                                 cl::init(false));

namespace {

/// A ranked f32 memref descriptor as generated code sees it: allocated and
/// aligned pointers, offset, sizes, strides (all 8-byte words).
struct Buffer {
  std::vector<int64_t> shape;
  std::vector<int64_t> words; // the descriptor
  bool ownedByJit = false;

  float *data() const { return reinterpret_cast<float *>(words[1]) + words[2]; }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

Buffer makeHostBuffer(std::vector<int64_t> shape, std::vector<std::vector<float>> &storage) {
  Buffer b;
  b.shape = shape;
  storage.emplace_back(std::max<int64_t>(1, [&] {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }()));
  float *data = storage.back().data();
  b.words = {reinterpret_cast<int64_t>(data), reinterpret_cast<int64_t>(data), 0};
  for (int64_t d : shape)
    b.words.push_back(d);
  int64_t stride = 1;
  std::vector<int64_t> strides(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  for (int64_t s : strides)
    b.words.push_back(s);
  return b;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "hwagent-run: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "hwagent JIT training runner\n");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  hwagent::registerAllPasses();

  DialectRegistry registry;
  hwagent::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!module)
    return fail("cannot parse '" + inputFile + "'");
  auto fn = module->lookupSymbol<func::FuncOp>(entry);
  if (!fn || fn.isExternal())
    return fail("no function @" + entry + " in '" + inputFile + "'");

  // The signature convention: inputs, then parameters; results: the loss,
  // then the updated parameters.
  FunctionType type = fn.getFunctionType();
  unsigned numParams = type.getNumResults() - 1;
  if (type.getNumResults() < 1 || type.getNumInputs() < numParams)
    return fail("@" + entry + " does not follow the training-step convention "
                "(inputs..., params...) -> (loss, params'...)");
  unsigned numInputs = type.getNumInputs() - numParams;
  std::vector<std::vector<int64_t>> shapes;
  for (Type t : type.getInputs()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() || !tensor.getElementType().isF32())
      return fail("argument type must be a static f32 tensor");
    shapes.push_back(std::vector<int64_t>(tensor.getShape().begin(),
                                          tensor.getShape().end()));
  }
  for (unsigned p = 0; p < numParams; ++p)
    if (type.getResult(p + 1) != type.getInput(numInputs + p))
      return fail("result #" + llvm::Twine(p + 1) +
                  " does not have the type of parameter #" + llvm::Twine(p));
  std::vector<bool> oneHot(type.getNumInputs(), false);
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (auto kind = fn.getArgAttrOfType<StringAttr>(i, "hwagent.input"))
      oneHot[i] = kind.getValue() == "one_hot";

  // Partition (unless done), lower to the runtime and to LLVM.
  bool partitioned = false;
  module->walk([&](hwagent::RegionOp) { partitioned = true; });
  PassManager pm(&context);
  std::string pipeline;
  if (!partitioned)
    pipeline = "partition-backends{target=" + target + " strategy=" + strategy + "},";
  pipeline += "hwagent-lower-to-runtime,hwagent-lower-to-llvm";
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    return 1;
  auto compileStart = std::chrono::steady_clock::now();
  if (failed(pm.run(*module)))
    return fail("lowering failed");

  ExecutionEngineOptions engineOptions;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  std::string runnerUtils = HWAGENT_MLIR_C_RUNNER_UTILS;
  SmallVector<StringRef> libs = {runnerUtils};
  engineOptions.sharedLibPaths = libs;
  auto engineOr = ExecutionEngine::create(*module, engineOptions);
  if (!engineOr)
    return fail("JIT failed: " + llvm::toString(engineOr.takeError()));
  std::unique_ptr<ExecutionEngine> engine = std::move(*engineOr);
  engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
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
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();

  char *table = nullptr;
  if (llvm::Error error = engine->invoke("__hwagent_region_table",
                                         ExecutionEngine::result(table)))
    return fail("no region table: " + llvm::toString(std::move(error)));
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.seed = seed;
  options.sim_noise = simNoise;
  options.log_path = logPath.empty() ? nullptr : logPath.c_str();
  options.trace_path = tracePath.empty() ? nullptr : tracePath.c_str();
  options.fault_region = faultRegion;
  options.scenario_path = scenarioPath.empty() ? nullptr : scenarioPath.c_str();
  options.fault_step = faultStep;
  if (backend == "cpu")
    options.force_backend = HWAGENT_BACKEND_CPU;
  else if (backend == "ane")
    options.force_backend = HWAGENT_BACKEND_ANE;
  else if (backend != "auto")
    return fail("--backend must be auto, cpu or ane");
  hwagent_session_t *session = nullptr;
  if (hwagent_session_create(table, &options, &session) != HWAGENT_OK)
    return fail("cannot create a runtime session (see above)");
  hwagent_session_make_current(session);
  for (const std::string &pin : pins) {
    auto [idText, name] = llvm::StringRef(pin).split('=');
    int64_t id;
    int32_t b = name == "cpu" ? 0 : name == "ane" ? 1 : name == "gpu" ? 2 : -1;
    if (idText.getAsInteger(10, id) || b < 0)
      return fail("--pin expects <id>=cpu|ane|gpu, got '" + pin + "'");
    if (hwagent_session_pin(session, id, b) != HWAGENT_OK)
      return fail(llvm::Twine("--pin ") + pin + ": " +
                  hwagent_session_last_error(session));
  }

  // Deterministic inputs and parameters.
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<float>> storage;
  std::vector<Buffer> args;
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    Buffer b = makeHostBuffer(shapes[i], storage);
    float *data = b.data();
    int64_t n = b.size();
    if (i < numInputs && oneHot[i]) {
      int64_t classes = shapes[i].back();
      for (int64_t k = 0; k < n; ++k)
        data[k] = (k % classes) == ((k / classes) * 7 + 3) % classes ? 1.0f : 0.0f;
    } else if (i < numInputs) {
      for (int64_t k = 0; k < n; ++k)
        data[k] = inputScale * normal(rng);
    } else {
      // Parameters: N(0, 1/fan_in); biases (rank 1) start at zero.
      const std::vector<int64_t> &s = shapes[i];
      double fan = s.size() == 2 ? s[0] : s.size() > 2 ? double(n) / s[0] : 0;
      float scale = fan > 0 ? float(1.0 / std::sqrt(fan)) : 0.0f;
      for (int64_t k = 0; k < n; ++k)
        data[k] = scale * normal(rng);
    }
    args.push_back(std::move(b));
  }

  // The result struct: the loss (rank 0) and the parameters' descriptors.
  size_t resultWords = 3;
  for (unsigned p = 0; p < numParams; ++p)
    resultWords += 3 + 2 * shapes[numInputs + p].size();
  std::vector<int64_t> results(resultWords);

  llvm::outs() << llvm::formatv(
      "hwagent-run: @{0} from {1}: {2} inputs, {3} parameters; target {4}; "
      "compiled in {5:f2} s\n",
      entry, inputFile, numInputs, numParams, target, compileSeconds);
  llvm::outs() << "  times: cpu measured on this machine; ane/gpu simulated by the "
                  "target's device model\n";
  double firstLoss = NAN, lastLoss = NAN;
  std::set<int64_t> jitOwned;
  for (int step = 0; step < steps; ++step) {
    std::vector<void *> argPointers;
    std::vector<void *> packed;
    int64_t *resultPointer = results.data();
    packed.push_back(&resultPointer);
    for (Buffer &b : args)
      argPointers.push_back(b.words.data());
    for (void *&p : argPointers)
      packed.push_back(&p);
    if (llvm::Error error =
            engine->invokePacked("_mlir_ciface_" + entry, packed))
      return fail("step failed: " + llvm::toString(std::move(error)));

    // Loss, then the new parameters become the next step's arguments.
    float loss = reinterpret_cast<float *>(results[1])[results[2]];
    size_t offset = 3;
    std::set<int64_t> keep;
    std::vector<Buffer> next(args.begin(), args.begin() + numInputs);
    for (unsigned p = 0; p < numParams; ++p) {
      Buffer b;
      b.shape = shapes[numInputs + p];
      size_t words = 3 + 2 * b.shape.size();
      b.words.assign(results.begin() + offset, results.begin() + offset + words);
      offset += words;
      keep.insert(b.words[0]);
      next.push_back(std::move(b));
    }
    // Free what the generated code allocated and no longer reaches.
    for (int64_t allocated : jitOwned)
      if (!keep.count(allocated))
        std::free(reinterpret_cast<void *>(allocated));
    if (!keep.count(results[0]))
      std::free(reinterpret_cast<void *>(results[0]));
    jitOwned.clear();
    for (unsigned p = 0; p < numParams; ++p) {
      int64_t allocated = next[numInputs + p].words[0];
      bool host = false;
      for (auto &s : storage)
        host |= reinterpret_cast<int64_t>(s.data()) == allocated;
      if (!host)
        jitOwned.insert(allocated);
    }
    args = std::move(next);

    hwagent_session_end_step(session, loss);
    hwagent_step_stats_t stats;
    hwagent_session_step_stats(session, &stats);
    if (step == 0)
      firstLoss = loss;
    lastLoss = loss;
    if (!std::isfinite(loss))
      llvm::errs() << "hwagent-run: warning: loss is not finite at step " << step
                   << "\n";
    if (printEvery > 0 && (step % printEvery == 0 || step == steps - 1))
      llvm::outs() << llvm::formatv(
          "step {0,4}  loss {1,12:e4}  step {2,10:f3} ms (cpu {3,5:f1}% measured, "
          "ane {4,5:f1}% simulated, gpu {5,5:f1}% simulated)  wall {6,9:f2} ms"
          "  faults {7}\n",
          step, loss, stats.last_step_seconds * 1e3, stats.share[0] * 100,
          stats.share[1] * 100, stats.share[2] * 100,
          stats.last_wall_seconds * 1e3, stats.faults);
  }
  llvm::outs() << llvm::formatv("hwagent-run: loss {0:e4} -> {1:e4} over {2} steps\n",
                                firstLoss, lastLoss, steps);
  if (printParams)
    for (unsigned p = 0; p < numParams; ++p) {
      const Buffer &b = args[numInputs + p];
      double sum = 0, sumAbs = 0;
      for (int64_t k = 0; k < b.size(); ++k) {
        sum += b.data()[k];
        sumAbs += std::fabs(b.data()[k]);
      }
      llvm::outs() << llvm::formatv("param {0}: sum {1:e6} sum|.| {2:e6}\n", p,
                                    sum, sumAbs);
    }
  for (int64_t allocated : jitOwned)
    std::free(reinterpret_cast<void *>(allocated));
  hwagent_session_destroy(session);
  return std::isfinite(lastLoss) ? 0 : 1;
}
