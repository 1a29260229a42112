//===- CostModelTest.cpp - cost model formulas, legality, file formats ----===//

#include "HwAgent/Core/CostModel.h"
#include "HwAgent/Config/ProfileDB.h"
#include "HwAgent/Config/TargetFile.h"
#include "HwAgent/Config/Telemetry.h"
#include "HwAgent/Core/Limits.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace hwcore;
using namespace hwconfig;

namespace {

BackendDescription simpleBackend(BackendKind kind) {
  BackendDescription b;
  b.kind = kind;
  b.peakFlops = {{"f32", 1e12}, {"f16", 2e12}};
  b.rampFlops = 1e8;
  b.rampExponent = 0.5;
  b.bandwidth = 1e11;
  b.launch = 1e-4;
  return b;
}

RegionProfile matmulProfile() {
  RegionProfile r;
  r.flops = 1e9;
  r.bytesRead = 2e7;
  r.bytesWritten = 1e7;
  r.params = 1e6;
  r.paramBytes = 4e6;
  r.opHistogram[index(WorkKind::matmul)] = 1;
  r.elementTypes = {"f32"};
  r.maxDim = 1024;
  r.maxRank = 2;
  return r;
}

ProgramCost alone(const RegionCost &cost, const BackendDescription &b,
                  CostOptions options = {}) {
  return standaloneCost(cost, b, Telemetry{}, options);
}

TEST(CostModel, ComputeBoundMatchesHandCount) {
  // util = min(1, (1e9 / 1e8)^0.5) = 1; compute = 1e9 / 1e12 = 1e-3;
  // memory = 3e7 / 1e11 = 3e-4; alone: 1e-4 launch + max(1e-3, 3e-4).
  BackendDescription cpu = simpleBackend(BackendKind::cpu);
  RegionCost cost = predictRegion(matmulProfile(), cpu, Telemetry{});
  ASSERT_TRUE(cost.legal);
  EXPECT_DOUBLE_EQ(cost.compute, 1e-3);
  EXPECT_DOUBLE_EQ(cost.computeInputWeights, 1e-3); // no penalty by default
  EXPECT_DOUBLE_EQ(cost.memory, 3e-4);
  EXPECT_EQ(cost.weightBytes, 4000000);
  ProgramCost program = alone(cost, cpu);
  EXPECT_DOUBLE_EQ(program.seconds, 1.1e-3);
  EXPECT_EQ(program.mode, WeightUpdate::none); // the CPU reads weights in place
  EXPECT_STREQ(program.bindingTerm(), "compute");
  // A matrix unit runs matmuls at the larger of its rate and the vector one.
  cpu.matrixFlops = 4e12;
  EXPECT_DOUBLE_EQ(predictRegion(matmulProfile(), cpu, Telemetry{}).compute,
                   2.5e-4);
  // Threads scale the vector rate: 4 threads ^ 0.5 = 2x.
  cpu.matrixFlops = 0;
  cpu.threads = 4;
  cpu.parallelExponent = 0.5;
  EXPECT_DOUBLE_EQ(predictRegion(matmulProfile(), cpu, Telemetry{}).compute,
                   5e-4);
}

TEST(CostModel, UtilizationRampAndComputeType) {
  // Per region (no program ramp): 1e6 FLOPs, util = (1e6 / 1e8)^0.5 = 0.1,
  // f16 peak 2e12: compute = 1e6 / (2e12 * 0.1) = 5e-6.
  RegionProfile r = matmulProfile();
  r.flops = 1e6;
  r.bytesRead = r.bytesWritten = 0;
  r.elementTypes = {"f16"};
  BackendDescription cpu = simpleBackend(BackendKind::cpu);
  EXPECT_NEAR(predictRegion(r, cpu, Telemetry{}).compute, 5e-6, 1e-18);
  EXPECT_STREQ(alone(predictRegion(r, cpu, Telemetry{}), cpu).bindingTerm(),
               "launch");
  // A region mixing f16 and f32 computes at the f32 peak.
  r.elementTypes = {"f16", "f32"};
  EXPECT_NEAR(predictRegion(r, cpu, Telemetry{}).compute, 1e-5, 1e-18);
  // A backend with its own compute type (the ANE: fp16) uses that peak.
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.computeType = "f16";
  ane.programRamp = true;
  RegionCost onAne = predictRegion(r, ane, Telemetry{});
  EXPECT_NEAR(onAne.compute, 1e6 / 2e12, 1e-18); // the ramp is the program's
  ProgramCost program = alone(onAne, ane);
  EXPECT_NEAR(program.utilization, 0.1, 1e-12);
  EXPECT_NEAR(program.compute, 5e-6, 1e-18);
}

TEST(CostModel, ProgramsShareTheirLaunchAndRamp) {
  // Two regions of 1e6 FLOPs on a program-ramp backend: alone each runs at
  // util 0.1; together the program's 2e6 FLOPs reach util sqrt(0.02).
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.programRamp = true;
  ane.fusedMemory = true;
  RegionProfile r = matmulProfile();
  r.flops = 1e6;
  r.params = r.paramBytes = 0;
  RegionCost cost = predictRegion(r, ane, Telemetry{});
  ProgramCost two = programCost(ane, {&cost, &cost}, {}, CostOptions{});
  double util = std::sqrt(2e6 / 1e8);
  EXPECT_NEAR(two.utilization, util, 1e-12);
  EXPECT_NEAR(two.compute, 2e6 / 1e12 / util, 1e-15);
  // Each region reads and writes its 3e7 bytes.
  EXPECT_NEAR(two.memory, 2 * 3e7 / 1e11, 1e-15);
  EXPECT_NEAR(two.seconds, 1e-4 + std::max(two.compute, two.memory), 1e-15);
  // Cheaper than two programs of one region each.
  ProgramCost one = alone(cost, ane);
  EXPECT_LT(two.seconds, 2 * one.seconds);
}

TEST(CostModel, RegionsAreBoundByTheirOwnComputeOrTraffic) {
  // One compute-bound and one memory-bound region in a program: the step
  // is the sum of each one's binding term, not the max of the sums.
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.fusedMemory = true;
  ane.weightUpdates = {WeightUpdate::input};
  RegionProfile dense = matmulProfile(); // 1e9 FLOPs, 3e7 B with 4e6 weights
  RegionProfile wide = matmulProfile();
  wide.flops = 1e6;
  wide.bytesRead = 2e8;
  wide.params = wide.paramBytes = 0;
  RegionCost a = predictRegion(dense, ane, Telemetry{});
  RegionCost b = predictRegion(wide, ane, Telemetry{});
  // Resident weights are no traffic on a fused-memory backend: 3e7 - 4e6
  // B; passed as inputs they stream (4e6 B more).
  EXPECT_DOUBLE_EQ(a.memory, 2.6e7 / 1e11);
  EXPECT_DOUBLE_EQ(a.memoryInputWeights, 3e7 / 1e11);
  EXPECT_DOUBLE_EQ(b.memory, 2.1e8 / 1e11);
  CostOptions inference;
  inference.training = false;
  ProgramCost program = programCost(ane, {&a, &b}, {}, inference);
  double util = std::min(1.0, std::sqrt((1e9 + 1e6) / 1e8));
  EXPECT_DOUBLE_EQ(util, 1.0);
  EXPECT_NEAR(program.seconds, 1e-4 + a.compute + b.memory, 1e-15);
  EXPECT_GT(program.seconds,
            1e-4 + std::max(program.compute, program.memory) + 1e-4);
  // On a backend that reads its weights from memory they are traffic.
  BackendDescription cpu = simpleBackend(BackendKind::cpu);
  EXPECT_DOUBLE_EQ(predictRegion(dense, cpu, Telemetry{}).memory, 3e-4);
}

TEST(CostModel, AlignedRowsAreTraffic) {
  // 1e4 rows of 16-byte activations on a backend that aligns rows to 64 B:
  // 6.4e5 B move, not 1.6e5 (a row that fits one line takes all of it).
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.fusedMemory = true;
  RegionProfile r;
  r.flops = 1e3;
  r.bytesRead = r.bytesWritten = 8e4;
  r.rows = 1e4;
  r.opHistogram[index(WorkKind::elementwise)] = 1;
  r.elementTypes = {"f16"};
  EXPECT_DOUBLE_EQ(predictRegion(r, ane, Telemetry{}).memory, 1.6e5 / 1e11);
  ane.rowAlignment = 64;
  EXPECT_DOUBLE_EQ(predictRegion(r, ane, Telemetry{}).memory, 6.4e5 / 1e11);
  // Rows longer than a line cost their bytes.
  r.rows = 1e3;
  EXPECT_DOUBLE_EQ(predictRegion(r, ane, Telemetry{}).memory, 1.6e5 / 1e11);
}

TEST(CostModel, SpillAndWeightHandling) {
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.fusedMemory = true;
  ane.sramBytes = 1e7;
  ane.spillFactor = 2.0;
  ane.weightUpdates = {WeightUpdate::input, WeightUpdate::recompile,
                       WeightUpdate::reload};
  ane.inputWeightEfficiency = 0.1;
  ane.compile = 0.01;
  ane.compilePerByte = 1e-8;
  ane.reload = 0.008;
  ane.maxCompiles = 100;
  ane.restart = 1.0;
  RegionProfile r = matmulProfile();
  // Working set 3e7 + 4e6 > 1e7: compute and memory twice as slow.
  RegionCost cost = predictRegion(r, ane, Telemetry{});
  EXPECT_TRUE(cost.spilled);
  EXPECT_DOUBLE_EQ(cost.compute, 2e-3);
  EXPECT_DOUBLE_EQ(cost.computeInputWeights, 2e-2);
  // Training: weights as inputs cost 1.8e-2 more compute (and 4e6 B
  // streamed); recompiling costs 0.01 + 4e6 * 1e-8 + 1 / 100 = 0.06;
  // reloading 0.008. Reload wins.
  ProgramCost trained = alone(cost, ane);
  EXPECT_EQ(trained.mode, WeightUpdate::reload);
  EXPECT_NEAR(trained.weights, 0.008, 1e-15);
  // Without reload, inputs (2e-2 compute) beat a 0.06 s recompile.
  ane.weightUpdates = {WeightUpdate::input, WeightUpdate::recompile};
  trained = alone(cost, ane);
  EXPECT_EQ(trained.mode, WeightUpdate::input);
  EXPECT_NEAR(trained.compute, 2e-2, 1e-15);
  // With weights that must recompile only, the compile limit binds: more
  // programs than compiles per process make the program illegal.
  ane.weightUpdates = {WeightUpdate::recompile};
  ProgramContext context;
  context.weightPrograms = 101;
  const RegionCost *one = &cost;
  ProgramCost limited = programCost(ane, &one, 1, context, CostOptions{});
  EXPECT_FALSE(limited.legal);
  EXPECT_NE(limited.reason.find("compiles per process"), std::string::npos);
  // Inference: weights are constant, no handling at all.
  CostOptions inference;
  inference.training = false;
  EXPECT_EQ(alone(cost, ane, inference).mode, WeightUpdate::none);
  EXPECT_DOUBLE_EQ(alone(cost, ane, inference).weights, 0);
}

TEST(CostModel, TelemetryScalesTime) {
  Telemetry busy;
  busy.utilization[index(BackendKind::cpu)] = 0.5;
  busy.thermal = ThermalState::serious;
  // 1 / (1 - 0.5) * 1.5 = 3.
  EXPECT_DOUBLE_EQ(busy.factor(BackendKind::cpu), 3.0);
  BackendDescription cpu = simpleBackend(BackendKind::cpu);
  RegionCost cost = predictRegion(matmulProfile(), cpu, busy);
  EXPECT_NEAR(standaloneCost(cost, cpu, busy, {}).seconds, 3.3e-3, 1e-15);
  // A saturated backend is capped at 20x (times the thermal factor).
  busy.utilization[index(BackendKind::cpu)] = 1.0;
  busy.thermal = ThermalState::nominal;
  EXPECT_DOUBLE_EQ(busy.factor(BackendKind::cpu), 20.0);
}

TEST(CostModel, LegalityReasonsAndRules) {
  BackendDescription ane = simpleBackend(BackendKind::ane);
  ane.maxDim = 16384;
  ane.maxRank = 4;
  ane.staticShapes = true;
  ane.computeType = "f16";
  ane.opKinds = {WorkKind::conv,      WorkKind::depthwise,
                 WorkKind::matmul,    WorkKind::elementwise,
                 WorkKind::reduction, WorkKind::normalization,
                 WorkKind::pooling,   WorkKind::data_movement};
  ane.elementTypes = {"f16", "f32"};
  auto check = [&](RegionProfile r, LegalityRule rule, const char *text,
                   CostOptions options = {}) {
    RegionCost cost = predictRegion(r, ane, Telemetry{}, options);
    EXPECT_FALSE(cost.legal) << text;
    EXPECT_EQ(cost.rule, rule) << text;
    EXPECT_NE(cost.reason.find(text), std::string::npos) << cost.reason;
  };
  RegionProfile r = matmulProfile();
  EXPECT_TRUE(predictRegion(r, ane, Telemetry{}).legal);

  RegionProfile dynamic = r;
  dynamic.dynamicDims = 2;
  check(dynamic, LegalityRule::dynamicShape, "dynamic shape");
  RegionProfile wide = r;
  wide.maxDim = 20000;
  check(wide, LegalityRule::shapeLimit,
        "exceeds the ane's per-axis limit of 16384");
  RegionProfile deep = r;
  deep.maxRank = 5;
  check(deep, LegalityRule::rankLimit, "rank-5 matmul");
  RegionProfile loop = r;
  loop.hasLoops = true;
  check(loop, LegalityRule::loop, "loop or recurrence");
  RegionProfile opaque = r;
  opaque.opHistogram[index(WorkKind::opaque)] = 1;
  check(opaque, LegalityRule::unsupportedKind, "opaque op");
  RegionProfile ints = r;
  ints.elementTypes = {"i32"};
  check(ints, LegalityRule::elementType, "element type i32");
  RegionProfile gather = r;
  gather.unsupportedOps = {"gather/scatter (tensor.gather)"};
  check(gather, LegalityRule::unsupportedOp, "tensor.gather");
  // Precision: weight gradients and optimizer updates stay in fp32 off an
  // fp16 backend unless fp16 gradients are allowed (then a note says so).
  RegionProfile gradient = r;
  gradient.phase = Phase::backward;
  gradient.weightGradient = true;
  check(gradient, LegalityRule::precision, "weight gradient: kept in fp32");
  RegionProfile update = r;
  update.phase = Phase::optimizer;
  check(update, LegalityRule::precision, "optimizer update");
  CostOptions fp16;
  fp16.fp16Gradients = true;
  RegionCost allowed = predictRegion(gradient, ane, Telemetry{}, fp16);
  EXPECT_TRUE(allowed.legal);
  EXPECT_EQ(allowed.rule, LegalityRule::precision);
  EXPECT_NE(allowed.reason.find("loss scaling"), std::string::npos);
  CostOptions inference;
  inference.training = false;
  EXPECT_TRUE(predictRegion(gradient, ane, Telemetry{}, inference).legal);
  // The CPU runs all of these; a GPU without static shapes runs dynamic ones.
  BackendDescription cpu = simpleBackend(BackendKind::cpu);
  EXPECT_TRUE(predictRegion(dynamic, cpu, Telemetry{}).legal);
  EXPECT_TRUE(predictRegion(gradient, cpu, Telemetry{}).legal);

  Telemetry tight;
  tight.freeMemoryBytes = 1000;
  RegionCost cost = predictRegion(r, cpu, tight);
  EXPECT_FALSE(cost.legal);
  EXPECT_EQ(cost.rule, LegalityRule::memory);
  EXPECT_NE(cost.reason.find("free memory"), std::string::npos);
}

TEST(CostModel, LinkCost) {
  LinkDescription link;
  link.bandwidth = 1e9;
  link.convertBandwidth = 5e8;
  link.sync = 1e-4;
  EXPECT_DOUBLE_EQ(linkCost(link, 1000000, 0), 1e-4 + 1e-3);
  EXPECT_DOUBLE_EQ(linkCost(link, 1000000, 1000000), 1e-4 + 1e-3 + 2e-3);
  link.convertBandwidth = 0; // conversion free
  EXPECT_DOUBLE_EQ(linkCost(link, 1000000, 1000000), 1e-4 + 1e-3);
}

TEST(Targets, BuiltinsValidateAndRoundTrip) {
  for (const std::string &name : builtinTargetNames()) {
    std::optional<TargetDescription> target = getBuiltinTarget(name);
    ASSERT_TRUE(target) << name;
    EXPECT_EQ(target->name, name);
    EXPECT_EQ(validateTarget(*target), "") << name;
    ASSERT_TRUE(target->lookup(BackendKind::cpu)) << name;
    std::string error;
    std::optional<TargetDescription> again =
        parseTarget(printTarget(*target), error);
    ASSERT_TRUE(again) << name << ": " << error;
    EXPECT_EQ(printTarget(*again), printTarget(*target));
  }
  std::optional<TargetDescription> m4 = getBuiltinTarget("apple-m4");
  ASSERT_TRUE(m4 && m4->lookup(BackendKind::ane));
  const BackendDescription &ane = *m4->lookup(BackendKind::ane);
  EXPECT_TRUE(ane.simulated);
  EXPECT_EQ(ane.computeType, "f16");
  EXPECT_TRUE(ane.fusedMemory);
  EXPECT_DOUBLE_EQ(ane.peakFor("f32"), ane.peakFor("f16")); // fp16 datapath
  // The ANE's bandwidth is its own, below the SoC's.
  EXPECT_LT(ane.bandwidth, m4->lookup(BackendKind::cpu)->bandwidth);
  EXPECT_FALSE(getBuiltinTarget("apple-m9"));
}

TEST(Targets, NegativeZeroRoundTrips) {
  // "-0.0" reads as a negative zero, which printed as "-0" would read back
  // as the integer 0 (found by the config fuzzer's round-trip oracle).
  std::string error;
  std::optional<TargetDescription> target = parseTarget(
      R"({"schema": "hwagent.target", "version": 2, "name": "t",
          "backends": [{"backend": "cpu", "peak_flops": {"f32": 1e9},
                        "bandwidth": 1e9, "launch": -0.0}],
          "default_link": {"bandwidth": 1e9, "sync": -0.0}})",
      error);
  ASSERT_TRUE(target) << error;
  std::string printed = printTarget(*target);
  EXPECT_EQ(printed.find("-0"), std::string::npos) << printed;
  std::optional<TargetDescription> again = parseTarget(printed, error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(printTarget(*again), printed);
}

std::string parseError(const std::string &json) {
  std::string error;
  EXPECT_FALSE(parseTarget(json, error)) << json;
  return error;
}

TEST(Targets, ErrorsNameTheField) {
  const std::string head =
      R"({"schema": "hwagent.target", "version": 2, "name": "t", )";
  const std::string link = R"("default_link": {"bandwidth": 1e9, "sync": 0})";
  // A one-CPU target with `fields` added to its backend and `rest` to the
  // top level.
  auto cpuError = [&](const std::string &fields, const std::string &rest = "") {
    return parseError(
        head +
        R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1e9}, "bandwidth": 1, "launch": 0)" +
        fields + "}], " + rest + link + "}");
  };
  EXPECT_EQ(parseError("{"), parseError("{")); // stable
  EXPECT_EQ(parseError("[1]"), "(top level): expected object");
  EXPECT_EQ(parseError(R"({"schema": "x", "version": 2})"),
            "schema: expected 'hwagent.target', got 'x'");
  EXPECT_EQ(parseError(R"({"schema": "hwagent.target", "version": 7})"),
            "version: this build reads version 1 to 2, got 7");
  EXPECT_EQ(parseError(head + R"("backends": [], )" + link + "}"),
            "backends: needs at least one backend");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "npu", "peak_flops": {"f32": 1},
                           "bandwidth": 1, "launch": 0}], )" +
                 link + "}"),
      "backends[0].backend: unknown backend 'npu' (expected cpu, ane or gpu)");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1e9},
                           "bandwidth": -1, "launch": 0}], )" +
                 link + "}"),
      "backends[0].bandwidth: must be positive");
  // Power values: negative or infinite ones name their field.
  EXPECT_EQ(cpuError(R"(, "active_power": -2)"),
            "backends[0].active_power: must be non-negative");
  EXPECT_EQ(cpuError(R"(, "energy_per_flop": 1e999)"),
            "backends[0].energy_per_flop: must be non-negative");
  EXPECT_EQ(cpuError("", R"("static_power": -0.1, )"),
            "static_power: must be non-negative");
  // Issue 38, item 19: the runtime's limits (hwcore's Limits.h) hold in
  // the compiler too, so that hwagent-opt refuses what a session would
  // refuse only after compiling: a megawatt or more, and what the runtime
  // derives from the values (running = active + host power).
  EXPECT_EQ(cpuError(R"(, "idle_power": 1.7976931348623157e308)"),
            "backends[0].idle_power: must be in [0, 1e6] (watts or joules, the "
            "runtime's limit), got 1.79769e+308");
  EXPECT_EQ(cpuError(R"(, "active_power": 8e5, "host_power": 8e5)"),
            "power: " + hwcore::checkPowerModel([] {
              hwcore::PowerModel p;
              p.running[hwcore::index(hwcore::BackendKind::cpu)] = 1.6e6;
              return p;
            }()));
  EXPECT_EQ(hwcore::checkPowerCap(2e6),
            "power cap must be watts in [0, 1e6] (0: none), got 2e+06");
  EXPECT_EQ(hwcore::checkPowerCap(1e6), "");
  EXPECT_EQ(hwcore::checkFixedJoules(hwcore::BackendKind::ane, 2e6),
            "fixed joules on ane must be in [0, 1e6], got 2e+06");
  EXPECT_EQ(cpuError(R"(, "row_alignment": -64)"),
            "backends[0].row_alignment: must be non-negative");
  EXPECT_EQ(
      parseError(
          head +
          R"("backends": [{"backend": "cpu", "peak_flops": {"f32": "fast"},
                           "bandwidth": 1, "launch": 0}], )" +
          link + "}"),
      "backends[0].peak_flops.f32: expected number");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                           "bandwidth": 1}], )" +
                 link + "}"),
      "backends[0].launch: missing value");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                           "bandwidth": 1, "launch": 0, "op_kinds": ["attention"]}], )" +
                 link + "}"),
      "backends[0].op_kinds[0]: unknown op kind 'attention'");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                           "bandwidth": 1, "launch": 0,
                           "weight_updates": ["bake"]}], )" +
                 link + "}"),
      "backends[0].weight_updates[0]: expected input, recompile or reload, "
      "got 'bake'");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                           "bandwidth": 1, "launch": 0, "ramp_exponent": 2}], )" +
                 link + "}"),
      "backends[0].ramp_exponent: must be in (0, 1]");
  EXPECT_EQ(
      parseError(head +
                 R"("backends": [{"backend": "cpu", "peak_flops": {"f32": 1},
                           "bandwidth": 1, "launch": 0}], "default_link": {"bandwidth": 1}})"),
      "default_link.sync: missing value");
  // A hostile document nested deeper than the parser recurses safely.
  std::string deep = head + R"("description": )" + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  EXPECT_EQ(parseError(deep), "(top level): nested deeper than 64 levels");
}

TEST(Targets, VersionOneFilesAreRead) {
  std::string error;
  std::optional<TargetDescription> t = parseTarget(
      R"({"schema": "hwagent.target", "version": 1, "name": "old",
          "backends": [{"backend": "ane", "peak_flops": {"f16": 1e13},
                        "ramp_flops": 1e10, "ramp_exponent": 0.4,
                        "bandwidth": 6e10, "dispatch": 1e-4,
                        "weight_update": "recompile", "op_kinds": ["conv"]},
                       {"backend": "cpu", "peak_flops": {"f32": 1e11},
                        "ramp_flops": 1, "ramp_exponent": 1,
                        "bandwidth": 1e11, "dispatch": 5e-6}],
          "default_link": {"bandwidth": 1e11, "sync": 2e-4}})",
      error);
  ASSERT_TRUE(t) << error;
  const BackendDescription &ane = *t->lookup(BackendKind::ane);
  EXPECT_DOUBLE_EQ(ane.launch, 1e-4);
  EXPECT_TRUE(ane.staticShapes);
  ASSERT_EQ(ane.weightUpdates.size(), 1u);
  EXPECT_EQ(ane.weightUpdates[0], WeightUpdate::recompile);
  EXPECT_TRUE(t->lookup(BackendKind::cpu)->weightUpdates.empty());
}

TEST(Telemetry, ParsesAndRejects) {
  std::string error;
  std::optional<Telemetry> t = parseTelemetry(
      R"({"schema": "hwagent.telemetry", "version": 1, "thermal_state": "fair",
          "free_memory_bytes": 1024, "utilization": {"ane": 0.25}})",
      error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->thermal, ThermalState::fair);
  EXPECT_EQ(t->freeMemoryBytes, 1024);
  EXPECT_DOUBLE_EQ(t->utilization[index(BackendKind::ane)], 0.25);

  error.clear();
  EXPECT_FALSE(parseTelemetry(
      R"({"schema": "hwagent.telemetry", "version": 1, "utilization": {"ane": 1.5}})",
      error));
  EXPECT_EQ(error, "utilization.ane: must be in [0, 1]");
  error.clear();
  EXPECT_FALSE(parseTelemetry(
      R"({"schema": "hwagent.telemetry", "version": 1, "thermal_state": "hot"})",
      error));
  EXPECT_EQ(
      error,
      "thermal_state: expected nominal, fair, serious or critical, got 'hot'");
  error.clear();
  EXPECT_FALSE(parseTelemetry(std::string(1000, '{'), error));
  EXPECT_EQ(error, "(top level): nested deeper than 64 levels");
}

TEST(ProfileDB, ParsesAndRejects) {
  std::string error;
  std::optional<ProfileDB> db = parseProfileDB(
      R"({"schema": "hwagent.profile-db", "version": 1, "target": "apple-m4",
          "entries": [{"key": "0123456789abcdef", "backend": "ane",
                       "seconds": 2.5e-4, "samples": 12, "simulated": true}]})",
      error);
  ASSERT_TRUE(db) << error;
  ASSERT_EQ(db->entries.size(), 1u);
  EXPECT_EQ(db->entries[0].key, "0123456789abcdef");
  EXPECT_EQ(db->entries[0].backend, BackendKind::ane);
  EXPECT_TRUE(db->entries[0].simulated);

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
  error.clear();
  EXPECT_FALSE(parseProfileDB(
      R"({"schema": "hwagent.profile-db", "version": 1, "target": "t",
          "entries": [{"key": "0123456789abcdef", "backend": "cpu", "seconds": "x", "samples": 1}]})",
      error));
  EXPECT_EQ(error, "entries[0].seconds: expected number");
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
