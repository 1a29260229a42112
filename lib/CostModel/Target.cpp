//===- Target.cpp - hardware descriptions of heterogeneous chips ----------===//

#include "hwagent/CostModel/Target.h"

#include "hwagent/CostModel/JsonReader.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace hwcore;
namespace json = llvm::json;

static const char *const kBackendNames[kNumBackendKinds] = {"cpu", "ane",
                                                            "gpu"};
static const char *const kWorkKindNames[kNumWorkKinds] = {
    "conv",          "depthwise",     "matmul",       "elementwise",
    "reduction",     "normalization", "pooling",      "data_movement",
    "control_flow",  "opaque"};

const char *hwcore::backendName(BackendKind kind) {
  return kBackendNames[static_cast<unsigned>(kind)];
}

std::optional<BackendKind> hwcore::parseBackendName(const std::string &name) {
  for (unsigned i = 0; i < kNumBackendKinds; ++i)
    if (name == kBackendNames[i])
      return static_cast<BackendKind>(i);
  return std::nullopt;
}

const char *hwcore::workKindName(unsigned kind) {
  return kind < kNumWorkKinds ? kWorkKindNames[kind] : "unknown";
}

std::optional<unsigned> hwcore::parseWorkKindName(const std::string &name) {
  for (unsigned i = 0; i < kNumWorkKinds; ++i)
    if (name == kWorkKindNames[i])
      return i;
  return std::nullopt;
}

double BackendDescription::peakFor(const std::string &type) const {
  if (auto it = peakFlops.find(type); it != peakFlops.end())
    return it->second;
  if (auto it = peakFlops.find("default"); it != peakFlops.end())
    return it->second;
  double best = 0;
  for (auto &[name, value] : peakFlops)
    best = std::max(best, value);
  return best;
}

const BackendDescription *TargetDescription::lookup(BackendKind kind) const {
  for (const BackendDescription &backend : backends)
    if (backend.kind == kind)
      return &backend;
  return nullptr;
}

const LinkDescription &TargetDescription::link(BackendKind from,
                                               BackendKind to) const {
  for (const LinkDescription &candidate : links)
    if (candidate.from == from && candidate.to == to)
      return candidate;
  return defaultLink;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static bool readLink(JsonReader &r, const json::Object &o,
                     const std::string &path, LinkDescription &link,
                     bool needsEnds) {
  if (needsEnds) {
    std::string from, to;
    if (!r.string(o, "from", path, from) || !r.string(o, "to", path, to))
      return false;
    auto fromKind = parseBackendName(from), toKind = parseBackendName(to);
    if (!fromKind)
      return r.fail(path + ".from", "unknown backend '" + from + "'");
    if (!toKind)
      return r.fail(path + ".to", "unknown backend '" + to + "'");
    if (*fromKind == *toKind)
      return r.fail(path, "a link joins two different backends");
    link.from = *fromKind;
    link.to = *toKind;
  }
  return r.number(o, "bandwidth", path, link.bandwidth, JsonReader::Positive) &&
         r.number(o, "convert_bandwidth", path, link.convertBandwidth,
                  JsonReader::NonNegative, /*required=*/false) &&
         r.number(o, "sync", path, link.sync, JsonReader::NonNegative);
}

static bool readBackend(JsonReader &r, const json::Object &o,
                        const std::string &path, BackendDescription &b) {
  std::string kind;
  if (!r.string(o, "backend", path, kind))
    return false;
  std::optional<BackendKind> parsed = parseBackendName(kind);
  if (!parsed)
    return r.fail(path + ".backend",
                  "unknown backend '" + kind + "' (expected cpu, ane or gpu)");
  b.kind = *parsed;
  if (!r.boolean(o, "simulated", path, b.simulated, /*required=*/false))
    return false;

  const json::Object *peaks = r.object(o, "peak_flops", path);
  if (!peaks)
    return false;
  if (peaks->empty())
    return r.fail(path + ".peak_flops", "needs at least one element type");
  for (auto &[type, value] : *peaks) {
    std::optional<double> number = value.getAsNumber();
    std::string field = path + ".peak_flops." + type.str();
    if (!number)
      return r.fail(field, "expected a number");
    if (!(*number > 0))
      return r.fail(field, "must be positive");
    b.peakFlops[type.str()] = *number;
  }

  std::string weightUpdate = "input";
  if (!r.number(o, "ramp_flops", path, b.rampFlops, JsonReader::Positive) ||
      !r.number(o, "ramp_exponent", path, b.rampExponent, JsonReader::Positive) ||
      !r.number(o, "bandwidth", path, b.bandwidth, JsonReader::Positive) ||
      !r.number(o, "dispatch", path, b.dispatch, JsonReader::NonNegative) ||
      !r.integer(o, "sram_bytes", path, b.sramBytes, /*required=*/false) ||
      !r.number(o, "spill_factor", path, b.spillFactor, JsonReader::AtLeastOne,
                /*required=*/false) ||
      !r.number(o, "compile", path, b.compile, JsonReader::NonNegative,
                /*required=*/false) ||
      !r.string(o, "weight_update", path, weightUpdate, /*required=*/false) ||
      !r.integer(o, "max_dim", path, b.maxDim, /*required=*/false) ||
      !r.integer(o, "max_rank", path, b.maxRank, /*required=*/false))
    return false;
  if (b.rampExponent > 1)
    return r.fail(path + ".ramp_exponent", "must be in (0, 1]");
  if (b.sramBytes < 0)
    return r.fail(path + ".sram_bytes", "must be non-negative");
  if (b.maxDim < 0)
    return r.fail(path + ".max_dim", "must be non-negative");
  if (b.maxRank < 0)
    return r.fail(path + ".max_rank", "must be non-negative");
  if (weightUpdate == "input")
    b.weightUpdate = WeightUpdate::Input;
  else if (weightUpdate == "recompile")
    b.weightUpdate = WeightUpdate::Recompile;
  else
    return r.fail(path + ".weight_update",
                  "expected 'input' or 'recompile', got '" + weightUpdate + "'");

  std::vector<std::string> kinds;
  if (!r.strings(o, "op_kinds", path, kinds, /*required=*/false) ||
      !r.strings(o, "element_types", path, b.elementTypes, /*required=*/false))
    return false;
  for (auto [index, name] : llvm::enumerate(kinds)) {
    std::optional<unsigned> kind = parseWorkKindName(name);
    if (!kind)
      return r.fail(path + ".op_kinds[" + std::to_string(index) + "]",
                    "unknown op kind '" + name + "'");
    b.opKinds.push_back(*kind);
  }
  return true;
}

std::optional<TargetDescription>
hwcore::parseTarget(const std::string &text, std::string &error) {
  JsonReader r(error);
  std::optional<json::Object> root = r.parseDocument(text, "hwagent.target",
                                                     kTargetSchemaVersion);
  if (!root)
    return std::nullopt;
  TargetDescription target;
  if (!r.string(*root, "name", "", target.name) ||
      !r.string(*root, "description", "", target.description,
                /*required=*/false))
    return std::nullopt;
  if (target.name.empty()) {
    r.fail("name", "must not be empty");
    return std::nullopt;
  }
  const json::Array *backends = r.array(*root, "backends", "");
  if (!backends)
    return std::nullopt;
  if (backends->empty()) {
    r.fail("backends", "needs at least one backend");
    return std::nullopt;
  }
  for (auto [index, value] : llvm::enumerate(*backends)) {
    std::string path = "backends[" + std::to_string(index) + "]";
    const json::Object *object = value.getAsObject();
    if (!object) {
      r.fail(path, "expected an object");
      return std::nullopt;
    }
    BackendDescription backend;
    if (!readBackend(r, *object, path, backend))
      return std::nullopt;
    if (target.lookup(backend.kind)) {
      r.fail(path + ".backend", std::string("backend '") +
                                    backendName(backend.kind) +
                                    "' is described twice");
      return std::nullopt;
    }
    target.backends.push_back(std::move(backend));
  }
  const json::Object *defaultLink = r.object(*root, "default_link", "");
  if (!defaultLink ||
      !readLink(r, *defaultLink, "default_link", target.defaultLink, false))
    return std::nullopt;
  if (const json::Value *links = root->get("links")) {
    const json::Array *array = links->getAsArray();
    if (!array) {
      r.fail("links", "expected an array");
      return std::nullopt;
    }
    for (auto [index, value] : llvm::enumerate(*array)) {
      std::string path = "links[" + std::to_string(index) + "]";
      const json::Object *object = value.getAsObject();
      LinkDescription link;
      if (!object) {
        r.fail(path, "expected an object");
        return std::nullopt;
      }
      if (!readLink(r, *object, path, link, true))
        return std::nullopt;
      target.links.push_back(link);
    }
  }
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

std::string hwcore::printTarget(const TargetDescription &target) {
  json::Array backends;
  for (const BackendDescription &b : target.backends) {
    json::Object peaks;
    for (auto &[type, value] : b.peakFlops)
      peaks[type] = value;
    json::Array kinds, types;
    for (unsigned kind : b.opKinds)
      kinds.push_back(workKindName(kind));
    for (const std::string &type : b.elementTypes)
      types.push_back(type);
    backends.push_back(json::Object{
        {"backend", backendName(b.kind)},
        {"simulated", b.simulated},
        {"peak_flops", std::move(peaks)},
        {"ramp_flops", b.rampFlops},
        {"ramp_exponent", b.rampExponent},
        {"bandwidth", b.bandwidth},
        {"dispatch", b.dispatch},
        {"sram_bytes", b.sramBytes},
        {"spill_factor", b.spillFactor},
        {"compile", b.compile},
        {"weight_update",
         b.weightUpdate == WeightUpdate::Recompile ? "recompile" : "input"},
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
      {"links", std::move(links)},
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(root)));
  return text;
}

std::optional<std::string> hwcore::readTextFile(const std::string &path,
                                                 std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = path + ": cannot read: " + buffer.getError().message();
    return std::nullopt;
  }
  return (*buffer)->getBuffer().str();
}

std::optional<TargetDescription>
hwcore::resolveTarget(const std::string &nameOrPath, std::string &error) {
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
