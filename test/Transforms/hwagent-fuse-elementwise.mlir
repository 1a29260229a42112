// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-fuse-elementwise))' | FileCheck %s

// A chain of elementwise ops whose intermediate values have one use each
// becomes one generic: the chain reads its input and writes its result once.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.maximumf
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %x : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// -----

// A value the function reads again (as the backward pass reads a forward
// activation) is not fused: fusing would compute it twice.
// CHECK-LABEL: func.func @reused
// CHECK-COUNT-2: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reused(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %e = tensor.empty() : tensor<64x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.exp %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// An elementwise producer of a contraction stays separate: fused, the
// matmul's body would no longer be a multiply-accumulate and
// hwagent-linalg-to-kernels would leave it as loops.
// CHECK-LABEL: func.func @into_matmul
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @into_matmul(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.tanh %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %m = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.mulf %p, %q : f32
    %r = arith.addf %o, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}
