//===- Vocabulary.h - hwagent's words, rooted in the C ABI ------*- C++ -*-===//
//
// The enums every floor shares. Backends, weight-update modes and thermal
// states take their values from the runtime's C header (the root of the
// vocabulary); the dialect's ODS enums are tied to these by static_assert
// (dialects/HwAgent/IR/HwAgentDialect.cpp). No LLVM, no MLIR: the runtime
// links this core too.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_VOCABULARY_H
#define HWAGENT_CORE_VOCABULARY_H

#include "hwagent_rt/hwagent_rt.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hwcore {

//===----------------------------------------------------------------------===//
// Backends
//===----------------------------------------------------------------------===//

enum class BackendKind : int32_t {
  cpu = HWAGENT_BACKEND_CPU,
  ane = HWAGENT_BACKEND_ANE,
  gpu = HWAGENT_BACKEND_GPU,
};
constexpr unsigned kNumBackendKinds = HWAGENT_NUM_BACKENDS;
constexpr std::array<BackendKind, kNumBackendKinds> kAllBackends = {
    BackendKind::cpu, BackendKind::ane, BackendKind::gpu};

constexpr unsigned index(BackendKind kind) {
  return static_cast<unsigned>(kind);
}
const char *backendName(BackendKind kind);
std::optional<BackendKind> parseBackendName(std::string_view name);

//===----------------------------------------------------------------------===//
// Work kinds (the op-type histogram of #hwagent.features)
//===----------------------------------------------------------------------===//

/// Categories of work; the dialect's OpKind enum has the same values.
enum class WorkKind : unsigned {
  conv,
  depthwise,
  matmul,
  elementwise,
  reduction,
  normalization,
  pooling,
  data_movement,
  control_flow,
  opaque,
};
constexpr unsigned kNumWorkKinds = 10;
constexpr unsigned index(WorkKind kind) { return static_cast<unsigned>(kind); }
const char *workKindName(WorkKind kind);
std::optional<WorkKind> parseWorkKindName(std::string_view name);
/// Contractions: the kinds whose weights a backend may bake into programs.
constexpr bool isContraction(WorkKind kind) {
  return kind == WorkKind::conv || kind == WorkKind::depthwise ||
         kind == WorkKind::matmul;
}

/// A histogram of ops per work kind.
using WorkHistogram = std::array<int64_t, kNumWorkKinds>;

//===----------------------------------------------------------------------===//
// Training phases
//===----------------------------------------------------------------------===//

/// The dialect's Phase enum has the same values.
enum class Phase : unsigned { unknown, forward, backward, optimizer, mixed };
const char *phaseName(Phase phase);

//===----------------------------------------------------------------------===//
// Partition strategies
//===----------------------------------------------------------------------===//

/// How hwagent-assign-backends places regions (docs/partitioning.md).
enum class Strategy {
  /// Minimum predicted step time, programs and boundaries included.
  optimal,
  /// Offload every region an accelerator accepts (ANE first, then GPU):
  /// what Core ML, ONNX Runtime execution providers and TFLite delegates do.
  greedy,
  /// Each region's cheapest backend alone, boundaries ignored.
  local,
  /// Everything legal on one backend, the rest on its cheapest backend.
  cpu,
  ane,
  gpu,
};
constexpr std::array<Strategy, 6> kAllStrategies = {
    Strategy::optimal, Strategy::greedy, Strategy::local,
    Strategy::cpu,     Strategy::ane,    Strategy::gpu};
const char *strategyName(Strategy strategy);
/// One line for a command line's help.
const char *strategyDescription(Strategy strategy);
std::optional<Strategy> parseStrategyName(std::string_view name);
/// The backend a fixed strategy (cpu, ane, gpu) puts everything on.
std::optional<BackendKind> fixedBackend(Strategy strategy);

/// What the optimal placement minimizes (docs/partitioning.md).
enum class Objective {
  /// The step's seconds.
  time = HWAGENT_OBJECTIVE_TIME,
  /// The step's joules (modelled: docs/cost-model.md "Energy").
  energy = HWAGENT_OBJECTIVE_ENERGY,
  /// Joules x seconds.
  edp = HWAGENT_OBJECTIVE_EDP,
};
constexpr std::array<Objective, HWAGENT_NUM_OBJECTIVES> kAllObjectives = {
    Objective::time, Objective::energy, Objective::edp};
const char *objectiveName(Objective objective);
const char *objectiveDescription(Objective objective);
std::optional<Objective> parseObjectiveName(std::string_view name);

//===----------------------------------------------------------------------===//
// Weight updates and thermal states
//===----------------------------------------------------------------------===//

enum class WeightUpdate : int32_t {
  /// Weights do not change (inference), or the backend reads them as data.
  none = HWAGENT_WEIGHTS_STATIC,
  /// Passed as program inputs: no recompile, lower contraction throughput.
  input = HWAGENT_WEIGHTS_INPUT,
  /// The program is recompiled with the new weights every step.
  recompile = HWAGENT_WEIGHTS_RECOMPILE,
  /// The compiled program's weights are reloaded in place every step.
  reload = HWAGENT_WEIGHTS_RELOAD,
};
constexpr unsigned kNumWeightUpdates = HWAGENT_NUM_WEIGHT_UPDATES;
const char *weightUpdateName(WeightUpdate mode);
std::optional<WeightUpdate> parseWeightUpdateName(std::string_view name);

/// Thermal pressure as the OS reports it (Apple's four states).
enum class ThermalState : int32_t {
  nominal = HWAGENT_THERMAL_NOMINAL,
  fair = HWAGENT_THERMAL_FAIR,
  serious = HWAGENT_THERMAL_SERIOUS,
  critical = HWAGENT_THERMAL_CRITICAL,
};
const char *thermalStateName(ThermalState state);
std::optional<ThermalState> parseThermalStateName(std::string_view name);
/// Slow-down of a thermal state: Apple throttles clocks from "serious" on
/// (docs/cost-model.md). Shared by the cost model and the runtime.
double thermalFactor(ThermalState state);

} // namespace hwcore

#endif // HWAGENT_CORE_VOCABULARY_H
