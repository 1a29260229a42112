// RUN: hwagent-opt %s | FileCheck %s
// RUN: hwagent-opt %s | hwagent-opt | FileCheck %s
// RUN: hwagent-opt %s --mlir-print-op-generic | hwagent-opt | FileCheck %s

// CHECK-LABEL: func.func @region_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>)
func.func @region_matmul(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[R:.*]] = hwagent.region 0 (%[[A:.*]] = %[[X]] : tensor<4x8xf32>, %[[B:.*]] = %[[W]] : tensor<8x16xf32>) -> (tensor<4x16xf32>)
  // CHECK-SAME: attributes {backend = #hwagent.backend<ane>
  // CHECK-SAME: costs = #hwagent.costs<cpu = 1.000000e-03, ane = 2.500000e-04 note "fits in SRAM", gpu = illegal "no gpu on this target">
  // CHECK-SAME: features = #hwagent.features<flops = 1024, bytes_read = 640, bytes_written = 256, params = 128, param_bytes = 512, ops = {matmul = 1}, depth = 1, types = [f32], dynamic_dims = 0, max_dim = 16, max_rank = 2, rows = 0, loops = false, phase = forward>}
  %r = hwagent.region 0 (%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x16xf32>) -> (tensor<4x16xf32>)
      attributes {backend = #hwagent.backend<ane>,
                  costs = #hwagent.costs<cpu = 1.0e-3, ane = 2.5e-4 note "fits in SRAM", gpu = illegal "no gpu on this target">,
                  features = #hwagent.features<flops = 1024, bytes_read = 640, bytes_written = 256, params = 128, param_bytes = 512, ops = {matmul = 1}, depth = 1, types = [f32], max_dim = 16, max_rank = 2, phase = forward>} {
    // CHECK: tensor.empty
    // CHECK: linalg.matmul ins(%[[A]], %[[B]]
    %e = tensor.empty() : tensor<4x16xf32>
    %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    // CHECK: hwagent.yield %{{.*}} : tensor<4x16xf32>
    hwagent.yield %m : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @region_no_io
func.func @region_no_io() {
  // CHECK: hwagent.region 7 () -> () {
  // CHECK-NEXT: hwagent.yield
  hwagent.region 7 () -> () {
    hwagent.yield
  }
  return
}

// CHECK-LABEL: func.func @features_defaults
func.func @features_defaults() attributes {
  // CHECK-SAME: c = #hwagent.backend_cost<ane = illegal "rank 5 > 4">
  c = #hwagent.backend_cost<ane = illegal "rank 5 > 4">,
  // CHECK-SAME: f = #hwagent.features<flops = 0, bytes_read = 0, bytes_written = 0, params = 0, param_bytes = 0, ops = {}, depth = 0, types = [], dynamic_dims = 0, max_dim = 0, max_rank = 0, rows = 0, loops = false, phase = unknown>
  f = #hwagent.features<>,
  // CHECK-SAME: g = #hwagent.features<flops = 5, {{.*}}ops = {elementwise = 2, control_flow = 1}, {{.*}}types = [f16, i32], dynamic_dims = 2, {{.*}}loops = true, phase = backward>
  g = #hwagent.features<phase = backward, loops = true, types = [f16, i32], dynamic_dims = 2, ops = {control_flow = 1, elementwise = 2}, flops = 5>,
  // CHECK-SAME: p = #hwagent.phase<optimizer>
  p = #hwagent.phase<optimizer>,
  // CHECK-SAME: t = #hwagent.target<"apple-m4" description "test chip", transfer_bandwidth = 1.200000e+11, convert_bandwidth = 6.000000e+10, sync = 2.000000e-05, devices = [<backend = ane, simulated = true, peak_flops = {f16 = 1.860000e+13 : f64}, {{.*}}weight_updates = ["input", "recompile", "reload"], {{.*}}max_compiles = 119, {{.*}}op_kinds = ["conv", "matmul"], element_types = ["f16", "f32"]>, <backend = cpu
  t = #hwagent.target<"apple-m4" description "test chip", transfer_bandwidth = 1.2e11, convert_bandwidth = 6.0e10, sync = 2.0e-5, devices = [
        #hwagent.device<backend = ane, simulated = true, peak_flops = {f16 = 1.86e13 : f64}, matrix_flops = 0.0, kind_efficiency = {matmul = 3.0e-01 : f64}, ramp_flops = 3.5e9, ramp_exponent = 0.38, program_ramp = true, compute_type = "f16", bandwidth = 6.4e10, fused_memory = true, sram_bytes = 33554432, spill_factor = 1.4, launch = 1.0e-4, region_launch = 1.0e-6, weight_updates = ["input", "recompile", "reload"], input_weight_efficiency = 0.5, compile = 0.011, compile_per_byte = 1.0e-8, reload = 0.0, reload_per_byte = 1.6e-9, max_weight_bytes = 2147483648, max_compiles = 119, restart = 1.0, threads = 1, parallel_exponent = 1.0, static_shapes = true, max_dim = 16384, max_rank = 4, op_kinds = ["conv", "matmul"], element_types = ["f16", "f32"]>,
        #hwagent.device<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>,
  // CHECK-SAME: u = #hwagent.target<"m", {{.*}}devices = [<backend = cpu{{.*}}>], links = [<from = cpu, to = gpu, bandwidth = 1.200000e+11, convert_bandwidth = 0.000000e+00, sync = 5.000000e-05>]>
  u = #hwagent.target<"m", transfer_bandwidth = 1.2e11, convert_bandwidth = 0.0, sync = 2.0e-4, devices = [
        #hwagent.device<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>],
      links = [#hwagent.link<from = cpu, to = gpu, bandwidth = 1.2e11, convert_bandwidth = 0.0, sync = 5.0e-5>]>,
  // CHECK-SAME: v = #hwagent.target<"p", transfer_bandwidth = 1.200000e+11, convert_bandwidth = 0.000000e+00, sync = 2.000000e-04, static_power = 2.000000e-01, devices = [<backend = cpu, {{.*}}active_power = 5.000000e+00, energy_per_flop = 2.700000e-12, {{.*}}>]>,
  v = #hwagent.target<"p", transfer_bandwidth = 1.2e11, convert_bandwidth = 0.0, sync = 2.0e-4, static_power = 0.2, devices = [
        #hwagent.device<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, active_power = 5.0, energy_per_flop = 2.7e-12, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]
      >,
  // CHECK-SAME: w = #hwagent.program<id = 2, backend = ane, regions = [3, 4], costs = <cpu = 2.000000e-03, ane = 4.000000e-04 note "compute-bound">, weights = input, weight_bytes = 4096>
  w = #hwagent.program<id = 2, backend = ane, regions = [3, 4], costs = <cpu = 2.0e-3, ane = 4.0e-4 note "compute-bound">, weights = input, weight_bytes = 4096>
} {
  return
}

// CHECK-LABEL: func.func @transfers
func.func @transfers(%x: tensor<1x64xf32>, %y: tensor<8x4xf16>, %d: tensor<?x3xf32>) -> (tensor<1x64xf16>, tensor<4x8xf32>, tensor<?x3xf16>) {
  // CHECK: hwagent.transfer %{{.*}} from cpu to ane : tensor<1x64xf32> -> tensor<1x64xf16>
  %h = hwagent.transfer %x from cpu to ane : tensor<1x64xf32> -> tensor<1x64xf16>
  // CHECK: hwagent.transfer %{{.*}} from ane to cpu permutation [1, 0] : tensor<8x4xf16> -> tensor<4x8xf32>
  %t = hwagent.transfer %y from ane to cpu permutation [1, 0] : tensor<8x4xf16> -> tensor<4x8xf32>
  // CHECK: hwagent.transfer %{{.*}} from gpu to cpu : tensor<?x3xf32> -> tensor<?x3xf16>
  %g = hwagent.transfer %d from gpu to cpu : tensor<?x3xf32> -> tensor<?x3xf16>
  return %h, %t, %g : tensor<1x64xf16>, tensor<4x8xf32>, tensor<?x3xf16>
}
