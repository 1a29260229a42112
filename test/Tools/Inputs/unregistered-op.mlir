// An op of a dialect nobody registered, in a step hwagent is asked to
// compile (test/Tools/error-context.test).
func.func @train_step(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "foo.bar"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
