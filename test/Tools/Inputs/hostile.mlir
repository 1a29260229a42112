// A model file that tries to put script and markup into the report page:
// its function name and its locations are text the page must show, escaped.
func.func @"</script><script>alert(1)</script>"(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32> loc("\"><img src=x onerror=alert(2)>.mlir":1:1)
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32> loc("<svg onload=alert(3)>":2:2)
  return %y : tensor<8x4xf32>
}
