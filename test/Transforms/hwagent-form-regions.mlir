// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --hwagent-form-regions | FileCheck %s
// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --hwagent-form-regions="granularity=per-op" | FileCheck %s --check-prefix=PEROP
// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --hwagent-form-regions="granularity=per-layer" | FileCheck %s --check-prefix=LAYER
// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --hwagent-form-regions="max-ops=2" | FileCheck %s --check-prefix=CAP

#id = affine_map<(d0, d1) -> (d0, d1)>

// Matmul with a bias add and a ReLU: one fused region; the scalar constant and
// tensor.empty are cloned in, the weight stays an operand.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<4x16xf32>)
// CHECK:      %[[R:.*]] = hwagent.region 0 (%[[A0:.*]] = %[[X]] : tensor<4x8xf32>, %[[A1:.*]] = %[[W]] : tensor<8x16xf32>, %[[A2:.*]] = %[[B]] : tensor<4x16xf32>) -> (tensor<4x16xf32>)
// CHECK-DAG:    arith.constant 0.000000e+00 : f32
// CHECK-DAG:    tensor.empty() : tensor<4x16xf32>
// CHECK:        linalg.fill
// CHECK:        linalg.matmul ins(%[[A0]], %[[A1]]
// CHECK:        linalg.generic
// CHECK:        arith.addf
// CHECK:        %[[RELU:.*]] = linalg.generic
// CHECK:        arith.maximumf
// CHECK:        hwagent.yield %[[RELU]]
// CHECK-NOT:  hwagent.region
// CHECK:      return %[[R]]
// PEROP-LABEL: func.func @matmul_bias_relu
// PEROP-COUNT-3: hwagent.region
// PEROP-NOT: hwagent.region
// PEROP: return
// CAP-LABEL: func.func @matmul_bias_relu
// CAP: hwagent.region 0
// CAP: linalg.matmul
// CAP: linalg.generic
// CAP: hwagent.region 1
// CAP: linalg.generic
// CAP-NOT: hwagent.region
// CAP: return
func.func @matmul_bias_relu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A diamond whose right arm is opaque: the join may not enter the matmul's
// region (matmul -> opaque -> join would leave it and come back), so it is a
// region of its own; the left arm fuses into the matmul.
// CHECK-LABEL: func.func @diamond_through_opaque
// CHECK:      %[[M:.*]]:2 = hwagent.region 0 ({{.*}}) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK:        linalg.matmul
// CHECK:        math.exp
// CHECK:      %[[O:.*]] = hwagent.region 1 (%[[OA:.*]] = %[[M]]#0 : tensor<4x4xf32>) -> (tensor<4x4xf32>)
// CHECK-NEXT:   "test.opaque"(%[[OA]])
// CHECK:      %[[J:.*]] = hwagent.region 2 (%{{.*}} = %[[M]]#1 : tensor<4x4xf32>, %{{.*}} = %[[O]] : tensor<4x4xf32>)
// CHECK:        arith.addf
// CHECK:      return %[[J]]
func.func @diamond_through_opaque(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %l = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.exp %p : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %r = "test.opaque"(%m) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %j = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%l, %r : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %j : tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A pure diamond (both arms elementwise) is one region.
// CHECK-LABEL: func.func @diamond_elementwise
// CHECK-COUNT-1: hwagent.region
// CHECK-NOT: hwagent.region
func.func @diamond_elementwise(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %l = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.exp %p : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.tanh %p : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %j = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%l, %r : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %j : tensor<4x4xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Residual block: conv1 -> relu -> conv2 -> add(conv1 result). Each conv is
// an anchor with its consumers; the skip edge crosses regions.
// CHECK-LABEL: func.func @skip_connection
// CHECK:      %[[C1:.*]]:2 = hwagent.region 0
// CHECK:        linalg.conv_2d_nchw_fchw
// CHECK:        arith.maximumf
// CHECK:        hwagent.yield
// CHECK:      %[[C2:.*]] = hwagent.region 1 ({{.*}}%[[C1]]#{{[01]}}{{.*}}%[[C1]]#{{[01]}}
// CHECK:        linalg.conv_2d_nchw_fchw
// CHECK:        arith.addf
// CHECK:      return %[[C2]]
// LAYER-LABEL: func.func @skip_connection
// LAYER-COUNT-2: hwagent.region
// LAYER-NOT: hwagent.region
// LAYER: return
func.func @skip_connection(%x: tensor<1x8x6x6xf32>, %w1: tensor<8x8x1x1xf32>, %w2: tensor<8x8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %c1 = linalg.conv_2d_nchw_fchw ins(%x, %w1 : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x8x6x6xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %zero : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw ins(%r, %w2 : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %a = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %c1 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  return %a : tensor<1x8x6x6xf32>
}

// -----

// A recurrence: the loop is one region with its body; the ops around it form
// their own regions.
// CHECK-LABEL: func.func @recurrence
// CHECK:      hwagent.region 0
// CHECK-NEXT:   arith.constant
// CHECK:        scf.for
// CHECK:          linalg.matmul
// CHECK:          scf.yield
// CHECK:        hwagent.yield
// CHECK:      hwagent.region 1
// CHECK:        math.tanh
func.func @recurrence(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<1x4xf32>
  %h = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %h0) -> (tensor<1x4xf32>) {
    %m = linalg.matmul ins(%acc, %w : tensor<1x4xf32>, tensor<4x4xf32>) outs(%e : tensor<1x4xf32>) -> tensor<1x4xf32>
    scf.yield %m : tensor<1x4xf32>
  }
  %t = math.tanh %h : tensor<1x4xf32>
  return %t : tensor<1x4xf32>
}

// -----

// Calls are regions of their own; the callee is costed at the call site and
// gets no regions itself.
// CHECK-LABEL: func.func private @callee
// CHECK-NOT:   hwagent.region
// CHECK:       return
// CHECK-LABEL: func.func @caller
// CHECK:       hwagent.region 0
// CHECK-NEXT:    func.call @callee
// CHECK:       hwagent.region 1
// CHECK-NEXT:    "test.opaque"
func.func private @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = "test.opaque"(%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// Regions that already exist keep their ids; new ones continue after them.
// CHECK-LABEL: func.func @keeps_existing
// CHECK:       hwagent.region 5
// CHECK:       hwagent.region 6
// CHECK-NEXT:    math.exp
func.func @keeps_existing(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = hwagent.region 5 (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %t = math.tanh %a : tensor<4xf32>
    hwagent.yield %t : tensor<4xf32>
  }
  %y = math.exp %r : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// TOSA as written: the convolution anchors a region with its activation.
// CHECK-LABEL: func.func @tosa_conv_clamp
// CHECK:       hwagent.region 0
// CHECK:         tosa.conv2d
// CHECK:         tosa.clamp
// CHECK-NOT:   hwagent.region
func.func @tosa_conv_clamp(%x: tensor<1x8x8x4xf32>, %w: tensor<16x3x3x4xf32>, %b: tensor<16xf32>) -> tensor<1x6x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
      : (tensor<1x8x8x4xf32>, tensor<16x3x3x4xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x16xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %r : tensor<1x6x6x16xf32>
}

// -----

// Regions never span blocks.
// CHECK-LABEL: func.func @two_blocks
// CHECK:       hwagent.region 0
// CHECK:         math.exp
// CHECK:       cf.br ^bb1
// CHECK:     ^bb1
// CHECK:       hwagent.region 1
// CHECK:         math.tanh
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  cf.br ^bb1(%y : tensor<4xf32>)
^bb1(%z: tensor<4xf32>):
  %t = math.tanh %z : tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// conv -> relu -> max pool -> conv: pooling anchors its own region when fused
// and joins the preceding convolution's layer in per-layer mode.
// CHECK-LABEL: func.func @conv_pool_conv
// CHECK:       hwagent.region 0
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         arith.maximumf
// CHECK:       hwagent.region 1
// CHECK:         linalg.pooling_nchw_max
// CHECK:       hwagent.region 2
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK-NOT:   hwagent.region
// CHECK:       return
// LAYER-LABEL: func.func @conv_pool_conv
// LAYER:       hwagent.region 0
// LAYER:         linalg.conv_2d_nchw_fchw
// LAYER:         arith.maximumf
// LAYER:         linalg.pooling_nchw_max
// LAYER:       hwagent.region 1
// LAYER:         linalg.conv_2d_nchw_fchw
// LAYER-NOT:   hwagent.region
// LAYER:       return
func.func @conv_pool_conv(%x: tensor<1x4x8x8xf32>, %w1: tensor<4x4x1x1xf32>, %w2: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw ins(%x, %w1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %zero : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %ep = tensor.empty() : tensor<1x4x4x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%r, %window : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%ep : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw ins(%pool, %w2 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%ep : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c2 : tensor<1x4x4x4xf32>
}

// -----

// Ops with memory effects (bufferized code) stand alone and keep their order.
// CHECK-LABEL: func.func @buffers
// CHECK:       hwagent.region 0
// CHECK-NEXT:    memref.alloc
// CHECK:       hwagent.region 1
// CHECK:         linalg.fill
// CHECK:       hwagent.region 2
// CHECK-NEXT:    memref.copy
// CHECK:       hwagent.region 3
// CHECK-NEXT:    linalg.matmul
func.func @buffers(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %out: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x4xf32>)
  memref.copy %acc, %out : memref<4x4xf32> to memref<4x4xf32>
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  return
}
