// A step whose live tensors (two 16 GiB matrices and their product) exceed
// any test machine's memory: hwagent-run refuses it before compiling.
func.func @train_step(%x: tensor<65536x65536xf32>, %w: tensor<65536x65536xf32> {hwagent.param})
    -> (f32, tensor<65536x65536xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<65536x65536xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<65536x65536xf32>) -> tensor<65536x65536xf32>
  %y = linalg.matmul ins(%x, %w : tensor<65536x65536xf32>, tensor<65536x65536xf32>) outs(%fill : tensor<65536x65536xf32>) -> tensor<65536x65536xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%y : tensor<65536x65536xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) { %c = arith.addf %a, %b : f32
      linalg.yield %c : f32 }
  %loss = tensor.extract %s[] : tensor<f32>
  return %loss, %y : f32, tensor<65536x65536xf32>
}
