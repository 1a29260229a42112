//===- Vocabulary.cpp - hwagent's words, declared once --------------------===//

#include "HwAgent/Core/Vocabulary.h"

#include <algorithm>
#include <iterator>

using namespace hwcore;

namespace {
/// One row per backend: its name and the colour reports draw it in. The
/// array's size is the vocabulary's: a backend without a row does not
/// compile.
struct BackendWords {
  const char *name;
  const char *color;
};
constexpr std::array<BackendWords, kNumBackendKinds> kBackends = {{
    {"cpu", "#8ecae6"},
    {"ane", "#f4a261"},
    {"gpu", "#90be6d"},
}};
constexpr bool allNamed() {
  for (const BackendWords &words : kBackends)
    if (!words.name || !words.color)
      return false;
  return true;
}
static_assert(allNamed(), "a name and a colour per backend");
constexpr const char *kWorkKindNames[] = {
    "conv",          "depthwise", "matmul",        "elementwise",  "reduction",
    "normalization", "pooling",   "data_movement", "control_flow", "opaque"};
static_assert(std::size(kWorkKindNames) == kNumWorkKinds, "a name per kind");
constexpr const char *kPhaseNames[] = {"unknown", "forward", "backward",
                                       "optimizer", "mixed"};
constexpr const char *kStrategyNames[] = {"optimal", "greedy", "local",
                                          "cpu",     "ane",    "gpu"};
static_assert(std::size(kStrategyNames) == kAllStrategies.size(), "names");
constexpr const char *kStrategyDescriptions[] = {
    "minimum predicted step time, programs and boundaries included (default)",
    "offload everything an accelerator supports",
    "cheapest backend per region, boundaries ignored",
    "everything on the CPU",
    "everything legal on the ANE",
    "everything legal on the GPU"};
static_assert(std::size(kStrategyDescriptions) == kAllStrategies.size(),
              "descriptions");
constexpr const char *kObjectiveNames[] = {"time", "energy", "edp"};
static_assert(std::size(kObjectiveNames) == kAllObjectives.size(), "names");
constexpr const char *kObjectiveDescriptions[] = {
    "the step's seconds (default)", "the step's joules (modelled)",
    "energy-delay product: joules x seconds"};
static_assert(std::size(kObjectiveDescriptions) == kAllObjectives.size(),
              "descriptions");
constexpr const char *kWeightUpdateNames[] = {"none", "input", "recompile",
                                              "reload"};
static_assert(std::size(kWeightUpdateNames) == kNumWeightUpdates, "names");
constexpr const char *kThermalNames[] = {"nominal", "fair", "serious",
                                         "critical"};
static_assert(std::size(kThermalNames) == kNumThermalStates, "names");

template <typename Enum, size_t N>
std::optional<Enum> lookup(const char *const (&names)[N],
                           std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i])
      return static_cast<Enum>(i);
  return std::nullopt;
}

template <size_t N>
const char *nameOf(const char *const (&names)[N], size_t i) {
  return i < N ? names[i] : "unknown";
}
} // namespace

const char *hwcore::backendName(BackendKind kind) {
  return index(kind) < kNumBackendKinds ? kBackends[index(kind)].name
                                        : "unknown";
}
std::optional<BackendKind> hwcore::parseBackendName(std::string_view name) {
  for (BackendKind kind : kAllBackends)
    if (name == kBackends[index(kind)].name)
      return kind;
  return std::nullopt;
}
std::string hwcore::backendNames(std::string_view separator,
                                 std::string_view last) {
  std::string names;
  for (unsigned b = 0; b < kNumBackendKinds; ++b) {
    if (b)
      names += b + 1 == kNumBackendKinds ? last : separator;
    names += kBackends[b].name;
  }
  return names;
}

const char *hwcore::backendColor(BackendKind kind) {
  return index(kind) < kNumBackendKinds ? kBackends[index(kind)].color
                                        : kHostColor;
}
const char *hwcore::workKindName(WorkKind kind) {
  return nameOf(kWorkKindNames, index(kind));
}
std::optional<WorkKind> hwcore::parseWorkKindName(std::string_view name) {
  return lookup<WorkKind>(kWorkKindNames, name);
}
const char *hwcore::phaseName(Phase phase) {
  return nameOf(kPhaseNames, static_cast<unsigned>(phase));
}
const char *hwcore::strategyName(Strategy strategy) {
  return nameOf(kStrategyNames, static_cast<unsigned>(strategy));
}
const char *hwcore::strategyDescription(Strategy strategy) {
  return nameOf(kStrategyDescriptions, static_cast<unsigned>(strategy));
}
std::optional<Strategy> hwcore::parseStrategyName(std::string_view name) {
  return lookup<Strategy>(kStrategyNames, name);
}
const char *hwcore::objectiveName(Objective objective) {
  return nameOf(kObjectiveNames, static_cast<unsigned>(objective));
}
const char *hwcore::objectiveDescription(Objective objective) {
  return nameOf(kObjectiveDescriptions, static_cast<unsigned>(objective));
}
std::optional<Objective> hwcore::parseObjectiveName(std::string_view name) {
  return lookup<Objective>(kObjectiveNames, name);
}
std::optional<BackendKind> hwcore::fixedBackend(Strategy strategy) {
  switch (strategy) {
  case Strategy::cpu:
    return BackendKind::cpu;
  case Strategy::ane:
    return BackendKind::ane;
  case Strategy::gpu:
    return BackendKind::gpu;
  default:
    return std::nullopt;
  }
}
const char *hwcore::weightUpdateName(WeightUpdate mode) {
  return nameOf(kWeightUpdateNames, static_cast<unsigned>(mode));
}
std::optional<WeightUpdate>
hwcore::parseWeightUpdateName(std::string_view name) {
  return lookup<WeightUpdate>(kWeightUpdateNames, name);
}
const char *hwcore::thermalStateName(ThermalState state) {
  return nameOf(kThermalNames, static_cast<unsigned>(state));
}
std::optional<ThermalState>
hwcore::parseThermalStateName(std::string_view name) {
  return lookup<ThermalState>(kThermalNames, name);
}
double hwcore::thermalFactor(ThermalState state) {
  static constexpr double factors[] = {1.0, 1.1, 1.5, 3.0};
  static_assert(std::size(factors) == kNumThermalStates, "a factor per state");
  unsigned i = static_cast<unsigned>(state);
  return i < std::size(factors) ? factors[i] : 1.0;
}
