//===- Vocabulary.h - hwagent's words, declared once ------------*- C++ -*-===//
//
// The enums every floor shares, declared here (the lowest floor) with their
// values: the runtime's C header (hwagent_rt/hwagent_types.h) and the
// dialect's ODS enums are tied to them by static_assert
// (runtime/src/Vocabulary.h, dialects/HwAgent/IR/HwAgentDialect.cpp). Each
// word's name (and a backend's colour) is in one table (Vocabulary.cpp). No
// LLVM, no MLIR, no runtime header: the runtime links this core.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_VOCABULARY_H
#define HWAGENT_CORE_VOCABULARY_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hwcore {

//===----------------------------------------------------------------------===//
// Backends
//===----------------------------------------------------------------------===//

/// Execution backends. Adding one: a value here and its row in the
/// backend table (Vocabulary.cpp, which fails to compile without it), the
/// C header's HWAGENT_BACKEND_* and the ODS Backend case (tied by
/// static_assert), and its device model in the targets.
enum class BackendKind : int32_t {
  cpu = 0,
  ane = 1,
  gpu = 2,
};
constexpr unsigned kNumBackendKinds = 3;
constexpr std::array<BackendKind, kNumBackendKinds> kAllBackends = {
    BackendKind::cpu, BackendKind::ane, BackendKind::gpu};

constexpr unsigned index(BackendKind kind) {
  return static_cast<unsigned>(kind);
}
const char *backendName(BackendKind kind);
std::optional<BackendKind> parseBackendName(std::string_view name);
/// Every backend's name, `separator` between them and `last` before the
/// last: "cpu, ane or gpu" (messages), "cpu|ane|gpu" (usage lines).
std::string backendNames(std::string_view separator = ", ",
                         std::string_view last = " or ");
/// The colour reports draw the backend in ("#rrggbb"); the host's (the
/// function's arguments and results) is kHostColor.
const char *backendColor(BackendKind kind);
inline constexpr const char *kHostColor = "#dddddd";

/// One value per backend, every entry `value`: arrays indexed by backend
/// are built with it (or indexed through kAllBackends), never written as
/// one literal per backend, so that a fourth backend cannot be priced 0.
template <typename T>
constexpr std::array<T, kNumBackendKinds> perBackend(T value) {
  std::array<T, kNumBackendKinds> all{};
  for (T &each : all)
    each = value;
  return all;
}

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
enum class Objective : int32_t {
  /// The step's seconds.
  time = 0,
  /// The step's joules (modelled: docs/cost-model.md "Energy").
  energy = 1,
  /// Joules x seconds.
  edp = 2,
};
constexpr unsigned kNumObjectives = 3;
constexpr std::array<Objective, kNumObjectives> kAllObjectives = {
    Objective::time, Objective::energy, Objective::edp};
const char *objectiveName(Objective objective);
const char *objectiveDescription(Objective objective);
std::optional<Objective> parseObjectiveName(std::string_view name);

//===----------------------------------------------------------------------===//
// Weight updates and thermal states
//===----------------------------------------------------------------------===//

enum class WeightUpdate : int32_t {
  /// Weights do not change (inference), or the backend reads them as data.
  none = 0,
  /// Passed as program inputs: no recompile, lower contraction throughput.
  input = 1,
  /// The program is recompiled with the new weights every step.
  recompile = 2,
  /// The compiled program's weights are reloaded in place every step.
  reload = 3,
};
constexpr unsigned kNumWeightUpdates = 4;
const char *weightUpdateName(WeightUpdate mode);
std::optional<WeightUpdate> parseWeightUpdateName(std::string_view name);

/// Thermal pressure as the OS reports it (Apple's four states).
enum class ThermalState : int32_t {
  nominal = 0,
  fair = 1,
  serious = 2,
  critical = 3,
};
constexpr unsigned kNumThermalStates = 4;
const char *thermalStateName(ThermalState state);
std::optional<ThermalState> parseThermalStateName(std::string_view name);
/// Slow-down of a thermal state: Apple throttles clocks from "serious" on
/// (docs/cost-model.md). Shared by the cost model and the runtime.
double thermalFactor(ThermalState state);

} // namespace hwcore

#endif // HWAGENT_CORE_VOCABULARY_H
