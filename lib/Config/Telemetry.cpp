//===- Telemetry.cpp - telemetry snapshots in JSON ------------------------===//

#include "HwAgent/Config/Telemetry.h"

#include "HwAgent/Config/Json.h"

#include <cmath>

using namespace hwconfig;
using namespace hwcore;
namespace json = llvm::json;

std::optional<Telemetry> hwconfig::parseTelemetry(const std::string &text,
                                                  std::string &error) {
  int64_t version = 0;
  std::optional<json::Value> document =
      parseDocument(text, "hwagent.telemetry", kTelemetrySchemaVersion,
                    kTelemetrySchemaVersion, version, error);
  if (!document)
    return std::nullopt;
  json::Path::Root root("$");
  json::ObjectMapper o(*document, root);
  std::string thermal = "nominal";
  std::map<std::string, double> utilization;
  Telemetry telemetry;
  if (!o.mapOptional("thermal_state", thermal) ||
      !o.mapOptional("free_memory_bytes", telemetry.freeMemoryBytes) ||
      !o.mapOptional("utilization", utilization)) {
    error = describeError(root);
    return std::nullopt;
  }
  std::optional<ThermalState> state = parseThermalStateName(thermal);
  if (!state) {
    error =
        "thermal_state: expected nominal, fair, serious or critical, got '" +
        thermal + "'";
    return std::nullopt;
  }
  telemetry.thermal = *state;
  if (telemetry.freeMemoryBytes < 0) {
    error = "free_memory_bytes: must be non-negative";
    return std::nullopt;
  }
  for (const auto &[name, u] : utilization) {
    std::string path = "utilization." + name;
    std::optional<BackendKind> kind = parseBackendName(name);
    if (!kind) {
      error = path + ": unknown backend '" + name + "'";
      return std::nullopt;
    }
    if (!(u >= 0 && u <= 1)) {
      error = path + ": must be in [0, 1]";
      return std::nullopt;
    }
    telemetry.utilization[index(*kind)] = u;
  }
  return telemetry;
}
