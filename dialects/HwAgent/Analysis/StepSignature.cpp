//===- StepSignature.cpp - names and roles of a step's values -------------===//

#include "HwAgent/Analysis/StepSignature.h"

#include "HwAgent/IR/HwAgentDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::hwagent;

bool hwagent::isLossType(Type type) {
  if (type.isF32())
    return true;
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() == 1 &&
         tensor.getElementType().isF32();
}

int32_t hwagent::dtypeOf(Type t) {
  if (t.isF32())
    return HWAGENT_DTYPE_F32;
  if (t.isF16())
    return HWAGENT_DTYPE_F16;
  if (t.isF64())
    return HWAGENT_DTYPE_F64;
  if (t.isInteger(32))
    return HWAGENT_DTYPE_I32;
  if (t.isInteger(64))
    return HWAGENT_DTYPE_I64;
  if (t.isInteger(8))
    return HWAGENT_DTYPE_I8;
  if (t.isInteger(1))
    return HWAGENT_DTYPE_BOOL;
  return -1;
}

static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Start positions of every run of consecutive arguments whose types are
/// `results` in order.
static SmallVector<unsigned> contiguousRuns(FunctionType type,
                                            ArrayRef<Type> results) {
  SmallVector<unsigned> runs;
  unsigned n = results.size();
  for (unsigned start = 0; start + n <= type.getNumInputs(); ++start) {
    bool match = true;
    for (unsigned i = 0; i < n && match; ++i)
      match = type.getInput(start + i) == results[i];
    if (match)
      runs.push_back(start);
  }
  return runs;
}

namespace {
/// Maps the results after a step's loss to the arguments they update, one
/// rule per method; every failure names the function and the rule's
/// reason.
class ParameterMapper {
public:
  ParameterMapper(func::FuncOp fn, llvm::raw_ostream &errs)
      : fn(fn), type(fn.getFunctionType()), errs(errs),
        numResults(type.getNumResults() - 1), mapping(numResults, ~0u) {}

  /// 1. An explicit list.
  FailureOr<std::vector<unsigned>> fromList(ArrayRef<int64_t> explicitArgs);
  /// 2. `hwagent.param` attributes; nullopt when no argument has one.
  std::optional<FailureOr<std::vector<unsigned>>> fromMarkers();
  /// 3. The unique contiguous run of the results' types; nullopt when
  /// there is none.
  std::optional<FailureOr<std::vector<unsigned>>> fromRun();
  /// 4. By type and position: the arguments of each result type, in order.
  FailureOr<std::vector<unsigned>> byType();

private:
  LogicalResult fail(const llvm::Twine &message) {
    errs << "@" << fn.getName() << ": " << message << "\n";
    return failure();
  }
  LogicalResult check(unsigned result, int64_t arg);

  func::FuncOp fn;
  FunctionType type;
  llvm::raw_ostream &errs;
  unsigned numResults;
  std::vector<unsigned> mapping;
};
} // namespace

LogicalResult ParameterMapper::check(unsigned result, int64_t arg) {
  if (arg < 0 || arg >= int64_t(type.getNumInputs()))
    return fail(llvm::formatv("result #{0} is mapped to argument #{1}, but "
                              "the step's arguments are #0..#{2}",
                              result + 1, arg,
                              int64_t(type.getNumInputs()) - 1));
  if (type.getInput(arg) != type.getResult(result + 1))
    return fail("result #" + llvm::Twine(result + 1) + " (" +
                typeText(type.getResult(result + 1)) +
                ") cannot update argument #" + llvm::Twine(arg) + " (" +
                typeText(type.getInput(arg)) + "): the types differ");
  if (llvm::is_contained(mapping, unsigned(arg)))
    return fail(llvm::formatv("argument #{0} is updated by two results", arg));
  if (mapping[result] != ~0u)
    return fail(llvm::formatv("result #{0} updates two arguments, #{1} "
                              "and #{2}",
                              result + 1, mapping[result], arg));
  mapping[result] = unsigned(arg);
  return success();
}

FailureOr<std::vector<unsigned>>
ParameterMapper::fromList(ArrayRef<int64_t> explicitArgs) {
  if (explicitArgs.size() != numResults)
    return fail(llvm::formatv("--params lists {0} arguments for {1} updated "
                              "parameters",
                              explicitArgs.size(), numResults));
  for (unsigned r = 0; r < numResults; ++r)
    if (failed(check(r, explicitArgs[r])))
      return failure();
  return mapping;
}

std::optional<FailureOr<std::vector<unsigned>>> ParameterMapper::fromMarkers() {
  SmallVector<unsigned> marked;
  bool anyMarker = false;
  for (unsigned a = 0; a < type.getNumInputs(); ++a) {
    Attribute attr = fn.getArgAttr(a, kParamArgAttr);
    if (!attr)
      continue;
    anyMarker = true;
    if (auto index = dyn_cast<IntegerAttr>(attr)) {
      int64_t result = index.getValue().getSExtValue();
      if (result < 1 || result > int64_t(numResults))
        return FailureOr<std::vector<unsigned>>(
            fail(llvm::formatv("argument #{0}: hwagent.param = {1} names no "
                               "result (1..{2})",
                               a, result, numResults)));
      if (failed(check(result - 1, a)))
        return FailureOr<std::vector<unsigned>>(failure());
    } else if (isa<UnitAttr>(attr)) {
      marked.push_back(a);
    } else {
      return FailureOr<std::vector<unsigned>>(
          fail(llvm::formatv("argument #{0}: hwagent.param must be a "
                             "result index (an integer) or a unit "
                             "attribute",
                             a)));
    }
  }
  if (!anyMarker)
    return std::nullopt;
  auto next = marked.begin();
  for (unsigned r = 0; r < numResults; ++r)
    if (mapping[r] == ~0u) {
      if (next == marked.end())
        return FailureOr<std::vector<unsigned>>(
            fail(llvm::formatv("result #{0} updates no argument marked "
                               "hwagent.param",
                               r + 1)));
      if (failed(check(r, *next++)))
        return FailureOr<std::vector<unsigned>>(failure());
    }
  if (next != marked.end())
    return FailureOr<std::vector<unsigned>>(
        fail(llvm::formatv("argument #{0} is marked hwagent.param but "
                           "every result already updates another "
                           "argument",
                           *next)));
  return FailureOr<std::vector<unsigned>>(mapping);
}

std::optional<FailureOr<std::vector<unsigned>>> ParameterMapper::fromRun() {
  SmallVector<Type> resultTypes(type.getResults().drop_front());
  SmallVector<unsigned> runs = contiguousRuns(type, resultTypes);
  if (runs.size() == 1 || (runs.size() > 1 && numResults == 0)) {
    for (unsigned r = 0; r < numResults; ++r)
      (void)check(r, runs[0] + r);
    return FailureOr<std::vector<unsigned>>(mapping);
  }
  if (runs.empty())
    return std::nullopt;
  std::string message;
  llvm::raw_string_ostream os(message);
  os << "the updated parameters could be arguments";
  for (auto [i, start] : llvm::enumerate(runs))
    os << (i ? (i + 1 == runs.size() ? " or #" : ", #") : " #") << start
       << "..#" << start + numResults - 1;
  os << " (each run has the results' types in order); mark the parameters "
        "with {hwagent.param} or pass --params";
  return FailureOr<std::vector<unsigned>>(fail(message));
}

FailureOr<std::vector<unsigned>> ParameterMapper::byType() {
  for (unsigned r = 0; r < numResults; ++r) {
    Type t = type.getResult(r + 1);
    SmallVector<unsigned> candidates, results;
    for (unsigned a = 0; a < type.getNumInputs(); ++a)
      if (type.getInput(a) == t)
        candidates.push_back(a);
    for (unsigned q = 0; q < numResults; ++q)
      if (type.getResult(q + 1) == t)
        results.push_back(q);
    if (candidates.size() < results.size())
      return fail("result #" + llvm::Twine(r + 1) + " (" + typeText(t) +
                  ") updates no argument of its type");
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

FailureOr<std::vector<unsigned>>
hwagent::mapStepParameters(func::FuncOp fn, ArrayRef<int64_t> explicitArgs,
                           llvm::raw_ostream &errs) {
  ParameterMapper mapper(fn, errs);
  if (!explicitArgs.empty())
    return mapper.fromList(explicitArgs);
  if (std::optional<FailureOr<std::vector<unsigned>>> marked =
          mapper.fromMarkers())
    return *marked;
  if (std::optional<FailureOr<std::vector<unsigned>>> run = mapper.fromRun())
    return *run;
  return mapper.byType();
}

static std::string nameAttr(DictionaryAttr attrs) {
  if (!attrs)
    return {};
  if (auto name = attrs.getAs<StringAttr>(kNameArgAttr))
    return name.getValue().str();
  return {};
}

StepSignature hwagent::describeFunction(func::FuncOp fn) {
  StepSignature sig;
  sig.function = fn.getName().str();
  FunctionType type = fn.getFunctionType();
  std::vector<unsigned> mapping;
  // A step that returns its loss and outputs (gradients) and updates nothing
  // (hwagent-run --no-updates): result 0 is the loss, the rest outputs.
  bool noUpdates = fn->hasAttr(kNoUpdatesAttr) && type.getNumResults() >= 1 &&
                   isLossType(type.getResult(0));
  if (!noUpdates && type.getNumResults() >= 2 &&
      isLossType(type.getResult(0))) {
    std::string ignored;
    llvm::raw_string_ostream os(ignored);
    FailureOr<std::vector<unsigned>> mapped = mapStepParameters(fn, {}, os);
    if (succeeded(mapped)) {
      sig.isTrainingStep = true;
      mapping = *mapped;
    }
  }
  for (unsigned a = 0; a < type.getNumInputs(); ++a) {
    ValueSignature v;
    v.type = type.getInput(a);
    v.name = nameAttr(fn.getArgAttrDict(a));
    if (v.name.empty())
      v.name = "arg" + std::to_string(a);
    auto role = fn.getArgAttrOfType<StringAttr>(a, kRoleArgAttr);
    auto input = fn.getArgAttrOfType<StringAttr>(a, kInputArgAttr);
    Type element = getElementTypeOrSelf(v.type);
    if (llvm::is_contained(mapping, a) || (role && role == "parameter"))
      v.role = HWAGENT_ROLE_PARAMETER;
    else if ((role && role == "label") || (input && input == "one_hot") ||
             isa<IntegerType>(element))
      v.role = HWAGENT_ROLE_LABEL;
    sig.args.push_back(std::move(v));
  }
  for (unsigned r = 0; r < type.getNumResults(); ++r) {
    ValueSignature v;
    v.type = type.getResult(r);
    v.role = HWAGENT_ROLE_OUTPUT;
    v.name = nameAttr(fn.getResultAttrDict(r));
    if ((sig.isTrainingStep || noUpdates) && r == 0) {
      v.role = HWAGENT_ROLE_LOSS;
      if (v.name.empty())
        v.name = "loss";
    } else if (sig.isTrainingStep) {
      v.role = HWAGENT_ROLE_PARAMETER;
      v.updates = int32_t(mapping[r - 1]);
      if (v.name.empty())
        v.name = sig.args[mapping[r - 1]].name;
    }
    if (v.name.empty())
      v.name = "result" + std::to_string(r);
    sig.results.push_back(std::move(v));
  }
  return sig;
}
