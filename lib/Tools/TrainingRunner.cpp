//===- TrainingRunner.cpp - JIT a training step and run it ----------------===//

#include "HwAgent/Tools/TrainingRunner.h"

#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Tools/InitAll.h"
#include "HwAgent/Tools/Jit.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/MemRefUtils.h"
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

using namespace mlir;
using namespace mlir::hwagent;

void hwagent::registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

//===----------------------------------------------------------------------===//
// Tensors and memref descriptors
//===----------------------------------------------------------------------===//

/// Largest rank of a step argument or result.
static constexpr int kMaxRank = 8;

/// `a * b` saturating at INT64_MAX (shapes from a file may overflow).
static int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return INT64_MAX;
  return product;
}

template <int N>
static void writeDescriptor(std::vector<int64_t> &words, char *data,
                            ArrayRef<int64_t> shape) {
  auto descriptor =
      mlir::detail::makeStridedMemRefDescriptor<N>(data, data, shape, shape);
  words.resize(sizeof(descriptor) / sizeof(int64_t));
  std::memcpy(words.data(), &descriptor, sizeof(descriptor));
}

/// The memref descriptor (MLIR's strided layout) of `shape` over `data`.
static std::vector<int64_t> makeDescriptor(char *data,
                                           ArrayRef<int64_t> shape) {
  std::vector<int64_t> words;
  switch (shape.size()) {
#define HWAGENT_RANK(N)                                                        \
  case N:                                                                      \
    writeDescriptor<N>(words, data, shape);                                    \
    break;
    HWAGENT_RANK(0)
    HWAGENT_RANK(1)
    HWAGENT_RANK(2)
    HWAGENT_RANK(3)
    HWAGENT_RANK(4)
    HWAGENT_RANK(5)
    HWAGENT_RANK(6)
    HWAGENT_RANK(7)
    HWAGENT_RANK(8)
#undef HWAGENT_RANK
  }
  return words;
}

/// Bytes of a descriptor of rank `rank`.
static size_t descriptorBytes(int64_t rank) { return (3 + 2 * rank) * 8; }

/// A step argument: runner-owned storage, or (after a step) the buffer the
/// generated code returned for the parameter.
struct TrainingRunner::Tensor {
  Type elementType;
  std::vector<int64_t> shape;
  int64_t elements = 1;
  std::vector<char> storage;
  std::vector<int64_t> descriptor;

  int64_t elementBytes() const {
    return (elementType.getIntOrFloatBitWidth() + 7) / 8;
  }
  /// The first element (base pointer + offset).
  char *data() const {
    auto *view =
        reinterpret_cast<const StridedMemRefType<char, 0> *>(descriptor.data());
    return view->data + view->offset * elementBytes();
  }
  void *allocated() const {
    return reinterpret_cast<const StridedMemRefType<char, 0> *>(
               descriptor.data())
        ->basePtr;
  }
};

//===----------------------------------------------------------------------===//
// The step's signature
//===----------------------------------------------------------------------===//

static bool isSupportedElement(Type type) {
  return type.isF32() || type.isInteger(32) || type.isInteger(64);
}

/// Result 0 is the loss: f32, tensor<f32> or tensor<1xf32>.
static bool isLossType(Type type) {
  if (type.isF32())
    return true;
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() == 1 &&
         tensor.getElementType().isF32();
}

/// The argument each result after the loss updates.
static FailureOr<std::vector<unsigned>>
mapParameters(func::FuncOp fn, const RunnerOptions &options,
              llvm::raw_ostream &errs) {
  FunctionType type = fn.getFunctionType();
  unsigned numResults = type.getNumResults() - 1;
  std::vector<unsigned> mapping(numResults, ~0u);
  auto fail = [&](const llvm::Twine &message) {
    errs << "hwagent-run: @" << fn.getName() << ": " << message << "\n";
    return failure();
  };
  auto check = [&](unsigned result, unsigned arg) -> LogicalResult {
    if (arg >= type.getNumInputs())
      return fail(llvm::formatv("result #{0} is mapped to argument #{1}, but "
                                "the step has {2} arguments",
                                result + 1, arg, type.getNumInputs()));
    if (type.getInput(arg) != type.getResult(result + 1)) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "result #" << result + 1 << " (" << type.getResult(result + 1)
         << ") cannot update argument #" << arg << " (" << type.getInput(arg)
         << "): the types differ";
      return fail(message);
    }
    if (llvm::count(mapping, arg))
      return fail(
          llvm::formatv("argument #{0} is updated by two results", arg));
    mapping[result] = arg;
    return success();
  };

  // 1. The command line.
  if (!options.paramArgs.empty()) {
    if (options.paramArgs.size() != numResults)
      return fail(llvm::formatv("--params lists {0} arguments for {1} updated "
                                "parameters",
                                options.paramArgs.size(), numResults));
    for (unsigned r = 0; r < numResults; ++r)
      if (options.paramArgs[r] < 0 ||
          failed(check(r, static_cast<unsigned>(options.paramArgs[r]))))
        return failure();
    return mapping;
  }
  // 2. `hwagent.param` attributes: an integer names the result; a unit
  // attribute marks a parameter taken in order.
  SmallVector<unsigned> marked;
  for (unsigned a = 0; a < type.getNumInputs(); ++a) {
    Attribute attr = fn.getArgAttr(a, "hwagent.param");
    if (!attr)
      continue;
    if (auto index = dyn_cast<IntegerAttr>(attr)) {
      int64_t result = index.getInt();
      if (result < 1 || result > int64_t(numResults))
        return fail(llvm::formatv("argument #{0}: hwagent.param = {1} names no "
                                  "result (1..{2})",
                                  a, result, numResults));
      if (failed(check(result - 1, a)))
        return failure();
    } else {
      marked.push_back(a);
    }
  }
  if (!marked.empty() || llvm::count(mapping, ~0u) != numResults) {
    auto next = marked.begin();
    for (unsigned r = 0; r < numResults; ++r)
      if (mapping[r] == ~0u) {
        if (next == marked.end())
          return fail(llvm::formatv("result #{0} updates no argument marked "
                                    "hwagent.param",
                                    r + 1));
        if (failed(check(r, *next++)))
          return failure();
      }
    return mapping;
  }
  // 3. By type and position: the arguments of each result type, in order.
  for (unsigned r = 0; r < numResults; ++r) {
    Type t = type.getResult(r + 1);
    SmallVector<unsigned> candidates, results;
    for (unsigned a = 0; a < type.getNumInputs(); ++a)
      if (type.getInput(a) == t)
        candidates.push_back(a);
    for (unsigned q = 0; q < numResults; ++q)
      if (type.getResult(q + 1) == t)
        results.push_back(q);
    if (candidates.size() < results.size()) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "result #" << r + 1 << " (" << t
         << ") updates no argument of its type";
      return fail(message);
    }
    if (candidates.size() > results.size()) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "result #" << r + 1 << " (" << t << ") could update argument";
      for (auto [i, a] : llvm::enumerate(candidates))
        os << (i ? (i + 1 == candidates.size() ? " or #" : ", #") : " #") << a;
      os << "; mark the parameters with {hwagent.param} or pass --params";
      return fail(message);
    }
    unsigned position = llvm::find(results, r) - results.begin();
    if (failed(check(r, candidates[position])))
      return failure();
  }
  return mapping;
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

//===----------------------------------------------------------------------===//
// The runner
//===----------------------------------------------------------------------===//

TrainingRunner::TrainingRunner() = default;

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
  r->stepType = type;
  if (type.getNumResults() < 1 || !isLossType(type.getResult(0))) {
    errs << "hwagent-run: @" << options.entry
         << " does not return its loss first (a scalar f32); a training step "
            "is (args...) -> (loss, updated parameters...)\n";
    return nullptr;
  }
  for (auto [index, t] : llvm::enumerate(type.getInputs())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() ||
        !isSupportedElement(tensor.getElementType()) ||
        tensor.getRank() > kMaxRank) {
      errs << "hwagent-run: argument #" << index << " of @" << options.entry
           << " must be a static tensor of f32, i32 or i64 (rank <= "
           << kMaxRank << "), got " << t << "\n";
      return nullptr;
    }
  }
  FailureOr<std::vector<unsigned>> mapping = mapParameters(fn, options, errs);
  if (failed(mapping))
    return nullptr;
  r->params = *mapping;
  for (unsigned a = 0; a < type.getNumInputs(); ++a)
    if (!llvm::count(r->params, a))
      r->inputs.push_back(a);

  // Refuse steps that cannot fit: generated code would fail to allocate.
  r->peakBytes = estimatePeakBytes(fn);
  hwagent_telemetry_t telemetry = {};
  if (hwagent_telemetry_read(&telemetry) == HWAGENT_OK &&
      telemetry.free_memory_bytes > 0 &&
      r->peakBytes > telemetry.free_memory_bytes) {
    errs << llvm::formatv(
        "hwagent-run: @{0} needs at least {1:f1} GiB of live tensors at its "
        "peak but only {2:f1} GiB of memory are available; run a smaller "
        "variant (scripts/gen_workloads.py --small)\n",
        options.entry, r->peakBytes / double(1ull << 30),
        telemetry.free_memory_bytes / double(1ull << 30));
    return nullptr;
  }

  // Deterministic data before lowering (the argument attributes go with
  // it): N(0, 1) data (scaled), one-hot rows for inputs marked one_hot,
  // labels in range for integer inputs, N(0, 1/fan_in) weights.
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
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (unsigned a = 0; a < type.getNumInputs(); ++a) {
    auto t = cast<RankedTensorType>(type.getInput(a));
    auto tensor = std::make_unique<Tensor>();
    tensor->elementType = t.getElementType();
    tensor->shape.assign(t.getShape().begin(), t.getShape().end());
    for (int64_t d : tensor->shape)
      tensor->elements = saturatingMul(tensor->elements, d);
    tensor->storage.resize(std::max<int64_t>(1, tensor->elements) *
                           tensor->elementBytes());
    tensor->descriptor = makeDescriptor(tensor->storage.data(), tensor->shape);
    bool isParam = llvm::count(r->params, a);
    auto oneHot = fn.getArgAttrOfType<StringAttr>(a, "hwagent.input");
    int64_t n = tensor->elements;
    if (t.getElementType().isF32()) {
      float *data = reinterpret_cast<float *>(tensor->storage.data());
      if (!isParam && oneHot && oneHot.getValue() == "one_hot") {
        int64_t width = tensor->shape.empty() ? 1 : tensor->shape.back();
        for (int64_t k = 0; k < n; ++k)
          data[k] = (k % width) == ((k / width) * 7 + 3) % width ? 1.0f : 0.0f;
      } else if (!isParam) {
        for (int64_t k = 0; k < n; ++k)
          data[k] = options.inputScale * normal(rng);
      } else {
        const std::vector<int64_t> &s = tensor->shape;
        double fan = s.size() == 2 ? s[0] : s.size() > 2 ? double(n) / s[0] : 0;
        float scale = fan > 0 ? float(1.0 / std::sqrt(fan)) : 0.0f;
        for (int64_t k = 0; k < n; ++k)
          data[k] = scale * normal(rng);
      }
    } else {
      // Integer labels in [0, classes), deterministic.
      for (int64_t k = 0; k < n; ++k) {
        int64_t label = (k * 7 + 3) % classes;
        if (t.getElementType().isInteger(32))
          reinterpret_cast<int32_t *>(tensor->storage.data())[k] =
              int32_t(label);
        else
          reinterpret_cast<int64_t *>(tensor->storage.data())[k] = label;
      }
    }
    r->args.push_back(std::move(tensor));
  }
  // The returned struct: the loss (a float or a descriptor), then one
  // descriptor per parameter, each at its natural alignment.
  size_t offset = 0;
  for (Type t : type.getResults()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    size_t size = tensor ? descriptorBytes(tensor.getRank()) : 4;
    size_t align = tensor ? 8 : 4;
    offset = (offset + align - 1) / align * align;
    r->resultOffsets.push_back(offset);
    offset += size;
  }
  r->results.assign((offset + 7) / 8 * 8, 0);

  bool partitioned = false;
  module->walk([&](RegionOp) { partitioned = true; });
  PassManager pm(module->getContext());
  std::string pipeline;
  if (!partitioned)
    pipeline =
        "partition-backends{target=" + options.target +
        " strategy=" + options.strategy +
        (options.partitionOptions.empty() ? ""
                                          : " " + options.partitionOptions) +
        "},";
  pipeline +=
      "hwagent-lower-to-runtime,hwagent-lower-to-llvm{kernel-min-flops=" +
      std::to_string(options.kernelMinFlops) + "}";
  if (failed(parsePassPipeline(pipeline, pm, errs)))
    return nullptr;
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
  r->module = std::move(module);

  void *model = nullptr;
  if (llvm::Error error = r->engine->invoke("__hwagent_model_info",
                                            ExecutionEngine::result(model))) {
    errs << "hwagent-run: no model info: " << llvm::toString(std::move(error))
         << "\n";
    return nullptr;
  }
  if (hwagent_session_create(static_cast<const hwagent_model_info_t *>(model),
                             &options.runtime, &r->session) != HWAGENT_OK) {
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
    return nullptr;
  }
  hwagent_session_make_current(r->session);
  return r;
}

float TrainingRunner::step(llvm::raw_ostream &errs) {
  hwagent_session_make_current(session);
  std::vector<void *> argPointers, packed;
  void *resultPointer = results.data();
  packed.push_back(&resultPointer);
  for (std::unique_ptr<Tensor> &t : args)
    argPointers.push_back(t->descriptor.data());
  for (void *&p : argPointers)
    packed.push_back(&p);
  if (llvm::Error error =
          engine->invokePacked("_mlir_ciface_" + entry, packed)) {
    errs << "hwagent-run: step failed: " << llvm::toString(std::move(error))
         << "\n";
    return NAN;
  }
  FunctionType type = stepType;
  float loss;
  std::vector<void *> returned;
  if (isa<RankedTensorType>(type.getResult(0))) {
    auto *view = reinterpret_cast<StridedMemRefType<float, 0> *>(
        results.data() + resultOffsets[0]);
    loss = view->data[view->offset];
    returned.push_back(view->basePtr);
  } else {
    std::memcpy(&loss, results.data() + resultOffsets[0], sizeof(float));
  }
  // The new parameters become the next step's arguments; free what the
  // generated code allocated and nothing references any more.
  for (auto [r, arg] : llvm::enumerate(params)) {
    auto shape = cast<RankedTensorType>(type.getResult(r + 1)).getShape();
    const char *source = results.data() + resultOffsets[r + 1];
    std::vector<int64_t> words(descriptorBytes(shape.size()) / 8);
    std::memcpy(words.data(), source, words.size() * 8);
    args[arg]->descriptor = std::move(words);
  }
  std::vector<void *> keep;
  for (std::unique_ptr<Tensor> &t : args)
    keep.push_back(t->allocated());
  auto kept = [&](void *p) { return llvm::is_contained(keep, p); };
  std::vector<void *> stillOwned;
  for (void *p : owned)
    if (!kept(p))
      hwagent_buffer_free(p);
  for (void *p : returned)
    if (!kept(p) && !llvm::is_contained(owned, p))
      hwagent_buffer_free(p);
  for (std::unique_ptr<Tensor> &t : args) {
    void *p = t->allocated();
    bool host = p == t->storage.data();
    if (!host && !llvm::is_contained(stillOwned, p))
      stillOwned.push_back(p);
  }
  owned = std::move(stillOwned);
  if (hwagent_session_end_step(session, loss) != HWAGENT_OK)
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
  return loss;
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
  const Tensor &t = *args[params[p]];
  double sum = 0, sumAbs = 0;
  if (!t.elementType.isF32())
    return {0, 0};
  const float *data = reinterpret_cast<const float *>(t.data());
  for (int64_t k = 0; k < t.elements; ++k) {
    sum += data[k];
    sumAbs += std::fabs(data[k]);
  }
  return {sum, sumAbs};
}

TrainingRunner::~TrainingRunner() {
  for (void *p : owned)
    hwagent_buffer_free(p);
  if (session)
    hwagent_session_destroy(session);
}
