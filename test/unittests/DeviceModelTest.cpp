//===- DeviceModelTest.cpp - device-model physics (issue 36) --------------===//
//
// Compiled-in ANE weights (legality by size, streaming beyond on-chip
// memory, f16 weights at their real size) and the host target's
// calibrated components.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Core/CostModel.h"
#include "HwAgent/Core/Target.h"

#include <gtest/gtest.h>

using namespace hwcore;

namespace {

/// An ANE-like backend: weights compiled in stay on chip up to `sramBytes`,
/// at most `maxWeightBytes` per program.
BackendDescription aneLike() {
  BackendDescription b;
  b.kind = BackendKind::ane;
  b.computeType = "f16";
  b.peakFlops = {{"f16", 1e13}};
  b.bandwidth = 1e11;
  b.fusedMemory = true;
  b.sramBytes = 32ll << 20;
  b.maxWeightBytes = 2ll << 30;
  b.weightUpdates = {WeightUpdate::input, WeightUpdate::reload};
  b.inputWeightEfficiency = 0.5;
  b.launch = 1e-4;
  return b;
}

/// A decode-like GEMV: 1 x K times K x N, f32 weights of K x N.
RegionProfile gemv(int64_t k, int64_t n) {
  RegionProfile r;
  r.flops = 2 * k * n;
  r.params = k * n;
  r.paramBytes = 4 * k * n;
  r.bytesRead = 4 * k + r.paramBytes;
  r.bytesWritten = 4 * n;
  r.opHistogram[index(WorkKind::matmul)] = 1;
  r.elementTypes = {"f32"};
  r.maxDim = std::max(k, n);
  r.maxRank = 2;
  return r;
}

CostOptions inference() {
  CostOptions options;
  options.training = false;
  return options;
}

/// The inference program of gemv(k, n) on `ane`.
ProgramCost gemvProgram(int64_t k, int64_t n, const BackendDescription &ane) {
  RegionCost cost = predictRegion(gemv(k, n), ane, Telemetry{});
  return standaloneCost(cost, ane, Telemetry{}, inference());
}

TEST(AneWeights, CompiledWeightsOnChipAreFree) {
  BackendDescription ane = aneLike();
  // 2048 x 2048 f16 = 8 MiB: resident between evaluations.
  ProgramCost p = gemvProgram(2048, 2048, ane);
  ASSERT_TRUE(p.legal);
  EXPECT_EQ(p.mode, WeightUpdate::none);
  EXPECT_EQ(p.weightBytes, 8ll << 20);
  EXPECT_LT(p.memory, 1e-6); // activations only
}

TEST(AneWeights, WeightsBeyondSramStreamAtTheBandwidth) {
  BackendDescription ane = aneLike();
  // 8192 x 8192 f16 = 128 MiB > 32 MiB: every evaluation reads the 96 MiB
  // that do not stay on chip.
  ProgramCost p = gemvProgram(8192, 8192, ane);
  ASSERT_TRUE(p.legal);
  EXPECT_EQ(p.mode, WeightUpdate::none);
  double streamed = double(96ll << 20) / ane.bandwidth;
  EXPECT_GE(p.memory, streamed);
  EXPECT_LT(p.memory, streamed * 1.01);
  EXPECT_STREQ(p.bindingTerm(), "memory");
  EXPECT_GE(p.seconds, streamed);
}

TEST(AneWeights, CompiledWeightsBeyondTheProgramLimit) {
  BackendDescription ane = aneLike();
  // 3 GiB of f16 weights cannot be compiled into one program: passed as
  // inputs instead (streamed, at the inputs' lower throughput).
  RegionProfile big = gemv(32768, 49152);
  RegionCost cost = predictRegion(big, ane, Telemetry{});
  ASSERT_TRUE(cost.legal);
  EXPECT_EQ(cost.weightBytes, 3ll << 30);
  ProgramCost p = standaloneCost(cost, ane, Telemetry{}, inference());
  ASSERT_TRUE(p.legal);
  EXPECT_EQ(p.mode, WeightUpdate::input);
  EXPECT_GE(p.memory, double(3ll << 30) / ane.bandwidth);
  // A backend that cannot take weights as inputs cannot run it at all.
  ane.weightUpdates = {WeightUpdate::reload};
  ProgramCost refused = standaloneCost(cost, ane, Telemetry{}, inference());
  EXPECT_FALSE(refused.legal);
  EXPECT_NE(refused.reason.find("compiled-in weights of 3221225472 bytes"),
            std::string::npos)
      << refused.reason;
  // Training: reloading baked weights is out too.
  ProgramCost trained = standaloneCost(cost, ane, Telemetry{}, CostOptions{});
  EXPECT_FALSE(trained.legal);
}

TEST(AneWeights, F16WeightsWidenedInTheBodyCountAtTheirSize) {
  BackendDescription ane = aneLike();
  // The weights are f16 (2 bytes each) but the region computes in f32
  // (an extf inside the linalg.generic): still 2 bytes each on the ANE.
  RegionProfile r = gemv(1024, 1024);
  r.paramBytes = 2 * r.params;
  r.elementTypes = {"f16", "f32"};
  EXPECT_EQ(predictRegion(r, ane, Telemetry{}).weightBytes, 2 * r.params);
  // f32 weights are held in fp16 too.
  EXPECT_EQ(predictRegion(gemv(1024, 1024), ane, Telemetry{}).weightBytes,
            2 * 1024 * 1024);
}

TEST(HostTarget, PaysPerRegionAndForLoops) {
  std::optional<TargetDescription> host = getBuiltinTarget("host");
  ASSERT_TRUE(host);
  const BackendDescription &cpu = host->backends.front();
  // A step pays the runtime per program and per region: eight tiny
  // regions (an MLP's) cost at least eight region launches, a few
  // microseconds, which hwagent-run measures (6-9 us) and the old target
  // priced at 0.5 us.
  EXPECT_GT(cpu.regionLaunch, 1e-7);
  EXPECT_GT(cpu.launch, 1e-7);
  // Elementwise work runs as generated loops, far below the FMA peak and
  // below calibrate's streaming add.
  RegionProfile add;
  add.flops = 1 << 20;
  add.bytesRead = 8 << 20;
  add.bytesWritten = 4 << 20;
  add.opHistogram[index(WorkKind::elementwise)] = 1;
  add.elementTypes = {"f32"};
  RegionCost cost = predictRegion(add, cpu, Telemetry{});
  EXPECT_GE(cost.memory, double(12 << 20) / 2e10);
  EXPECT_GE(cost.compute, double(1 << 20) / (0.2 * 2.1e11));
  // Convolutions (im2col per call) run below the matmul rate.
  EXPECT_LT(cpu.efficiencyOf(WorkKind::conv), 0.8);
  EXPECT_EQ(cpu.efficiencyOf(WorkKind::matmul), 1.0);
}

} // namespace
