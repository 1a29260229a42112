//===- ModelInfoTest.cpp - the emitted model info against the compiler's --===//
//
// hwagent-lower-to-runtime writes the model table as LLVM constants of the
// runtime's C structs; the layouts are pinned by static_assert, the values
// here: the step is partitioned, its table built in C++ (buildModelTable),
// then lowered and JIT-compiled, and `__hwagent_model_info()` must hold the
// same regions, programs, edges, links and compile times field by field,
// and a function table naming every argument and result as
// describeFunction does.
//
//===----------------------------------------------------------------------===//

#include "Driver/InitAll.h"
#include "Driver/Jit.h"
#include "Driver/TrainingRunner.h"
#include "HwAgent/Analysis/ModelTable.h"
#include "HwAgent/Analysis/StepSignature.h"
#include "HwAgent/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::hwagent;

namespace {

TEST(ModelInfo, JitMatchesTheCompilersTable) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAllPasses(); // the lowering pipeline is built from their names
  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      HWAGENT_SOURCE_DIR "/examples/digits_cnn_train_step.mlir", &context);
  ASSERT_TRUE(module);

  PassManager partition(&context);
  PartitionBackendsOptions options;
  options.strategy = hwcore::Strategy::ane; // programs on two backends
  options.objective = hwcore::Objective::energy;
  options.powerCap = 50.0;
  buildPartitionBackendsPipeline(partition, options);
  ASSERT_TRUE(succeeded(partition.run(*module)));
  FailureOr<ModelTable> table = buildModelTable(*module);
  ASSERT_TRUE(succeeded(table));
  std::vector<StepSignature> signatures;
  for (auto fn : module->getOps<func::FuncOp>())
    signatures.push_back(describeFunction(fn));

  PassManager lower(&context);
  lower.addPass(createLowerToRuntime());
  buildLowerToLLVMPipeline(lower);
  ASSERT_TRUE(succeeded(lower.run(*module)));
  std::string error;
  std::unique_ptr<HostJit> engine = createHostJit(*module, error);
  ASSERT_TRUE(engine) << error;
  llvm::Expected<void *> symbol = engine->lookup("__hwagent_model_info");
  ASSERT_TRUE(bool(symbol)) << llvm::toString(symbol.takeError());
  void *pointer = reinterpret_cast<void *(*)()>(*symbol)();
  const auto &jit = *static_cast<const hwagent_model_info_t *>(pointer);
  hwagent_model_info_t expected = table->info();

  EXPECT_EQ(jit.version, uint32_t(HWAGENT_MODEL_INFO_VERSION));
  EXPECT_EQ(jit.num_backends, uint32_t(HWAGENT_NUM_BACKENDS));
  EXPECT_STREQ(jit.target, expected.target);
  ASSERT_EQ(jit.num_regions, expected.num_regions);
  ASSERT_EQ(jit.num_programs, expected.num_programs);
  ASSERT_EQ(jit.num_edges, expected.num_edges);
  EXPECT_GE(jit.num_programs, 2u);
  for (uint32_t i = 0; i < jit.num_regions; ++i) {
    const hwagent_region_info_t &a = jit.regions[i], &b = expected.regions[i];
    EXPECT_EQ(a.key, b.key) << i;
    EXPECT_EQ(a.flops, b.flops) << i;
    EXPECT_EQ(a.bytes, b.bytes) << i;
    EXPECT_EQ(a.id, b.id) << i;
    EXPECT_EQ(a.program, b.program) << i;
    EXPECT_EQ(a.legal_mask, b.legal_mask) << i;
    for (int k = 0; k < HWAGENT_NUM_BACKENDS; ++k)
      EXPECT_EQ(a.predicted[k], b.predicted[k]) << i;
  }
  // The learned-cost features the runtime copies into its profile.
  ASSERT_EQ(jit.num_features, expected.num_features);
  ASSERT_GT(jit.num_features, 0u);
  for (uint32_t f = 0; f < jit.num_features; ++f)
    EXPECT_STREQ(jit.feature_names[f], expected.feature_names[f]) << f;
  double largest = 0;
  for (size_t v = 0; v < size_t(jit.num_regions) * jit.num_features; ++v) {
    EXPECT_EQ(jit.region_features[v], expected.region_features[v]) << v;
    largest = std::max(largest, jit.region_features[v]);
  }
  EXPECT_GT(largest, 1.0);
  for (uint32_t i = 0; i < jit.num_programs; ++i) {
    const hwagent_program_info_t &a = jit.programs[i],
                                 &b = expected.programs[i];
    EXPECT_EQ(a.assigned, b.assigned) << i;
    EXPECT_EQ(a.legal_mask, b.legal_mask) << i;
    EXPECT_EQ(a.first_region, b.first_region) << i;
    EXPECT_EQ(a.num_regions, b.num_regions) << i;
    EXPECT_EQ(a.flops, b.flops) << i;
    EXPECT_EQ(a.weight_bytes, b.weight_bytes) << i;
    for (int k = 0; k < HWAGENT_NUM_BACKENDS; ++k) {
      EXPECT_EQ(a.predicted[k], b.predicted[k]) << i;
      EXPECT_EQ(a.weight_update[k], b.weight_update[k]) << i;
      EXPECT_EQ(a.fixed_joules[k], b.fixed_joules[k]) << i;
      // Every variant does work: per FLOP and per byte, and its launch.
      if ((a.legal_mask >> k) & 1u) {
        EXPECT_GT(a.fixed_joules[k], 0) << i;
      }
    }
  }
  for (uint32_t i = 0; i < jit.num_edges; ++i) {
    const hwagent_edge_info_t &a = jit.edges[i], &b = expected.edges[i];
    EXPECT_EQ(a.from, b.from) << i;
    EXPECT_EQ(a.to, b.to) << i;
    EXPECT_EQ(a.bytes, b.bytes) << i;
    EXPECT_EQ(a.convert_bytes, b.convert_bytes) << i;
  }
  // The power model and what the step was partitioned for.
  EXPECT_EQ(jit.objective, int32_t(HWAGENT_OBJECTIVE_ENERGY));
  EXPECT_EQ(jit.power_cap, 50.0);
  EXPECT_EQ(jit.power.static_power, expected.power.static_power);
  EXPECT_GT(jit.power.static_power, 0);
  EXPECT_EQ(jit.power.boundary, expected.power.boundary);
  EXPECT_EQ(jit.power.boundary_per_byte, expected.power.boundary_per_byte);
  for (int a = 0; a < HWAGENT_NUM_BACKENDS; ++a) {
    EXPECT_EQ(jit.power.idle[a], expected.power.idle[a]);
    EXPECT_EQ(jit.power.running[a], expected.power.running[a]);
    EXPECT_GT(jit.power.running[a], 0);
  }
  for (int a = 0; a < HWAGENT_NUM_BACKENDS; ++a) {
    EXPECT_EQ(jit.compile[a], expected.compile[a]);
    EXPECT_EQ(jit.compile_per_byte[a], expected.compile_per_byte[a]);
    EXPECT_EQ(jit.max_compiles[a], expected.max_compiles[a]);
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
      EXPECT_EQ(jit.links[a][b].bandwidth, expected.links[a][b].bandwidth);
      EXPECT_EQ(jit.links[a][b].convert_bandwidth,
                expected.links[a][b].convert_bandwidth);
      EXPECT_EQ(jit.links[a][b].sync, expected.links[a][b].sync);
    }
  }

  // The function table: train_step and eval_step, every value named.
  ASSERT_EQ(jit.num_functions, signatures.size());
  for (const StepSignature &sig : signatures) {
    const hwagent_function_info_t *fn =
        hwagent_model_function(&jit, sig.function.c_str());
    ASSERT_NE(fn, nullptr) << sig.function;
    EXPECT_NE(fn->invoke, nullptr);
    ASSERT_EQ(fn->num_args, sig.args.size());
    ASSERT_EQ(fn->num_results, sig.results.size());
    auto check = [&](const hwagent_value_info_t &v, const ValueSignature &s) {
      EXPECT_EQ(v.name, s.name);
      EXPECT_EQ(v.role, s.role) << s.name;
      EXPECT_EQ(v.updates, s.updates) << s.name;
      EXPECT_EQ(v.dtype, dtypeOf(getElementTypeOrSelf(s.type))) << s.name;
      auto shaped = dyn_cast<ShapedType>(s.type);
      ASSERT_EQ(v.rank, shaped ? shaped.getRank() : -1) << s.name;
      for (int32_t d = 0; d < v.rank; ++d)
        EXPECT_EQ(v.shape[d], shaped.getDimSize(d)) << s.name;
    };
    for (size_t i = 0; i < sig.args.size(); ++i)
      check(fn->args[i], sig.args[i]);
    for (size_t i = 0; i < sig.results.size(); ++i)
      check(fn->results[i], sig.results[i]);
  }
  const hwagent_function_info_t *train =
      hwagent_model_function(&jit, "train_step");
  EXPECT_STREQ(train->results[0].name, "loss");
  EXPECT_EQ(train->results[0].role, HWAGENT_ROLE_LOSS);
  EXPECT_STREQ(train->results[1].name, "w1");
  EXPECT_EQ(train->results[1].updates, 2);
  EXPECT_EQ(train->args[1].role, HWAGENT_ROLE_LABEL);
}

} // namespace
