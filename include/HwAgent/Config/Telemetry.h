//===- Telemetry.h - telemetry snapshots in JSON ----------------*- C++ -*-===//
//
// Schema `hwagent.telemetry`, version 1 (docs/cost-model.md, "Telemetry").
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CONFIG_TELEMETRY_H
#define HWAGENT_CONFIG_TELEMETRY_H

#include "HwAgent/Core/CostModel.h"

#include <optional>
#include <string>

namespace hwconfig {

constexpr int64_t kTelemetrySchemaVersion = 1;

std::optional<hwcore::Telemetry> parseTelemetry(const std::string &json,
                                                std::string &error);

} // namespace hwconfig

#endif // HWAGENT_CONFIG_TELEMETRY_H
