// A step that calls another function, run with its forward on the ANE
// (issue 13, class 2: the ANE variant used to rewrite the call's operands to
// f16 and func.call no longer verified).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#all = affine_map<(d0, d1) -> ()>
func.func @train_step(%w: tensor<16x4xf32>, %x: tensor<8x16xf32>, %labels: tensor<8xi64>)
    -> (f32, tensor<16x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.0625 : f32   // 2 / (8 * 4)
  %lr = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = func.call @fwd(%x, %w, %z) : (tensor<8x16xf32>, tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  // d = y - onehot(labels)
  %d = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %labels : tensor<8x4xf32>, tensor<8xi64>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%v: f32, %l: i64, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %hit = arith.cmpi eq, %ji, %l : i64
    %t = arith.select %hit, %one, %zero : f32
    %r = arith.subf %v, %t : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  // loss = mean(d^2)
  %se = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id2, #all], iterator_types = ["reduction", "reduction"]}
      ins(%d : tensor<8x4xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %total = tensor.extract %sum[] : tensor<f32>
  %inv = arith.constant 0.03125 : f32
  %loss = arith.mulf %total, %inv : f32
  // dw = x^T (scale * d); w' = w - lr * dw
  %ge = tensor.empty() : tensor<16x4xf32>
  %g0 = linalg.fill ins(%zero : f32) outs(%ge : tensor<16x4xf32>) -> tensor<16x4xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, i)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %d : tensor<8x16xf32>, tensor<8x4xf32>) outs(%g0 : tensor<16x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<16x4xf32>
  %wn = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %dw : tensor<16x4xf32>, tensor<16x4xf32>) outs(%ge : tensor<16x4xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %sg = arith.mulf %g, %scale : f32
    %step = arith.mulf %sg, %lr : f32
    %r = arith.subf %a, %step : f32
    linalg.yield %r : f32
  } -> tensor<16x4xf32>
  return %loss, %wn : f32, tensor<16x4xf32>
}
func.func private @fwd(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %z: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
