// A value computed and never used becomes a program with no results; its
// dispatch (with the ANE fault fallback) must still lower and run.
func.func @train_step(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {hwagent.param}) -> (tensor<f32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %dead = arith.mulf %x, %x : tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = arith.subf %w, %x : tensor<4x4xf32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%d : tensor<4x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %wn = arith.subf %w, %d : tensor<4x4xf32>
  return %loss, %wn : tensor<f32>, tensor<4x4xf32>
}
