//===- PartitionBackends.cpp - the partition-backends pipeline ------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::hwagent;

namespace {
struct PartitionBackendsOptions
    : public PassPipelineOptions<PartitionBackendsOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Built-in target or target JSON"),
                             llvm::cl::init("apple-m4")};
  Option<std::string> telemetry{*this, "telemetry",
                                llvm::cl::desc("Telemetry snapshot JSON"),
                                llvm::cl::init("")};
  Option<std::string> profileDb{*this, "profile-db",
                                llvm::cl::desc("Measured profile JSON"),
                                llvm::cl::init("")};
  Option<::hwcore::Strategy> strategy{
      *this, "strategy", llvm::cl::desc("Assignment strategy"),
      llvm::cl::init(::hwcore::Strategy::optimal), strategyValues()};
  Option<bool> explain{*this, "explain",
                       llvm::cl::desc("One remark per region"),
                       llvm::cl::init(false)};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("JSON partition report file"),
                             llvm::cl::init("")};
  Option<std::string> dot{*this, "dot", llvm::cl::desc("Graphviz file"),
                          llvm::cl::init("")};
  Option<bool> summary{*this, "summary",
                       llvm::cl::desc("Summary table on stderr"),
                       llvm::cl::init(false)};
  Option<Granularity> granularity{
      *this, "granularity", llvm::cl::desc("Region granularity"),
      llvm::cl::init(Granularity::Fused),
      llvm::cl::values(
          clEnumValN(Granularity::PerOp, "per-op", "per op"),
          clEnumValN(Granularity::Fused, "fused", "fused"),
          clEnumValN(Granularity::PerLayer, "per-layer", "per layer"))};
  Option<bool> training{*this, "training",
                        llvm::cl::desc("Weights change every step"),
                        llvm::cl::init(true)};
  Option<bool> weightsAsInputs{
      *this, "weights-as-inputs",
      llvm::cl::desc("Weight arguments arrive anew at every call even outside "
                     "a training step"),
      llvm::cl::init(false)};
  Option<bool> fp16Gradients{
      *this, "fp16-gradients",
      llvm::cl::desc("Allow weight gradients and optimizer updates on fp16 "
                     "backends (with loss scaling)"),
      llvm::cl::init(false)};
  ListOption<std::string> backends{
      *this, "backends",
      llvm::cl::desc("Backends a partition may use (e.g. cpu,ane)")};
};

void buildPartitionBackendsPipeline(OpPassManager &pm,
                                    const PartitionBackendsOptions &options) {
  FormRegionsOptions form;
  form.granularity = options.granularity;
  pm.addPass(createFormRegions(form));
  pm.addPass(createProfile());
  EstimateCostsOptions estimate;
  estimate.target = options.target;
  estimate.telemetry = options.telemetry;
  estimate.profileDb = options.profileDb;
  estimate.training = options.training;
  estimate.fp16Gradients = options.fp16Gradients;
  estimate.weightsAsInputs = options.weightsAsInputs;
  estimate.backends.assign(options.backends.begin(), options.backends.end());
  pm.addPass(createEstimateCosts(estimate));
  AssignBackendsOptions assign;
  assign.strategy = options.strategy;
  assign.explain = options.explain;
  assign.report = options.report;
  assign.dot = options.dot;
  assign.summary = options.summary;
  pm.addPass(createAssignBackends(assign));
  pm.addPass(createInsertTransfers());
}
} // namespace

void hwagent::registerPartitionBackendsPipeline() {
  PassPipelineRegistration<PartitionBackendsOptions>(
      "partition-backends",
      "Cut every function into regions, profile and cost them, place each on "
      "a backend (optimally, boundaries included) and make the boundaries "
      "explicit",
      buildPartitionBackendsPipeline);
}
