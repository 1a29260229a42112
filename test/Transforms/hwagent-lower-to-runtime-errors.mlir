// RUN: hwagent-opt %s --split-input-file --hwagent-lower-to-runtime -verify-diagnostics

// (A program placed where its costs make it illegal is refused earlier, by
// the region and program attributes' verifiers: test/Dialect/HwAgent.)

// A region the partitioner has not placed.
func.func @unplaced(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op has no backend; run hwagent-assign-backends (or --partition-backends) first}}
  %r = hwagent.region 0 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %n = arith.negf %a : tensor<4xf32>
    hwagent.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A program the function's list does not describe.
func.func @unknown_program(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {hwagent.programs = [#hwagent.program<id = 0, backend = cpu, regions = [1], costs = <cpu = 1.0e-3>, weights = none, weight_bytes = 0>]} {
  // expected-error @+1 {{'hwagent.region' op is in program 3, which its function's 'hwagent.programs' does not describe}}
  %r = hwagent.region 0 program 3 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>)
      attributes {backend = #hwagent.backend<cpu>} {
    %n = arith.negf %a : tensor<4xf32>
    hwagent.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A program whose only variant is an accelerator's: nothing to fall back to.
func.func @no_cpu_variant(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hwagent.region' op is in a program with no legal CPU variant; the runtime needs one to fall back to}}
  %r = hwagent.region 0 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>)
      attributes {backend = #hwagent.backend<ane>,
                  costs = #hwagent.costs<cpu = illegal "no", ane = 1.0e-3>} {
    %n = arith.negf %a : tensor<4xf32>
    hwagent.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Two regions of one program with a value leaving it and coming back
// through an op outside: it cannot be launched as one unit.
func.func @not_convex(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {hwagent.programs = [#hwagent.program<id = 0, backend = cpu, regions = [0, 1], costs = <cpu = 1.0e-3>, weights = none, weight_bytes = 0>]} {
  // expected-error @+1 {{'hwagent.region' op belongs to a program that is not convex}}
  %r = hwagent.region 0 program 0 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>)
      attributes {backend = #hwagent.backend<cpu>} {
    %n = arith.negf %a : tensor<4xf32>
    hwagent.yield %n : tensor<4xf32>
  }
  %outside = arith.addf %r, %r : tensor<4xf32>
  %s = hwagent.region 1 program 0 (%b = %outside : tensor<4xf32>) -> (tensor<4xf32>)
      attributes {backend = #hwagent.backend<cpu>} {
    %m = arith.negf %b : tensor<4xf32>
    hwagent.yield %m : tensor<4xf32>
  }
  return %s : tensor<4xf32>
}
