//===- Target.h - hardware descriptions of heterogeneous chips --*- C++ -*-===//
//
// What the cost model knows of a chip: each backend's device model and the
// links between backends. Built-in targets are C++ data (BuiltinTargets.cpp,
// every value sourced in docs/targets.md); user targets come from JSON
// (HwAgent/Config/TargetFile.h); the compiler carries a target losslessly in
// `#hwagent.target`. No LLVM, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_TARGET_H
#define HWAGENT_CORE_TARGET_H

#include "HwAgent/Core/Vocabulary.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hwcore {

/// The device model of one backend (docs/cost-model.md). A program (a
/// convex, connected set of regions launched once) on this backend costs
///
///   launch + regions x regionLaunch + weight handling
///     + max(compute / util(program FLOPs), memory)        (x telemetry)
///
/// where compute sums each region's FLOPs at the backend's peak for the
/// region's element type, scaled by the efficiency of its kind of work.
struct BackendDescription {
  BackendKind kind = BackendKind::cpu;
  /// No such device on this machine: its times are the model's (the ANE on
  /// Linux).
  bool simulated = false;

  // Compute.
  /// Peak FLOP/s per compute element type ("f32", "f16", ...); "default"
  /// applies to types not listed. For a CPU: what the cores used reach on
  /// their vector units.
  std::map<std::string, double> peakFlops;
  /// Matrix unit (AMX/SME) FLOP/s for matmul-class work, shared by the
  /// cores (0 = none): matmuls run at the larger of this and the vector
  /// peak.
  double matrixFlops = 0;
  /// Share of the peak each kind of work reaches (absent = 1).
  std::map<WorkKind, double> kindEfficiency;
  /// Throughput factor on the FLOPs of convolutions that Winograd's minimal
  /// filtering applies to (3x3 windows, unit stride and dilation): the
  /// backend's libraries run them with fewer multiplies than the direct
  /// count (F(2x2,3x3): 16 instead of 36 per output tile, 2.25x), so their
  /// direct FLOPs go faster than the peak. 1 = direct or implicit GEMM.
  double winogradGain = 1.0;
  /// Utilization ramp: util = min(1, (F / rampFlops) ^ rampExponent) for F
  /// FLOPs of work (deep programs amortize the pipeline's fill).
  double rampFlops = 1.0;
  double rampExponent = 1.0;
  /// The ramp applies to a program's FLOPs (a backend that streams a whole
  /// program: ANE, GPU command buffers) rather than to each region's.
  bool programRamp = false;
  /// The element type the backend computes in ("" = as written; "f16" for
  /// the ANE, which has an fp16 datapath only).
  std::string computeType;

  // Memory.
  /// Memory bandwidth the backend attains, bytes/s.
  double bandwidth = 1.0;
  /// Weights compiled into a program stay on chip (the ANE): only weights
  /// passed as inputs move through memory. Otherwise every region reads its
  /// weights. Either way every region reads and writes its activations.
  bool fusedMemory = false;
  /// Bytes each innermost row of an activation occupies at least (the
  /// ANE aligns rows to 64 bytes; 0 = packed).
  int64_t rowAlignment = 0;
  /// On-chip memory (0 = none) and the slow-down of a region whose working
  /// set (operands and weights) exceeds it.
  int64_t sramBytes = 0;
  double spillFactor = 1.0;
  /// A region's memory traffic does not overlap its compute: it costs
  /// compute + memory rather than the larger of the two (the ANE moves a
  /// layer's tiles in and out around its compute; docs/cost-model.md).
  bool serialMemory = false;

  // Launches.
  /// Seconds per program launch (for the ANE the host round trip).
  double launch = 0.0;
  /// Seconds per region (kernel) inside a program.
  double regionLaunch = 0.0;

  // Weights that change every step (training).
  /// How the backend can take new weights every step; empty = it reads
  /// weights as ordinary data at no extra cost.
  std::vector<WeightUpdate> weightUpdates;
  /// Contraction throughput with weights passed as inputs, relative to
  /// weights baked into the program (1 = no penalty).
  double inputWeightEfficiency = 1.0;
  /// Seconds to compile a program, plus per byte of weights it holds.
  double compile = 0.0;
  double compilePerByte = 0.0;
  /// Seconds to reload a compiled program's weights in place, plus per
  /// byte of weights.
  double reload = 0.0;
  double reloadPerByte = 0.0;
  /// Most weight bytes one program can have baked in (0 = no limit):
  /// beyond it only weights as inputs work.
  int64_t maxWeightBytes = 0;
  /// Compiles one process can do (0 = unlimited), and the seconds of the
  /// restart that resets the count.
  int64_t maxCompiles = 0;
  double restart = 0.0;

  // Power (docs/targets.md; every value from ENERGY-FACTS or marked a
  // choice). A program on the backend draws `activePower` while it runs
  // plus `energyPerFlop` per FLOP and `energyPerByte` per byte of its
  // traffic; the host CPU draws `hostPower` while it feeds the backend and
  // `launchEnergy` per launch (submission, wake); idle, the backend draws
  // `idlePower`.
  double idlePower = 0.0;
  double activePower = 0.0;
  double energyPerFlop = 0.0;
  double energyPerByte = 0.0;
  double hostPower = 0.0;
  double launchEnergy = 0.0;

  // Frequency scaling under a power cap (docs/targets.md "DVFS"). At a
  // clock s of the peak (s in [minClock, 1]) the backend's compute-bound
  // seconds grow as 1/s and its dynamic power falls as s ^ dvfsExponent
  // (activePower over its seconds; energyPerFlop as s ^ (exponent - 1)):
  // voltage rises with frequency, so power falls faster than the clock.
  // Idle, static and host power, memory-bound seconds, launches and
  // boundaries do not change. 0 = the backend does not scale (the ANE).
  double dvfsExponent = 0.0;
  /// Lowest clock as a share of the peak, in (0, 1].
  double minClock = 1.0;
  /// The backend slows its clock to meet a power cap.
  bool scalesClock() const { return dvfsExponent > 0 && minClock < 1; }

  // CPU threading.
  /// Cores the backend's work spreads over, and the scaling of the vector
  /// throughput with them: speedup = threads ^ parallelExponent.
  int64_t threads = 1;
  double parallelExponent = 1.0;

  // Legality.
  /// Compiles static shapes only (a dynamic dimension makes it illegal).
  bool staticShapes = false;
  /// Largest extent per axis (0 = unlimited) and largest rank of a
  /// contraction (0 = unlimited).
  int64_t maxDim = 0;
  int64_t maxRank = 0;
  /// Work kinds the backend executes; empty = all.
  std::vector<WorkKind> opKinds;
  /// Element types it accepts ("f16", "f32", "i8", ...); empty = all.
  std::vector<std::string> elementTypes;

  /// Peak FLOP/s computing in `type`, before kind efficiency and threads.
  double peakFor(const std::string &type) const;
  /// Efficiency of `kind` (1 when not listed).
  double efficiencyOf(WorkKind kind) const;
  /// Vector throughput speedup of the threads used.
  double threadSpeedup() const;
  bool supports(WeightUpdate mode) const;
  bool runs(WorkKind kind) const;
};

/// Price of moving data from one backend to another.
struct LinkDescription {
  BackendKind from = BackendKind::cpu;
  BackendKind to = BackendKind::cpu;
  /// Copy bandwidth in bytes/s.
  double bandwidth = 1.0;
  /// f32 <-> f16 conversion throughput in bytes/s (0 = free).
  double convertBandwidth = 0.0;
  /// Seconds of synchronization per program boundary.
  double sync = 0.0;
};

/// Seconds to move `bytes` across `link`, `convertBytes` of them converted
/// between f32 and f16, one synchronization included. Shared by the
/// compiler's partitioner and the runtime.
double linkCost(const LinkDescription &link, int64_t bytes,
                int64_t convertBytes);

struct TargetDescription {
  std::string name;
  std::string description;
  std::vector<BackendDescription> backends;
  /// Ordered pairs with a price of their own.
  std::vector<LinkDescription> links;
  /// Used for pairs without their own link.
  LinkDescription defaultLink;
  /// Watts the package draws whatever runs (fabric, memory, always-on
  /// domains), over the whole step.
  double staticPower = 0.0;

  const BackendDescription *lookup(BackendKind kind) const;
  /// The link from `from` to `to` (the default when not listed).
  LinkDescription link(BackendKind from, BackendKind to) const;
};

/// Joules of a program's work on `backend` that do not grow with its time:
/// per FLOP and per byte of its traffic (`memorySeconds` at the backend's
/// bandwidth). A program's joules are these, its launch energy and
/// runningPower(backend) over its seconds.
inline double workJoules(const BackendDescription &backend, double flops,
                         double memorySeconds) {
  return backend.energyPerFlop * flops +
         backend.energyPerByte * memorySeconds * backend.bandwidth;
}
/// Watts while a program runs on `backend`: its own and the host's feeding
/// it.
inline double runningPower(const BackendDescription &backend) {
  return backend.activePower + backend.hostPower;
}
/// Watts of the host while it copies and converts at a boundary: one
/// core's share of its active power.
inline double boundaryPower(const BackendDescription &host) {
  return host.activePower / double(host.threads > 1 ? host.threads : 1);
}
/// Joules per byte crossing a boundary (read and written by the host).
inline double boundaryJoulesPerByte(const BackendDescription &host) {
  return 2.0 * host.energyPerByte;
}

/// The target a partition is made for when none is named (every driver's
/// default: hwagent-opt's passes, hwagent-run, the benchmarks).
inline constexpr const char *kDefaultTarget = "apple-m4";

/// Names of the built-in targets.
std::vector<std::string> builtinTargetNames();

/// A built-in target by name (apple-m1, apple-m2-pro, apple-m4,
/// apple-m4-max, apple-a16, apple-a17-pro, host); nullopt for an unknown
/// name.
std::optional<TargetDescription> getBuiltinTarget(const std::string &name);

/// Checks a description's values (positive peaks and bandwidths, ramp
/// exponent in (0, 1], ...); returns "" or "<field>: <what is wrong>".
std::string validateTarget(const TargetDescription &target);

} // namespace hwcore

#endif // HWAGENT_CORE_TARGET_H
