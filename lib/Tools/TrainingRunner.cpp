//===- TrainingRunner.cpp - JIT a training step and run it ----------------===//

#include "HwAgent/Tools/TrainingRunner.h"

#include "HwAgent/Analysis/StepSignature.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Tools/InitAll.h"
#include "HwAgent/Tools/Jit.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::hwagent;

void hwagent::registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

/// `a * b` saturating at INT64_MAX (shapes from a file may overflow).
static int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return INT64_MAX;
  return product;
}

static bool isSupportedElement(Type type) {
  return type.isF32() || type.isInteger(32) || type.isInteger(64);
}

/// Checks that every argument of `fn` is a static tensor the runner can
/// hold.
static LogicalResult checkArguments(func::FuncOp fn, llvm::raw_ostream &errs) {
  for (auto [index, t] : llvm::enumerate(fn.getFunctionType().getInputs())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() ||
        !isSupportedElement(tensor.getElementType()) ||
        tensor.getRank() > HWAGENT_MAX_RANK) {
      errs << "hwagent-run: argument #" << index << " of @" << fn.getName()
           << " must be a static tensor of f32, i32 or i64 (rank <= "
           << HWAGENT_MAX_RANK << "), got " << t << "\n";
      return failure();
    }
  }
  return success();
}

/// Bytes of the largest set of tensors live at once in `fn`'s body (its
/// arguments included), a lower bound of what running it needs.
static int64_t estimatePeakBytes(func::FuncOp fn) {
  auto bytesOf = [](Type type) -> int64_t {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape() ||
        !shaped.getElementType().isIntOrFloat())
      return 0;
    int64_t n = (shaped.getElementTypeBitWidth() + 7) / 8;
    for (int64_t d : shaped.getShape())
      n = saturatingMul(n, d);
    return n;
  };
  auto add = [](int64_t a, int64_t b) {
    int64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
  };
  Block &body = fn.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned index = 0;
  for (Operation &op : body)
    position[&op] = index++;
  // The last top-level op using each value.
  auto lastUse = [&](Value value) {
    unsigned last = 0;
    for (Operation *user : value.getUsers()) {
      Operation *top = body.findAncestorOpInBlock(*user);
      if (top)
        last = std::max(last, position[top]);
    }
    return last;
  };
  int64_t live = 0;
  for (BlockArgument arg : body.getArguments())
    live = add(live, bytesOf(arg.getType()));
  std::vector<std::vector<int64_t>> freed(index + 1);
  int64_t peak = live;
  for (Operation &op : body) {
    for (Value result : op.getResults()) {
      int64_t bytes = bytesOf(result.getType());
      live = add(live, bytes);
      freed[lastUse(result)].push_back(bytes);
    }
    peak = std::max(peak, live);
    for (int64_t bytes : freed[position[&op]])
      live -= std::min(live, bytes);
  }
  return peak;
}

/// Bytes this process may still allocate: the free memory, or less when a
/// limit on its address space (`ulimit -v`, as containers and CI set) leaves
/// less room above what it already maps. `limited` says which applies.
static int64_t availableMemory(bool &limited) {
  limited = false;
  int64_t available = INT64_MAX;
  hwagent_telemetry_t telemetry = {};
  if (hwagent_telemetry_read(&telemetry) == HWAGENT_OK &&
      telemetry.free_memory_bytes > 0)
    available = telemetry.free_memory_bytes;
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    long pages = 0;
    if (std::FILE *statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1)
        pages = 0;
      std::fclose(statm);
    }
    int64_t mapped = int64_t(pages) * sysconf(_SC_PAGESIZE);
    int64_t room = std::max<int64_t>(0, int64_t(limit.rlim_cur) - mapped);
    if (room < available) {
      available = room;
      limited = true;
    }
  }
  return available;
}

/// Fails (with both figures) when `peakBytes` cannot be allocated.
static LogicalResult checkMemory(const std::string &entry, int64_t peakBytes,
                                 llvm::raw_ostream &errs) {
  bool limited;
  int64_t available = availableMemory(limited);
  if (peakBytes <= available)
    return success();
  errs << llvm::formatv(
      "hwagent-run: @{0} needs at least {1:f1} MiB of live tensors at its "
      "peak but only {2:f1} MiB {3}; run a smaller variant "
      "(scripts/gen_workloads.py --small)\n",
      entry, peakBytes / double(1 << 20), available / double(1 << 20),
      limited ? "fit under this process's memory limit (ulimit -v)"
              : "of memory are available");
  return failure();
}

//===----------------------------------------------------------------------===//
// The runner
//===----------------------------------------------------------------------===//

TrainingRunner::TrainingRunner() = default;

/// Host buffers for `fn`'s arguments, as the model info describes them.
static std::vector<ArgBuffer> makeBuffers(const hwagent_function_info_t &fn) {
  std::vector<ArgBuffer> buffers(fn.num_args);
  for (uint32_t a = 0; a < fn.num_args; ++a) {
    const hwagent_value_info_t &info = fn.args[a];
    ArgBuffer &b = buffers[a];
    b.name = info.name;
    b.role = static_cast<hwagent_role_t>(info.role);
    b.dtype = static_cast<hwagent_dtype_t>(info.dtype);
    b.shape.assign(info.shape, info.shape + std::max(info.rank, 0));
    for (int64_t d : b.shape)
      b.elements = saturatingMul(b.elements, d);
  }
  return buffers;
}

/// Deterministic contents: N(0, 1) data (scaled), one-hot rows for labels
/// of f32, labels in range for integer inputs, N(0, 1/fan_in) parameters.
static void synthesize(ArgBuffer &b, bool oneHot, int64_t classes,
                       float inputScale, std::mt19937_64 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  int64_t n = b.elements;
  if (b.dtype == HWAGENT_DTYPE_F32) {
    float *data = reinterpret_cast<float *>(b.data());
    if (b.role != HWAGENT_ROLE_PARAMETER && oneHot) {
      int64_t width = b.shape.empty() ? 1 : b.shape.back();
      for (int64_t k = 0; k < n; ++k)
        data[k] = (k % width) == ((k / width) * 7 + 3) % width ? 1.0f : 0.0f;
    } else if (b.role != HWAGENT_ROLE_PARAMETER) {
      for (int64_t k = 0; k < n; ++k)
        data[k] = inputScale * normal(rng);
    } else {
      const std::vector<int64_t> &s = b.shape;
      double fan = s.size() == 2 ? s[0] : s.size() > 2 ? double(n) / s[0] : 0;
      float scale = fan > 0 ? float(1.0 / std::sqrt(fan)) : 0.0f;
      for (int64_t k = 0; k < n; ++k)
        data[k] = scale * normal(rng);
    }
    return;
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t label = (k * 7 + 3) % classes;
    if (b.dtype == HWAGENT_DTYPE_I32)
      reinterpret_cast<int32_t *>(b.data())[k] = int32_t(label);
    else
      reinterpret_cast<int64_t *>(b.data())[k] = label;
  }
}

static bool bindAll(hwagent_step_t *step, std::vector<ArgBuffer> &buffers,
                    llvm::raw_ostream &errs) {
  for (ArgBuffer &b : buffers)
    if (hwagent_step_bind(step, b.name.c_str(), b.data(), b.dtype,
                          int32_t(b.shape.size()),
                          b.shape.data()) != HWAGENT_OK) {
      errs << "hwagent-run: " << hwagent_error_message() << "\n";
      return false;
    }
  return true;
}

std::unique_ptr<TrainingRunner>
TrainingRunner::create(OwningOpRef<ModuleOp> module,
                       const RunnerOptions &options, llvm::raw_ostream &errs) {
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
  if (type.getNumResults() < 1 || !isLossType(type.getResult(0))) {
    errs << "hwagent-run: @" << options.entry
         << " does not return its loss first (a scalar f32); a training step "
            "is (args...) -> (loss, updated parameters...)\n";
    return nullptr;
  }
  if (failed(checkArguments(fn, errs)))
    return nullptr;
  std::string mappingError;
  llvm::raw_string_ostream mappingOs(mappingError);
  FailureOr<std::vector<unsigned>> mapping =
      mapStepParameters(fn, options.paramArgs, mappingOs);
  if (failed(mapping)) {
    errs << "hwagent-run: " << mappingError;
    return nullptr;
  }
  r->params = *mapping;
  for (unsigned a = 0; a < type.getNumInputs(); ++a)
    if (!llvm::count(r->params, a))
      r->inputs.push_back(a);
  // The compiled signature follows the same mapping: an explicit one
  // becomes the arguments' markers.
  if (!options.paramArgs.empty()) {
    Builder b(fn.getContext());
    for (unsigned a = 0; a < type.getNumInputs(); ++a)
      fn.removeArgAttr(a, "hwagent.param");
    for (auto [result, arg] : llvm::enumerate(r->params))
      fn.setArgAttr(arg, "hwagent.param", b.getI64IntegerAttr(result + 1));
  }
  auto evalFn = module->lookupSymbol<func::FuncOp>(options.evalEntry);
  if (evalFn && (evalFn.isExternal() || !evalFn.isPublic()))
    evalFn = nullptr;
  if (evalFn && failed(checkArguments(evalFn, errs)))
    return nullptr;
  if (evalFn)
    r->evalEntry = options.evalEntry;

  // Refuse steps that cannot fit: generated code would fail to allocate.
  r->peakBytes = estimatePeakBytes(fn);
  if (failed(checkMemory(options.entry, r->peakBytes, errs)))
    return nullptr;
  // Which f32 inputs are one-hot labels (the attribute goes with lowering).
  auto oneHotNames = [](func::FuncOp f) {
    std::vector<bool> oneHot;
    for (unsigned a = 0; a < f.getNumArguments(); ++a) {
      auto attr = f.getArgAttrOfType<StringAttr>(a, "hwagent.input");
      oneHot.push_back(attr && attr.getValue() == "one_hot");
    }
    return oneHot;
  };
  std::vector<bool> oneHot = oneHotNames(fn);
  std::vector<bool> evalOneHot =
      evalFn ? oneHotNames(evalFn) : std::vector<bool>();
  int64_t classes = options.classes;
  if (classes <= 0) {
    classes = INT64_MAX;
    for (unsigned p : r->params) {
      auto t = cast<RankedTensorType>(type.getInput(p));
      if (t.getRank() == 1 && t.getDimSize(0) >= 2)
        classes = std::min(classes, t.getDimSize(0));
    }
    if (classes == INT64_MAX)
      classes = 2;
  }

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
      return nullptr;
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
  buildLowerToLLVMPipeline(pm, lowering);
  auto start = std::chrono::steady_clock::now();
  if (failed(pm.run(*module))) {
    errs << "hwagent-run: partitioning or lowering @" << options.entry
         << " failed (see the diagnostics above)\n";
    return nullptr;
  }

  std::string jitError;
  r->engine = createHostJit(*module, jitError);
  if (!r->engine) {
    errs << "hwagent-run: " << jitError << "\n";
    return nullptr;
  }
  r->compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // Again with the compiled code loaded (a process limit counts it).
  if (failed(checkMemory(options.entry, r->peakBytes, errs)))
    return nullptr;
  r->module = std::move(module);

  void *model = nullptr;
  if (llvm::Error error = r->engine->invoke("__hwagent_model_info",
                                            ExecutionEngine::result(model))) {
    errs << "hwagent-run: no model info: " << llvm::toString(std::move(error))
         << "\n";
    return nullptr;
  }
  auto *info = static_cast<const hwagent_model_info_t *>(model);
  if (hwagent_session_create(info, &options.runtime, &r->session) !=
          HWAGENT_OK ||
      hwagent_step_create(info, options.entry.c_str(), &r->trainStep) !=
          HWAGENT_OK ||
      (evalFn && hwagent_step_create(info, options.evalEntry.c_str(),
                                     &r->evalStep) != HWAGENT_OK)) {
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
    return nullptr;
  }
  hwagent_session_make_current(r->session);

  // Buffers, deterministic contents and bindings.
  std::mt19937_64 rng(options.seed);
  r->args = makeBuffers(*hwagent_step_function(r->trainStep));
  for (auto [a, b] : llvm::enumerate(r->args)) {
    b.storage.resize(std::max<int64_t>(1, b.bytes()));
    synthesize(b, oneHot[a], classes, options.inputScale, rng);
  }
  if (r->evalStep) {
    r->evalArgs = makeBuffers(*hwagent_step_function(r->evalStep));
    for (auto [a, b] : llvm::enumerate(r->evalArgs)) {
      for (unsigned p : r->params)
        if (r->args[p].name == b.name && r->args[p].shape == b.shape &&
            r->args[p].dtype == b.dtype) {
          b.shared = &r->args[p];
          b.role = HWAGENT_ROLE_PARAMETER;
        }
      if (b.shared)
        continue;
      b.storage.resize(std::max<int64_t>(1, b.bytes()));
      synthesize(b, evalOneHot[a], classes, options.inputScale, rng);
    }
  }
  if (!bindAll(r->trainStep, r->args, errs) ||
      (r->evalStep && !bindAll(r->evalStep, r->evalArgs, errs)))
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

std::pair<double, double> TrainingRunner::paramChecksum(unsigned p) const {
  const ArgBuffer &t = args[params[p]];
  double sum = 0, sumAbs = 0;
  if (t.dtype != HWAGENT_DTYPE_F32)
    return {0, 0};
  const float *data = reinterpret_cast<const float *>(t.data());
  for (int64_t k = 0; k < t.elements; ++k) {
    sum += data[k];
    sumAbs += std::fabs(data[k]);
  }
  return {sum, sumAbs};
}

TrainingRunner::~TrainingRunner() {
  hwagent_step_destroy(trainStep);
  hwagent_step_destroy(evalStep);
  if (session)
    hwagent_session_destroy(session);
}
