//===- AnalysisTest.cpp - hashes, signatures, the model table -------------===//
//===//

#include "Driver/InitAll.h"
#include "HwAgent/Analysis/ModelTable.h"
#include "HwAgent/Analysis/StepSignature.h"
#include "HwAgent/Analysis/StructuralHash.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::hwagent;

namespace {

class AnalysisTest : public ::testing::Test {
protected:
  AnalysisTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  OwningOpRef<ModuleOp> parse(const std::string &text) {
    return parseSourceString<ModuleOp>(text, &context);
  }
  std::vector<std::string> keys(ModuleOp module) {
    std::vector<std::string> out;
    module.walk([&](RegionOp r) { out.push_back(getStructuralHash(r)); });
    return out;
  }
  MLIRContext context;
};

const char *kRegions = R"mlir(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = hwagent.region 3 (%a = %x : tensor<4xf32>, %b = %y : tensor<4xf32>) -> (tensor<4xf32>) {
    %s = arith.addf %a, %b : tensor<4xf32>
    hwagent.yield %s : tensor<4xf32>
  }
  %q = hwagent.region 4 (%c = %x : tensor<4xf32>, %d = %y : tensor<4xf32>) -> (tensor<4xf32>) {
    %t = arith.OPNAME %c, %d : tensor<4xf32>
    hwagent.yield %t : tensor<4xf32>
  }
  return %r, %q : tensor<4xf32>, tensor<4xf32>
}
)mlir";

std::string with(std::string text, const std::string &from,
                 const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

TEST_F(AnalysisTest, StructuralHashIsStableAndSensitive) {
  OwningOpRef<ModuleOp> a = parse(with(kRegions, "OPNAME", "addf"));
  ASSERT_TRUE(a);
  std::vector<std::string> k = keys(*a);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].size(), 16u);
  // The same computation under other SSA names and region ids: same key.
  EXPECT_EQ(k[0], k[1]);
  // Parsed again: the same keys.
  OwningOpRef<ModuleOp> again = parse(with(kRegions, "OPNAME", "addf"));
  EXPECT_EQ(keys(*again), k);
  // A different op: a different key.
  OwningOpRef<ModuleOp> b = parse(with(kRegions, "OPNAME", "mulf"));
  std::vector<std::string> kb = keys(*b);
  EXPECT_EQ(kb[0], k[0]);
  EXPECT_NE(kb[1], k[1]);
  // Another type: another key.
  OwningOpRef<ModuleOp> c =
      parse(with(with(kRegions, "OPNAME", "addf"), "4xf32", "8xf32"));
  EXPECT_NE(keys(*c)[0], k[0]);
  // The batch's hasher agrees with the single-region function.
  StructuralHasher hasher;
  std::vector<std::string> batch;
  a->walk([&](RegionOp r) { batch.push_back(hasher(r)); });
  EXPECT_EQ(batch, k);
}

TEST_F(AnalysisTest, SignatureNamesRolesAndUpdates) {
  OwningOpRef<ModuleOp> m = parse(R"mlir(
func.func @train_step(%x: tensor<4x4xf32> {hwagent.name = "x"}, %labels: tensor<4xi32>,
                      %w: tensor<4x4xf32> {hwagent.name = "w"}, %b: tensor<4xf32>)
    -> (tensor<f32>, tensor<4x4xf32>, tensor<4xf32>) {
  %l = arith.constant dense<0.0> : tensor<f32>
  return %l, %w, %b : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>
}
func.func @eval_step(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {hwagent.role = "parameter"})
    -> (tensor<4x4xf32> {hwagent.name = "logits"}) {
  return %x : tensor<4x4xf32>
}
)mlir");
  ASSERT_TRUE(m);
  auto train = m->lookupSymbol<func::FuncOp>("train_step");
  StepSignature sig = describeFunction(train);
  EXPECT_TRUE(sig.isTrainingStep);
  ASSERT_EQ(sig.args.size(), 4u);
  EXPECT_EQ(sig.args[0].name, "x");
  EXPECT_EQ(sig.args[0].role, HWAGENT_ROLE_INPUT);
  EXPECT_EQ(sig.args[1].name, "arg1");
  EXPECT_EQ(sig.args[1].role, HWAGENT_ROLE_LABEL); // integer
  EXPECT_EQ(sig.args[2].role, HWAGENT_ROLE_PARAMETER);
  EXPECT_EQ(sig.args[3].role, HWAGENT_ROLE_PARAMETER);
  ASSERT_EQ(sig.results.size(), 3u);
  EXPECT_EQ(sig.results[0].name, "loss");
  EXPECT_EQ(sig.results[0].role, HWAGENT_ROLE_LOSS);
  EXPECT_EQ(sig.results[1].name, "w"); // its argument's name
  EXPECT_EQ(sig.results[1].updates, 2);
  EXPECT_EQ(sig.results[2].name, "arg3");
  EXPECT_EQ(sig.results[2].updates, 3);

  StepSignature eval =
      describeFunction(m->lookupSymbol<func::FuncOp>("eval_step"));
  EXPECT_FALSE(eval.isTrainingStep);
  EXPECT_EQ(eval.args[1].role, HWAGENT_ROLE_PARAMETER);
  EXPECT_EQ(eval.results[0].name, "logits");
  EXPECT_EQ(eval.results[0].role, HWAGENT_ROLE_OUTPUT);
  EXPECT_EQ(eval.results[0].updates, -1);

  // The explicit mapping is checked.
  std::string error;
  llvm::raw_string_ostream os(error);
  EXPECT_TRUE(failed(mapStepParameters(train, {3, 2}, os)));
  EXPECT_NE(error.find("cannot update argument #3"), std::string::npos)
      << error;
  EXPECT_TRUE(succeeded(mapStepParameters(train, {2, 3}, os)));

  // Marked hwagent.no_updates (hwagent-run --no-updates), the same results
  // are outputs: nothing is updated, result 0 stays the loss.
  train->setAttr(kNoUpdatesAttr, UnitAttr::get(&context));
  StepSignature gradients = describeFunction(train);
  EXPECT_FALSE(gradients.isTrainingStep);
  EXPECT_EQ(gradients.args[2].role, HWAGENT_ROLE_INPUT);
  EXPECT_EQ(gradients.results[0].name, "loss");
  EXPECT_EQ(gradients.results[0].role, HWAGENT_ROLE_LOSS);
  EXPECT_EQ(gradients.results[1].name, "result1");
  EXPECT_EQ(gradients.results[1].role, HWAGENT_ROLE_OUTPUT);
  EXPECT_EQ(gradients.results[1].updates, -1);
}

TEST_F(AnalysisTest, ModelTableOfAPartitionedStep) {
  registerAllPasses();
  OwningOpRef<ModuleOp> m = parseSourceFile<ModuleOp>(
      HWAGENT_SOURCE_DIR "/examples/mlp_train_step.mlir", &context);
  ASSERT_TRUE(m);
  PassManager pm(&context);
  PartitionBackendsOptions options;
  options.strategy = hwcore::Strategy::ane;
  buildPartitionBackendsPipeline(pm, options);
  ASSERT_TRUE(succeeded(pm.run(*m)));
  FailureOr<ModelTable> table = buildModelTable(*m);
  ASSERT_TRUE(succeeded(table));
  EXPECT_EQ(table->target, "apple-m4");
  ASSERT_FALSE(table->programs.empty());
  // Every region belongs to one program, which lists it contiguously; each
  // program can fall back to the CPU and is placed where it is legal.
  std::vector<int> seen(table->regions.size(), 0);
  for (size_t p = 0; p < table->programs.size(); ++p) {
    const hwagent_program_info_t &program = table->programs[p];
    EXPECT_TRUE(program.legal_mask & (1u << HWAGENT_BACKEND_CPU));
    EXPECT_TRUE(program.legal_mask & (1u << program.assigned));
    for (uint32_t r = program.first_region;
         r < program.first_region + program.num_regions; ++r) {
      EXPECT_EQ(table->regions[r].program, int32_t(p));
      ++seen[r];
    }
    EXPECT_EQ(table->groups[p].regions.size(), program.num_regions);
  }
  for (int s : seen)
    EXPECT_EQ(s, 1);
  // Edges name programs the table has (or the host, -1).
  for (const hwagent_edge_info_t &e : table->edges) {
    EXPECT_GE(e.from, -1);
    EXPECT_LT(e.from, int32_t(table->programs.size()));
    EXPECT_GE(e.to, -1);
    EXPECT_LT(e.to, int32_t(table->programs.size()));
    EXPECT_LE(e.convert_bytes, e.bytes);
  }
  // The view the runtime gets points at the same arrays.
  hwagent_model_info_t info = table->info();
  EXPECT_EQ(info.num_programs, table->programs.size());
  EXPECT_EQ(info.programs, table->programs.data());
}

} // namespace
