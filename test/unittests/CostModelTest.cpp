//===- CostModelTest.cpp - cost model formulas, legality, file formats ----===//

#include "hwagent/CostModel/CostModel.h"
#include "hwagent/CostModel/ProfileDB.h"
#include "hwagent/CostModel/Target.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace hwcore;

namespace {

BackendDescription simpleBackend(BackendKind kind) {
  BackendDescription b;
  b.kind = kind;
  b.peakFlops = {{"f32", 1e12}, {"f16", 2e12}};
  b.rampFlops = 1e8;
  b.rampExponent = 0.5;
  b.bandwidth = 1e11;
  b.dispatch = 1e-4;
  return b;
}

RegionProfile matmulProfile() {
  RegionProfile r;
  r.flops = 1e9;
  r.bytesRead = 2e7;
  r.bytesWritten = 1e7;
  r.params = 1e6;
  r.paramBytes = 4e6;
  r.opHistogram[2] = 1; // matmul
  r.elementTypes = {"f32"};
  r.maxDim = 1024;
  r.maxRank = 2;
  return r;
}

TEST(CostModel, ComputeBoundMatchesHandCount) {
  // util = min(1, (1e9 / 1e8)^0.5) = 1; compute = 1e9 / 1e12 = 1e-3;
  // memory = 3e7 / 1e11 = 3e-4; total = 1e-4 + max(1e-3, 3e-4).
  CostBreakdown cost = predictCost(matmulProfile(), simpleBackend(BackendKind::cpu),
                                   Telemetry{});
  ASSERT_TRUE(cost.legal);
  EXPECT_DOUBLE_EQ(cost.utilization, 1.0);
  EXPECT_DOUBLE_EQ(cost.compute, 1e-3);
  EXPECT_DOUBLE_EQ(cost.memory, 3e-4);
  EXPECT_DOUBLE_EQ(cost.weightRefresh, 0.0); // the CPU reads weights in place
  EXPECT_DOUBLE_EQ(cost.total, 1.1e-3);
  EXPECT_STREQ(cost.bindingTerm(), "compute");
}

TEST(CostModel, UtilizationRampAndComputeType) {
  // 1e6 FLOPs: util = (1e6 / 1e8)^0.5 = 0.1; f16 peak 2e12:
  // compute = 1e6 / (2e12 * 0.1) = 5e-6.
  RegionProfile r = matmulProfile();
  r.flops = 1e6;
  r.bytesRead = r.bytesWritten = 0;
  r.elementTypes = {"f16"};
  CostBreakdown cost =
      predictCost(r, simpleBackend(BackendKind::cpu), Telemetry{});
  EXPECT_NEAR(cost.utilization, 0.1, 1e-12);
  EXPECT_NEAR(cost.compute, 5e-6, 1e-18);
  EXPECT_STREQ(cost.bindingTerm(), "dispatch");
  // A region mixing f16 and f32 computes at the f32 peak.
  r.elementTypes = {"f16", "f32"};
  EXPECT_NEAR(predictCost(r, simpleBackend(BackendKind::cpu), Telemetry{}).compute,
              1e-5, 1e-18);
}

TEST(CostModel, SramSpillAndWeightRefresh) {
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.sramBytes = 1e7;
  ane.spillFactor = 3.0;
  ane.compile = 0.05;
  RegionProfile r = matmulProfile();
  // Working set 3e7 + 4e6 = 3.4e7; over SRAM by 2.4e7 bytes:
  // spill = 2.4e7 / 1e11 * (3 - 1) = 4.8e-4. Weights as inputs: 4e6 / 1e11.
  CostBreakdown cost = predictCost(r, ane, Telemetry{});
  EXPECT_NEAR(cost.spill, 4.8e-4, 1e-15);
  EXPECT_NEAR(cost.weightRefresh, 4e-5, 1e-15);
  EXPECT_NEAR(cost.total, 1e-4 + 1e-3 + 4.8e-4 + 4e-5, 1e-15);
  // Weights baked into the program: a recompile every step.
  ane.weightUpdate = WeightUpdate::Recompile;
  cost = predictCost(r, ane, Telemetry{});
  EXPECT_DOUBLE_EQ(cost.weightRefresh, 0.05);
  EXPECT_STREQ(cost.bindingTerm(), "weight refresh");
  // Inference: no refresh.
  CostOptions inference;
  inference.weightsChangeEveryStep = false;
  EXPECT_DOUBLE_EQ(predictCost(r, ane, Telemetry{}, inference).weightRefresh, 0);
}

TEST(CostModel, TelemetryScalesTime) {
  Telemetry busy;
  busy.utilization[static_cast<unsigned>(BackendKind::cpu)] = 0.5;
  busy.thermal = ThermalState::Serious;
  CostBreakdown cost =
      predictCost(matmulProfile(), simpleBackend(BackendKind::cpu), busy);
  // 1 / (1 - 0.5) * 1.5 = 3.
  EXPECT_DOUBLE_EQ(cost.telemetryFactor, 3.0);
  EXPECT_NEAR(cost.total, 3.3e-3, 1e-15);
  // A saturated backend is capped at 20x (times the thermal factor).
  busy.utilization[static_cast<unsigned>(BackendKind::cpu)] = 1.0;
  busy.thermal = ThermalState::Nominal;
  EXPECT_DOUBLE_EQ(
      predictCost(matmulProfile(), simpleBackend(BackendKind::cpu), busy)
          .telemetryFactor,
      20.0);
}

TEST(CostModel, LegalityReasons) {
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.maxDim = 16384;
  ane.maxRank = 4;
  ane.opKinds = {0, 1, 2, 3, 4, 5, 6, 7};
  ane.elementTypes = {"f16", "f32"};
  auto reason = [&](RegionProfile r) {
    CostBreakdown cost = predictCost(r, ane, Telemetry{});
    EXPECT_FALSE(cost.legal);
    EXPECT_EQ(cost.total, 0.0);
    return cost.reason;
  };
  RegionProfile r = matmulProfile();
  EXPECT_TRUE(predictCost(r, ane, Telemetry{}).legal);

  RegionProfile dynamic = r;
  dynamic.dynamicDims = 2;
  EXPECT_NE(reason(dynamic).find("dynamic shape"), std::string::npos);
  RegionProfile wide = r;
  wide.maxDim = 20000;
  EXPECT_NE(reason(wide).find("exceeds the ane's per-axis limit of 16384"),
            std::string::npos);
  RegionProfile deep = r;
  deep.maxRank = 5;
  EXPECT_NE(reason(deep).find("rank-5 matmul"), std::string::npos);
  RegionProfile loop = r;
  loop.hasLoops = true;
  EXPECT_NE(reason(loop).find("loop or recurrence"), std::string::npos);
  RegionProfile opaque = r;
  opaque.opHistogram[9] = 1;
  EXPECT_NE(reason(opaque).find("opaque op"), std::string::npos);
  RegionProfile ints = r;
  ints.elementTypes = {"i32"};
  EXPECT_NE(reason(ints).find("element type i32"), std::string::npos);
  RegionProfile bf16 = r;
  bf16.elementTypes = {"bf16"};
  EXPECT_NE(reason(bf16).find("element type bf16"), std::string::npos);
  RegionProfile gather = r;
  gather.unsupportedOps = {"gather/scatter (tensor.gather)"};
  EXPECT_NE(reason(gather).find("tensor.gather"), std::string::npos);

  Telemetry tight;
  tight.freeMemoryBytes = 1000;
  CostBreakdown cost = predictCost(r, simpleBackend(BackendKind::cpu), tight);
  EXPECT_FALSE(cost.legal);
  EXPECT_NE(cost.reason.find("free memory"), std::string::npos);
}

TEST(CostModel, BoundaryCost) {
  LinkDescription link;
  link.bandwidth = 1e9;
  link.convertBandwidth = 5e8;
  link.sync = 1e-4;
  EXPECT_DOUBLE_EQ(boundaryCost(link, 1000000, false), 1e-4 + 1e-3);
  EXPECT_DOUBLE_EQ(boundaryCost(link, 1000000, true), 1e-4 + 1e-3 + 2e-3);
}

TEST(Targets, BuiltinsParseAndRoundTrip) {
  for (const std::string &name : builtinTargetNames()) {
    std::optional<TargetDescription> target = getBuiltinTarget(name);
    ASSERT_TRUE(target) << name;
    EXPECT_EQ(target->name, name);
    ASSERT_TRUE(target->lookup(BackendKind::cpu)) << name;
    std::string error;
    std::optional<TargetDescription> again =
        parseTarget(printTarget(*target), error);
    ASSERT_TRUE(again) << name << ": " << error;
    EXPECT_EQ(printTarget(*again), printTarget(*target));
  }
  std::optional<TargetDescription> m4 = getBuiltinTarget("apple-m4");
  ASSERT_TRUE(m4 && m4->lookup(BackendKind::ane));
  EXPECT_TRUE(m4->lookup(BackendKind::ane)->simulated);
  EXPECT_DOUBLE_EQ(m4->lookup(BackendKind::ane)->peakFor("f16"), 1.09e13);
  EXPECT_FALSE(getBuiltinTarget("apple-m9"));
}

std::string parseError(const std::string &json) {
  std::string error;
  EXPECT_FALSE(parseTarget(json, error)) << json;
  return error;
}

TEST(Targets, ErrorsNameTheField) {
  const std::string head =
      R"({"schema": "hwagent.target", "version": 1, "name": "t", )";
  const std::string link =
      R"("default_link": {"bandwidth": 1e9, "sync": 0})";
  EXPECT_EQ(parseError("{"), parseError("{")); // stable
  EXPECT_NE(parseError("[1]").find("expected a JSON object"), std::string::npos);
  EXPECT_EQ(parseError(R"({"schema": "x", "version": 1})"),
            "schema: expected 'hwagent.target', got 'x'");
  EXPECT_EQ(parseError(R"({"schema": "hwagent.target", "version": 7})"),
            "version: this build reads version 1, got 7");
  EXPECT_EQ(parseError(head + R"("backends": [], )" + link + "}"),
            "backends: needs at least one backend");
  EXPECT_EQ(parseError(head + R"("backends": [{"backend": "npu"}], )" + link + "}"),
            "backends[0].backend: unknown backend 'npu' (expected cpu, ane or gpu)");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1e9},
                     "ramp_flops": 1, "ramp_exponent": 1, "bandwidth": -1,
                     "dispatch": 0}], )" +
                 link + "}"),
      "backends[0].bandwidth: must be positive");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": "fast"},
                     "ramp_flops": 1, "ramp_exponent": 1, "bandwidth": 1,
                     "dispatch": 0}], )" +
                 link + "}"),
      "backends[0].peak_flops.f32: expected a number");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                     "ramp_flops": 1, "ramp_exponent": 1, "bandwidth": 1}], )" +
                 link + "}"),
      "backends[0].dispatch: missing");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                     "ramp_flops": 1, "ramp_exponent": 1, "bandwidth": 1,
                     "dispatch": 0, "op_kinds": ["attention"]}], )" +
                 link + "}"),
      "backends[0].op_kinds[0]: unknown op kind 'attention'");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                     "ramp_flops": 1, "ramp_exponent": 1, "bandwidth": 1,
                     "dispatch": 0}], "default_link": {"bandwidth": 1}})"),
      "default_link.sync: missing");
}

TEST(Telemetry, ParsesAndRejects) {
  std::string error;
  std::optional<Telemetry> t = parseTelemetry(
      R"({"schema": "hwagent.telemetry", "version": 1, "thermal_state": "fair",
          "free_memory_bytes": 1024, "utilization": {"ane": 0.25}})",
      error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->thermal, ThermalState::Fair);
  EXPECT_EQ(t->freeMemoryBytes, 1024);
  EXPECT_DOUBLE_EQ(t->utilization[static_cast<unsigned>(BackendKind::ane)], 0.25);

  error.clear();
  EXPECT_FALSE(parseTelemetry(
      R"({"schema": "hwagent.telemetry", "version": 1, "utilization": {"ane": 1.5}})",
      error));
  EXPECT_EQ(error, "utilization.ane: must be in [0, 1]");
  error.clear();
  EXPECT_FALSE(parseTelemetry(
      R"({"schema": "hwagent.telemetry", "version": 1, "thermal_state": "hot"})",
      error));
  EXPECT_EQ(error,
            "thermal_state: expected nominal, fair, serious or critical, got 'hot'");
}

TEST(ProfileDB, ParsesRoundTripsAndRejects) {
  ProfileDB db;
  db.target = "apple-m4";
  db.entries.push_back({"0123456789abcdef", BackendKind::ane, 2.5e-4, 12, true});
  std::string error;
  std::optional<ProfileDB> again = parseProfileDB(printProfileDB(db), error);
  ASSERT_TRUE(again) << error;
  ASSERT_EQ(again->entries.size(), 1u);
  EXPECT_EQ(again->entries[0].key, "0123456789abcdef");
  EXPECT_EQ(again->entries[0].backend, BackendKind::ane);
  EXPECT_TRUE(again->entries[0].simulated);

  error.clear();
  EXPECT_FALSE(parseProfileDB(
      R"({"schema": "hwagent.profile-db", "version": 1, "target": "t",
          "entries": [{"key": "xyz", "backend": "cpu", "seconds": 1, "samples": 1}]})",
      error));
  EXPECT_EQ(error, "entries[0].key: expected 16 hex digits, got 'xyz'");
  error.clear();
  EXPECT_FALSE(parseProfileDB(
      R"({"schema": "hwagent.profile-db", "version": 1, "target": "t",
          "entries": [{"key": "0123456789abcdef", "backend": "cpu", "seconds": 1, "samples": 0}]})",
      error));
  EXPECT_EQ(error, "entries[0].samples: must be at least 1");
}

TEST(ProfileDB, LearnedCorrection) {
  EXPECT_DOUBLE_EQ(measurementWeight(1), 0.5);
  EXPECT_DOUBLE_EQ(measurementWeight(9), 0.9);
  // One match teaches nothing global.
  EXPECT_DOUBLE_EQ(learnedCorrection({{2.0, 1.0}}), 1.0);
  // Geometric mean of 2 and 8 is 4.
  EXPECT_NEAR(learnedCorrection({{2.0, 1.0}, {8.0, 1.0}}), 4.0, 1e-12);
  // Clamped to [0.1, 10].
  EXPECT_DOUBLE_EQ(learnedCorrection({{100.0, 1.0}, {100.0, 1.0}}), 10.0);
}

} // namespace
