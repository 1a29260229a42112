// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --hwagent-lower-library-calls | FileCheck %s

// ResNet-18's first convolution in f16: both operands widened to f32, the
// input padded, one multiply-accumulate generic over the padded input (the
// form hwagent-linalg-to-kernels sends to the SGEMM kernel), then rounded.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x32x32xf16>, %[[W:.*]]: tensor<8x3x7x7xf16>)
// CHECK: %[[XF:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x3x32x32xf16>)
// CHECK: arith.extf
// CHECK: %[[WF:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<8x3x7x7xf16>)
// CHECK: %[[XP:.*]] = tensor.pad %[[XF]] low[0, 0, 3, 3] high[0, 0, 3, 3]
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XP]], %[[WF]] : tensor<4x3x38x38xf32>, tensor<8x3x7x7xf32>) outs(%{{.*}} : tensor<4x8x16x16xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<4x8x16x16xf32>) outs(%{{.*}} : tensor<4x8x16x16xf16>)
// CHECK: arith.truncf
// CHECK: return %[[R]]
func.func @conv(%x: tensor<4x3x32x32xf16>, %w: tensor<8x3x7x7xf16>) -> tensor<4x8x16x16xf16> {
  %0 = tensor.empty() : tensor<4x8x16x16xf16>
  %1 = "byre.compute_on_tensor"(%x, %w, %0) {callee = "ConvOp_f16f16_f16", batch_group_count = 1 : i64, feature_group_count = 1 : i64, input_layout = "NCHW", kernel_layout = "NCHW", lhs_dilation = dense<1> : tensor<2xi64>, output_layout = "NCHW", padding = dense<3> : tensor<2x2xi64>, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<2> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<4x3x32x32xf16>, tensor<8x3x7x7xf16>, tensor<4x8x16x16xf16>) -> tensor<4x8x16x16xf16>
  return %1 : tensor<4x8x16x16xf16>
}

// -----

// The input gradient of a stride-2 3x3 convolution (padding 1): the output
// gradient with zeros between its rows and columns, padded by K-1-p low and
// to H + K-1 rows in all, correlated with the 180-degree-rotated filter.
// CHECK-DAG: #[[ROT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, -d2 + 2, -d3 + 2)>
// CHECK-DAG: #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>
// CHECK-LABEL: func.func @grad_input
// CHECK: %[[Z:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [2, 8, 4, 4] [1, 1, 2, 2] : tensor<2x8x4x4xf32> into tensor<2x8x7x7xf32>
// CHECK: %[[ZP:.*]] = tensor.pad %[[Z]] low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: %[[FLIP:.*]] = linalg.generic {indexing_maps = [#[[ROT]], #{{.*}}]
// CHECK: linalg.generic {indexing_maps = [#[[DY]], #[[WT]], #{{.*}}], {{.*}} ins(%[[ZP]], %[[FLIP]] : tensor<2x8x10x10xf32>, tensor<8x4x3x3xf32>) outs(%{{.*}} : tensor<2x4x8x8xf32>)
func.func @grad_input(%dy: tensor<2x8x4x4xf16>, %w: tensor<8x4x3x3xf16>) -> tensor<2x4x8x8xf16> {
  %0 = tensor.empty() : tensor<2x4x8x8xf16>
  %1 = "byre.compute_on_tensor"(%dy, %w, %0) {callee = "ConvBackwardDataOp_f16f16_f16", batch_group_count = 1 : i64, feature_group_count = 1 : i64, input_layout = "NCHW", kernel_layout = "NCHW", output_layout = "NCHW", padding = dense<1> : tensor<4xi64>, window_strides = dense<2> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x8x4x4xf16>, tensor<8x4x3x3xf16>, tensor<2x4x8x8xf16>) -> tensor<2x4x8x8xf16>
  return %1 : tensor<2x4x8x8xf16>
}

// -----

// The filter gradient of the same convolution: a contraction over the padded
// input (cut to the 9 rows the windows read) and the output gradient.
// CHECK-DAG: #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
// CHECK-DAG: #[[XP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5 * 2 + d2, d6 * 2 + d3)>
// CHECK-LABEL: func.func @grad_filter
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[CUT:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [2, 4, 9, 9] [1, 1, 1, 1] : tensor<2x4x10x10xf32> to tensor<2x4x9x9xf32>
// CHECK: linalg.generic {indexing_maps = [#[[DY]], #[[XP]], #{{.*}}], {{.*}} ins(%{{.*}}, %[[CUT]] : tensor<2x8x4x4xf32>, tensor<2x4x9x9xf32>) outs(%{{.*}} : tensor<8x4x3x3xf32>)
func.func @grad_filter(%x: tensor<2x4x8x8xf16>, %dy: tensor<2x8x4x4xf16>) -> tensor<8x4x3x3xf16> {
  %0 = tensor.empty() : tensor<8x4x3x3xf16>
  %1 = "byre.compute_on_tensor"(%x, %dy, %0) {callee = "ConvBackwardFilterOp_f16f16_f16", batch_group_count = 1 : i64, feature_group_count = 1 : i64, input_layout = "NCHW", kernel_layout = "NCHW", output_layout = "NCHW", padding = dense<1> : tensor<4xi64>, window_strides = dense<2> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x4x8x8xf16>, tensor<2x8x4x4xf16>, tensor<8x4x3x3xf16>) -> tensor<8x4x3x3xf16>
  return %1 : tensor<8x4x3x3xf16>
}

// -----

// Grouped convolution: group dimensions by reshaping, so every map stays a
// plain index sum.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 6, 6] : tensor<1x4x6x6xf32> into tensor<1x2x2x6x6xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
func.func @grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %0 = tensor.empty() : tensor<1x6x4x4xf32>
  %1 = "byre.compute_on_tensor"(%x, %w, %0) {callee = "ConvOp_f32f32_f32", feature_group_count = 2 : i64, padding = dense<0> : tensor<2x2xi64>, window_strides = dense<1> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<1x4x6x6xf32>, tensor<6x2x3x3xf32>, tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  return %1 : tensor<1x6x4x4xf32>
}

// -----

// Batch norm in training mode: the statistics are reductions over every
// dimension but the feature one, computed from f32 values and accumulated in
// f64.
// CHECK-DAG: #[[ALL:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ALL]], #[[C]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<2x8x4x4xf32>) outs(%{{.*}} : tensor<8xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ALL]], #[[C]], #[[C]], #[[C]], #[[C]], #[[ALL]]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[Y]]
func.func @batch_norm(%x: tensor<2x8x4x4xf16>, %scale: tensor<8xf32>, %offset: tensor<8xf32>) -> tensor<2x8x4x4xf16> {
  %0 = tensor.empty() : tensor<2x8x4x4xf16>
  %1 = "byre.compute_on_tensor"(%x, %scale, %offset, %0) {callee = "BatchNormTrainingOp_f16f32f32_f16", epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64, operandSegmentSizes = array<i32: 3, 1>} : (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>, tensor<2x8x4x4xf16>) -> tensor<2x8x4x4xf16>
  return %1 : tensor<2x8x4x4xf16>
}

// -----

// Max pooling: a window reduction over the input padded with -inf; its
// gradient finds each window's first maximum, then adds the gradient tap by
// tap (9 strided slice updates for a 3x3 window).
// CHECK-LABEL: func.func @pool
// CHECK: %[[NEG:.*]] = arith.constant 0xFC00 : f16
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @pool_grad
// CHECK: linalg.index 6
// CHECK: linalg.index 7
// CHECK-COUNT-9: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, {{[0-2]}}, {{[0-2]}}] [2, 4, 4, 4] [1, 1, 2, 2]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 1] [2, 4, 8, 8] [1, 1, 1, 1]
func.func @pool(%x: tensor<2x4x8x8xf16>) -> tensor<2x4x4x4xf16> {
  %0 = tensor.empty() : tensor<2x4x4x4xf16>
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "PoolMaxOp_f16_f16", base_dilations = dense<1> : tensor<4xi64>, padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>, window_dilations = dense<1> : tensor<4xi64>, window_dimensions = dense<[1, 1, 3, 3]> : tensor<4xi64>, window_strides = dense<[1, 1, 2, 2]> : tensor<4xi64>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x4x8x8xf16>, tensor<2x4x4x4xf16>) -> tensor<2x4x4x4xf16>
  return %1 : tensor<2x4x4x4xf16>
}
func.func @pool_grad(%x: tensor<2x4x8x8xf16>, %dy: tensor<2x4x4x4xf16>) -> tensor<2x4x8x8xf16> {
  %0 = tensor.empty() : tensor<2x4x8x8xf16>
  %1 = "byre.compute_on_tensor"(%x, %dy, %0) {callee = "PoolMaxGradOp_f16f16_f16", padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>, window_dimensions = dense<[1, 1, 3, 3]> : tensor<4xi64>, window_strides = dense<[1, 1, 2, 2]> : tensor<4xi64>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<2x4x8x8xf16>, tensor<2x4x4x4xf16>, tensor<2x4x8x8xf16>) -> tensor<2x4x8x8xf16>
  return %1 : tensor<2x4x8x8xf16>
}

// -----

// A matmul with both operands contracted over dimension 1 (x @ W^T) and one
// with a transposed output; an f16 sum accumulating in f32.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[CT:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x512xf32>, tensor<1000x512xf32>) outs(%{{.*}} : tensor<4x1000xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[AT]], #[[B]], #[[CT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x512xf32>, tensor<4x1000xf32>) outs(%{{.*}} : tensor<1000x512xf32>)
// CHECK-LABEL: func.func @sum
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<4x512x7x7xf16>) outs(%{{.*}} : tensor<4x512xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
func.func @matmul(%a: tensor<4x512xf16>, %w: tensor<1000x512xf16>, %g: tensor<4x1000xf16>) -> (tensor<4x1000xf16>, tensor<1000x512xf16>) {
  %0 = tensor.empty() : tensor<4x1000xf16>
  %1 = "byre.compute_on_tensor"(%a, %w, %0) {callee = "MatmulOp_f16f16_f16", lhs_contracting_dimension = 1 : i64, rhs_contracting_dimension = 1 : i64, operandSegmentSizes = array<i32: 2, 1>} : (tensor<4x512xf16>, tensor<1000x512xf16>, tensor<4x1000xf16>) -> tensor<4x1000xf16>
  %2 = tensor.empty() : tensor<1000x512xf16>
  %3 = "byre.compute_on_tensor"(%a, %g, %2) {callee = "MatmulOp_f16f16_f16", lhs_contracting_dimension = 0 : i64, output_transpose, rhs_contracting_dimension = 0 : i64, operandSegmentSizes = array<i32: 2, 1>} : (tensor<4x512xf16>, tensor<4x1000xf16>, tensor<1000x512xf16>) -> tensor<1000x512xf16>
  return %1, %3 : tensor<4x1000xf16>, tensor<1000x512xf16>
}
func.func @sum(%x: tensor<4x512x7x7xf16>) -> tensor<4x512xf16> {
  %0 = tensor.empty() : tensor<4x512xf16>
  %1 = "byre.compute_on_tensor"(%x, %0) {callee = "ReduceSumOp_f16_f16", dimensions = dense<[3, 2]> : tensor<2xi64>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x512x7x7xf16>, tensor<4x512xf16>) -> tensor<4x512xf16>
  return %1 : tensor<4x512xf16>
}
