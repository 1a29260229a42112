// Inputs first, of the same type as some parameters: x and target (4x4)
// beside w1 (4x4), b1 (4) and w2 (4x4). The results' types (4x4, 4, 4x4)
// match exactly one contiguous run of arguments, #2..#4, so the mapping is
// unambiguous although three 4x4 arguments could hold each 4x4 update.
// Training: pull w1 and w2 towards x, b1 towards the column sums of target.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
#col = affine_map<(d0, d1) -> (d1)>
func.func @train_step(%x: tensor<4x4xf32>, %t: tensor<4x4xf32>, %w1: tensor<4x4xf32>,
                      %b1: tensor<4xf32>, %w2: tensor<4x4xf32>)
    -> (tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %lr = arith.constant 0.25 : f32
  %d = arith.subf %w1, %x : tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #all], iterator_types = ["reduction", "reduction"]}
      ins(%d : tensor<4x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %g1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %lr : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %w1n = arith.subf %w1, %g1 : tensor<4x4xf32>
  %d2 = arith.subf %w2, %x : tensor<4x4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %g2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%d2 : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %lr : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %w2n = arith.subf %w2, %g2 : tensor<4x4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4xf32>) -> tensor<4xf32>
  %cs = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%t : tensor<4x4xf32>) outs(%z3 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %bd = arith.subf %b1, %cs : tensor<4xf32>
  %bg = arith.mulf %bd, %bd : tensor<4xf32>
  %b1n = arith.subf %b1, %bd : tensor<4xf32>
  return %loss, %w1n, %b1n, %w2n : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>
}
