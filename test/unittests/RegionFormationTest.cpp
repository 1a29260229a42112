//===- RegionFormationTest.cpp - invariants of form-regions + profile -----===//
//
// Properties that must hold on any input: the IR still verifies (so every
// region is convex: a non-convex cluster cannot be placed in dominance
// order), no op is lost or duplicated, and the FLOPs of the regions add up to
// the FLOPs of the unpartitioned function. Checked on the bundled example,
// on the real models in ../shared/models and on random DAGs.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/RegionFormation.h"
#include "Driver/InitAll.h"
#include "HwAgent/Analysis/WorkloadProfile.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

using namespace mlir;
using namespace mlir::hwagent;

namespace {

class RegionFormationTest : public ::testing::Test {
protected:
  RegionFormationTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.allowUnregisteredDialects();
    context.loadAllAvailableDialects();
  }

  /// Counts ops by name, leaves (constants, tensor.empty, fills) excluded
  /// since form-regions may clone them.
  static std::map<std::string, int> countOps(ModuleOp module) {
    std::map<std::string, int> counts;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isCloneableLeaf(op))
        return WalkResult::skip();
      if (!isa<RegionOp, YieldOp, ModuleOp>(op))
        ++counts[op->getName().getStringRef().str()];
      return WalkResult::advance();
    });
    return counts;
  }

  /// FLOPs of each function before partitioning.
  static std::map<std::string, int64_t> functionFlops(ModuleOp module) {
    std::map<std::string, int64_t> flops;
    WorkloadProfiler profiler(module);
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal())
        flops[fn.getName().str()] = profiler.computeFeatures(fn).getFlops();
    return flops;
  }

  /// Runs form-regions + profile and checks every invariant.
  void checkInvariants(ModuleOp module, FormRegionsOptions options,
                       const std::string &what) {
    SCOPED_TRACE(what);
    // Constant computations fold first (docs/partitioning.md): what is
    // left is what form-regions must neither lose nor duplicate.
    for (auto fn : module.getOps<func::FuncOp>())
      foldConstantComputations(fn);
    std::map<std::string, int> opsBefore = countOps(module);
    std::map<std::string, int64_t> flopsBefore = functionFlops(module);

    PassManager pm(&context);
    pm.addPass(createFormRegions(options));
    pm.addPass(createProfile());
    ASSERT_TRUE(succeeded(pm.run(module)));
    ASSERT_TRUE(succeeded(verify(module)));

    std::map<std::string, int> opsAfter = countOps(module);
    for (auto &[name, count] : opsBefore)
      EXPECT_EQ(opsAfter[name], count) << "ops lost or duplicated: " << name;
    for (auto &[name, count] : opsAfter)
      EXPECT_EQ(opsBefore.count(name), 1u) << "op appeared: " << name;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      int64_t regionFlops = 0;
      bool hasRegions = false;
      fn.walk([&](RegionOp region) {
        hasRegions = true;
        ASSERT_TRUE(region.getFeatures());
        regionFlops += region.getFeatures()->getFlops();
        // Opaque ops and calls stand alone.
        int work = 0;
        bool standalone = false;
        for (Operation &op : region.getBodyBlock()) {
          if (isa<YieldOp>(op) || isCloneableLeaf(&op))
            continue;
          ++work;
          standalone |= !op.isRegistered() || isa<func::CallOp>(op);
        }
        if (standalone) {
          EXPECT_EQ(work, 1) << "an opaque op or call shares a region";
        }
      });
      if (!hasRegions)
        continue; // a callee, costed at its call sites
      EXPECT_EQ(regionFlops, flopsBefore[fn.getName().str()])
          << "region FLOPs of @" << fn.getName().str()
          << " do not add up to the function's";
      // Nothing but regions, leaves, host bookkeeping and the terminator stays
      // outside regions.
      for (Operation &op : fn.getBody().getOps()) {
        bool hasTensor =
            llvm::any_of(op.getResultTypes(),
                         [](Type t) { return isa<ShapedType>(t); }) ||
            llvm::any_of(op.getOperandTypes(),
                         [](Type t) { return isa<ShapedType>(t); });
        if (isa<RegionOp>(op) || op.hasTrait<OpTrait::IsTerminator>() ||
            op.hasTrait<OpTrait::ConstantLike>() || isCloneableLeaf(&op) ||
            !hasTensor)
          continue;
        ADD_FAILURE() << "op left outside regions: "
                      << op.getName().getStringRef().str();
      }
    }
  }

  void checkFile(const std::string &path) {
    for (auto granularity :
         {Granularity::PerOp, Granularity::Fused, Granularity::PerLayer}) {
      OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &context);
      ASSERT_TRUE(module) << path;
      FormRegionsOptions options;
      options.granularity = granularity;
      checkInvariants(*module, options,
                      path + " granularity " +
                          std::to_string(static_cast<int>(granularity)));
    }
  }

  MLIRContext context;
};

TEST_F(RegionFormationTest, BundledExample) {
  checkFile(HWAGENT_SOURCE_DIR "/examples/mlp_train_step.mlir");
}

TEST_F(RegionFormationTest, SharedModels) {
  std::string dir = HWAGENT_SOURCE_DIR "/../shared/models";
  if (!llvm::sys::fs::is_directory(dir))
    GTEST_SKIP() << "no " << dir;
  int files = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".mlir")
      continue;
    checkFile(it->path());
    ++files;
  }
  EXPECT_GE(files, 4);
}

/// A random DAG of matmuls, elementwise ops, reductions, transposes and
/// opaque ops on 8x8 tensors, as MLIR text.
static std::string randomGraph(std::mt19937 &rng, int numOps) {
  std::string body;
  std::vector<std::string> values = {"%a0", "%a1", "%a2"};
  auto pick = [&]() {
    // Prefer recent values so that chains form, but reach back for skips.
    std::uniform_int_distribution<int> recent(
        std::max<int>(0, values.size() - 4), values.size() - 1);
    std::uniform_int_distribution<int> any(0, values.size() - 1);
    return values[rng() % 3 ? recent(rng) : any(rng)];
  };
  const std::string t = "tensor<8x8xf32>";
  body += "  %e = tensor.empty() : " + t + "\n";
  for (int i = 0; i < numOps; ++i) {
    std::string v = "%v" + std::to_string(i);
    switch (rng() % 6) {
    case 0:
      body += "  " + v + " = linalg.matmul ins(" + pick() + ", " + pick() +
              " : " + t + ", " + t + ") outs(%e : " + t + ") -> " + t + "\n";
      break;
    case 1:
      body += "  " + v + " = math.exp " + pick() + " : " + t + "\n";
      break;
    case 2:
      body += "  " + v + " = arith.addf " + pick() + ", " + pick() + " : " + t +
              "\n";
      break;
    case 3:
      body += "  " + v + " = linalg.transpose ins(" + pick() + " : " + t +
              ") outs(%e : " + t + ") permutation = [1, 0]\n";
      break;
    case 4:
      body += "  " + v + " = \"test.opaque\"(" + pick() + ") : (" + t +
              ") -> " + t + "\n";
      break;
    default:
      body += "  " + v +
              " = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
              "(d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types "
              "= [\"parallel\", \"reduction\"]} ins(" +
              pick() + " : " + t + ") outs(%e : " + t +
              ") {\n  ^bb0(%x: f32, %acc: f32):\n    %s = arith.addf %x, "
              "%acc : f32\n    linalg.yield %s : f32\n  } -> " +
              t + "\n";
      break;
    }
    values.push_back(v);
  }
  // Return a few values so that several regions have external users.
  std::string results = values.back(), types = t;
  for (int k = 0; k < 2; ++k) {
    results += ", " + pick();
    types += ", " + t;
  }
  return "func.func @g(%a0: " + t + ", %a1: " + t + ", %a2: " + t + ") -> (" +
         types + ") {\n" + body + "  return " + results + " : " + types +
         "\n}\n";
}

TEST_F(RegionFormationTest, RandomGraphsStayConvexAndComplete) {
  // HWAGENT_RANDOM_TRIALS / HWAGENT_RANDOM_SEED widen the search locally.
  const char *trialsEnv = std::getenv("HWAGENT_RANDOM_TRIALS");
  const char *seedEnv = std::getenv("HWAGENT_RANDOM_SEED");
  int trials = trialsEnv ? std::atoi(trialsEnv) : 60;
  std::mt19937 rng(seedEnv ? std::atoi(seedEnv) : 20261202);
  for (int trial = 0; trial < trials; ++trial) {
    std::string text = randomGraph(rng, 10 + trial % 80);
    for (unsigned cap : {0u, 3u}) {
      for (auto granularity :
           {Granularity::PerOp, Granularity::Fused, Granularity::PerLayer}) {
        OwningOpRef<ModuleOp> module =
            parseSourceString<ModuleOp>(text, &context);
        ASSERT_TRUE(module) << text;
        FormRegionsOptions options;
        options.granularity = granularity;
        options.maxOps = cap;
        checkInvariants(*module, options,
                        "trial " + std::to_string(trial) + "\n" + text);
        if (cap) {
          module->walk([&](RegionOp region) {
            int work = 0;
            for (Operation &op : region.getBodyBlock())
              work += !isa<YieldOp>(op) && !isCloneableLeaf(&op);
            EXPECT_LE(work, static_cast<int>(cap));
          });
        }
        if (HasFailure())
          return;
      }
    }
  }
}

} // namespace
