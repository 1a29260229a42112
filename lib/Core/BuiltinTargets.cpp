//===- BuiltinTargets.cpp - named hardware targets ------------------------===//
//
// Every number is sourced in docs/targets.md: a row of the calibration set
// (docs/ane-facts.md) or another published measurement where one exists,
// vendor figures or arithmetic on them otherwise ("derived"), and modeling
// choices marked as such. The validation program
// (scripts/validate_device_model.py) compares the predictions these give with
// the published measurements.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Core/Target.h"

#include <cassert>

using namespace hwcore;

namespace {

/// What differs between the Apple chips.
struct AppleChip {
  const char *name;
  const char *description;
  // ANE.
  double anePeak;      ///< fp16 FLOP/s of a deep constant-weight program
  double aneRampFlops; ///< program-level ramp
  double aneBandwidth; ///< attainable by the ANE, B/s
  /// Share of the peak a single large GEMM reaches (docs/targets.md).
  double aneMatmulEfficiency;
  double aneLaunch; ///< per program, s
  double aneCompilePerByte;
  // CPU.
  double cpuCoreFlops;   ///< fp32 NEON FLOP/s of one performance core
  double cpuMatrixFlops; ///< AMX/SME sgemm through Accelerate
  int64_t cpuCores;      ///< performance cores
  /// What the CPU cores attain from DRAM, B/s: on the Pro/Max chips far
  /// less than the SoC's bandwidth (docs/targets.md "CPU bandwidth").
  double cpuBandwidth;
  // GPU.
  double gpuFlops; ///< fp32 (= fp16 rate) FLOP/s
  // SoC.
  double dramBandwidth; ///< B/s
  // Power (docs/targets.md "Power": ENERGY-FACTS rows, fits and choices).
  double aneActivePower, aneEnergyPerFlop, aneHostPower, aneLaunchEnergy;
  double gpuActivePower, gpuEnergyPerFlop;
  double cpuActivePower, cpuEnergyPerFlop;
};

constexpr AppleChip kAppleChips[] = {
    {"apple-m1",
     "Apple M1: 16-core ANE, 4 P-cores with AMX, 8-core GPU, 68 GB/s",
     1.08e13,
     2.0e9,
     6.1e10,
     0.32,
     2.1e-4,
     2.4e-8,
     1.02e11,
     1.4e12,
     4,
     6.0e10,
     2.6e12,
     6.8e10,
     0.8,
     4.0e-13,
     0.5,
     4.3e-4,
     3.9,
     4.3e-12,
     5.0,
     2.7e-12},
    {"apple-m2-pro",
     "Apple M2 Pro: 16-core ANE, 8 P-cores with AMX, 19-core GPU, 200 GB/s",
     1.55e13,
     2.9e9,
     6.0e10,
     0.32,
     2.0e-4,
     2.4e-8,
     1.12e11,
     1.4e12,
     8,
     1.1e11,
     6.8e12,
     2.0e11,
     1.4,
     4.0e-13,
     0.5,
     4.3e-4,
     5.2,
     3.85e-12,
     5.0,
     2.7e-12},
    {"apple-m4",
     "Apple M4: 16-core ANE, 4 P-cores with SME, 10-core GPU, 120 GB/s",
     1.86e13,
     3.5e9,
     6.4e10,
     0.32,
     1.0e-4,
     1.0e-8,
     1.41e11,
     1.5e12,
     4,
     1.0e11,
     2.9e12,
     1.0e11,
     0.82,
     5.2e-13,
     0.5,
     4.3e-4,
     4.85,
     4.3e-12,
     5.0,
     2.7e-12},
    {"apple-m4-max",
     "Apple M4 Max: 16-core ANE, 12 P-cores with SME, 40-core GPU, 546 GB/s",
     1.86e13,
     3.5e9,
     1.19e11,
     0.48,
     1.5e-4,
     1.0e-8,
     1.44e11,
     1.5e12,
     12,
     3.0e11,
     1.16e13,
     5.46e11,
     1.13,
     5.2e-13,
     0.1,
     1.2e-3,
     20.2,
     2.04e-12,
     6.1,
     6.3e-13},
    // Phone-class chips (docs/targets.md "Phone targets"): two P-cores,
    // LPDDR5 on a 64-bit bus; power per unit scaled from the Mac rows (a
    // choice: no published per-unit phone watts in the project's sources).
    {"apple-a16",
     "Apple A16 Bionic (iPhone 14 Pro): 16-core ANE, 2 P-cores with AMX, "
     "5-core GPU, 51 GB/s",
     1.66e13,
     3.1e9,
     4.6e10,
     0.32,
     2.0e-4,
     2.4e-8,
     1.11e11,
     1.4e12,
     2,
     4.5e10,
     1.79e12,
     5.12e10,
     0.8,
     4.0e-13,
     0.25,
     2.2e-4,
     2.4,
     4.3e-12,
     2.5,
     2.7e-12},
    {"apple-a17-pro",
     "Apple A17 Pro (iPhone 15 Pro): 16-core ANE, 2 P-cores with AMX, "
     "6-core GPU, 51 GB/s",
     1.71e13,
     3.2e9,
     4.6e10,
     0.32,
     1.0e-4,
     1.0e-8,
     1.21e11,
     1.4e12,
     2,
     4.5e10,
     2.15e12,
     5.12e10,
     0.8,
     5.2e-13,
     0.25,
     2.2e-4,
     2.9,
     4.3e-12,
     2.5,
     2.7e-12},
};

const std::vector<WorkKind> kAcceleratorKinds = {
    WorkKind::conv,        WorkKind::depthwise,    WorkKind::matmul,
    WorkKind::elementwise, WorkKind::reduction,    WorkKind::normalization,
    WorkKind::pooling,     WorkKind::data_movement};

BackendDescription appleAne(const AppleChip &chip) {
  BackendDescription b;
  b.kind = BackendKind::ane;
  b.simulated = true;
  b.computeType = "f16";
  b.peakFlops = {{"f16", chip.anePeak}};
  // A single GEMM tops out near 5.4 of the M4's 18.6 TFLOP/s (8.9 on the
  // M4 Max); depthwise convolutions use a fraction of the MAC array
  // (modeling choice).
  b.kindEfficiency = {{WorkKind::matmul, chip.aneMatmulEfficiency},
                      {WorkKind::depthwise, 0.25}};
  b.rampFlops = chip.aneRampFlops;
  b.rampExponent = 0.38;
  b.programRamp = true;
  b.bandwidth = chip.aneBandwidth;
  b.fusedMemory = true;
  b.sramBytes = 32ll << 20;
  b.rowAlignment = 64;
  b.spillFactor = 1.4;
  // A layer's tiles are loaded, computed and stored one after another: one
  // layer's traffic does not hide behind its own compute (docs/targets.md:
  // one-layer conv sweeps reach 28-77 % of the deep chain's peak).
  b.serialMemory = true;
  b.launch = chip.aneLaunch;
  b.regionLaunch = 1.0e-6;
  b.weightUpdates = {WeightUpdate::input, WeightUpdate::recompile,
                     WeightUpdate::reload};
  b.inputWeightEfficiency = 0.5;
  b.compile = 0.011;
  b.compilePerByte = chip.aneCompilePerByte;
  b.reloadPerByte = 1.6e-9;
  b.maxWeightBytes = 2ll << 30;
  b.maxCompiles = 119;
  b.restart = 1.0;
  b.staticShapes = true;
  b.maxDim = 16384;
  b.maxRank = 4;
  b.opKinds = kAcceleratorKinds;
  // i8: weights quantized per channel (coremltools linear_quantize_weights)
  // run on the Neural Engine, decompressed to fp16 as they are read, so a
  // memory-bound program moves half the bytes (coremltools "Quantization:
  // Performance"; docs/workloads.md).
  b.elementTypes = {"f16", "f32", "i8"};
  // The ANE's rail is off between jobs; no frequency scaling was observed
  // (ENERGY-FACTS): dvfsExponent stays 0.
  b.idlePower = 0;
  b.activePower = chip.aneActivePower;
  b.energyPerFlop = chip.aneEnergyPerFlop;
  b.hostPower = chip.aneHostPower;
  b.launchEnergy = chip.aneLaunchEnergy;
  return b;
}

BackendDescription appleCpu(const AppleChip &chip) {
  BackendDescription b;
  b.kind = BackendKind::cpu;
  b.peakFlops = {{"f32", chip.cpuCoreFlops},
                 {"f16", 2 * chip.cpuCoreFlops},
                 {"default", chip.cpuCoreFlops}};
  b.matrixFlops = chip.cpuMatrixFlops;
  b.kindEfficiency = {{WorkKind::conv, 0.85}, {WorkKind::depthwise, 0.4}};
  b.rampFlops = 4.0e9;
  b.rampExponent = 0.08;
  b.bandwidth = chip.cpuBandwidth;
  b.launch = 5.0e-6;
  b.regionLaunch = 1.0e-6;
  b.threads = chip.cpuCores;
  b.parallelExponent = 0.52;
  b.activePower = chip.cpuActivePower;
  b.energyPerFlop = chip.cpuEnergyPerFlop;
  // Under a power cap the P-cores' clock falls (docs/targets.md "DVFS"):
  // power ~ f^3 (leman's A17 P-core fit: +10 % clock for +43 % power near
  // the top, a local exponent of 3.7; 3 over the range is the choice), down
  // to 600 MHz of 3.2 GHz (hoakley, M1 P-cores).
  b.dvfsExponent = 3.0;
  b.minClock = 0.2;
  return b;
}

BackendDescription appleGpu(const AppleChip &chip) {
  BackendDescription b;
  b.kind = BackendKind::gpu;
  b.simulated = true;
  b.peakFlops = {{"f32", chip.gpuFlops},
                 {"f16", chip.gpuFlops},
                 {"default", chip.gpuFlops / 2}};
  b.rampFlops = 4.0e9;
  b.rampExponent = 0.65;
  b.programRamp = true;
  b.bandwidth = chip.dramBandwidth;
  b.launch = 5.0e-4;
  // Per kernel inside a command buffer: llama.cpp's Metal decode of a 7B
  // model on the M2 Max spent ~9 ms of a 28.3 ms token in its ~450
  // non-matmul kernels, about 20 us each (docs/targets.md).
  b.regionLaunch = 2.0e-5;
  // MPS runs 3x3 unit-stride convolutions with Winograd F(2x2,3x3): 16
  // multiplies per 2x2 output tile and input channel instead of 36
  // (Lavin & Gray 2016); the published M4 Max sweep's convolutions run at
  // 2.3x its GEMM rate (docs/targets.md).
  b.winogradGain = 2.25;
  b.staticShapes = false;
  b.opKinds = kAcceleratorKinds;
  b.elementTypes = {"f16", "f32", "i32", "i16", "i8", "i1"};
  b.idlePower = 0.003;
  b.activePower = chip.gpuActivePower;
  b.energyPerFlop = chip.gpuEnergyPerFlop;
  // hoakley, M4 Pro GPU in Low Power mode: a third of the power for 69 % of
  // the performance, ln(1/3) / ln(0.69) = 3.0; the lowest clock, a third
  // of the peak, is a choice (docs/targets.md "DVFS").
  b.dvfsExponent = 3.0;
  b.minClock = 0.3;
  return b;
}

TargetDescription appleTarget(const AppleChip &chip) {
  TargetDescription t;
  t.name = chip.name;
  t.description = chip.description;
  t.backends = {appleAne(chip), appleCpu(chip), appleGpu(chip)};
  t.staticPower = 0.2;
  // Between any two backends: unified memory, f32<->f16 conversion at half
  // the bandwidth (it reads and writes), and a small synchronization (a
  // shared surface's lock/unlock; the host round trip itself is in the
  // receiving program's launch: the published ~0.1 ms ANE floor includes
  // its I/O, docs/targets.md).
  t.defaultLink.bandwidth = chip.dramBandwidth;
  t.defaultLink.convertBandwidth = chip.dramBandwidth / 2;
  t.defaultLink.sync = 5.0e-6;
  for (auto [from, to] : {std::pair{BackendKind::cpu, BackendKind::gpu},
                          std::pair{BackendKind::gpu, BackendKind::cpu}}) {
    LinkDescription link = t.defaultLink;
    link.from = from;
    link.to = to;
    link.convertBandwidth = 0; // both compute in f32
    t.links.push_back(link);
  }
  return t;
}

/// This machine's CPU: its kernels' peak from `hwagent-calibrate`, and what
/// a training step pays beyond them fitted to hwagent-run's measured steps
/// (docs/targets.md "host" gives both runs and the fit;
/// scripts/validate_host_model.py compares predicted and measured steps).
TargetDescription hostTarget() {
  TargetDescription t;
  t.name = "host";
  t.description = "the development machine's CPU (2-core AMD EPYC VM with "
                  "AVX-512): kernel peak measured by hwagent-calibrate on "
                  "2026-12-03, per-op overheads and loop throughput fitted "
                  "to hwagent-run's measured steps on 2026-12-07; one thread";
  BackendDescription cpu;
  cpu.kind = BackendKind::cpu;
  // The FMA peak the oneDNN kernel sustains on large matmuls.
  cpu.peakFlops = {{"f32", 2.1e11}, {"default", 2.1e11}};
  // Training convolutions go through the same kernel with an im2col pack
  // per call (their gradients too): about half the matmul rate. What is
  // not a contraction is generated loops: depthwise convolutions, the
  // reductions of softmax/normalization and elementwise bodies reach a
  // small share of the FMA peak.
  cpu.kindEfficiency = {{WorkKind::conv, 0.55},
                        {WorkKind::depthwise, 0.05},
                        {WorkKind::reduction, 0.27},
                        {WorkKind::elementwise, 0.12}};
  // A region of a step is smaller than calibrate's sweep: the kernels ramp
  // up to the peak over GFLOP-sized calls.
  cpu.rampFlops = 3.8e10;
  cpu.rampExponent = 0.114;
  // What the generated loops move, not the 40 GB/s of calibrate's
  // vectorized streaming add.
  cpu.bandwidth = 1.06e10;
  // The runtime's work per program (select, timers, profile) and per
  // region (buffer allocation, loop or kernel dispatch).
  cpu.launch = 0.45e-6;
  cpu.regionLaunch = 0.65e-6;
  t.backends = {cpu};
  t.defaultLink.bandwidth = 4.0e10;
  t.defaultLink.convertBandwidth = 2.0e10;
  return t;
}

} // namespace

std::vector<std::string> hwcore::builtinTargetNames() {
  std::vector<std::string> names;
  for (const AppleChip &chip : kAppleChips)
    names.push_back(chip.name);
  names.push_back("host");
  return names;
}

std::optional<TargetDescription>
hwcore::getBuiltinTarget(const std::string &name) {
  std::optional<TargetDescription> target;
  for (const AppleChip &chip : kAppleChips)
    if (name == chip.name)
      target = appleTarget(chip);
  if (name == "host")
    target = hostTarget();
  assert((!target || validateTarget(*target).empty()) &&
         "a built-in target is invalid");
  return target;
}
