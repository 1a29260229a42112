//===- TargetFile.cpp - target descriptions in JSON -----------------------===//

#include "HwAgent/Config/TargetFile.h"

#include "HwAgent/Config/Json.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace hwconfig;
using namespace hwcore;
namespace json = llvm::json;

namespace hwcore {
/// Found by argument-dependent lookup from ObjectMapper::map.
static bool fromJSON(const llvm::json::Value &value, LinkDescription &link,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("bandwidth", link.bandwidth) &&
         o.mapOptional("convert_bandwidth", link.convertBandwidth) &&
         o.map("sync", link.sync);
}
} // namespace hwcore

namespace {

/// A backend as written in the file; names are checked after mapping so
/// that errors can quote them.
struct RawBackend {
  std::string backend;
  std::optional<double> dispatch;          // version 1's name of `launch`
  std::optional<std::string> weightUpdate; // version 1
  std::vector<std::string> weightUpdates, opKinds;
  std::map<std::string, double> kindEfficiency;
  BackendDescription d;
};

/// Maps the fields of version `version`.
struct BackendMapper {
  int64_t version;
  bool operator()(const json::Value &value, RawBackend &raw,
                  json::Path path) const {
    json::ObjectMapper o(value, path);
    BackendDescription &d = raw.d;
    if (!o || !o.map("backend", raw.backend) ||
        !o.mapOptional("simulated", d.simulated) ||
        !o.map("peak_flops", d.peakFlops) ||
        !o.mapOptional("matrix_flops", d.matrixFlops) ||
        !o.mapOptional("kind_efficiency", raw.kindEfficiency) ||
        !o.mapOptional("ramp_flops", d.rampFlops) ||
        !o.mapOptional("ramp_exponent", d.rampExponent) ||
        !o.mapOptional("program_ramp", d.programRamp) ||
        !o.mapOptional("compute_type", d.computeType) ||
        !o.map("bandwidth", d.bandwidth) ||
        !o.mapOptional("fused_memory", d.fusedMemory) ||
        !o.mapOptional("sram_bytes", d.sramBytes) ||
        !o.mapOptional("row_alignment", d.rowAlignment) ||
        !o.mapOptional("spill_factor", d.spillFactor) ||
        !o.mapOptional("serial_memory", d.serialMemory) ||
        !o.mapOptional("winograd_gain", d.winogradGain) ||
        !o.mapOptional("region_launch", d.regionLaunch) ||
        !o.mapOptional("input_weight_efficiency", d.inputWeightEfficiency) ||
        !o.mapOptional("compile", d.compile) ||
        !o.mapOptional("compile_per_byte", d.compilePerByte) ||
        !o.mapOptional("reload", d.reload) ||
        !o.mapOptional("reload_per_byte", d.reloadPerByte) ||
        !o.mapOptional("max_weight_bytes", d.maxWeightBytes) ||
        !o.mapOptional("max_compiles", d.maxCompiles) ||
        !o.mapOptional("restart", d.restart) ||
        !o.mapOptional("idle_power", d.idlePower) ||
        !o.mapOptional("active_power", d.activePower) ||
        !o.mapOptional("energy_per_flop", d.energyPerFlop) ||
        !o.mapOptional("energy_per_byte", d.energyPerByte) ||
        !o.mapOptional("host_power", d.hostPower) ||
        !o.mapOptional("launch_energy", d.launchEnergy) ||
        !o.mapOptional("dvfs_exponent", d.dvfsExponent) ||
        !o.mapOptional("min_clock", d.minClock) ||
        !o.mapOptional("threads", d.threads) ||
        !o.mapOptional("parallel_exponent", d.parallelExponent) ||
        !o.mapOptional("static_shapes", d.staticShapes) ||
        !o.mapOptional("max_dim", d.maxDim) ||
        !o.mapOptional("max_rank", d.maxRank) ||
        !o.mapOptional("op_kinds", raw.opKinds) ||
        !o.mapOptional("element_types", d.elementTypes))
      return false;
    if (version == 1)
      return o.map("dispatch", raw.dispatch) &&
             o.map("weight_update", raw.weightUpdate);
    return o.map("launch", d.launch) &&
           o.mapOptional("weight_updates", raw.weightUpdates);
  }
};

/// Turns names into enums; errors quote the name and its path.
bool resolve(RawBackend &raw, size_t index, int64_t version,
             std::string &error) {
  std::string path = "backends[" + std::to_string(index) + "]";
  BackendDescription &d = raw.d;
  std::optional<BackendKind> kind = parseBackendName(raw.backend);
  if (!kind) {
    error = path + ".backend: unknown backend '" + raw.backend +
            "' (expected " + backendNames() + ")";
    return false;
  }
  d.kind = *kind;
  for (auto &[name, value] : raw.kindEfficiency) {
    std::optional<WorkKind> k = parseWorkKindName(name);
    if (!k) {
      error = path + ".kind_efficiency: unknown op kind '" + name + "'";
      return false;
    }
    d.kindEfficiency[*k] = value;
  }
  for (size_t i = 0; i < raw.opKinds.size(); ++i) {
    std::optional<WorkKind> k = parseWorkKindName(raw.opKinds[i]);
    if (!k) {
      error = path + ".op_kinds[" + std::to_string(i) + "]: unknown op kind '" +
              raw.opKinds[i] + "'";
      return false;
    }
    d.opKinds.push_back(*k);
  }
  if (version == 1) {
    // Version 1: `dispatch` per region, and one weight-update mode; an
    // accelerator that lists op kinds compiled static shapes only.
    d.launch = raw.dispatch.value_or(0);
    d.staticShapes = d.kind == BackendKind::ane;
    if (raw.weightUpdate && *raw.weightUpdate != "input" &&
        *raw.weightUpdate != "recompile") {
      error = path + ".weight_update: expected 'input' or 'recompile', got '" +
              *raw.weightUpdate + "'";
      return false;
    }
    if (raw.weightUpdate && d.kind != BackendKind::cpu)
      d.weightUpdates = {*parseWeightUpdateName(*raw.weightUpdate)};
    return true;
  }
  for (size_t i = 0; i < raw.weightUpdates.size(); ++i) {
    std::optional<WeightUpdate> mode =
        parseWeightUpdateName(raw.weightUpdates[i]);
    if (!mode || *mode == WeightUpdate::none) {
      error = path + ".weight_updates[" + std::to_string(i) +
              "]: expected input, recompile or reload, got '" +
              raw.weightUpdates[i] + "'";
      return false;
    }
    d.weightUpdates.push_back(*mode);
  }
  return true;
}

} // namespace

std::optional<TargetDescription> hwconfig::parseTarget(const std::string &text,
                                                       std::string &error) {
  int64_t version = 0;
  std::optional<json::Value> document = parseDocument(
      text, "hwagent.target", 1, kTargetSchemaVersion, version, error);
  if (!document)
    return std::nullopt;
  TargetDescription target;
  std::vector<RawBackend> backends;
  json::Path::Root root("$");
  json::ObjectMapper o(*document, root);
  json::Path rootPath(root);
  json::Path backendsPath = rootPath.field("backends");
  const json::Value *backendList = document->getAsObject()->get("backends");
  bool mapped = o.map("name", target.name) &&
                o.mapOptional("description", target.description) &&
                o.map("default_link", target.defaultLink) &&
                o.mapOptional("static_power", target.staticPower);
  if (mapped) {
    const json::Array *array =
        backendList ? backendList->getAsArray() : nullptr;
    if (!array) {
      if (backendList)
        backendsPath.report("expected array");
      else
        backendsPath.report("missing value");
      mapped = false;
    } else {
      BackendMapper mapper{version};
      for (size_t i = 0; mapped && i < array->size(); ++i) {
        backends.emplace_back();
        mapped = mapper((*array)[i], backends.back(), backendsPath.index(i));
      }
    }
  }
  const json::Array *links = nullptr;
  if (mapped)
    if (const json::Value *list = document->getAsObject()->get("links")) {
      links = list->getAsArray();
      if (!links) {
        json::Path(root).field("links").report("expected array");
        mapped = false;
      }
    }
  if (!mapped) {
    error = describeError(root);
    return std::nullopt;
  }
  for (size_t i = 0; i < backends.size(); ++i) {
    if (!resolve(backends[i], i, version, error))
      return std::nullopt;
    target.backends.push_back(std::move(backends[i].d));
  }
  for (size_t i = 0; links && i < links->size(); ++i) {
    std::string path = "links[" + std::to_string(i) + "]";
    json::Path::Root linkRoot("$");
    const json::Value &entry = (*links)[i];
    json::ObjectMapper lo(entry, linkRoot);
    std::string from, to;
    LinkDescription link;
    if (!lo || !lo.map("from", from) || !lo.map("to", to) ||
        !fromJSON(entry, link, linkRoot)) {
      error = path + "." + describeError(linkRoot);
      return std::nullopt;
    }
    std::optional<BackendKind> fromKind = parseBackendName(from),
                               toKind = parseBackendName(to);
    if (!fromKind || !toKind) {
      error = path + (fromKind ? ".to" : ".from") + ": unknown backend '" +
              (fromKind ? to : from) + "'";
      return std::nullopt;
    }
    link.from = *fromKind;
    link.to = *toKind;
    target.links.push_back(link);
  }
  error = validateTarget(target);
  if (!error.empty())
    return std::nullopt;
  return target;
}

static json::Object linkToJson(const LinkDescription &link, bool withEnds) {
  json::Object o;
  if (withEnds) {
    o["from"] = backendName(link.from);
    o["to"] = backendName(link.to);
  }
  o["bandwidth"] = link.bandwidth;
  o["convert_bandwidth"] = link.convertBandwidth;
  o["sync"] = link.sync;
  return o;
}

/// Negative zero prints as "-0", which reads back as the integer 0: print
/// every zero as 0 so that a printed target reads back identically.
static void canonicalizeZeros(json::Value &value) {
  if (std::optional<double> number = value.getAsNumber()) {
    if (*number == 0 && std::signbit(*number))
      value = 0.0;
    return;
  }
  if (json::Object *object = value.getAsObject())
    for (auto &entry : *object)
      canonicalizeZeros(entry.second);
  if (json::Array *array = value.getAsArray())
    for (json::Value &element : *array)
      canonicalizeZeros(element);
}

std::string hwconfig::printTarget(const TargetDescription &target) {
  json::Array backends;
  for (const BackendDescription &b : target.backends) {
    json::Object peaks, efficiency;
    for (const auto &[type, value] : b.peakFlops)
      peaks[type] = value;
    for (const auto &[kind, value] : b.kindEfficiency)
      efficiency[workKindName(kind)] = value;
    json::Array kinds, types, updates;
    for (WorkKind kind : b.opKinds)
      kinds.push_back(workKindName(kind));
    for (const std::string &type : b.elementTypes)
      types.push_back(type);
    for (WeightUpdate mode : b.weightUpdates)
      updates.push_back(weightUpdateName(mode));
    backends.push_back(json::Object{
        {"backend", backendName(b.kind)},
        {"simulated", b.simulated},
        {"peak_flops", std::move(peaks)},
        {"matrix_flops", b.matrixFlops},
        {"kind_efficiency", std::move(efficiency)},
        {"ramp_flops", b.rampFlops},
        {"ramp_exponent", b.rampExponent},
        {"program_ramp", b.programRamp},
        {"compute_type", b.computeType},
        {"bandwidth", b.bandwidth},
        {"fused_memory", b.fusedMemory},
        {"sram_bytes", b.sramBytes},
        {"row_alignment", b.rowAlignment},
        {"spill_factor", b.spillFactor},
        {"serial_memory", b.serialMemory},
        {"winograd_gain", b.winogradGain},
        {"launch", b.launch},
        {"region_launch", b.regionLaunch},
        {"weight_updates", std::move(updates)},
        {"input_weight_efficiency", b.inputWeightEfficiency},
        {"compile", b.compile},
        {"compile_per_byte", b.compilePerByte},
        {"reload", b.reload},
        {"reload_per_byte", b.reloadPerByte},
        {"max_weight_bytes", b.maxWeightBytes},
        {"max_compiles", b.maxCompiles},
        {"restart", b.restart},
        {"idle_power", b.idlePower},
        {"active_power", b.activePower},
        {"energy_per_flop", b.energyPerFlop},
        {"energy_per_byte", b.energyPerByte},
        {"host_power", b.hostPower},
        {"launch_energy", b.launchEnergy},
        {"dvfs_exponent", b.dvfsExponent},
        {"min_clock", b.minClock},
        {"threads", b.threads},
        {"parallel_exponent", b.parallelExponent},
        {"static_shapes", b.staticShapes},
        {"max_dim", b.maxDim},
        {"max_rank", b.maxRank},
        {"op_kinds", std::move(kinds)},
        {"element_types", std::move(types)},
    });
  }
  json::Array links;
  for (const LinkDescription &link : target.links)
    links.push_back(linkToJson(link, true));
  json::Object root{
      {"schema", "hwagent.target"},
      {"version", kTargetSchemaVersion},
      {"name", target.name},
      {"description", target.description},
      {"backends", std::move(backends)},
      {"default_link", linkToJson(target.defaultLink, false)},
      {"static_power", target.staticPower},
      {"links", std::move(links)},
  };
  json::Value document(std::move(root));
  canonicalizeZeros(document);
  return llvm::formatv("{0:2}", document).str();
}

std::optional<TargetDescription>
hwconfig::resolveTarget(const std::string &nameOrPath, std::string &error) {
  if (std::optional<TargetDescription> builtin = getBuiltinTarget(nameOrPath))
    return builtin;
  bool looksLikePath = nameOrPath.find('/') != std::string::npos ||
                       nameOrPath.find(".json") != std::string::npos;
  if (!looksLikePath) {
    error = "unknown target '" + nameOrPath + "' (built-in targets:";
    for (const std::string &name : builtinTargetNames())
      error += " " + name;
    error += "; or give the path of a target JSON file)";
    return std::nullopt;
  }
  std::optional<std::string> text = readTextFile(nameOrPath, error);
  if (!text)
    return std::nullopt;
  std::string fieldError;
  std::optional<TargetDescription> target = parseTarget(*text, fieldError);
  if (!target)
    error = nameOrPath + ": " + fieldError;
  return target;
}
