// RUN: hwagent-opt %s -split-input-file -verify-diagnostics --allow-unregistered-dialect

// expected-error @+1 {{features field 'flops' must be non-negative, got -1}}
func.func @f() attributes {a = #hwagent.features<flops = -1>} { return }

// -----

// expected-error @+1 {{features op count for 'conv' must be non-negative, got -2}}
func.func @f() attributes {a = #hwagent.features<ops = {conv = -2}>} { return }

// -----

// expected-error @+1 {{features declare 10 parameters but zero parameter bytes}}
func.func @f() attributes {a = #hwagent.features<params = 10>} { return }

// -----

// expected-error @+1 {{duplicate features field 'depth'}}
func.func @f() attributes {a = #hwagent.features<depth = 1, depth = 2>} { return }

// -----

// expected-error @+1 {{unknown op kind 'attention'}}
func.func @f() attributes {a = #hwagent.features<ops = {attention = 1}>} { return }

// -----

// expected-error @+1 {{expected 'true' or 'false'}}
func.func @f() attributes {a = #hwagent.features<loops = 1>} { return }

// -----

// expected-error @+1 {{unknown phase 'inference'}}
func.func @f() attributes {a = #hwagent.features<phase = inference>} { return }

// -----

// expected-error @+1 {{unknown features field 'latency'}}
func.func @f() attributes {a = #hwagent.features<latency = 3>} { return }

// -----

// expected-error @+1 {{cost of backend 'cpu' must be a finite non-negative number of seconds, got -1}}
func.func @f() attributes {a = #hwagent.costs<cpu = -1.0>} { return }

// -----

// expected-error @+1 {{illegal backend 'ane' needs a reason}}
func.func @f() attributes {a = #hwagent.costs<ane = illegal "">} { return }

// -----

// expected-error @+1 {{unknown backend 'tpu' (expected cpu, ane or gpu)}}
func.func @f() attributes {a = #hwagent.costs<tpu = 1.0>} { return }

// -----

// expected-error @+1 {{backend 'cpu' appears more than once in costs}}
func.func @f() attributes {a = #hwagent.costs<cpu = 1.0, cpu = 2.0>} { return }

// -----

// expected-error @+1 {{link from cpu to itself}}
func.func @f() attributes {a = #hwagent.link<from = cpu, to = cpu, bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0>} { return }

// -----

// expected-error @+1 {{link cpu -> gpu: 'sync' must be non-negative, got -1}}
func.func @f() attributes {a = #hwagent.link<from = cpu, to = gpu, bandwidth = 1.0, convert_bandwidth = 0.0, sync = -1.0>} { return }

// -----

// expected-error @+1 {{link ane -> gpu: 'convert_bandwidth' must be non-negative, got -1}}
func.func @f() attributes {a = #hwagent.link<from = ane, to = gpu, bandwidth = 1.0, convert_bandwidth = -1.0, sync = 0.0>} { return }

// -----

// expected-error @+1 {{link cpu -> ane: 'bandwidth' must be positive, got 0}}
func.func @f() attributes {a = #hwagent.link<from = cpu, to = ane, bandwidth = 0.0, convert_bandwidth = 0.0, sync = 0.0>} { return }

// -----

func.func @f() {
  // expected-error @+1 {{'hwagent.region' op id must be non-negative, got -1}}
  hwagent.region -1 () -> () {
    hwagent.yield
  }
  return
}

// -----

func.func @f() {
  hwagent.region 0 () -> () {
    // expected-error @+1 {{'hwagent.region' op may not be nested in another 'hwagent.region'}}
    hwagent.region 1 () -> () {
      hwagent.yield
    }
    hwagent.yield
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'hwagent.region' op has 1 operands but its body has 0 arguments}}
  "hwagent.region"(%x) <{id = 0 : i64}> ({
    "hwagent.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'hwagent.region' op operand #0 has type 'tensor<4xf32>' but body argument #0 has type 'tensor<4xf16>'}}
  "hwagent.region"(%x) <{id = 0 : i64}> ({
  ^bb0(%a: tensor<4xf16>):
    "hwagent.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'hwagent.region' op is assigned to backend 'ane' that its costs mark illegal: dynamic shape}}
  hwagent.region 0 () -> () attributes {backend = #hwagent.backend<ane>, costs = #hwagent.costs<cpu = 1.0, ane = illegal "dynamic shape">} {
    hwagent.yield
  }
  return
}

// -----

func.func @f() {
  // expected-note @+1 {{first used here}}
  hwagent.region 4 () -> () {
    hwagent.yield
  }
  // expected-error @+1 {{'hwagent.region' op id 4 is not unique in its function}}
  hwagent.region 4 () -> () {
    hwagent.yield
  }
  hwagent.region 5 () -> () {
    hwagent.yield
  }
  return
}

// -----

// Ids only need to be unique within one function.
func.func @f() {
  hwagent.region 4 () -> () {
    hwagent.yield
  }
  return
}
func.func @g() {
  hwagent.region 4 () -> () {
    hwagent.yield
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'hwagent.region' op body must end with 'hwagent.yield'}}
  hwagent.region 0 () -> () {
    "test.terminator"() : () -> ()
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = hwagent.region 0 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    // expected-error @+1 {{'hwagent.yield' op yields 0 values but the enclosing region has 1 results}}
    hwagent.yield
  }
  return %r : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf16> {
  %r = hwagent.region 0 (%a = %x : tensor<4xf32>) -> (tensor<4xf16>) {
    // expected-error @+1 {{'hwagent.yield' op value #0 has type 'tensor<4xf32>' but the enclosing region's result #0 has type 'tensor<4xf16>'}}
    hwagent.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf16>
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'hwagent.yield' op expects parent op 'hwagent.region'}}
  hwagent.yield %x : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.transfer' op transfers from 'cpu' to itself; a boundary joins two backends}}
  %t = hwagent.transfer %x from cpu to cpu : tensor<4xf32> -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xi32>) -> tensor<4xf16> {
  // expected-error @+1 {{'hwagent.transfer' op cannot convert element type 'i32' to 'f16' on a boundary; only floating-point types convert into each other}}
  %t = hwagent.transfer %x from cpu to ane : tensor<4xi32> -> tensor<4xf16>
  return %t : tensor<4xf16>
}

// -----

func.func @f(%x: tensor<4x2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'hwagent.transfer' op changes rank from 2 to 1}}
  %t = hwagent.transfer %x from cpu to ane : tensor<4x2xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

func.func @f(%x: tensor<4x2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'hwagent.transfer' op permutation has 3 entries for a rank-2 tensor}}
  %t = hwagent.transfer %x from cpu to ane permutation [0, 1, 2] : tensor<4x2xf32> -> tensor<2x4xf32>
  return %t : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<4x2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'hwagent.transfer' op permutation is not a permutation of [0, 2)}}
  %t = hwagent.transfer %x from cpu to ane permutation [1, 1] : tensor<4x2xf32> -> tensor<2x4xf32>
  return %t : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<4x2xf32>) -> tensor<4x2xf16> {
  // expected-error @+1 {{'hwagent.transfer' op result type 'tensor<4x2xf16>' does not have the shape the input takes after the transfer, expected shape 2x4}}
  %t = hwagent.transfer %x from cpu to ane permutation [1, 0] : tensor<4x2xf32> -> tensor<4x2xf16>
  return %t : tensor<4x2xf16>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown backend 'npu' (expected cpu, ane or gpu)}}
  %t = hwagent.transfer %x from cpu to npu : tensor<4xf32> -> tensor<4xf32>
  return %t : tensor<4xf32>
}
// -----

// expected-error @+1 {{target 't': backends[0].peak_flops.f32: must be positive}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 0.0 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].ramp_flops: must be positive}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = -1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].ramp_exponent: must be in (0, 1]}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.5, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }


// -----

// Power values (issue 20) are checked like every other value.
// expected-error @+1 {{target 't': backends[0].active_power: must be non-negative}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, active_power = -2.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': static_power: must be non-negative}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, static_power = -1.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }
// -----

// expected-error @+1 {{target 't': backends[0].bandwidth: must be positive}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 0.0, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].launch: must be non-negative}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = -1.0, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].sram_bytes: must be non-negative}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = -1, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].spill_factor: must be at least 1}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = ane, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 0.5, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].compile: must be non-negative}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = ane, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = -2.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].max_dim: must be non-negative}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = ane, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = -5, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].threads: must be at least 1}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 0, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': device 'cpu': weight_updates: unknown name 'bake'}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = ["bake"], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': device 'cpu': op_kinds: unknown name 'attention'}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = ["attention"], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[0].compute_type: expected f16, bf16 or f32, got 'f8'}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "f8", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target '': name: must not be empty}}
func.func @f() attributes {a = #hwagent.target<"", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': backends[1].backend: backend 'cpu' is described twice}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>, <backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': default_link.bandwidth: must be positive}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 0.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': default_link.sync: must be non-negative}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = -1.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>]>} { return }

// -----

// expected-error @+1 {{target 't': links[1]: the pair is described twice}}
func.func @f() attributes {a = #hwagent.target<"t", transfer_bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0, devices = [<backend = cpu, simulated = false, peak_flops = {f32 = 1.0e9 : f64}, matrix_flops = 0.0, kind_efficiency = {}, ramp_flops = 1.0, ramp_exponent = 1.0, program_ramp = false, compute_type = "", bandwidth = 1.0e9, fused_memory = false, sram_bytes = 0, spill_factor = 1.0, launch = 1.0e-6, region_launch = 0.0, weight_updates = [], input_weight_efficiency = 1.0, compile = 0.0, compile_per_byte = 0.0, reload = 0.0, reload_per_byte = 0.0, max_weight_bytes = 0, max_compiles = 0, restart = 0.0, threads = 1, parallel_exponent = 1.0, static_shapes = false, max_dim = 0, max_rank = 0, op_kinds = [], element_types = []>], links = [<from = cpu, to = gpu, bandwidth = 1.0, convert_bandwidth = 0.0, sync = 0.0>, <from = cpu, to = gpu, bandwidth = 2.0, convert_bandwidth = 0.0, sync = 0.0>]>} { return }

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{is in a program but has no backend}}
  %r = hwagent.region 0 program 0 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    hwagent.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{program starts here}}
  %r = hwagent.region 0 program 0 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) attributes {backend = #hwagent.backend<cpu>} {
    hwagent.yield %a : tensor<4xf32>
  }
  // expected-error @+1 {{is in program 0 but not on the backend of its other regions}}
  %s = hwagent.region 1 program 0 (%a = %r : tensor<4xf32>) -> (tensor<4xf32>) attributes {backend = #hwagent.backend<ane>} {
    hwagent.yield %a : tensor<4xf32>
  }
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{program 3 is placed on 'ane' but its costs give no legal time there}}
func.func @f() attributes {a = #hwagent.program<id = 3, backend = ane, regions = [0], costs = <cpu = 1.0, ane = illegal "loop">, weights = none, weight_bytes = 0>} { return }

// -----

// expected-error @+1 {{program 3 has no regions}}
func.func @f() attributes {a = #hwagent.program<id = 3, backend = cpu, regions = [], costs = <cpu = 1.0>, weights = none, weight_bytes = 0>} { return }

// -----

// expected-error @+1 {{'hwagent.programs' must be an array of #hwagent.program}}
func.func @f() attributes {hwagent.programs = [1]} { return }

// -----

// expected-error @+1 {{'hwagent.target' must be a #hwagent.target}}
module attributes {hwagent.target = "apple-m4"} {}

// -----

// expected-error @+1 {{cost terms of backend 'cpu' must be finite and non-negative, got -1}}
func.func @f() attributes {a = #hwagent.costs<cpu = 1.0 terms <compute = -1.0, input_compute = 0.0, memory = 0.0, input_memory = 0.0, region_launch = 0.0, flops = 0, weight_bytes = 0, spilled = false, telemetry = 1.0>>} { return }

// -----

// expected-error @+1 {{'hwagent.weights_as_inputs' must be a unit attribute on a module}}
func.func @f() attributes {hwagent.weights_as_inputs} { return }

// -----

func.func @f(%x: f32) -> f32 {
  // expected-error @+1 {{'hwagent.boundary' must be a unit attribute on an arith.extf or arith.truncf}}
  %y = arith.addf %x, %x {hwagent.boundary} : f32
  return %y : f32
}

// -----

// expected-error @+1 {{'hwagent.objective' must be a #hwagent.objective (time, energy, edp) on a module}}
module attributes {hwagent.objective = "energy"} {}

// -----

// expected-error @+2 {{expected ::mlir::hwagent::Objective to be one of: time, energy, edp}}
// expected-error @+1 {{failed to parse HwAgent_ObjectiveAttr parameter 'value'}}
module attributes {hwagent.objective = #hwagent.objective<fast>} {}

// -----

// expected-error @+1 {{'hwagent.power_cap' must be a finite number of watts >= 0 on a module}}
module attributes {hwagent.power_cap = -2.0 : f64} {}

// -----

// expected-error @+1 {{'hwagent.update_every' must be an integer >= 1}}
module attributes {hwagent.update_every = 0 : i64} {}
