// Constants written as linalg.fill, tensor.splat or linalg.broadcast fold
// like dense constants (issue 36, item 6): torch-mlir writes relu6's and
// hardswish's bounds as 0-d f64 fills truncated to f32 (mobilenet_v2 and
// mobilenet_v3_small from torchvision). Unfolded, the f64 fill made a
// region of its own that the ANE cannot take (no f64), a CPU program
// between the ANE's convolutions.
// RUN: hwagent-opt %s --hwagent-form-regions | FileCheck %s
// RUN: hwagent-opt %s --partition-backends="target=apple-m4 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PART

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sc = affine_map<(d0, d1, d2, d3) -> ()>
#s0 = affine_map<() -> ()>
#v = affine_map<(d0) -> (d0)>
#bc = affine_map<(d0, d1, d2, d3) -> (d1)>

// CHECK-LABEL: func.func @relu6_fill
// CHECK-NOT: f64
// CHECK: arith.constant dense<3.000000e+00> : tensor<16xf32>
// CHECK: hwagent.region 0
// CHECK-DAG: arith.constant dense<6.000000e+00> : tensor<f32>
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: hwagent.yield
// CHECK: hwagent.region 1
// CHECK-NOT: hwagent.region 2
// PART: remark: program 0 on ane (simulated): regions [0, 1]
// PART-NOT: remark: program 1
func.func @relu6_fill(%x: tensor<1x16x56x56xf32>, %w: tensor<16x16x3x3xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<1x16x52x52xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x16x54x54xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x16x54x54xf32>) -> tensor<1x16x54x54xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x16x56x56xf32>, tensor<16x16x3x3xf32>) outs(%f0 : tensor<1x16x54x54xf32>) -> tensor<1x16x54x54xf32>
  // relu6's bounds, as torch-mlir writes them: 0-d f64 fills, truncated.
  %six64 = arith.constant 6.0 : f64
  %zero64 = arith.constant 0.0 : f64
  %ed = tensor.empty() : tensor<f64>
  %d6 = linalg.fill ins(%six64 : f64) outs(%ed : tensor<f64>) -> tensor<f64>
  %d0 = linalg.fill ins(%zero64 : f64) outs(%ed : tensor<f64>) -> tensor<f64>
  %es = tensor.empty() : tensor<f32>
  %s6 = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%d6 : tensor<f64>) outs(%es : tensor<f32>) {
  ^bb0(%in: f64, %out: f32):
    %t = arith.truncf %in : f64 to f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %s0 = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []} ins(%d0 : tensor<f64>) outs(%es : tensor<f32>) {
  ^bb0(%in: f64, %out: f32):
    %t = arith.truncf %in : f64 to f32
    linalg.yield %t : f32
  } -> tensor<f32>
  // A per-channel offset written as a splat, then broadcast by a generic.
  %three = arith.constant 3.0 : f32
  %o = tensor.splat %three : tensor<16xf32>
  %eh = tensor.empty() : tensor<1x16x54x54xf32>
  %h = linalg.generic {indexing_maps = [#id, #sc, #sc, #bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %s6, %s0, %o : tensor<1x16x54x54xf32>, tensor<f32>, tensor<f32>, tensor<16xf32>) outs(%eh : tensor<1x16x54x54xf32>) {
  ^bb0(%a: f32, %s: f32, %z: f32, %off: f32, %out: f32):
    %p = arith.addf %a, %off : f32
    %lo = arith.maximumf %p, %z : f32
    %hi = arith.minimumf %lo, %s : f32
    linalg.yield %hi : f32
  } -> tensor<1x16x54x54xf32>
  %e1 = tensor.empty() : tensor<1x16x52x52xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16x52x52xf32>) -> tensor<1x16x52x52xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%h, %w2 : tensor<1x16x54x54xf32>, tensor<16x16x3x3xf32>) outs(%f1 : tensor<1x16x52x52xf32>) -> tensor<1x16x52x52xf32>
  return %c2 : tensor<1x16x52x52xf32>
}

// A broadcast of a fill folds too; a fill of a value known only at run
// time stays.
// CHECK-LABEL: func.func @broadcast_and_kept
// CHECK: %[[B:.*]] = arith.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK: return %[[B]],
func.func @broadcast_and_kept(%arg: f32) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %two = arith.constant 2.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%two : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %e48 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.broadcast ins(%f : tensor<8xf32>) outs(%e48 : tensor<4x8xf32>) dimensions = [0]
  %g = linalg.fill ins(%arg : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  return %b, %g : tensor<4x8xf32>, tensor<8xf32>
}
