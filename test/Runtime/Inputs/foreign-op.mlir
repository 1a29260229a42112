// An op of a dialect hwagent does not know: parsed with
// --allow-unregistered-dialect, refused by name when compiled.
func.func @train_step(%x: tensor<4xf32>) -> (tensor<f32>) {
  %0 = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
