// A step that returns its loss and a gradient instead of an updated
// parameter: loss = sum(w * w), grad = 2 w. By the types alone the gradient
// would update `w` (the contiguous-run rule); --no-updates says it does not.
func.func @grad_step(%w: tensor<3x2xf32> {hwagent.name = "w", hwagent.role = "parameter"})
    -> (tensor<f32> {hwagent.name = "loss"}, tensor<3x2xf32> {hwagent.name = "grad.w"}) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                          iterator_types = ["reduction", "reduction"]}
      ins(%w : tensor<3x2xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %s, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %grad = arith.addf %w, %w : tensor<3x2xf32>
  return %loss, %grad : tensor<f32>, tensor<3x2xf32>
}
