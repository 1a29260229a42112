//===- HwAgentTargetAttrs.cpp - #hwagent.target, device and link ----------===//
//
// The target a module is partitioned for, carried losslessly: each
// #hwagent.device is one hwcore::BackendDescription (fields at their
// defaults are left out), #hwagent.link a priced pair of backends; the
// attributes convert to and from the core's descriptions and verify with
// the core's checks (hwcore::validateTarget).
//
//===----------------------------------------------------------------------===//

#include "HwAgent/IR/HwAgentAttrs.h"
#include "HwAgent/IR/HwAgentDialect.h"

#include "HwAgent/Core/Vocabulary.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::hwagent;

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
  d.serialMemory = flag(getSerialMemory());
  d.winogradGain = getWinogradGain().convertToDouble();
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
  d.dvfsExponent = getDvfsExponent().convertToDouble();
  d.minClock = getMinClock().convertToDouble();
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
      d.rowAlignment, APFloat(d.spillFactor), flagAttr(d.serialMemory),
      APFloat(d.winogradGain), APFloat(d.launch), APFloat(d.regionLaunch),
      list(modes), APFloat(d.inputWeightEfficiency), APFloat(d.compile),
      APFloat(d.compilePerByte), APFloat(d.reload), APFloat(d.reloadPerByte),
      d.maxWeightBytes, d.maxCompiles, APFloat(d.restart), APFloat(d.idlePower),
      APFloat(d.activePower), APFloat(d.energyPerFlop),
      APFloat(d.energyPerByte), APFloat(d.hostPower), APFloat(d.launchEnergy),
      APFloat(d.dvfsExponent), APFloat(d.minClock), d.threads,
      APFloat(d.parallelExponent), flagAttr(d.staticShapes), d.maxDim,
      d.maxRank, list(kinds), list(d.elementTypes));
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
