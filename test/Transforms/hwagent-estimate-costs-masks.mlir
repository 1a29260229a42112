// RUN: hwagent-opt %s --split-input-file --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=apple-m4" 2>&1 | FileCheck %s

// Legality judges what a backend receives. PyTorch writes ReLU's gradient
// and causal masks as a comparison producing i1, combined with ori/xori, then
// a select: the masks stay inside the region, so the ANE and the GPU take it
// as they take the same computation written with maximumf.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @mask_inside
// CHECK: costs = #hwagent.costs<cpu = {{.*}}, ane = {{[0-9]}}
// CHECK-SAME: gpu = {{[0-9]}}
// CHECK-SAME: types = [f32]
func.func @mask_inside(%x: tensor<64x64xf32>, %g: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %e1 = tensor.empty() : tensor<64x64xi1>
  %le = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e1 : tensor<64x64xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf ole, %a, %zero : f32
    %n = arith.xori %c, %true : i1
    %m = arith.ori %n, %c : i1
    %k = arith.xori %m, %c : i1
    linalg.yield %k : i1
  } -> tensor<64x64xi1>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%le, %g : tensor<64x64xi1>, tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%c: i1, %b: f32, %o: f32):
    %s = arith.select %c, %b, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An i1 tensor the region receives is a type the ANE is handed: refused.
// CHECK-LABEL: func.func @mask_argument
// CHECK: ane = illegal "element type i1 is not supported by the ane
func.func @mask_argument(%m: tensor<64x64xi1>, %g: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %g : tensor<64x64xi1>, tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%c: i1, %b: f32, %o: f32):
    %s = arith.select %c, %b, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Bitwise ops on wider integers are still bits the ANE cannot run.
// CHECK-LABEL: func.func @integer_bits
// CHECK: ane = illegal
func.func @integer_bits(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<64xi32> {
  %e = tensor.empty() : tensor<64xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<64xi32>, tensor<64xi32>) outs(%e : tensor<64xi32>) {
  ^bb0(%p: i32, %q: i32, %o: i32):
    %s = arith.xori %p, %q : i32
    linalg.yield %s : i32
  } -> tensor<64xi32>
  return %r : tensor<64xi32>
}
