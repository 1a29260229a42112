//===- AttributesTest.cpp - hwagent attribute builders and accessors ------===//

#include "Driver/InitAll.h"
#include "HwAgent/Config/TargetFile.h"
#include "HwAgent/IR/HwAgentAttrs.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/IR/HwAgentOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::hwagent;

namespace {

class AttributesTest : public ::testing::Test {
protected:
  AttributesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<HwAgentDialect>();
  }

  /// Collects diagnostics so a test can check the verifier's message.
  std::string captureErrors(function_ref<void()> body) {
    std::string messages;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      messages += diag.str();
      messages += "\n";
      return success();
    });
    body();
    return messages;
  }

  FeaturesAttr makeFeatures(int64_t flops, int64_t bytesRead,
                            int64_t bytesWritten, ArrayRef<int64_t> histogram) {
    Builder b(&context);
    return FeaturesAttr::get(&context, flops, bytesRead, bytesWritten,
                             /*params=*/64, /*paramBytes=*/256, histogram,
                             /*depth=*/2, {b.getF32Type()}, /*dynamicDims=*/0,
                             /*maxDim=*/16, /*maxRank=*/2, /*rows=*/24,
                             /*hasLoops=*/false, Phase::forward,
                             /*weightGradient=*/false, /*winogradFlops=*/0);
  }

  MLIRContext context;
};

TEST_F(AttributesTest, FeaturesAccessors) {
  SmallVector<int64_t> histogram(kNumOpKinds, 0);
  histogram[static_cast<unsigned>(OpKind::matmul)] = 1;
  histogram[static_cast<unsigned>(OpKind::elementwise)] = 3;
  FeaturesAttr features = makeFeatures(2048, 768, 256, histogram);
  EXPECT_EQ(features.getFlops(), 2048);
  EXPECT_EQ(features.getOpCount(OpKind::matmul), 1);
  EXPECT_EQ(features.getOpCount(OpKind::elementwise), 3);
  EXPECT_EQ(features.getOpCount(OpKind::conv), 0);
  EXPECT_EQ(features.getTotalOps(), 4);
  EXPECT_DOUBLE_EQ(features.getArithmeticIntensity(), 2.0);
  EXPECT_EQ(features.getPhase(), Phase::forward);
  // Uniqued: the same parameters give the same attribute.
  EXPECT_EQ(features, makeFeatures(2048, 768, 256, histogram));
}

TEST_F(AttributesTest, FeaturesIntensityWithoutBytesIsZero) {
  SmallVector<int64_t> histogram(kNumOpKinds, 0);
  EXPECT_DOUBLE_EQ(makeFeatures(10, 0, 0, histogram).getArithmeticIntensity(),
                   0.0);
}

TEST_F(AttributesTest, FeaturesVerifierRejectsBadHistogram) {
  SmallVector<int64_t> shortHistogram(3, 0);
  std::string errors = captureErrors([&] {
    Builder b(&context);
    FeaturesAttr attr = FeaturesAttr::getChecked(
        [&] { return emitError(UnknownLoc::get(&context)); }, &context, 1, 1, 1,
        0, 0, shortHistogram, 1, {}, 0, 1, 1, 0, false, Phase::unknown, false,
        0);
    EXPECT_FALSE(attr);
  });
  EXPECT_NE(errors.find("op histogram must have"), std::string::npos) << errors;
}

TEST_F(AttributesTest, FeaturesVerifierRejectsMoreWinogradFlopsThanFlops) {
  SmallVector<int64_t> histogram(kNumOpKinds, 0);
  std::string errors = captureErrors([&] {
    FeaturesAttr attr = FeaturesAttr::getChecked(
        [&] { return emitError(UnknownLoc::get(&context)); }, &context, 10, 1,
        1, 0, 0, histogram, 1, {}, 0, 1, 1, 0, false, Phase::unknown, false,
        11);
    EXPECT_FALSE(attr);
  });
  EXPECT_NE(errors.find("11 winograd FLOPs of only 10 FLOPs"),
            std::string::npos)
      << errors;
}

TEST_F(AttributesTest, CostsLookupAndVerifier) {
  auto cpu = BackendCostAttr::get(&context, Backend::cpu, APFloat(1e-3), true,
                                  StringRef());
  auto ane = BackendCostAttr::get(&context, Backend::ane, APFloat(0.0), false,
                                  StringRef("dynamic shape"));
  CostsAttr costs = CostsAttr::get(&context, {cpu, ane});
  EXPECT_EQ(costs.lookup(Backend::cpu), cpu);
  EXPECT_EQ(costs.lookup(Backend::ane).getReason(), "dynamic shape");
  EXPECT_FALSE(costs.lookup(Backend::gpu));

  std::string errors = captureErrors([&] {
    EXPECT_FALSE(CostsAttr::getChecked(
        [&] { return emitError(UnknownLoc::get(&context)); }, &context,
        ArrayRef<BackendCostAttr>{cpu, cpu}));
    EXPECT_FALSE(BackendCostAttr::getChecked(
        [&] { return emitError(UnknownLoc::get(&context)); }, &context,
        Backend::cpu, APFloat(-1.0), true, StringRef(), CostTermsAttr()));
  });
  EXPECT_NE(errors.find("appears more than once"), std::string::npos);
  EXPECT_NE(errors.find("finite non-negative"), std::string::npos);
}

TEST_F(AttributesTest, TargetIsLossless) {
  // Every built-in target survives the trip into the IR and back, field
  // for field (the core's printer shows all of them).
  for (const std::string &name : ::hwcore::builtinTargetNames()) {
    ::hwcore::TargetDescription original = *::hwcore::getBuiltinTarget(name);
    TargetAttr attr = TargetAttr::get(&context, original);
    EXPECT_EQ(::hwconfig::printTarget(attr.toDescription()),
              ::hwconfig::printTarget(original))
        << name;
  }
  TargetAttr m4 =
      TargetAttr::get(&context, *::hwcore::getBuiltinTarget("apple-m4"));
  ASSERT_TRUE(m4.lookup(Backend::ane));
  EXPECT_EQ(m4.lookup(Backend::ane).getMaxDim(), 16384);
  EXPECT_EQ(m4.lookup(Backend::ane).getComputeType().getValue(), "f16");
  // A target whose values the core refuses does not verify.
  ::hwcore::TargetDescription bad = *::hwcore::getBuiltinTarget("apple-m4");
  bad.backends[0].bandwidth = -1;
  std::string errors = captureErrors([&] {
    EXPECT_FALSE(TargetAttr::getChecked(
        [&] { return emitError(UnknownLoc::get(&context)); }, &context,
        StringRef(bad.name), StringRef(),
        ArrayRef<DeviceAttr>{DeviceAttr::get(&context, bad.backends[0])},
        APFloat(1e11), APFloat(0.0), APFloat(0.0), ArrayRef<LinkAttr>{},
        APFloat(0.0)));
  });
  EXPECT_NE(errors.find("backends[0].bandwidth: must be positive"),
            std::string::npos)
      << errors;
}

TEST_F(AttributesTest, RegionBuilderMirrorsInputs) {
  OpBuilder b(&context);
  auto module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module.getBody());
  auto type = RankedTensorType::get({4}, b.getF32Type());
  // A region with no inputs that yields nothing verifies.
  auto region =
      RegionOp::create(b, b.getUnknownLoc(), 3, TypeRange{}, ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&region.getBodyBlock());
  YieldOp::create(b, b.getUnknownLoc(), ValueRange{});
  EXPECT_TRUE(succeeded(verify(module)));
  EXPECT_EQ(region.getIdAttr().getInt(), 3);
  EXPECT_EQ(region.getBodyBlock().getNumArguments(), 0u);
  (void)type;
  module->erase();
}

} // namespace
