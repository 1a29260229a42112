// A data argument with a batch of zero samples (issue 38): --data must be
// refused with a message, not divide by zero.
func.func @train_step(%x: tensor<0x2xf32> {hwagent.name = "x"},
                      %w: tensor<2xf32> {hwagent.name = "w"})
    -> (tensor<f32>, tensor<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                          iterator_types = ["reduction"]}
      ins(%w : tensor<2xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %s, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %next = arith.addf %w, %w : tensor<2xf32>
  return %loss, %next : tensor<f32>, tensor<2xf32>
}
