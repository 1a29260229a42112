// RUN: hwagent-opt %s --split-input-file --verify-diagnostics --hwagent-assign-backends

module attributes {hwagent.target = #hwagent.target<"simple" description "round numbers for hand-checked tests", transfer_bandwidth = 1.000000e+09, convert_bandwidth = 5.000000e+08, sync = 1.000000e-04, devices = [<backend = cpu, peak_flops = {f32 = 1.000000e+09 : f64}, bandwidth = 1.000000e+09>, <backend = ane, simulated = true, peak_flops = {f16 = 1.000000e+10 : f64}, program_ramp = true, compute_type = "f16", bandwidth = 1.000000e+10, fused_memory = true, launch = 1.000000e-03, weight_updates = ["input"], static_shapes = true, max_dim = 16384, max_rank = 4, op_kinds = ["conv", "depthwise", "matmul", "elementwise", "reduction", "normalization", "pooling", "data_movement"], element_types = ["f16", "f32"]>]>, hwagent.training = true} {
func.func @no_costs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op has no costs; run hwagent-estimate-costs first}}
  %a = hwagent.region 0 (%i = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    hwagent.yield %i : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}
}

// -----

module attributes {hwagent.target = #hwagent.target<"simple" description "round numbers for hand-checked tests", transfer_bandwidth = 1.000000e+09, convert_bandwidth = 5.000000e+08, sync = 1.000000e-04, devices = [<backend = cpu, peak_flops = {f32 = 1.000000e+09 : f64}, bandwidth = 1.000000e+09>, <backend = ane, simulated = true, peak_flops = {f16 = 1.000000e+10 : f64}, program_ramp = true, compute_type = "f16", bandwidth = 1.000000e+10, fused_memory = true, launch = 1.000000e-03, weight_updates = ["input"], static_shapes = true, max_dim = 16384, max_rank = 4, op_kinds = ["conv", "depthwise", "matmul", "elementwise", "reduction", "normalization", "pooling", "data_movement"], element_types = ["f16", "f32"]>]>, hwagent.training = true} {
func.func @other_target(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op has no cost for backend 'ane' of target 'simple'; run hwagent-estimate-costs with the same target}}
  %a = hwagent.region 0 (%i = %x : tensor<4xf32>) -> (tensor<4xf32>) attributes {costs = #hwagent.costs<cpu = 1.0e-3>} {
    hwagent.yield %i : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}
}

// -----

module attributes {hwagent.target = #hwagent.target<"simple" description "round numbers for hand-checked tests", transfer_bandwidth = 1.000000e+09, convert_bandwidth = 5.000000e+08, sync = 1.000000e-04, devices = [<backend = cpu, peak_flops = {f32 = 1.000000e+09 : f64}, bandwidth = 1.000000e+09>, <backend = ane, simulated = true, peak_flops = {f16 = 1.000000e+10 : f64}, program_ramp = true, compute_type = "f16", bandwidth = 1.000000e+10, fused_memory = true, launch = 1.000000e-03, weight_updates = ["input"], static_shapes = true, max_dim = 16384, max_rank = 4, op_kinds = ["conv", "depthwise", "matmul", "elementwise", "reduction", "normalization", "pooling", "data_movement"], element_types = ["f16", "f32"]>]>, hwagent.training = true} {
func.func @nowhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op cannot run on any backend of target 'simple'}}
  %a = hwagent.region 0 (%i = %x : tensor<4xf32>) -> (tensor<4xf32>) attributes {costs = #hwagent.costs<cpu = illegal "too big", ane = illegal "dynamic shape">} {
    hwagent.yield %i : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}
}

// -----

// expected-error @+1 {{hwagent-assign-backends: the module has no 'hwagent.target'; run hwagent-estimate-costs first}}
module {
func.func @untargeted(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = hwagent.region 0 (%i = %x : tensor<4xf32>) -> (tensor<4xf32>) attributes {costs = #hwagent.costs<cpu = 1.0e-3>} {
    hwagent.yield %i : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}
}
