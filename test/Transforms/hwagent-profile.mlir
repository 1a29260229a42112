// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics --hwagent-form-regions="granularity=per-op" --hwagent-profile | FileCheck %s

// Hand counts (docs/features.md): a multiply-add is 2 FLOPs; bytes are the
// region's operands (read) and results (written); tensor.empty and scalar
// constants are cloned in and cost nothing.

// conv: 2 * (1*4*6*6 outputs) * (3*3*3 taps) = 7776. Reads the input
// (1*3*8*8*4 B = 768) and the filter (4*3*3*3*4 B = 432); writes 144*4 B.
// A 3x3 window at unit stride over 3 input channels: Winograd applies to
// all of its FLOPs.
// CHECK-LABEL: func.func @conv
// CHECK: features = #hwagent.features<flops = 7776, bytes_read = 1200, bytes_written = 576, params = 108, param_bytes = 432, ops = {conv = 1}, depth = 1, types = [f32], dynamic_dims = 0, max_dim = 8, max_rank = 4, rows = 48, loops = false, phase = unknown, winograd_flops = 7776>
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

// Winograd F(2x2,3x3) does not apply to a 1x1 window or a strided 3x3 one:
// no winograd_flops.
// CHECK-LABEL: func.func @conv_not_winograd
// CHECK: features = #hwagent.features<flops = 1536, {{.*}}ops = {conv = 1}, {{.*}}loops = false, phase = {{[a-z]+}}>}
// CHECK: features = #hwagent.features<flops = 1944, {{.*}}ops = {conv = 1}, {{.*}}loops = false, phase = {{[a-z]+}}>}
// CHECK-NOT: winograd_flops
func.func @conv_not_winograd(%x: tensor<1x3x8x8xf32>, %w1: tensor<4x3x1x1xf32>, %w3: tensor<4x3x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x3x3xf32>) {
  %e1 = tensor.empty() : tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw ins(%x, %w1 : tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) outs(%e1 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %e3 = tensor.empty() : tensor<1x4x3x3xf32>
  %c3 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>} ins(%x, %w3 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e3 : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %c1, %c3 : tensor<1x4x8x8xf32>, tensor<1x4x3x3xf32>
}

// -----

// depthwise: 2 * (1*4*6*6) * (3*3) = 2592; 36 weights.
// CHECK-LABEL: func.func @depthwise
// CHECK: features = #hwagent.features<flops = 2592, bytes_read = 1168, bytes_written = 576, params = 36, param_bytes = 144, ops = {depthwise = 1}
func.func @depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw ins(%x, %w : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

// A quantized matmul is a matmul (it reads two zero points as further
// inputs): per point two zero-point subtractions, a multiply and an add
// (the sign extensions are casts), 4 * (8*4*16) = 2048; B is its weight.
// CHECK-LABEL: func.func @quantized_matmul
// CHECK: features = #hwagent.features<flops = 2048, bytes_read = 200, bytes_written = 128, params = 64, param_bytes = 64, ops = {matmul = 1}
func.func @quantized_matmul(%a: tensor<8x16xi8>, %b: tensor<16x4xi8>, %za: i32, %zb: i32) -> tensor<8x4xi32> {
  %e = tensor.empty() : tensor<8x4xi32>
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<8x16xi8>, tensor<16x4xi8>, i32, i32) outs(%e : tensor<8x4xi32>) -> tensor<8x4xi32>
  return %r : tensor<8x4xi32>
}

// -----

// matmul 4x8 * 8x16: 2*4*16*8 = 1024; batch_matmul 2x(4x8 * 8x16) = 2048.
// The accumulator (a fill of tensor.empty) is cloned in and read from nowhere.
// CHECK-LABEL: func.func @matmuls
// CHECK: features = #hwagent.features<flops = 1024, bytes_read = 640, bytes_written = 256, params = 128, param_bytes = 512, ops = {matmul = 1}, depth = 1
// CHECK: features = #hwagent.features<flops = 2048, bytes_read = 640, bytes_written = 256, params = 256, param_bytes = 512, ops = {matmul = 1}, depth = 1, types = [f16], dynamic_dims = 0, max_dim = 16, max_rank = 3
func.func @matmuls(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %ba: tensor<2x4x8xf16>, %bb: tensor<2x8x16xf16>) -> (tensor<4x16xf32>, tensor<2x4x16xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %eb = tensor.empty() : tensor<2x4x16xf16>
  %bm = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x8xf16>, tensor<2x8x16xf16>) outs(%eb : tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  return %m, %bm : tensor<4x16xf32>, tensor<2x4x16xf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// max pooling 2x2 stride 2 on 1x4x8x8: 64 outputs * 4 taps = 256.
// Column sum of 8x16: 128 adds. Elementwise mul+add over 4x16: 128.
// CHECK-LABEL: func.func @pool_reduce_elementwise
// CHECK: features = #hwagent.features<flops = 256, bytes_read = 1024, bytes_written = 256, params = 0, param_bytes = 0, ops = {pooling = 1}
// CHECK: features = #hwagent.features<flops = 128, bytes_read = 512, bytes_written = 64, params = 0, param_bytes = 0, ops = {reduction = 1}
// CHECK: features = #hwagent.features<flops = 128, bytes_read = 512, bytes_written = 256, params = 0, param_bytes = 0, ops = {elementwise = 1}
func.func @pool_reduce_elementwise(%x: tensor<1x4x8x8xf32>, %r: tensor<8x16xf32>, %p: tensor<4x16xf32>, %q: tensor<4x16xf32>)
    -> (tensor<1x4x4x4xf32>, tensor<16xf32>, tensor<4x16xf32>) {
  %window = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e16 = tensor.empty() : tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%r : tensor<8x16xf32>) outs(%e16 : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %fma = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %q : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %pool, %sum, %fma : tensor<1x4x4x4xf32>, tensor<16xf32>, tensor<4x16xf32>
}

// -----

// TOSA 1.0 forms (bias adds count one FLOP per output):
//   conv2d 1x8x8x4 * 16x3x3x4 -> 1x6x6x16: 2*576*36 + 576 = 42048
//   depthwise_conv2d 1x8x8x4 * 3x3x4x2 -> 1x6x6x8: 2*288*9 + 288 = 5472
//   matmul 1x4x8 * 1x8x16: 2*64*8 = 1024
//   avg_pool2d 2x2 on 1x8x8x4 -> 1x4x4x4: 64*4 + 64 = 320
//   max_pool2d 2x2: 64*4 = 256
//   reduce_sum over 1x8x4: 32;  add of 1x6x6x16: 576
// CHECK-LABEL: func.func @tosa_ops
// CHECK: features = #hwagent.features<flops = 42048, {{.*}}params = 576, param_bytes = 2304, ops = {conv = 1}
// CHECK: features = #hwagent.features<flops = 5472, {{.*}}params = 72, param_bytes = 288, ops = {depthwise = 1}
// CHECK: features = #hwagent.features<flops = 1024, {{.*}}ops = {matmul = 1}
// CHECK: features = #hwagent.features<flops = 320, {{.*}}ops = {pooling = 1}
// CHECK: features = #hwagent.features<flops = 256, {{.*}}ops = {pooling = 1}
// CHECK: features = #hwagent.features<flops = 32, {{.*}}ops = {reduction = 1}
// CHECK: features = #hwagent.features<flops = 576, {{.*}}ops = {elementwise = 1}
func.func @tosa_ops(%x: tensor<1x8x8x4xf32>, %w: tensor<16x3x3x4xf32>, %b: tensor<16xf32>, %dw: tensor<3x3x4x2xf32>, %db: tensor<8xf32>,
                    %ma: tensor<1x4x8xf32>, %mb: tensor<1x8x16xf32>, %r: tensor<1x8x4xf32>)
    -> (tensor<1x6x6x16xf32>, tensor<1x6x6x8xf32>, tensor<1x4x16xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x1x4xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
      : (tensor<1x8x8x4xf32>, tensor<16x3x3x4xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x16xf32>
  %d = tosa.depthwise_conv2d %x, %dw, %db, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
      : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %m = tosa.matmul %ma, %mb, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %ap = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}
      : (tensor<1x8x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %mp = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}
      : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %s = tosa.reduce_sum %r {axis = 1 : i32} : (tensor<1x8x4xf32>) -> tensor<1x1x4xf32>
  %a = tosa.add %c, %c : (tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %a, %d, %m, %ap, %mp, %s : tensor<1x6x6x16xf32>, tensor<1x6x6x8xf32>, tensor<1x4x16xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x1x4xf32>
}

// -----

// Dynamic shapes: the dynamic extent counts as 1 (a lower bound) and each
// dynamic dimension of %a, %acc and the result is reported. 2*1*16*8 = 256;
// reads 1*8*4 + 8*16*4 + 1*16*4 = 608 bytes.
// CHECK-LABEL: func.func @dynamic
// CHECK: features = #hwagent.features<flops = 256, bytes_read = 608, bytes_written = 64, params = 128, param_bytes = 512, ops = {matmul = 1}, depth = 1, types = [f32], dynamic_dims = 3
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>, %acc: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %m : tensor<?x16xf32>
}

// -----

// A loop of 8 steps around a 1x4 * 4x4 matmul: 8 * 32 = 256, loops = true.
// CHECK-LABEL: func.func @loop
// CHECK: features = #hwagent.features<flops = 256, {{.*}}ops = {control_flow = 1}, depth = 1, types = [f32], dynamic_dims = 0, max_dim = 4, max_rank = 2, rows = {{[0-9]+}}, loops = true
func.func @loop(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %h = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %h0) -> (tensor<1x4xf32>) {
    %m = linalg.matmul ins(%acc, %w : tensor<1x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
    scf.yield %m : tensor<1x4xf32>
  }
  return %h : tensor<1x4xf32>
}

// -----

// A call is costed from its callee's body (2 elementwise ops of 4 elements).
// CHECK-LABEL: func.func @caller
// CHECK: features = #hwagent.features<flops = 8, bytes_read = 16, bytes_written = 16, params = 0, param_bytes = 0, ops = {elementwise = 2}, depth = 2
func.func private @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  %z = arith.addf %y, %x : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Library calls (ByteIR's byre.compute_on_tensor) are costed by callee name and
// operand shapes; a backward callee sets the phase; an unknown one warns.
// CHECK-LABEL: func.func @library_calls
// CHECK: features = #hwagent.features<flops = 7776, {{.*}}params = 108, param_bytes = 216, ops = {conv = 1}, {{.*}}types = [f16]{{.*}}phase = unknown>
// CHECK: features = #hwagent.features<flops = 7776, {{.*}}ops = {conv = 1}, {{.*}}phase = backward>
// CHECK: features = #hwagent.features<flops = 0, {{.*}}ops = {opaque = 1}
func.func @library_calls(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>, %g: tensor<1x4x6x6xf16>) -> (tensor<1x4x6x6xf16>, tensor<4x3x3x3xf16>, tensor<1x4x6x6xf16>) {
  %e = tensor.empty() : tensor<1x4x6x6xf16>
  %y = "byre.compute_on_tensor"(%x, %w, %e) {callee = "ConvOp_f16f16_f16", operandSegmentSizes = array<i32: 2, 1>}
      : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>, tensor<1x4x6x6xf16>) -> tensor<1x4x6x6xf16>
  %ew = tensor.empty() : tensor<4x3x3x3xf16>
  %dw = "byre.compute_on_tensor"(%x, %g, %ew) {callee = "ConvBackwardFilterOp_f16f16_f16", operandSegmentSizes = array<i32: 2, 1>}
      : (tensor<1x3x8x8xf16>, tensor<1x4x6x6xf16>, tensor<4x3x3x3xf16>) -> tensor<4x3x3x3xf16>
  // expected-warning @+1 {{hwagent-profile: no cost estimate for 'byre.compute_on_tensor'; counted as opaque with 0 FLOPs}}
  %u = "byre.compute_on_tensor"(%y, %e) {callee = "MysteryOp_f16", operandSegmentSizes = array<i32: 1, 1>}
      : (tensor<1x4x6x6xf16>, tensor<1x4x6x6xf16>) -> tensor<1x4x6x6xf16>
  return %y, %dw, %u : tensor<1x4x6x6xf16>, tensor<4x3x3x3xf16>, tensor<1x4x6x6xf16>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
#red = affine_map<(d0) -> ()>

// Training phase from data flow (result 0 is the loss, the rest are updated
// parameters), and from an explicit hwagent.phase attribute. The backward
// ops that feed the update through elementwise ops compute the parameter's
// gradient (weight_gradient); the loss does not.
// CHECK-LABEL: func.func @step
// CHECK-SAME: phase = mixed, weight_gradient = true>
// CHECK:      hwagent.region 0 {{.*}}phase = backward, weight_gradient = true>
// CHECK-NEXT:   math.exp {{.*}}hwagent.phase = #hwagent.phase<backward>
// CHECK:      hwagent.region 1 {{.*}}phase = forward>
// CHECK:        linalg.generic
// CHECK:      hwagent.region 2 {{.*}}phase = backward, weight_gradient = true>
// CHECK-NEXT:   arith.mulf
// CHECK:      hwagent.region 3 {{.*}}phase = optimizer>
// CHECK-NEXT:   arith.subf
func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %tag = math.exp %x {hwagent.phase = #hwagent.phase<backward>} : tensor<4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #red], iterator_types = ["reduction"]}
      ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %grad = arith.mulf %x, %tag : tensor<4xf32>
  %new = arith.subf %w, %grad : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}
