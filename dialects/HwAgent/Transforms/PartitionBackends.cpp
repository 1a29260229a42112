//===- PartitionBackends.cpp - the partition-backends pipeline ------------===//

#include "HwAgent/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::hwagent;

void hwagent::buildPartitionBackendsPipeline(
    OpPassManager &pm, const PartitionBackendsOptions &options) {
  FormRegionsOptions form;
  form.granularity = options.granularity;
  pm.addPass(createFormRegions(form));
  pm.addPass(createProfile());
  EstimateCostsOptions estimate;
  estimate.target = options.target;
  estimate.telemetry = options.telemetry;
  estimate.profileDb = options.profileDb;
  estimate.learnedModel = options.learnedModel;
  estimate.training = options.training;
  estimate.updateEvery = options.updateEvery;
  estimate.fp16Gradients = options.fp16Gradients;
  estimate.weightsAsInputs = options.weightsAsInputs;
  estimate.backends.assign(options.backends.begin(), options.backends.end());
  pm.addPass(createEstimateCosts(estimate));
  AssignBackendsOptions assign;
  assign.strategy = options.strategy;
  assign.objective = options.objective;
  assign.powerCap = options.powerCap;
  assign.explain = options.explain;
  assign.report = options.report;
  assign.dot = options.dot;
  assign.html = options.html;
  assign.summary = options.summary;
  pm.addPass(createAssignBackends(assign));
  pm.addPass(createInsertTransfers());
}

void hwagent::registerPartitionBackendsPipeline() {
  PassPipelineRegistration<PartitionBackendsOptions>(
      "partition-backends",
      "Cut every function into regions, profile and cost them, place each on "
      "a backend (optimally, boundaries included) and make the boundaries "
      "explicit",
      buildPartitionBackendsPipeline);
}
