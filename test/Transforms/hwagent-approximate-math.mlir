// RUN: hwagent-opt %s --hwagent-approximate-math | FileCheck %s

// math.erf has no LLVM lowering: it becomes a polynomial of arith ops.
// CHECK-LABEL: func.func @erf_f32
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK: return
func.func @erf_f32(%x: f32) -> f32 {
  %y = math.erf %x : f32
  return %y : f32
}

// f16 is widened to f32 around the approximation.
// CHECK-LABEL: func.func @erf_f16
// CHECK-NOT: math.erf
// CHECK: arith.extf
// CHECK: arith.truncf
func.func @erf_f16(%x: f16) -> f16 {
  %y = math.erf %x : f16
  return %y : f16
}

// Ops LLVM lowers itself are left alone.
// CHECK-LABEL: func.func @exp_kept
// CHECK: math.exp
func.func @exp_kept(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}
