//===- CostModel.h - per-backend time prediction (predict_performance) -*- C++ -*-===//
//
//   t = dispatch + max(flops / (peak * util(flops)), bytes / bandwidth)
//       + spill + weight refresh,   then  * telemetry factor
//
// with legality checked first; every term is returned so explanations can
// say what decided. Plain C++ (no MLIR), shared by the compiler and the
// runtime. Formulas and constants: docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_COSTMODEL_COSTMODEL_H
#define HWAGENT_COSTMODEL_COSTMODEL_H

#include "hwagent/CostModel/Target.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hwcore {

/// What the cost model knows of a region: its features (docs/features.md)
/// plus facts legality needs that the features do not carry.
struct RegionProfile {
  int64_t flops = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  int64_t params = 0;
  int64_t paramBytes = 0;
  std::array<int64_t, kNumWorkKinds> opHistogram{};
  std::vector<std::string> elementTypes;
  int64_t dynamicDims = 0;
  int64_t maxDim = 0;
  int64_t maxRank = 0;
  bool hasLoops = false;
  /// Ops an accelerator cannot run whatever their kind: gather/scatter,
  /// bitwise ops, stateful mutation. Empty when there are none.
  std::vector<std::string> unsupportedOps;
};

/// Thermal pressure as the OS reports it (Apple's four states).
enum class ThermalState { Nominal, Fair, Serious, Critical };
const char *thermalStateName(ThermalState state);

/// A snapshot of the chip's state (docs/cost-model.md, "Telemetry").
struct Telemetry {
  /// Share of each backend already in use by others, in [0, 1].
  std::array<double, kNumBackendKinds> utilization{};
  ThermalState thermal = ThermalState::Nominal;
  /// Free memory in bytes; 0 = unknown.
  int64_t freeMemoryBytes = 0;
};

/// Version of the telemetry file schema.
constexpr int64_t kTelemetrySchemaVersion = 1;
std::optional<Telemetry> parseTelemetry(const std::string &json,
                                        std::string &error);

struct CostOptions {
  /// The region's weights change every step (training): backends that bake
  /// weights into programs pay a recompile, others their transfer.
  bool weightsChangeEveryStep = true;
};

/// The prediction for one region on one backend, term by term (seconds).
struct CostBreakdown {
  BackendKind backend = BackendKind::cpu;
  bool legal = true;
  /// Why the backend cannot run the region, in words, when !legal.
  std::string reason;
  double dispatch = 0;
  double compute = 0;
  double memory = 0;
  /// Extra memory time from spilling out of on-chip SRAM.
  double spill = 0;
  /// Recompile or weight transfer when weights change every step.
  double weightRefresh = 0;
  /// Utilization reached on the ramp, in (0, 1].
  double utilization = 1;
  /// Multiplier from telemetry (>= 1).
  double telemetryFactor = 1;
  /// Multiplier learned from measured profiles (1 = none).
  double correction = 1;
  /// Whether a measured time replaced (part of) the analytic one.
  bool measured = false;
  double total = 0;

  /// "compute", "memory", "dispatch", "spill" or "weight refresh": the
  /// largest term, for explanations.
  const char *bindingTerm() const;
};

/// Predicts the time of `region` on `backend` of a target. Illegal
/// placements come back with legal = false, the reason and total = 0.
CostBreakdown predictCost(const RegionProfile &region,
                          const BackendDescription &backend,
                          const Telemetry &telemetry,
                          const CostOptions &options = {});

/// Time of moving `bytes` across a link, converting element type or layout
/// when `converts`.
double boundaryCost(const LinkDescription &link, int64_t bytes, bool converts);

} // namespace hwcore

#endif // HWAGENT_COSTMODEL_COSTMODEL_H
