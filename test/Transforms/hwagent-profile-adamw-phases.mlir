// RUN: hwagent-opt %s --hwagent-form-regions="granularity=per-op" --hwagent-profile | FileCheck %s

// torch.optim.AdamW as an imported step writes it: the parameter decayed
// first (p * (1 - lr * wd)) and the step added to that, so the op writing
// the new parameter reads no argument itself. The whole update -- moments,
// step counter, bias corrections, sqrt(v) + eps, their broadcasts -- is
// optimizer work (kept in fp32 off the ANE in training); the gradient and
// what only the gradient feeds (g * (1 - b1), g * g) stay weight gradients.
// CHECK-LABEL: func.func @step
// CHECK:      hwagent.region 0 {{.*}}phase = forward>
// CHECK:      hwagent.region 2 {{.*}}phase = forward>
// The gradient.
// CHECK:      hwagent.region 3 {{.*}}phase = backward, weight_gradient = true>
// p * (1 - lr * wd), m * b1.
// CHECK:      hwagent.region 4 {{.*}}phase = optimizer>
// CHECK:      hwagent.region 5 {{.*}}phase = optimizer>
// g * (1 - b1).
// CHECK:      hwagent.region 6 {{.*}}phase = backward, weight_gradient = true>
// CHECK:      hwagent.region 7 {{.*}}phase = optimizer>
// CHECK:      hwagent.region 8 {{.*}}phase = optimizer>
// g * g * (1 - b2).
// CHECK:      hwagent.region 9 {{.*}}phase = backward, weight_gradient = true>
// CHECK:      hwagent.region 10 {{.*}}phase = backward, weight_gradient = true>
// The new second moment, the step counter, the bias corrections, the
// denominator and the step: all optimizer work.
// CHECK-COUNT-16: phase = optimizer>
// CHECK-NOT:  phase =
// CHECK:      return

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

func.func @step(%x: tensor<8x4xf32>, %w: tensor<4xf32>, %m: tensor<4xf32>,
                      %v: tensor<4xf32>, %t: tensor<f32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x4xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %prod = arith.mulf %sum, %w : tensor<4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #scalar], iterator_types = ["reduction"]}
      ins(%prod : tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // The gradient: a reduction over the batch (backward work).
  %g = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x4xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  // torch.optim.AdamW, one tensor at a time, as PyTorch's in-place ops
  // decompose: p.mul_(1 - lr * wd) first, the step added to that.
  %decay = arith.constant dense<0.9997> : tensor<4xf32>
  %decayed = arith.mulf %w, %decay : tensor<4xf32>
  %b1 = arith.constant dense<0.9> : tensor<4xf32>
  %nb1 = arith.constant dense<0.1> : tensor<4xf32>
  %m1 = arith.mulf %m, %b1 : tensor<4xf32>
  %g1 = arith.mulf %g, %nb1 : tensor<4xf32>
  %mnew = arith.addf %m1, %g1 : tensor<4xf32>
  %b2 = arith.constant dense<0.999> : tensor<4xf32>
  %nb2 = arith.constant dense<0.001> : tensor<4xf32>
  %v1 = arith.mulf %v, %b2 : tensor<4xf32>
  %gg = arith.mulf %g, %g : tensor<4xf32>
  %gg1 = arith.mulf %gg, %nb2 : tensor<4xf32>
  %vnew = arith.addf %v1, %gg1 : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %tnew = arith.addf %t, %one : tensor<f32>
  %b1s = arith.constant dense<0.9> : tensor<f32>
  %pow1 = math.powf %b1s, %tnew : tensor<f32>
  %bc1 = arith.subf %one, %pow1 : tensor<f32>
  %lr = arith.constant dense<0.003> : tensor<f32>
  %stepsize = arith.divf %lr, %bc1 : tensor<f32>
  %b2s = arith.constant dense<0.999> : tensor<f32>
  %pow2 = math.powf %b2s, %tnew : tensor<f32>
  %bc2 = arith.subf %one, %pow2 : tensor<f32>
  %rbc2 = math.sqrt %bc2 : tensor<f32>
  %rbc2b = linalg.generic {indexing_maps = [#scalar, #id1], iterator_types = ["parallel"]}
      ins(%rbc2 : tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %rv = math.sqrt %vnew : tensor<4xf32>
  %rvs = arith.divf %rv, %rbc2b : tensor<4xf32>
  %eps = arith.constant dense<1.0e-8> : tensor<4xf32>
  %denom = arith.addf %rvs, %eps : tensor<4xf32>
  %ratio = arith.divf %mnew, %denom : tensor<4xf32>
  %stepb = linalg.generic {indexing_maps = [#scalar, #id1], iterator_types = ["parallel"]}
      ins(%stepsize : tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %upd = arith.mulf %ratio, %stepb : tensor<4xf32>
  %wnew = arith.subf %decayed, %upd : tensor<4xf32>
  return %loss, %wnew, %mnew, %vnew, %tnew
      : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
