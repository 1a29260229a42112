//===- CostModel.h - region costs per backend (predict_performance) -*- C++
//-*-===//
//
// What one region costs on one backend as part of a program: legality (with
// the rule that decided and a reason a person reads), compute seconds with
// weights resident and with weights passed as inputs, its own memory time,
// its weights. A program's cost (launch, weight handling, utilization ramp
// over its FLOPs, fused memory) is assembled from these in Programs.h.
// Formulas and constants: docs/cost-model.md. No LLVM, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_COSTMODEL_H
#define HWAGENT_CORE_COSTMODEL_H

#include "HwAgent/Core/Target.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hwcore {

/// What the cost model knows of a region: its features (docs/features.md)
/// plus facts legality needs that the features do not carry.
struct RegionProfile {
  int64_t flops = 0;
  /// FLOPs of 3x3 unit-stride convolutions (Winograd applies to them).
  int64_t winogradFlops = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  int64_t params = 0;
  int64_t paramBytes = 0;
  WorkHistogram opHistogram{};
  std::vector<std::string> elementTypes;
  int64_t dynamicDims = 0;
  int64_t maxDim = 0;
  int64_t maxRank = 0;
  /// Innermost rows of the activations (docs/features.md).
  int64_t rows = 0;
  bool hasLoops = false;
  Phase phase = Phase::unknown;
  /// The region computes a gradient of the parameters (its results reach
  /// the optimizer update without another contraction in between).
  bool weightGradient = false;
  /// Ops an accelerator cannot run whatever their kind: gather/scatter,
  /// bitwise ops, stateful mutation. Empty when there are none.
  std::vector<std::string> unsupportedOps;

  int64_t bytes() const { return bytesRead + bytesWritten; }
  int64_t count(WorkKind kind) const { return opHistogram[index(kind)]; }
};

/// A snapshot of the chip's state (docs/cost-model.md, "Telemetry").
struct Telemetry {
  /// Share of each backend already in use by others, in [0, 1].
  std::array<double, kNumBackendKinds> utilization{};
  ThermalState thermal = ThermalState::nominal;
  /// Free memory in bytes; 0 = unknown.
  int64_t freeMemoryBytes = 0;

  /// Time multiplier of `backend`: thermal factor / share left, the share
  /// at least 5 % (a saturated backend is 20x slower, not infinitely).
  double factor(BackendKind backend) const;
};

struct CostOptions {
  /// Weights change every step (training): backends that bake weights into
  /// programs pay for taking new ones.
  bool training = true;
  /// Steps per weight update (gradient accumulation): what taking new
  /// weights costs (a recompile, a reload) is paid once per update and
  /// spread over this many steps.
  int64_t updateEvery = 1;
  /// Allow weight-gradient and optimizer regions on fp16 backends (with
  /// loss scaling); by default they stay in fp32 off the ANE.
  bool fp16Gradients = false;
};

/// Which rule made a backend illegal for a region.
enum class LegalityRule {
  none,
  dynamicShape,
  elementType,
  shapeLimit,
  rankLimit,
  loop,
  unsupportedKind,
  unsupportedOp,
  precision,
  memory,
};
const char *legalityRuleName(LegalityRule rule);

/// One region on one backend, inside a program.
struct RegionCost {
  BackendKind backend = BackendKind::cpu;
  bool legal = true;
  LegalityRule rule = LegalityRule::none;
  /// Why the backend cannot run the region (when !legal), or a note on a
  /// rule that allowed it (fp16 gradients).
  std::string reason;
  /// Compute seconds at full utilization, weights resident; and with the
  /// weights passed as inputs (equal when the region holds none).
  double compute = 0;
  double computeInputWeights = 0;
  /// Seconds of the region's own reads and writes at the backend's
  /// bandwidth (spill included): its activations, and its weights unless
  /// the backend holds them in the program (fused memory); and with the
  /// weights passed as inputs (streamed in with the activations).
  double memory = 0;
  double memoryInputWeights = 0;
  /// Seconds per region launch inside a program.
  double regionLaunch = 0;
  int64_t flops = 0;
  int64_t weightBytes = 0;
  /// The working set exceeded on-chip memory (compute and memory slowed by
  /// the spill factor).
  bool spilled = false;
  /// The backend does not overlap the region's traffic with its compute
  /// (BackendDescription::serialMemory): they add up.
  bool serial = false;
  /// Multiplier learned from measured profiles (1 = none) and whether a
  /// measurement replaced part of the estimate.
  double correction = 1;
  bool measured = false;

  /// Scales compute and memory (a measurement or a learned correction).
  void scale(double factor);
  /// Seconds inside a program, before telemetry: its own compute or memory
  /// (whichever binds) and its region launch; the program adds the launch
  /// and weight handling. What the runtime's profile measures per region.
  double insideSeconds() const {
    return busySeconds(compute, memory) + regionLaunch;
  }
  /// Seconds of `computeSeconds` and `memorySeconds` of this region's work:
  /// the larger, or their sum on a backend that does not overlap them.
  double busySeconds(double computeSeconds, double memorySeconds) const {
    if (serial)
      return computeSeconds + memorySeconds;
    return computeSeconds > memorySeconds ? computeSeconds : memorySeconds;
  }
};

/// Predicts `region` on `backend`. Illegal placements come back with
/// legal = false, the rule and the reason.
RegionCost predictRegion(const RegionProfile &region,
                         const BackendDescription &backend,
                         const Telemetry &telemetry,
                         const CostOptions &options = {});

/// A program on one backend: its regions' costs assembled (docs/cost-model.md)
///
///   seconds = (launch + regions x region launch + weight handling
///              + max(compute / util(program FLOPs), memory)) x telemetry
///
/// The weight handling is the cheapest way the backend can take new weights
/// every step (training, weights in the program): as inputs (lower
/// contraction throughput, weights streamed), recompiled (compile + per
/// byte, plus the restart its compile limit forces, amortized) or reloaded.
struct ProgramCost {
  bool legal = true;
  std::string reason;
  double seconds = 0;
  double launch = 0;
  double weights = 0;
  double compute = 0;
  double memory = 0;
  double utilization = 1;
  /// Seconds of compute-bound work (each region whose compute binds, or
  /// its compute where traffic does not overlap it), telemetry included:
  /// what grows as 1/s at a clock s below the peak (clockProgram).
  double clocked = 0;
  /// The clock the program runs at, a share of the peak (1: full).
  double clock = 1;
  int64_t flops = 0;
  int64_t weightBytes = 0;
  WeightUpdate mode = WeightUpdate::none;
  double telemetryFactor = 1;
  /// Joules of the backend while the program runs (active power over its
  /// seconds, energy per FLOP and per byte of traffic) and of the host
  /// feeding it (its power over the seconds, the launch energy). Modelled
  /// from the target's power values, never measured.
  double joules = 0;
  double hostJoules = 0;
  /// "compute", "memory", "launch" or "weights": the largest term.
  const char *bindingTerm() const;
};

struct ProgramContext {
  /// Time multiplier from telemetry.
  double telemetryFactor = 1;
  /// Programs with weights this step on the backend (a compile limit makes
  /// recompiling illegal beyond it).
  int64_t weightPrograms = 1;
  /// Weights compiled into all of the backend's programs this step (0 = the
  /// program's own): they share its on-chip memory, so a program's weights
  /// stay resident between steps only for the share that fits beside the
  /// others' (a decode step evaluates every program once per token).
  int64_t stepWeightBytes = 0;
  /// FLOPs the utilization ramp sees (0 = the program's own): the
  /// partitioner's optimistic surrogate prices a region at the utilization
  /// of the largest program it could join.
  double utilizationFlops = 0;
};

ProgramCost programCost(const BackendDescription &backend,
                        const RegionCost *const *regions, size_t count,
                        const ProgramContext &context,
                        const CostOptions &options);
inline ProgramCost programCost(const BackendDescription &backend,
                               const std::vector<const RegionCost *> &regions,
                               const ProgramContext &context,
                               const CostOptions &options) {
  return programCost(backend, regions.data(), regions.size(), context, options);
}

/// The region as a program of its own: what `#hwagent.costs` shows.
ProgramCost standaloneCost(const RegionCost &cost,
                           const BackendDescription &backend,
                           const Telemetry &telemetry,
                           const CostOptions &options);

/// Utilization a backend reaches on `flops` of work (its ramp).
double utilization(const BackendDescription &backend, double flops);

} // namespace hwcore

#endif // HWAGENT_CORE_COSTMODEL_H
