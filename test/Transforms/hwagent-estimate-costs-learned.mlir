// The learned correction (docs/cost-model.md "Learned correction"): a model
// file hwagent-learn wrote (Inputs/learned-x2.json, trained by
// test/Tools/hwagent-learn.test's command on profiles where every CPU region
// took twice its analytic time) scales the CPU estimate of a region without
// a profile entry by its trees' x2, and the note says so. The same trees
// whose recorded held-out error does not beat the analytic model's
// (Inputs/learned-worse.json) are not used: no correction without a
// profile. Malformed files get one error naming the file and the field.
//
// The region is the 128x128x128 matmul of hwagent-estimate-costs.mlir: on
// simple-target.json its CPU estimate is 4.194e-3 s, the ANE's 1.419e-3 s.

// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/learned-x2.json" | FileCheck %s --check-prefix=LEARNED
// LEARNED-LABEL: func.func @step
// LEARNED: costs = #hwagent.costs<cpu = 8.389{{0*}}e-03 note "compute-bound, learned (xgboost) x2.00"
// LEARNED-SAME: ane = 1.419{{0*}}e-03 note "launch-bound" terms

// The pipeline takes the option too.
// RUN: hwagent-opt %s --partition-backends="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/learned-x2.json" | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: learned (xgboost) x2.00

// RUN: hwagent-opt %s --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/learned-worse.json" | FileCheck %s --check-prefix=WORSE
// WORSE: costs = #hwagent.costs<cpu = 4.194{{0*}}e-03 note "compute-bound" terms

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/no-such-model.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: hwagent-estimate-costs: {{.*}}Inputs/no-such-model.json: cannot read: No such file or directory

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/not-json.json" 2>&1 | FileCheck %s --check-prefix=NOTJSON
// NOTJSON: error: hwagent-estimate-costs: {{.*}}Inputs/not-json.json: (top level): not valid JSON

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/learned-bad-target.json" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: hwagent-estimate-costs: {{.*}}Inputs/learned-bad-target.json: target: expected 'log(measured/analytic)', got 'seconds'

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/learned-bad-features.json" 2>&1 | FileCheck %s --check-prefix=FEATURES
// FEATURES: error: hwagent-estimate-costs: {{.*}}Inputs/learned-bad-features.json: feature_names: not the 26 features this compiler computes

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/learned-bad-trees.json" 2>&1 | FileCheck %s --check-prefix=TREES
// TREES: error: hwagent-estimate-costs: {{.*}}Inputs/learned-bad-trees.json: backends[0].xgboost: expected XGBoost's JSON model (the text of an object)

// RUN: not hwagent-opt %s --hwagent-estimate-costs="target=%S/Inputs/simple-target.json learned-model=%S/Inputs/measured-profile.json" 2>&1 | FileCheck %s --check-prefix=SCHEMA
// SCHEMA: error: hwagent-estimate-costs: {{.*}}Inputs/measured-profile.json: {{.*}}hwagent.learned-cost-model

func.func @step(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %m : tensor<128x128xf32>
}
