// What hwagent-form-regions' constant folding leaves alone (see
// hwagent-form-regions-constants.mlir for what it folds).
// RUN: hwagent-opt %s --hwagent-form-regions | FileCheck %s
// Chains of constant computations fold through; what is not a constant
// stays: a non-splat input, a body reading its index, a computation
// reading an argument, and a result too large to be worth a constant.
// CHECK-LABEL: func.func @not_all_constants
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: hwagent.region 0
// CHECK: arith.sitofp
// CHECK: hwagent.region 1
// CHECK: linalg.index
// CHECK: hwagent.region 2
// CHECK: arith.mulf
// CHECK: hwagent.region 3
// CHECK: arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: -> tensor<128xf32>
// CHECK: return %[[ONE]],
#s0 = affine_map<() -> ()>
#v = affine_map<(d0) -> (d0)>
#v0 = affine_map<(d0) -> ()>
func.func @not_all_constants(%arg: tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<128xf32>) {
  %two = arith.constant dense<2> : tensor<i64>
  %es = tensor.empty() : tensor<f32>
  // 2 -> 2.0 -> 1.0 (2.0 * 0.5): folds twice.
  %f2 = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%two : tensor<i64>) outs(%es : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %half = arith.constant 0.5 : f32
  %f1 = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%f2 : tensor<f32>) outs(%es : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %half : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %pair = arith.constant dense<[1, 2]> : tensor<2xi64>
  %e2 = tensor.empty() : tensor<2xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%pair : tensor<2xi64>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<2xf32>
  %i = linalg.generic {indexing_maps = [#v0, #v], iterator_types = ["parallel"]} ins(%two : tensor<i64>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%in: i64, %out: f32):
    %idx = linalg.index 0 : index
    %c = arith.index_cast %idx : index to i64
    %s = arith.addi %in, %c : i64
    %v = arith.sitofp %s : i64 to f32
    linalg.yield %v : f32
  } -> tensor<2xf32>
  %a = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%arg : tensor<f32>) outs(%es : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %half : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %e128 = tensor.empty() : tensor<128xf32>
  %big = linalg.generic {indexing_maps = [#v0, #v], iterator_types = ["parallel"]} ins(%f2 : tensor<f32>) outs(%e128 : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128xf32>
  return %f1, %p, %i, %a, %big : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<128xf32>
}
