func.func @host_reads_region(%a: tensor<?x512xf32>, %b: tensor<512x512xf32>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x512xf32>
  %e = tensor.empty(%d0) : tensor<?x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<?x512xf32>, tensor<512x512xf32>) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  %d = tensor.dim %m, %c0 : tensor<?x512xf32>
  %n = arith.addi %d, %c1 : index
  %e2 = tensor.empty(%n) : tensor<?x512xf32>
  %p = tensor.pad %m low[0, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    %z = arith.constant 0.0 : f32
    tensor.yield %z : f32
  } : tensor<?x512xf32> to tensor<?x512xf32>
  %r = linalg.matmul ins(%p, %b : tensor<?x512xf32>, tensor<512x512xf32>) outs(%e2 : tensor<?x512xf32>) -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}
