// A tensor.expand_shape whose static output_shape disagrees with its result
// type passes upstream's verifier but fails bufferization deep in the
// lowering (found by the pipeline fuzzer's lowering oracle): the partitioner
// refuses it at the op. A consistent one partitions.
// RUN: hwagent-opt %s --split-input-file --partition-backends -verify-diagnostics -o /dev/null

func.func @bad(%a: tensor<8x16xf32>) -> tensor<8x2x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op output_shape[2] = 1 disagrees with the result type's size 8 (hwagent-form-regions)}}
  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 2, 1] : tensor<8x16xf32> into tensor<8x2x8xf32>
  return %e : tensor<8x2x8xf32>
}

// -----

func.func @good(%a: tensor<8x16xf32>) -> tensor<8x2x8xf32> {
  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
  return %e : tensor<8x2x8xf32>
}
