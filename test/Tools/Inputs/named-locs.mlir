// Locations as an importer writes them (layer name over an absolute file
// location): the page names the layer and the source relative to the
// model's folder.
func.func @step(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32> loc("encoder.fc1"("/home/user/proj/models/mlp.py":12:0))
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32> loc("encoder.fc1"("/home/user/proj/models/mlp.py":14:0))
  return %y : tensor<8x4xf32>
}
