//===- HwAgentAttrs.cpp - hwagent attributes ------------------------------===//

#include "HwAgent/IR/HwAgentAttrs.h"
#include "HwAgent/IR/HwAgentDialect.h"

#include "HwAgent/Core/Vocabulary.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::hwagent;

#include "HwAgent/IR/HwAgentEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "HwAgent/IR/HwAgentAttrs.cpp.inc"

void HwAgentDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "HwAgent/IR/HwAgentAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// FeaturesAttr
//===----------------------------------------------------------------------===//

int64_t FeaturesAttr::getOpCount(OpKind kind) const {
  return getOpHistogram()[static_cast<unsigned>(kind)];
}

int64_t FeaturesAttr::getTotalOps() const {
  int64_t total = 0;
  for (int64_t count : getOpHistogram())
    total += count;
  return total;
}

double FeaturesAttr::getArithmeticIntensity() const {
  int64_t bytes = getBytesRead() + getBytesWritten();
  return bytes == 0
             ? 0.0
             : static_cast<double>(getFlops()) / static_cast<double>(bytes);
}

LogicalResult FeaturesAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t flops,
    int64_t bytesRead, int64_t bytesWritten, int64_t params, int64_t paramBytes,
    ArrayRef<int64_t> opHistogram, int64_t depth, ArrayRef<Type> elementTypes,
    int64_t dynamicDims, int64_t maxDim, int64_t maxRank, int64_t rows,
    bool hasLoops, Phase phase, bool weightGradient, int64_t winogradFlops) {
  std::pair<StringRef, int64_t> counts[] = {{"flops", flops},
                                            {"bytes_read", bytesRead},
                                            {"bytes_written", bytesWritten},
                                            {"params", params},
                                            {"param_bytes", paramBytes},
                                            {"depth", depth},
                                            {"dynamic_dims", dynamicDims},
                                            {"max_dim", maxDim},
                                            {"max_rank", maxRank},
                                            {"rows", rows},
                                            {"winograd_flops", winogradFlops}};
  for (auto [name, value] : counts)
    if (value < 0)
      return emitError() << "features field '" << name
                         << "' must be non-negative, got " << value;
  if (opHistogram.size() != kNumOpKinds)
    return emitError() << "features op histogram must have " << kNumOpKinds
                       << " entries, got " << opHistogram.size();
  for (auto [index, count] : llvm::enumerate(opHistogram))
    if (count < 0)
      return emitError() << "features op count for '"
                         << stringifyOpKind(static_cast<OpKind>(index))
                         << "' must be non-negative, got " << count;
  if (winogradFlops > flops)
    return emitError() << "features declare " << winogradFlops
                       << " winograd FLOPs of only " << flops << " FLOPs";
  if (params > 0 && paramBytes == 0)
    return emitError() << "features declare " << params
                       << " parameters but zero parameter bytes";
  return success();
}

Attribute FeaturesAttr::parse(AsmParser &parser, Type) {
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0, params = 0,
          paramBytes = 0, depth = 0, dynamicDims = 0, maxDim = 0, maxRank = 0,
          rows = 0, winogradFlops = 0;
  SmallVector<int64_t> histogram(kNumOpKinds, 0);
  SmallVector<Type> types;
  bool hasLoops = false, weightGradient = false;
  Phase phase = Phase::unknown;
  llvm::StringMap<int64_t *> intFields = {{"flops", &flops},
                                          {"bytes_read", &bytesRead},
                                          {"bytes_written", &bytesWritten},
                                          {"params", &params},
                                          {"param_bytes", &paramBytes},
                                          {"depth", &depth},
                                          {"dynamic_dims", &dynamicDims},
                                          {"max_dim", &maxDim},
                                          {"max_rank", &maxRank},
                                          {"rows", &rows},
                                          {"winograd_flops", &winogradFlops}};
  llvm::SmallSet<std::string, 16> seen;

  auto parseField = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key.str()).second)
      return parser.emitError(loc)
             << "duplicate features field '" << key << "'";
    if (auto it = intFields.find(key); it != intFields.end())
      return parser.parseInteger(*it->second);
    if (key == "ops") {
      return parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Braces, [&]() -> ParseResult {
            SMLoc kindLoc = parser.getCurrentLocation();
            StringRef kindName;
            int64_t count;
            if (parser.parseKeyword(&kindName) || parser.parseEqual() ||
                parser.parseInteger(count))
              return failure();
            std::optional<OpKind> kind = symbolizeOpKind(kindName);
            if (!kind)
              return parser.emitError(kindLoc)
                     << "unknown op kind '" << kindName << "'";
            histogram[static_cast<unsigned>(*kind)] = count;
            return success();
          });
    }
    if (key == "types") {
      return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                            [&]() -> ParseResult {
                                              Type type;
                                              if (parser.parseType(type))
                                                return failure();
                                              types.push_back(type);
                                              return success();
                                            });
    }
    if (key == "loops" || key == "weight_gradient") {
      bool &flag = key == "loops" ? hasLoops : weightGradient;
      if (succeeded(parser.parseOptionalKeyword("true"))) {
        flag = true;
        return success();
      }
      if (succeeded(parser.parseOptionalKeyword("false"))) {
        flag = false;
        return success();
      }
      return parser.emitError(parser.getCurrentLocation(),
                              "expected 'true' or 'false'");
    }
    if (key == "phase") {
      SMLoc phaseLoc = parser.getCurrentLocation();
      StringRef name;
      if (parser.parseKeyword(&name))
        return failure();
      std::optional<Phase> parsed = symbolizePhase(name);
      if (!parsed)
        return parser.emitError(phaseLoc) << "unknown phase '" << name << "'";
      phase = *parsed;
      return success();
    }
    return parser.emitError(loc) << "unknown features field '" << key << "'";
  };

  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    if (parser.parseCommaSeparatedList(parseField) || parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), flops, bytesRead, bytesWritten, params,
                    paramBytes, histogram, depth, types, dynamicDims, maxDim,
                    maxRank, rows, hasLoops, phase, weightGradient,
                    winogradFlops);
}

void FeaturesAttr::print(AsmPrinter &printer) const {
  printer << "<flops = " << getFlops() << ", bytes_read = " << getBytesRead()
          << ", bytes_written = " << getBytesWritten()
          << ", params = " << getParams()
          << ", param_bytes = " << getParamBytes() << ", ops = {";
  bool first = true;
  for (auto [index, count] : llvm::enumerate(getOpHistogram())) {
    if (count == 0)
      continue;
    if (!first)
      printer << ", ";
    first = false;
    printer << stringifyOpKind(static_cast<OpKind>(index)) << " = " << count;
  }
  printer << "}, depth = " << getDepth() << ", types = [";
  llvm::interleaveComma(getElementTypes(), printer);
  printer << "], dynamic_dims = " << getDynamicDims()
          << ", max_dim = " << getMaxDim() << ", max_rank = " << getMaxRank()
          << ", rows = " << getRows()
          << ", loops = " << (getHasLoops() ? "true" : "false")
          << ", phase = " << stringifyPhase(getPhase());
  if (getWeightGradient())
    printer << ", weight_gradient = true";
  if (getWinogradFlops() > 0)
    printer << ", winograd_flops = " << getWinogradFlops();
  printer << ">";
}

//===----------------------------------------------------------------------===//
// BackendCostAttr / CostsAttr
//===----------------------------------------------------------------------===//

LogicalResult
BackendCostAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        Backend backend, APFloat secondsValue, bool legal,
                        StringRef reason, CostTermsAttr terms) {
  double seconds = secondsValue.convertToDouble();
  if (!std::isfinite(seconds) || seconds < 0)
    return emitError() << "cost of backend '" << stringifyBackend(backend)
                       << "' must be a finite non-negative number of seconds, "
                          "got "
                       << seconds;
  if (!legal && reason.empty())
    return emitError() << "illegal backend '" << stringifyBackend(backend)
                       << "' needs a reason";
  if (terms) {
    for (APFloat value : {terms.getCompute(), terms.getInputCompute(),
                          terms.getMemory(), terms.getInputMemory(),
                          terms.getRegionLaunch(), terms.getTelemetry()}) {
      double v = value.convertToDouble();
      if (!std::isfinite(v) || v < 0)
        return emitError() << "cost terms of backend '"
                           << stringifyBackend(backend)
                           << "' must be finite and non-negative, got " << v;
    }
    if (terms.getFlops() < 0 || terms.getWeightBytes() < 0)
      return emitError() << "cost terms of backend '"
                         << stringifyBackend(backend)
                         << "' must count non-negative FLOPs and bytes";
  }
  return success();
}

/// Parses `backend = (seconds | illegal "reason") (note "text")?`.
static BackendCostAttr parseCostEntry(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name) || parser.parseEqual())
    return {};
  std::optional<Backend> backend = symbolizeBackend(name);
  if (!backend) {
    parser.emitError(loc) << "unknown backend '" << name << "' (expected "
                          << ::hwcore::backendNames() << ")";
    return {};
  }
  double seconds = 0;
  bool legal = true;
  std::string reason;
  CostTermsAttr terms;
  if (succeeded(parser.parseOptionalKeyword("illegal"))) {
    legal = false;
    if (parser.parseString(&reason))
      return {};
  } else {
    if (parser.parseFloat(seconds))
      return {};
    if (succeeded(parser.parseOptionalKeyword("note")) &&
        parser.parseString(&reason))
      return {};
    if (succeeded(parser.parseOptionalKeyword("terms"))) {
      Attribute parsed = CostTermsAttr::parse(parser, Type());
      terms = dyn_cast_or_null<CostTermsAttr>(parsed);
      if (!terms)
        return {};
    }
  }
  return BackendCostAttr::getChecked([&] { return parser.emitError(loc); },
                                     parser.getContext(), *backend,
                                     APFloat(seconds), legal, reason, terms);
}

static void printCostEntry(AsmPrinter &printer, BackendCostAttr entry) {
  printer << stringifyBackend(entry.getBackend()) << " = ";
  if (!entry.getLegal()) {
    printer << "illegal ";
    printer.printString(entry.getReason());
    return;
  }
  printer << entry.getSeconds().convertToDouble();
  if (!entry.getReason().empty()) {
    printer << " note ";
    printer.printString(entry.getReason());
  }
  if (CostTermsAttr terms = entry.getTerms()) {
    printer << " terms";
    terms.print(printer);
  }
}

Attribute BackendCostAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  BackendCostAttr entry = parseCostEntry(parser);
  if (!entry || parser.parseGreater())
    return {};
  return entry;
}

void BackendCostAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printCostEntry(printer, *this);
  printer << ">";
}

LogicalResult CostsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<BackendCostAttr> entries) {
  if (entries.empty())
    return emitError() << "costs must name at least one backend";
  llvm::SmallSet<Backend, 3> seen;
  for (BackendCostAttr entry : entries) {
    if (!entry)
      return emitError() << "costs entry is null";
    if (!seen.insert(entry.getBackend()).second)
      return emitError() << "backend '" << stringifyBackend(entry.getBackend())
                         << "' appears more than once in costs";
  }
  return success();
}

BackendCostAttr CostsAttr::lookup(Backend backend) const {
  for (BackendCostAttr entry : getEntries())
    if (entry.getBackend() == backend)
      return entry;
  return {};
}

Attribute CostsAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<BackendCostAttr> entries;
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList([&]() -> ParseResult {
        BackendCostAttr entry = parseCostEntry(parser);
        if (!entry)
          return failure();
        entries.push_back(entry);
        return success();
      }) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    entries);
}

void CostsAttr::print(AsmPrinter &printer) const {
  printer << "<";
  llvm::interleaveComma(getEntries(), printer, [&](BackendCostAttr entry) {
    printCostEntry(printer, entry);
  });
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ProgramAttr
//===----------------------------------------------------------------------===//

LogicalResult ProgramAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t id, Backend backend,
                                  DenseI64ArrayAttr regions, CostsAttr costs,
                                  WeightUpdate weights, int64_t weightBytes) {
  if (id < 0)
    return emitError() << "program id must be non-negative, got " << id;
  if (!regions || regions.empty())
    return emitError() << "program " << id << " has no regions";
  if (!costs)
    return emitError() << "program " << id << " has no costs";
  BackendCostAttr own = costs.lookup(backend);
  if (!own || !own.getLegal())
    return emitError() << "program " << id << " is placed on '"
                       << stringifyBackend(backend)
                       << "' but its costs give no legal time there";
  if (weightBytes < 0)
    return emitError() << "program " << id
                       << ": weight_bytes must be non-negative";
  return success();
}
