// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics --hwagent-lower-library-calls

func.func @unknown(%x: tensor<4x10xf16>) -> tensor<4x10xf16> {
  %0 = tensor.empty() : tensor<4x10xf16>
  // expected-error @+1 {{no lowering for library call 'SoftmaxOp_f16_f16' (known: ConvOp ConvBackwardDataOp ConvBackwardFilterOp BatchNormTrainingOp BatchNormGradOp PoolMaxOp PoolMaxGradOp ReduceSumOp ReduceMaxOp MatmulOp)}}
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "SoftmaxOp_f16_f16", operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x10xf16>, tensor<4x10xf16>) -> tensor<4x10xf16>
  return %1 : tensor<4x10xf16>
}

// -----

func.func @other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'foo.bar' belongs to no registered dialect: hwagent cannot compile it}}
  %0 = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @no_callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{byre.compute_on_tensor without a string 'callee' attribute}}
  %0 = "byre.compute_on_tensor"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @arity(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = tensor.empty() : tensor<2x4x8x8xf32>
  // expected-error @+1 {{library call 'ConvOp_f32_f32': 1 inputs and 1 outputs, expected 2 and 1}}
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "ConvOp_f32_f32", operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %1 : tensor<2x4x8x8xf32>
}

// -----

func.func @dtypes(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %0 = tensor.empty() : tensor<2x4x6x6xf32>
  // expected-error @+1 {{library call 'ConvOp_f16f16_f16': the callee's name says f16f16 in, f16 out, but the operands are f32f32 in, f32 out}}
  %1 = "byre.compute_on_tensor"(%x, %w, %0) {callee = "ConvOp_f16f16_f16", operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  return %1 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv_shape(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %0 = tensor.empty() : tensor<2x4x8x8xf32>
  // expected-error @+1 {{library call 'ConvOp': the output's spatial extent 8 is not the 6 these strides, padding and dilations give (input 2x3x8x8, filter 4x3x3x3, output 2x4x8x8, NCHW)}}
  %1 = "byre.compute_on_tensor"(%x, %w, %0) {callee = "ConvOp", operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %1 : tensor<2x4x8x8xf32>
}

// -----

func.func @conv_channels(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x5x8x8xf32> {
  %0 = tensor.empty() : tensor<2x5x8x8xf32>
  // expected-error @+1 {{library call 'ConvBackwardDataOp': the filter's input channels times feature_group_count are not the input's channels}}
  %1 = "byre.compute_on_tensor"(%dy, %w, %0) {callee = "ConvBackwardDataOp", padding = dense<1> : tensor<4xi64>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x5x8x8xf32>) -> tensor<2x5x8x8xf32>
  return %1 : tensor<2x5x8x8xf32>
}

// -----

func.func @batch_groups(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %0 = tensor.empty() : tensor<2x4x6x6xf32>
  // expected-error @+1 {{batch_group_count = 2 is not supported (only 1)}}
  %1 = "byre.compute_on_tensor"(%x, %w, %0) {callee = "ConvOp", batch_group_count = 2 : i64, operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  return %1 : tensor<2x4x6x6xf32>
}

// -----

func.func @layout(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %0 = tensor.empty() : tensor<2x4x6x6xf32>
  // expected-error @+1 {{layout 'HWCN' is not supported (NCHW and NHWC are)}}
  %1 = "byre.compute_on_tensor"(%x, %w, %0) {callee = "ConvOp", kernel_layout = "HWCN", operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  return %1 : tensor<2x4x6x6xf32>
}

// -----

func.func @padding(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %0 = tensor.empty() : tensor<2x4x6x6xf32>
  // expected-error @+1 {{attribute 'padding' has 3 values, expected 4 ([h_lo, h_hi, w_lo, w_hi])}}
  %1 = "byre.compute_on_tensor"(%x, %w, %0) {callee = "ConvOp", padding = dense<[0, 0, 0]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  return %1 : tensor<2x4x6x6xf32>
}

// -----

func.func @pool_window(%x: tensor<2x4x8x8xf16>) -> tensor<2x4x4x4xf16> {
  %0 = tensor.empty() : tensor<2x4x4x4xf16>
  // expected-error @+1 {{library call 'PoolMaxOp_f16_f16': needs the attribute 'window_dimensions'}}
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "PoolMaxOp_f16_f16", operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x4x8x8xf16>, tensor<2x4x4x4xf16>) -> tensor<2x4x4x4xf16>
  return %1 : tensor<2x4x4x4xf16>
}

// -----

func.func @pool_shape(%x: tensor<2x4x8x8xf16>) -> tensor<2x4x3x3xf16> {
  %0 = tensor.empty() : tensor<2x4x3x3xf16>
  // expected-error @+1 {{dimension 2 of the output is 3, the windows give 4}}
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "PoolMaxOp_f16_f16", padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>, window_dimensions = dense<[1, 1, 3, 3]> : tensor<4xi64>, window_strides = dense<[1, 1, 2, 2]> : tensor<4xi64>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x4x8x8xf16>, tensor<2x4x3x3xf16>) -> tensor<2x4x3x3xf16>
  return %1 : tensor<2x4x3x3xf16>
}

// -----

func.func @feature_index(%x: tensor<2x8x4x4xf16>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x4x4xf16> {
  %0 = tensor.empty() : tensor<2x8x4x4xf16>
  // expected-error @+1 {{feature_index 4 is outside the input's 4 dimensions}}
  %1 = "byre.compute_on_tensor"(%x, %s, %b, %0) {callee = "BatchNormTrainingOp_f16f32f32_f16", epsilon = 1.0E-5 : f32, feature_index = 4 : i64, operandSegmentSizes = array<i32: 3, 1>} : (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>, tensor<2x8x4x4xf16>) -> tensor<2x8x4x4xf16>
  return %1 : tensor<2x8x4x4xf16>
}

// -----

func.func @reduce(%x: tensor<4x10xf32>) -> tensor<10xf32> {
  %0 = tensor.empty() : tensor<10xf32>
  // expected-error @+1 {{the output's shape is not the input's without the reduced dimensions}}
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "ReduceSumOp_f32_f32", dimensions = dense<1> : tensor<1xi64>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<10xf32>
  return %1 : tensor<10xf32>
}

// -----

func.func @matmul(%a: tensor<4x512xf16>, %w: tensor<1000x256xf16>) -> tensor<4x1000xf16> {
  %0 = tensor.empty() : tensor<4x1000xf16>
  // expected-error @+1 {{operands 4x512 and 1000x256 contracted over dimensions 1 and 1 do not give the 4x1000 output}}
  %1 = "byre.compute_on_tensor"(%a, %w, %0) {callee = "MatmulOp_f16f16_f16", lhs_contracting_dimension = 1 : i64, rhs_contracting_dimension = 1 : i64, operandSegmentSizes = array<i32: 2, 1>} : (tensor<4x512xf16>, tensor<1000x256xf16>, tensor<4x1000xf16>) -> tensor<4x1000xf16>
  return %1 : tensor<4x1000xf16>
}

// -----

func.func @dynamic(%x: tensor<?x10xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x10xf32>
  %0 = tensor.empty(%n) : tensor<?xf32>
  // expected-error @+1 {{every operand and result must be a tensor of static shape, not 'tensor<?x10xf32>'}}
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "ReduceSumOp_f32_f32", dimensions = dense<1> : tensor<1xi64>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<?x10xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
