// Constants computed from constants are folded before clustering, so that
// no region (and no program boundary) exists only because of a constant:
// torch-mlir writes hardswish's 3, 6 and 0 as 0-d i64 tensors converted to
// f32 (mobilenet_v3_small), which the ANE cannot take and which used to
// become three CPU programs between two ANE convolutions.
// RUN: hwagent-opt %s --hwagent-form-regions | FileCheck %s
// RUN: hwagent-opt %s --partition-backends="target=apple-m4 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PART

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sc = affine_map<(d0, d1, d2, d3) -> ()>
#s0 = affine_map<() -> ()>

// CHECK-LABEL: func.func @hardswish
// CHECK-NOT: arith.sitofp
// CHECK: hwagent.region 0
// CHECK-DAG: arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK-DAG: arith.constant dense<6.000000e+00> : tensor<f32>
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: hwagent.yield
// CHECK: hwagent.region 1
// CHECK-NOT: hwagent.region 2
// PART: remark: program 0 on ane (simulated): regions [0, 1]
// PART-NOT: remark: program 1
func.func @hardswish(%x: tensor<1x16x56x56xf32>, %w: tensor<16x16x3x3xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<1x16x52x52xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x16x54x54xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x16x54x54xf32>) -> tensor<1x16x54x54xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x16x56x56xf32>, tensor<16x16x3x3xf32>) outs(%f0 : tensor<1x16x54x54xf32>) -> tensor<1x16x54x54xf32>
  %i3 = arith.constant dense<3> : tensor<i64>
  %i6 = arith.constant dense<6> : tensor<i64>
  %i0 = arith.constant dense<0> : tensor<i64>
  %es = tensor.empty() : tensor<f32>
  %f3 = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%i3 : tensor<i64>) outs(%es : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %f6 = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%i6 : tensor<i64>) outs(%es : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %fz = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%i0 : tensor<i64>) outs(%es : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %eh = tensor.empty() : tensor<1x16x54x54xf32>
  %h = linalg.generic {indexing_maps = [#id, #sc, #sc, #sc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %f3, %f6, %fz : tensor<1x16x54x54xf32>, tensor<f32>, tensor<f32>, tensor<f32>) outs(%eh : tensor<1x16x54x54xf32>) {
  ^bb0(%a: f32, %t: f32, %s: f32, %z: f32, %out: f32):
    %p = arith.addf %a, %t : f32
    %lo = arith.maximumf %p, %z : f32
    %hi = arith.minimumf %lo, %s : f32
    %m = arith.mulf %a, %hi : f32
    %d = arith.divf %m, %s : f32
    linalg.yield %d : f32
  } -> tensor<1x16x54x54xf32>
  %e1 = tensor.empty() : tensor<1x16x52x52xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16x52x52xf32>) -> tensor<1x16x52x52xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%h, %w2 : tensor<1x16x54x54xf32>, tensor<16x16x3x3xf32>) outs(%f1 : tensor<1x16x52x52xf32>) -> tensor<1x16x52x52xf32>
  return %c2 : tensor<1x16x52x52xf32>
}
