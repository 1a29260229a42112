// RUN: hwagent-opt %s --split-input-file --verify-diagnostics --hwagent-assign-backends="target=%S/Inputs/simple-target.json"

func.func @no_costs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op has no costs; run hwagent-estimate-costs first}}
  %a = hwagent.region 0 (%i = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    hwagent.yield %i : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}

// -----

func.func @other_target(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op has no cost for backend 'ane' of target 'simple'; run hwagent-estimate-costs with the same target}}
  %a = hwagent.region 0 (%i = %x : tensor<4xf32>) -> (tensor<4xf32>) attributes {costs = #hwagent.costs<cpu = 1.0e-3>} {
    hwagent.yield %i : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}

// -----

func.func @nowhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op cannot run on any backend of target 'simple'}}
  %a = hwagent.region 0 (%i = %x : tensor<4xf32>) -> (tensor<4xf32>) attributes {costs = #hwagent.costs<cpu = illegal "too big", ane = illegal "dynamic shape">} {
    hwagent.yield %i : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}
