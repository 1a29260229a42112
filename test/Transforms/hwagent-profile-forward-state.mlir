// RUN: hwagent-opt %s --hwagent-form-regions="granularity=per-op" --hwagent-profile | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// A training step with BatchNorm-style running statistics, as PyTorch's
// decomposition writes them: the batch mean (which the loss reads) folded
// into the running mean, an argument the forward pass does not read. That
// update is forward-side state -- phase forward, not a weight gradient --
// while the parameter's update stays an optimizer op and its gradient a
// weight gradient.
// CHECK-LABEL: func.func @bn_step
// The batch mean (loss slice).
// CHECK:      hwagent.region 0 {{.*}}phase = forward>
// The loss.
// CHECK:      hwagent.region 2 {{.*}}phase = forward>
// running_mean * 0.9 + 0.1 * batch mean.
// CHECK:      hwagent.region 3 {{.*}}phase = forward>
// CHECK:      hwagent.region 4 {{.*}}phase = forward>
// CHECK:      hwagent.region 5 {{.*}}phase = forward>
// The gradient of w and the update.
// CHECK:      hwagent.region 6 {{.*}}phase = backward, weight_gradient = true>
// CHECK:      hwagent.region 7 {{.*}}phase = optimizer>
func.func @bn_step(%x: tensor<8x4xf32>, %w: tensor<4xf32>, %rm: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %eighth = arith.constant 0.125 : f32
  %mom = arith.constant 0.9 : f32
  %rate = arith.constant 0.1 : f32
  %lr = arith.constant 0.01 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x4xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum, %w : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %eighth : f32
    %p = arith.mulf %m, %b : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%mean : tensor<4xf32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %old = arith.mulf %rm, %rm : tensor<4xf32>
  %decay = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%old : tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %mom : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %newrm = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%decay, %sum : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %b, %rate : f32
    %s = arith.addf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  // d loss / d w = sum(x) / 8 (the gradient reads the weight's own column sums).
  %grad = arith.mulf %sum, %w : tensor<4xf32>
  %step = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%w, %grad : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %m = arith.mulf %g, %lr : f32
    %s = arith.subf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %loss, %step, %newrm : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
