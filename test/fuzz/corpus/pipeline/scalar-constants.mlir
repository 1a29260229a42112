// 0-d i64 constants converted to f32 as torch-mlir writes hardswish's
// scalars (issue 23): folded before region formation; a step using them
// must partition and lower.
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
#s0 = affine_map<() -> ()>
func.func @train_step(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %i3 = arith.constant dense<3> : tensor<i64>
  %es = tensor.empty() : tensor<f32>
  %f3 = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%i3 : tensor<i64>) outs(%es : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %h = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %f3 : tensor<8x16xf32>, tensor<f32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %t: f32, %out: f32):
    %p = arith.addf %a, %t : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]} ins(%h : tensor<8x16xf32>) outs(%es : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.addf %a, %acc : f32
    linalg.yield %p : f32
  } -> tensor<f32>
  return %s, %w : tensor<f32>, tensor<16x16xf32>
}
