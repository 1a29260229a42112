//===- CostModel.cpp - per-backend time prediction ------------------------===//

#include "hwagent/CostModel/CostModel.h"

#include "hwagent/CostModel/JsonReader.h"

#include <algorithm>
#include <cmath>

using namespace hwcore;

const char *hwcore::thermalStateName(ThermalState state) {
  switch (state) {
  case ThermalState::Nominal:
    return "nominal";
  case ThermalState::Fair:
    return "fair";
  case ThermalState::Serious:
    return "serious";
  case ThermalState::Critical:
    return "critical";
  }
  return "nominal";
}

/// Slow-down of a thermal state: Apple throttles clocks from "serious" on.
static double thermalFactor(ThermalState state) {
  switch (state) {
  case ThermalState::Nominal:
    return 1.0;
  case ThermalState::Fair:
    return 1.1;
  case ThermalState::Serious:
    return 1.5;
  case ThermalState::Critical:
    return 3.0;
  }
  return 1.0;
}

const char *CostBreakdown::bindingTerm() const {
  struct Term {
    const char *name;
    double value;
  } terms[] = {{"compute", compute},
               {"memory", memory},
               {"dispatch", dispatch},
               {"spill", spill},
               {"weight refresh", weightRefresh}};
  const Term *best = &terms[0];
  for (const Term &term : terms)
    if (term.value > best->value)
      best = &term;
  return best->name;
}

/// The widest floating-point type computed in, which selects the peak; the
/// first type when no float is used.
static std::string computeType(const RegionProfile &region) {
  static const char *const order[] = {"f64", "f32", "bf16", "f16"};
  for (const char *type : order)
    if (std::find(region.elementTypes.begin(), region.elementTypes.end(),
                  type) != region.elementTypes.end())
      return type;
  return region.elementTypes.empty() ? "f32" : region.elementTypes.front();
}

static std::string legalityReason(const RegionProfile &region,
                                  const BackendDescription &backend) {
  std::string name = backendName(backend.kind);
  if (region.dynamicDims > 0)
    if (backend.kind == BackendKind::ane)
      return "dynamic shape (" + std::to_string(region.dynamicDims) +
             " dynamic dimensions); the " + name +
             " compiles static shapes only";
  if (!backend.elementTypes.empty())
    for (const std::string &type : region.elementTypes)
      if (std::find(backend.elementTypes.begin(), backend.elementTypes.end(),
                    type) == backend.elementTypes.end())
        return "element type " + type + " is not supported by the " + name +
               (backend.kind == BackendKind::ane
                    ? " (it computes in fp16; only f16/f32 inputs are cast)"
                    : "");
  if (backend.maxDim > 0 && region.maxDim > backend.maxDim)
    return "dimension of size " + std::to_string(region.maxDim) +
           " exceeds the " + name + "'s per-axis limit of " +
           std::to_string(backend.maxDim);
  if (backend.maxRank > 0 && region.maxRank > backend.maxRank &&
      region.opHistogram[2] > 0)
    return "rank-" + std::to_string(region.maxRank) +
           " matmul exceeds the " + name + "'s rank limit of " +
           std::to_string(backend.maxRank);
  if (!backend.opKinds.empty()) {
    if (region.hasLoops &&
        std::find(backend.opKinds.begin(), backend.opKinds.end(), 8u) ==
            backend.opKinds.end())
      return "loop or recurrence; the " + name +
             " runs straight-line programs only";
    for (unsigned kind = 0; kind < kNumWorkKinds; ++kind)
      if (region.opHistogram[kind] > 0 &&
          std::find(backend.opKinds.begin(), backend.opKinds.end(), kind) ==
              backend.opKinds.end())
        return std::string(kind == 9 ? "opaque op (no " + name +
                                           " implementation known)"
                                     : std::string(workKindName(kind)) +
                                           " ops are not supported by the " +
                                           name);
    if (!region.unsupportedOps.empty())
      return region.unsupportedOps.front() + " is not supported by the " +
             name;
  }
  return "";
}

CostBreakdown hwcore::predictCost(const RegionProfile &region,
                                   const BackendDescription &backend,
                                   const Telemetry &telemetry,
                                   const CostOptions &options) {
  CostBreakdown cost;
  cost.backend = backend.kind;
  cost.reason = legalityReason(region, backend);
  if (!cost.reason.empty()) {
    cost.legal = false;
    return cost;
  }

  double flops = static_cast<double>(region.flops);
  double bytes = static_cast<double>(region.bytesRead + region.bytesWritten);
  cost.dispatch = backend.dispatch;
  if (flops > 0) {
    cost.utilization =
        std::min(1.0, std::pow(flops / backend.rampFlops, backend.rampExponent));
    cost.utilization = std::max(cost.utilization, 1e-6);
    cost.compute =
        flops / (backend.peakFor(computeType(region)) * cost.utilization);
  }
  cost.memory = bytes / backend.bandwidth;
  // Beyond on-chip SRAM every byte of the working set (weights plus the
  // region's inputs and outputs) streams from DRAM at spill_factor x cost.
  if (backend.sramBytes > 0) {
    double workingSet = bytes + static_cast<double>(region.paramBytes);
    double over = workingSet - static_cast<double>(backend.sramBytes);
    if (over > 0)
      cost.spill = over / backend.bandwidth * (backend.spillFactor - 1.0);
  }
  if (options.weightsChangeEveryStep && region.params > 0) {
    if (backend.weightUpdate == WeightUpdate::Recompile)
      cost.weightRefresh = backend.compile;
    else if (backend.kind != BackendKind::cpu)
      cost.weightRefresh =
          static_cast<double>(region.paramBytes) / backend.bandwidth;
  }
  double base = cost.dispatch + std::max(cost.compute, cost.memory) +
                cost.spill + cost.weightRefresh;
  // Others' use of the backend leaves 1 - u of it: time scales by 1/(1-u),
  // capped at 20x for a saturated backend.
  double u = telemetry.utilization[static_cast<unsigned>(backend.kind)];
  double share = std::max(0.05, 1.0 - std::clamp(u, 0.0, 1.0));
  cost.telemetryFactor = thermalFactor(telemetry.thermal) / share;
  cost.total = base * cost.telemetryFactor;
  if (telemetry.freeMemoryBytes > 0 &&
      bytes + static_cast<double>(region.paramBytes) >
          static_cast<double>(telemetry.freeMemoryBytes)) {
    cost.legal = false;
    cost.reason = "working set of " +
                  std::to_string(static_cast<int64_t>(
                      bytes + static_cast<double>(region.paramBytes))) +
                  " bytes exceeds the " +
                  std::to_string(telemetry.freeMemoryBytes) +
                  " bytes of free memory";
    cost.total = 0;
  }
  return cost;
}

double hwcore::boundaryCost(const LinkDescription &link, int64_t bytes,
                             bool converts) {
  double b = static_cast<double>(bytes);
  double cost = link.sync + b / link.bandwidth;
  if (converts && link.convertBandwidth > 0)
    cost += b / link.convertBandwidth;
  return cost;
}

std::optional<Telemetry> hwcore::parseTelemetry(const std::string &text,
                                                 std::string &error) {
  JsonReader r(error);
  std::optional<llvm::json::Object> root =
      r.parseDocument(text, "hwagent.telemetry", kTelemetrySchemaVersion);
  if (!root)
    return std::nullopt;
  Telemetry telemetry;
  std::string thermal = "nominal";
  if (!r.string(*root, "thermal_state", "", thermal, /*required=*/false) ||
      !r.integer(*root, "free_memory_bytes", "", telemetry.freeMemoryBytes,
                 /*required=*/false))
    return std::nullopt;
  if (thermal == "nominal")
    telemetry.thermal = ThermalState::Nominal;
  else if (thermal == "fair")
    telemetry.thermal = ThermalState::Fair;
  else if (thermal == "serious")
    telemetry.thermal = ThermalState::Serious;
  else if (thermal == "critical")
    telemetry.thermal = ThermalState::Critical;
  else {
    r.fail("thermal_state", "expected nominal, fair, serious or critical, got '" +
                                thermal + "'");
    return std::nullopt;
  }
  if (telemetry.freeMemoryBytes < 0) {
    r.fail("free_memory_bytes", "must be non-negative");
    return std::nullopt;
  }
  if (const llvm::json::Object *utilization =
          r.object(*root, "utilization", "", /*required=*/false)) {
    for (auto &[name, value] : *utilization) {
      std::string path = "utilization." + name.str();
      std::optional<BackendKind> kind = parseBackendName(name.str());
      if (!kind) {
        r.fail(path, "unknown backend '" + name.str() + "'");
        return std::nullopt;
      }
      double u = 0;
      if (!r.number(*utilization, name, "utilization", u,
                    JsonReader::UnitInterval))
        return std::nullopt;
      telemetry.utilization[static_cast<unsigned>(*kind)] = u;
    }
  } else if (!error.empty()) {
    return std::nullopt;
  }
  return telemetry;
}
