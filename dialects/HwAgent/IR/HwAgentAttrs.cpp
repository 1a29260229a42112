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
    bool hasLoops, Phase phase, bool weightGradient) {
  std::pair<StringRef, int64_t> counts[] = {{"flops", flops},
                                            {"bytes_read", bytesRead},
                                            {"bytes_written", bytesWritten},
                                            {"params", params},
                                            {"param_bytes", paramBytes},
                                            {"depth", depth},
                                            {"dynamic_dims", dynamicDims},
                                            {"max_dim", maxDim},
                                            {"max_rank", maxRank},
                                            {"rows", rows}};
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
  if (params > 0 && paramBytes == 0)
    return emitError() << "features declare " << params
                       << " parameters but zero parameter bytes";
  return success();
}

Attribute FeaturesAttr::parse(AsmParser &parser, Type) {
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0, params = 0,
          paramBytes = 0, depth = 0, dynamicDims = 0, maxDim = 0, maxRank = 0,
          rows = 0;
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
                                          {"rows", &rows}};
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
                    maxRank, rows, hasLoops, phase, weightGradient);
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
    parser.emitError(loc) << "unknown backend '" << name
                          << "' (expected cpu, ane or gpu)";
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
// DeviceAttr / TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult LinkAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               Backend from, Backend to, APFloat bandwidthValue,
                               APFloat convertBandwidthValue,
                               APFloat syncValue) {
  double bandwidth = bandwidthValue.convertToDouble();
  double convert = convertBandwidthValue.convertToDouble();
  double sync = syncValue.convertToDouble();
  auto fail = [&](StringRef field, StringRef what, double value) {
    return emitError() << "link " << stringifyBackend(from) << " -> "
                       << stringifyBackend(to) << ": '" << field << "' must be "
                       << what << ", got " << value;
  };
  if (from == to)
    return emitError() << "link from " << stringifyBackend(from)
                       << " to itself";
  if (!(std::isfinite(bandwidth) && bandwidth > 0))
    return fail("bandwidth", "positive", bandwidth);
  if (!(std::isfinite(convert) && convert >= 0))
    return fail("convert_bandwidth", "non-negative", convert);
  if (!(std::isfinite(sync) && sync >= 0))
    return fail("sync", "non-negative", sync);
  return success();
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, StringRef description,
                                 ArrayRef<DeviceAttr> devices,
                                 APFloat transferBandwidth,
                                 APFloat convertBandwidth, APFloat sync,
                                 ArrayRef<LinkAttr> links,
                                 APFloat staticPower) {
  hwcore::TargetDescription target;
  target.name = name.str();
  for (DeviceAttr device : devices) {
    std::string error;
    FailureOr<hwcore::BackendDescription> description =
        device.toDescription(error);
    if (failed(description))
      return emitError() << "target '" << name << "': device '"
                         << stringifyBackend(device.getBackend())
                         << "': " << error;
    target.backends.push_back(std::move(*description));
  }
  target.defaultLink.bandwidth = transferBandwidth.convertToDouble();
  target.defaultLink.convertBandwidth = convertBandwidth.convertToDouble();
  target.defaultLink.sync = sync.convertToDouble();
  for (LinkAttr link : links)
    target.links.push_back({static_cast<hwcore::BackendKind>(link.getFrom()),
                            static_cast<hwcore::BackendKind>(link.getTo()),
                            link.getBandwidth().convertToDouble(),
                            link.getConvertBandwidth().convertToDouble(),
                            link.getSync().convertToDouble()});
  target.staticPower = staticPower.convertToDouble();
  std::string error = hwcore::validateTarget(target);
  if (!error.empty())
    return emitError() << "target '" << name << "': " << error;
  return success();
}

static bool flag(BoolAttr attr) { return attr && attr.getValue(); }

/// Float entries of an optional dictionary, keyed by name.
static LogicalResult floats(DictionaryAttr dict, StringRef field,
                            std::map<std::string, double> &out,
                            std::string &error) {
  if (!dict)
    return success();
  for (NamedAttribute entry : dict) {
    auto value = dyn_cast<FloatAttr>(entry.getValue());
    if (!value) {
      error = field.str() + "." + entry.getName().str() + ": expected a float";
      return failure();
    }
    out[entry.getName().str()] = value.getValueAsDouble();
  }
  return success();
}

/// Names in an optional array, each parsed by `parse`.
template <typename T, typename Parse>
static LogicalResult names(ArrayAttr list, StringRef field, std::vector<T> &out,
                           std::string &error, Parse parse) {
  if (!list)
    return success();
  for (Attribute item : list) {
    auto name = dyn_cast<StringAttr>(item);
    std::optional<T> parsed = name ? parse(name.getValue()) : std::nullopt;
    if (!parsed) {
      error = field.str() + ": unknown name" +
              (name ? " '" + name.str() + "'" : std::string());
      return failure();
    }
    out.push_back(*parsed);
  }
  return success();
}

FailureOr<hwcore::BackendDescription>
DeviceAttr::toDescription(std::string &error) const {
  hwcore::BackendDescription d;
  d.kind = static_cast<hwcore::BackendKind>(getBackend());
  d.simulated = flag(getSimulated());
  std::map<std::string, double> efficiency;
  if (failed(floats(getPeakFlops(), "peak_flops", d.peakFlops, error)) ||
      failed(floats(getKindEfficiency(), "kind_efficiency", efficiency, error)))
    return failure();
  for (auto &[name, value] : efficiency) {
    std::optional<hwcore::WorkKind> kind = hwcore::parseWorkKindName(name);
    if (!kind) {
      error = "kind_efficiency." + name + ": unknown op kind";
      return failure();
    }
    d.kindEfficiency[*kind] = value;
  }
  d.matrixFlops = getMatrixFlops().convertToDouble();
  d.rampFlops = getRampFlops().convertToDouble();
  d.rampExponent = getRampExponent().convertToDouble();
  d.programRamp = flag(getProgramRamp());
  d.computeType = getComputeType() ? getComputeType().str() : "";
  d.bandwidth = getBandwidth().convertToDouble();
  d.fusedMemory = flag(getFusedMemory());
  d.sramBytes = getSramBytes();
  d.rowAlignment = getRowAlignment();
  d.spillFactor = getSpillFactor().convertToDouble();
  d.launch = getLaunch().convertToDouble();
  d.regionLaunch = getRegionLaunch().convertToDouble();
  auto weightUpdate =
      [](StringRef name) -> std::optional<hwcore::WeightUpdate> {
    std::optional<hwcore::WeightUpdate> mode =
        hwcore::parseWeightUpdateName(name.str());
    if (mode == hwcore::WeightUpdate::none)
      return std::nullopt;
    return mode;
  };
  auto workKind = [](StringRef name) {
    return hwcore::parseWorkKindName(name.str());
  };
  auto typeName = [](StringRef name) -> std::optional<std::string> {
    return name.str();
  };
  if (failed(names(getWeightUpdates(), "weight_updates", d.weightUpdates, error,
                   weightUpdate)) ||
      failed(names(getOpKinds(), "op_kinds", d.opKinds, error, workKind)) ||
      failed(names(getElementTypes(), "element_types", d.elementTypes, error,
                   typeName)))
    return failure();
  d.inputWeightEfficiency = getInputWeightEfficiency().convertToDouble();
  d.compile = getCompile().convertToDouble();
  d.compilePerByte = getCompilePerByte().convertToDouble();
  d.reload = getReload().convertToDouble();
  d.reloadPerByte = getReloadPerByte().convertToDouble();
  d.maxWeightBytes = getMaxWeightBytes();
  d.maxCompiles = getMaxCompiles();
  d.restart = getRestart().convertToDouble();
  d.idlePower = getIdlePower().convertToDouble();
  d.activePower = getActivePower().convertToDouble();
  d.energyPerFlop = getEnergyPerFlop().convertToDouble();
  d.energyPerByte = getEnergyPerByte().convertToDouble();
  d.hostPower = getHostPower().convertToDouble();
  d.launchEnergy = getLaunchEnergy().convertToDouble();
  d.threads = getThreads();
  d.parallelExponent = getParallelExponent().convertToDouble();
  d.staticShapes = flag(getStaticShapes());
  d.maxDim = getMaxDim();
  d.maxRank = getMaxRank();
  return d;
}

DeviceAttr DeviceAttr::get(MLIRContext *ctx,
                           const hwcore::BackendDescription &d) {
  Builder b(ctx);
  // Defaults are left null so that they are not printed.
  auto flagAttr = [&](bool value) {
    return value ? b.getBoolAttr(true) : BoolAttr();
  };
  auto dict = [&](const std::map<std::string, double> &entries) {
    if (entries.empty())
      return DictionaryAttr();
    SmallVector<NamedAttribute> named;
    for (auto &[name, value] : entries)
      named.push_back(b.getNamedAttr(name, b.getF64FloatAttr(value)));
    return b.getDictionaryAttr(named);
  };
  auto list = [&](const std::vector<std::string> &items) {
    if (items.empty())
      return ArrayAttr();
    SmallVector<Attribute> attrs;
    for (const std::string &item : items)
      attrs.push_back(b.getStringAttr(item));
    return b.getArrayAttr(attrs);
  };
  std::map<std::string, double> efficiency;
  for (auto &[kind, value] : d.kindEfficiency)
    efficiency[hwcore::workKindName(kind)] = value;
  std::vector<std::string> modes, kinds;
  for (hwcore::WeightUpdate mode : d.weightUpdates)
    modes.push_back(hwcore::weightUpdateName(mode));
  for (hwcore::WorkKind kind : d.opKinds)
    kinds.push_back(hwcore::workKindName(kind));
  return DeviceAttr::get(
      ctx, static_cast<Backend>(d.kind), flagAttr(d.simulated),
      b.getDictionaryAttr([&] {
        SmallVector<NamedAttribute> named;
        for (auto &[name, value] : d.peakFlops)
          named.push_back(b.getNamedAttr(name, b.getF64FloatAttr(value)));
        return named;
      }()),
      APFloat(d.matrixFlops), dict(efficiency), APFloat(d.rampFlops),
      APFloat(d.rampExponent), flagAttr(d.programRamp),
      d.computeType.empty() ? StringAttr() : b.getStringAttr(d.computeType),
      APFloat(d.bandwidth), flagAttr(d.fusedMemory), d.sramBytes,
      d.rowAlignment, APFloat(d.spillFactor), APFloat(d.launch),
      APFloat(d.regionLaunch), list(modes), APFloat(d.inputWeightEfficiency),
      APFloat(d.compile), APFloat(d.compilePerByte), APFloat(d.reload),
      APFloat(d.reloadPerByte), d.maxWeightBytes, d.maxCompiles,
      APFloat(d.restart), APFloat(d.idlePower), APFloat(d.activePower),
      APFloat(d.energyPerFlop), APFloat(d.energyPerByte), APFloat(d.hostPower),
      APFloat(d.launchEnergy), d.threads, APFloat(d.parallelExponent),
      flagAttr(d.staticShapes), d.maxDim, d.maxRank, list(kinds),
      list(d.elementTypes));
}

hwcore::TargetDescription TargetAttr::toDescription() const {
  hwcore::TargetDescription target;
  target.name = getName().str();
  target.description = getDescription().str();
  for (DeviceAttr device : getDevices()) {
    std::string error;
    FailureOr<hwcore::BackendDescription> d = device.toDescription(error);
    assert(succeeded(d) && "a verified target converts");
    target.backends.push_back(std::move(*d));
  }
  target.defaultLink.bandwidth = getTransferBandwidth().convertToDouble();
  target.defaultLink.convertBandwidth = getConvertBandwidth().convertToDouble();
  target.defaultLink.sync = getSync().convertToDouble();
  target.staticPower = getStaticPower().convertToDouble();
  for (LinkAttr link : getLinks())
    target.links.push_back({static_cast<hwcore::BackendKind>(link.getFrom()),
                            static_cast<hwcore::BackendKind>(link.getTo()),
                            link.getBandwidth().convertToDouble(),
                            link.getConvertBandwidth().convertToDouble(),
                            link.getSync().convertToDouble()});
  return target;
}

TargetAttr TargetAttr::get(MLIRContext *ctx,
                           const hwcore::TargetDescription &target) {
  SmallVector<DeviceAttr> devices;
  for (const hwcore::BackendDescription &b : target.backends)
    devices.push_back(DeviceAttr::get(ctx, b));
  SmallVector<LinkAttr> links;
  for (const hwcore::LinkDescription &l : target.links)
    links.push_back(LinkAttr::get(
        ctx, static_cast<Backend>(l.from), static_cast<Backend>(l.to),
        APFloat(l.bandwidth), APFloat(l.convertBandwidth), APFloat(l.sync)));
  return TargetAttr::get(ctx, target.name, target.description, devices,
                         APFloat(target.defaultLink.bandwidth),
                         APFloat(target.defaultLink.convertBandwidth),
                         APFloat(target.defaultLink.sync), links,
                         APFloat(target.staticPower));
}

DeviceAttr TargetAttr::lookup(Backend backend) const {
  for (DeviceAttr device : getDevices())
    if (device.getBackend() == backend)
      return device;
  return {};
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
