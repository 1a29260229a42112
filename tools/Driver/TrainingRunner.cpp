//===- TrainingRunner.cpp - JIT a training step and run it ----------------===//

#include "Driver/TrainingRunner.h"

#include "RunnerSteps.h"

#include "Driver/InitAll.h"
#include "Driver/Jit.h"
#include "Driver/PassContext.h"
#include "HwAgent/Analysis/StepSignature.h"
#include "HwAgent/Core/Limits.h"
#include "HwAgent/Core/Vocabulary.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_abi.h"
#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

using namespace mlir;
using namespace mlir::hwagent;
using namespace mlir::hwagent::detail;

std::string hwagent::defaultEntry(ModuleOp module, llvm::StringRef preferred) {
  if (module.lookupSymbol(preferred))
    return preferred.str();
  SmallVector<func::FuncOp> candidates;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal())
      candidates.push_back(fn);
  return candidates.size() == 1 ? candidates.front().getName().str()
                                : preferred.str();
}

void hwagent::registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

bool hwagent::applyPins(hwagent_session_t *session,
                        llvm::ArrayRef<std::string> pins,
                        llvm::raw_ostream &errs) {
  for (const std::string &pin : pins) {
    auto [indexText, name] = llvm::StringRef(pin).split('=');
    int64_t index;
    std::optional<hwcore::BackendKind> kind = hwcore::parseBackendName(name);
    if (indexText.getAsInteger(10, index) || !kind) {
      errs << "hwagent-run: --pin expects <program>="
           << hwcore::backendNames("|", "|") << ", got '" << pin << "'\n";
      return false;
    }
    if (hwagent_session_pin(session, index, static_cast<int32_t>(*kind)) !=
        HWAGENT_OK) {
      errs << "hwagent-run: --pin " << pin << ": " << hwagent_error_message()
           << "\n";
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The runner
//===----------------------------------------------------------------------===//

TrainingRunner::TrainingRunner() = default;

const JitTimes &TrainingRunner::getJitTimes() const {
  static const JitTimes none;
  return engine ? engine->getTimes() : none;
}

/// Which f32 inputs of `f` are one-hot labels (the attribute goes with
/// lowering).
static std::vector<bool> oneHotArgs(func::FuncOp f) {
  std::vector<bool> oneHot;
  for (unsigned a = 0; a < f.getNumArguments(); ++a) {
    auto attr = f.getArgAttrOfType<StringAttr>(a, kInputArgAttr);
    oneHot.push_back(attr && attr.getValue() == "one_hot");
  }
  return oneHot;
}

/// Classes of integer labels: as given, else the smallest rank-1 parameter
/// of at least 2 elements (a bias of the last layer), else 2.
static int64_t labelClasses(int64_t given, FunctionType type,
                            ArrayRef<unsigned> params) {
  if (given > 0)
    return given;
  int64_t classes = INT64_MAX;
  for (unsigned p : params) {
    auto t = cast<RankedTensorType>(type.getInput(p));
    if (t.getRank() == 1 && t.getDimSize(0) >= 2)
      classes = std::min(classes, t.getDimSize(0));
  }
  return classes == INT64_MAX ? 2 : classes;
}

/// The step's parameters (in result order) and the rest; an explicit
/// mapping becomes the arguments' markers, which the compiled signature
/// follows.
static LogicalResult mapParameters(func::FuncOp fn,
                                   const RunnerOptions &options,
                                   std::vector<unsigned> &params,
                                   std::vector<unsigned> &inputs,
                                   llvm::raw_ostream &errs) {
  unsigned numArgs = fn.getFunctionType().getNumInputs();
  if (options.noUpdates) {
    // Nothing is updated (a step returning gradients): the compiled
    // signature says so too; parameters are the arguments marked as such.
    if (!options.paramArgs.empty()) {
      errs << "hwagent-run: --params and --no-updates cannot be combined\n";
      return failure();
    }
    fn->setAttr(kNoUpdatesAttr, UnitAttr::get(fn.getContext()));
    for (unsigned a = 0; a < numArgs; ++a) {
      auto role = fn.getArgAttrOfType<StringAttr>(a, "hwagent.role");
      if (!(role && role.getValue() == "parameter"))
        inputs.push_back(a);
    }
    return success();
  }
  std::string mappingError;
  llvm::raw_string_ostream mappingOs(mappingError);
  FailureOr<std::vector<unsigned>> mapping =
      mapStepParameters(fn, options.paramArgs, mappingOs);
  if (failed(mapping)) {
    errs << "hwagent-run: " << mappingError << "hwagent-run: if @"
         << options.entry
         << " returns gradients or other outputs rather than updated "
            "parameters, run it with --no-updates\n";
    return failure();
  }
  params = *mapping;
  for (unsigned a = 0; a < numArgs; ++a)
    if (!llvm::count(params, a))
      inputs.push_back(a);
  if (!options.paramArgs.empty()) {
    Builder b(fn.getContext());
    for (unsigned a = 0; a < numArgs; ++a)
      fn.removeArgAttr(a, kParamArgAttr);
    for (auto [result, arg] : llvm::enumerate(params))
      fn.setArgAttr(arg, kParamArgAttr, b.getI64IntegerAttr(result + 1));
  }
  return success();
}

std::unique_ptr<TrainingRunner>
TrainingRunner::prepare(OwningOpRef<ModuleOp> module,
                        const RunnerOptions &options, llvm::raw_ostream &errs) {
  // The runtime's range (hwcore's Limits.h), before anything compiles: the
  // session would refuse the cap only after the step was built.
  if (std::string error = hwcore::checkPowerCap(options.powerCap);
      !error.empty()) {
    errs << "hwagent-run: --power-cap: " << error << "\n";
    return nullptr;
  }
  std::unique_ptr<TrainingRunner> r(new TrainingRunner());
  r->options = options;
  r->entry = options.entry;
  auto fn = module->lookupSymbol<func::FuncOp>(options.entry);
  if (!fn || fn.isExternal()) {
    errs << "hwagent-run: no function @" << options.entry << "\n";
    return nullptr;
  }
  FunctionType type = fn.getFunctionType();
  if (type.getNumResults() < 1 || !isLossType(type.getResult(0))) {
    errs << "hwagent-run: @" << options.entry
         << " does not return its loss first (a scalar f32); a training step "
            "is (args...) -> (loss, updated parameters...)\n";
    return nullptr;
  }
  if (failed(checkArguments(fn, errs)) ||
      failed(mapParameters(fn, options, r->params, r->inputs, errs)))
    return nullptr;
  auto evalFn = module->lookupSymbol<func::FuncOp>(options.evalEntry);
  if (evalFn && (evalFn.isExternal() || !evalFn.isPublic()))
    evalFn = nullptr;
  if (evalFn && failed(checkArguments(evalFn, errs)))
    return nullptr;
  // Its loss is what every epoch reports: a function without one would
  // print a made-up 0.
  if (evalFn && llvm::none_of(evalFn.getFunctionType().getResults(),
                              [](Type t) { return isLossType(t); })) {
    errs << "hwagent-run: @" << options.evalEntry
         << " returns no scalar f32 loss; an evaluation function is "
            "(inputs, parameters) -> (loss, [correct]) (docs/training.md; "
            "--eval NAME picks another function)\n";
    return nullptr;
  }
  if (evalFn)
    r->evalEntry = options.evalEntry;
  // Refuse steps that cannot fit: generated code would fail to allocate.
  r->peakBytes = estimatePeakBytes(fn);
  if (failed(checkMemory(options.entry, r->peakBytes, errs)))
    return nullptr;
  r->oneHot = oneHotArgs(fn);
  r->classes = labelClasses(options.classes, type, r->params);
  // Host buffers as the compiled model info will describe them.
  r->args = makeBuffers(describeFunction(fn));
  if (evalFn) {
    r->evalOneHot = oneHotArgs(evalFn);
    r->evalArgs = makeBuffers(describeFunction(evalFn));
    shareParameters(r->args, r->params, r->evalArgs);
  }
  r->module = std::move(module);
  return r;
}

bool TrainingRunner::lowerAndJit(llvm::raw_ostream &errs) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    registerAllPasses();
    return true;
  }();
  (void)initialized;
  // The pipeline from typed options: a target path may hold any character.
  bool partitioned = false;
  module->walk([&](RegionOp) { partitioned = true; });
  PassManager pm(module->getContext());
  if (!partitioned) {
    PartitionBackendsOptions partition;
    if (!options.partitionOptions.empty() &&
        failed(partition.parseFromString(options.partitionOptions, errs))) {
      errs << "hwagent-run: bad partition options '" << options.partitionOptions
           << "'\n";
      return false;
    }
    partition.target = options.target;
    partition.strategy = options.strategy;
    partition.objective = options.objective;
    partition.powerCap = options.powerCap;
    if (!options.partitionReport.empty())
      partition.report = options.partitionReport;
    buildPartitionBackendsPipeline(pm, partition);
  }
  pm.addPass(createLowerToRuntime());
  LowerToLLVMOptions lowering;
  lowering.kernelMinFlops = options.kernelMinFlops;
  lowering.parallelMinWork = options.parallelMinWork;
  lowering.reassociateReductions = options.reassociateReductions;
  lowering.mergeParallelLoops = options.mergeParallelLoops;
  buildLowerToLLVMPipeline(pm, lowering);
  attachPassContext(pm, "hwagent-run",
                    options.inputFile.empty() ? "the module"
                                              : options.inputFile,
                    "hwagent-opt with --partition-backends "
                    "--hwagent-lower-to-runtime --hwagent-lower-to-llvm "
                    "--mlir-print-ir-before={0} shows the IR the pass was "
                    "given");
  // The module is verified once, after the whole pipeline, not after each
  // of its passes: verifying after every pass took 10 of the 18 s of an
  // imported MobileNetV2's lowering (docs/importer.md, "Start-up"). The
  // tests run the same pipeline through hwagent-opt, which verifies after
  // every pass, and so does the command the error below names.
  pm.enableVerifier(false);
  auto start = std::chrono::steady_clock::now();
  if (failed(pm.run(*module))) {
    errs << "hwagent-run: partitioning or lowering @" << options.entry
         << " failed (see the diagnostics above)\n";
    return false;
  }
  if (failed(verify(*module))) {
    errs << "hwagent-run: internal error: lowering @" << options.entry
         << " produced invalid IR (see the diagnostics above); "
            "hwagent-opt --partition-backends --hwagent-lower-to-runtime "
            "--hwagent-lower-to-llvm on the same file verifies after every "
            "pass and names the one at fault\n";
    return false;
  }
  pipelineSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::string jitError;
  engine = createHostJit(*module, jitError);
  if (!engine) {
    errs << "hwagent-run: " << jitError << "\n";
    return false;
  }
  // The JIT optimizes and generates code when a symbol is first looked up:
  // that is part of the start-up the figure reports.
  if (llvm::Expected<void *> symbol = engine->lookup(HWAGENT_MODEL_INFO_SYMBOL);
      !symbol) {
    errs << "hwagent-run: no model info: " << llvm::toString(symbol.takeError())
         << "\n";
    return false;
  }
  compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // Again with the compiled code loaded (a process limit counts it).
  return succeeded(checkMemory(options.entry, peakBytes, errs));
}

bool TrainingRunner::createSession(llvm::raw_ostream &errs) {
  void *model = nullptr;
  if (llvm::Expected<void *> symbol = engine->lookup(HWAGENT_MODEL_INFO_SYMBOL);
      symbol) {
    model = reinterpret_cast<void *(*)()>(*symbol)();
  } else {
    errs << "hwagent-run: no model info: " << llvm::toString(symbol.takeError())
         << "\n";
    return false;
  }
  auto *info = static_cast<const hwagent_model_info_t *>(model);
  if (hwagent_session_create(info, &options.runtime, &session) != HWAGENT_OK ||
      hwagent_step_create(info, entry.c_str(), &trainStep) != HWAGENT_OK ||
      (!evalEntry.empty() &&
       hwagent_step_create(info, evalEntry.c_str(), &evalStep) != HWAGENT_OK)) {
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
    return false;
  }
  hwagent_session_make_current(session);
  return true;
}

void TrainingRunner::dropEvaluation() {
  if (evalEntry.empty() || engine)
    return;
  auto fn = module->lookupSymbol<func::FuncOp>(evalEntry);
  if (fn && SymbolTable::symbolKnownUseEmpty(fn, *module))
    fn.erase();
  evalEntry.clear();
  evalArgs.clear();
  evalOneHot.clear();
}

bool TrainingRunner::compile(const std::vector<bool> &supplied,
                             const std::vector<bool> &evalSupplied,
                             llvm::raw_ostream &errs) {
  if (!lowerAndJit(errs) || !createSession(errs))
    return false;
  // Deterministic contents where the caller supplies none, in argument
  // order from one seeded stream (a supplied buffer's share of the stream
  // is drawn too, so that the others do not depend on what was supplied).
  std::mt19937_64 rng(options.seed);
  auto given = [](const std::vector<bool> &mask, size_t a) {
    return a < mask.size() && mask[a];
  };
  for (auto [a, b] : llvm::enumerate(args))
    synthesize(b, oneHot[a], classes, options.inputScale, rng,
               !given(supplied, a));
  for (auto [a, b] : llvm::enumerate(evalArgs))
    if (!b.shared)
      synthesize(b, evalOneHot[a], classes, options.inputScale, rng,
                 !given(evalSupplied, a));
  return bindAll(trainStep, args, errs) &&
         (!evalStep || bindAll(evalStep, evalArgs, errs));
}

std::unique_ptr<TrainingRunner>
TrainingRunner::create(OwningOpRef<ModuleOp> module,
                       const RunnerOptions &options, llvm::raw_ostream &errs) {
  std::unique_ptr<TrainingRunner> r = prepare(std::move(module), options, errs);
  if (!r || !r->compile({}, {}, errs))
    return nullptr;
  return r;
}

float TrainingRunner::step(llvm::raw_ostream &errs) {
  hwagent_session_make_current(session);
  if (hwagent_step_run(trainStep) != HWAGENT_OK) {
    errs << "hwagent-run: step failed: " << hwagent_error_message() << "\n";
    return NAN;
  }
  const hwagent_function_info_t *fn = hwagent_step_function(trainStep);
  hwagent_tensor_t loss;
  if (hwagent_step_result(trainStep, fn->results[0].name, &loss) !=
      HWAGENT_OK) {
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
    return NAN;
  }
  float value = *static_cast<const float *>(loss.data);
  if (hwagent_session_end_step(session, value) != HWAGENT_OK)
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
  return value;
}

bool TrainingRunner::evaluate(
    std::vector<std::pair<std::string, double>> &results,
    llvm::raw_ostream &errs) {
  results.clear();
  if (!evalStep)
    return true;
  hwagent_session_make_current(session);
  if (hwagent_step_run(evalStep) != HWAGENT_OK) {
    errs << "hwagent-run: @" << evalEntry
         << " failed: " << hwagent_error_message() << "\n";
    return false;
  }
  hwagent_session_discard_step(session);
  const hwagent_function_info_t *fn = hwagent_step_function(evalStep);
  for (uint32_t i = 0; i < fn->num_results; ++i) {
    hwagent_tensor_t t;
    if (hwagent_step_result(evalStep, fn->results[i].name, &t) != HWAGENT_OK ||
        hwagent_tensor_elements(&t) != 1)
      continue;
    double v = 0;
    switch (t.dtype) {
    case HWAGENT_DTYPE_F32:
      v = *static_cast<const float *>(t.data);
      break;
    case HWAGENT_DTYPE_I32:
      v = *static_cast<const int32_t *>(t.data);
      break;
    case HWAGENT_DTYPE_I64:
      v = double(*static_cast<const int64_t *>(t.data));
      break;
    default:
      continue;
    }
    results.emplace_back(fn->results[i].name, v);
  }
  return true;
}

bool TrainingRunner::saveOutputs(const std::string &path,
                                 llvm::raw_ostream &errs) const {
  const hwagent_function_info_t *fn = hwagent_step_function(trainStep);
  std::vector<hwagent_tensor_t> tensors;
  for (uint32_t i = 0; i < fn->num_results; ++i) {
    if (fn->results[i].role == HWAGENT_ROLE_PARAMETER)
      continue;
    hwagent_tensor_t t;
    if (hwagent_step_result(trainStep, fn->results[i].name, &t) != HWAGENT_OK) {
      errs << "hwagent-run: " << hwagent_error_message() << "\n";
      return false;
    }
    t.name = fn->results[i].name;
    tensors.push_back(t);
  }
  const char *metadata[] = {"format", "hwagent-outputs", "entry",
                            entry.c_str()};
  if (hwagent_safetensors_write(path.c_str(), tensors.data(), tensors.size(),
                                metadata, 2) != HWAGENT_OK) {
    errs << "hwagent-run: cannot write the outputs: " << hwagent_error_message()
         << "\n";
    return false;
  }
  return true;
}

bool TrainingRunner::finish(llvm::raw_ostream &errs) {
  if (!session)
    return true;
  hwagent_status_t status = hwagent_session_destroy(session);
  session = nullptr;
  if (status != HWAGENT_OK) {
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
    return false;
  }
  return true;
}

TrainingRunner::ParamChecksum TrainingRunner::paramChecksum(unsigned p) const {
  const ArgBuffer &t = args[params[p]];
  ParamChecksum checksum;
  if (t.dtype != HWAGENT_DTYPE_F32)
    return checksum;
  const float *data = reinterpret_cast<const float *>(t.data());
  for (int64_t k = 0; k < t.elements; ++k) {
    checksum.sum += data[k];
    checksum.sumAbs += std::fabs(data[k]);
  }
  checksum.bits = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(data), t.elements * sizeof(float)));
  return checksum;
}

TrainingRunner::~TrainingRunner() {
  hwagent_step_destroy(trainStep);
  hwagent_step_destroy(evalStep);
  if (session)
    hwagent_session_destroy(session);
}
