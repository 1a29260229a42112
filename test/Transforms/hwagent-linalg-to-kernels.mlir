// RUN: hwagent-opt %s --hwagent-linalg-to-kernels --split-input-file | FileCheck %s
// RUN: hwagent-opt %s --hwagent-linalg-to-kernels="min-flops=1000000000" --split-input-file | FileCheck %s --check-prefix=THRESHOLD

// A matmul becomes one kernel call with a constant spec: version 1, three
// loops (64, 48, 32), then A = (d0, d2), B = (d2, d1), C = (d0, d1) as
// (constant, terms, loop, coefficient) per dimension.
// CHECK: memref.global "private" constant @__hwagent_contract_spec{{.*}} : memref<32xi64> = dense<[1, 3, 64, 48, 32, 2, 0, 1, 0, 1, 0, 1, 2, 1, 2, 0, 1, 2, 1, 0, 1, 1, 1, 2, 0, 1, 0, 1, 0, 1, 1, 1]>
// CHECK: func.func private @hwagent_contract_f32(memref<?xi64>, memref<*xf32>, memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul
// CHECK: %[[SPEC:.*]] = memref.get_global @__hwagent_contract_spec
// CHECK: %[[S:.*]] = memref.cast %[[SPEC]] : memref<32xi64> to memref<?xi64>
// CHECK: %[[A:.*]] = memref.cast %arg0 : memref<64x32xf32> to memref<*xf32>
// CHECK: call @hwagent_contract_f32(%[[S]], %[[A]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.matmul
// THRESHOLD-LABEL: func.func @matmul
// THRESHOLD: linalg.matmul
func.func @matmul(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %c: memref<64x48xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<64x48xf32>)
  return
}

// -----

// A strided convolution: the window is an affine sum with a coefficient.
// CHECK-LABEL: func.func @conv
// CHECK: call @hwagent_contract_f32
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%x: memref<2x8x17x17xf32>, %w: memref<16x8x3x3xf32>, %y: memref<2x16x8x8xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<2x8x17x17xf32>, memref<16x8x3x3xf32>) outs(%y : memref<2x16x8x8xf32>)
  return
}

// -----

// The weight gradient of a convolution, as a training step writes it.
// CHECK-LABEL: func.func @conv_grad_filter
// CHECK: call @hwagent_contract_f32
// CHECK-NOT: linalg.generic
func.func @conv_grad_filter(%dy: memref<4x16x8x8xf32>, %x: memref<4x8x10x10xf32>, %dw: memref<16x8x3x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5 + d2, d6 + d3)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : memref<4x16x8x8xf32>, memref<4x8x10x10xf32>) outs(%dw : memref<16x8x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not a multiply-accumulate (a max-reduction), a matrix-vector product (N =
// 1: no GEMM worth a call, and no convolution) and f16 operands stay as
// loops.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: hwagent_contract_f32
// CHECK: linalg.generic
// CHECK: linalg.matvec
// CHECK: linalg.matmul
func.func @stays(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>,
                 %v: memref<64xf32>, %r: memref<64xf32>,
                 %h: memref<64x64xf16>, %hc: memref<64x64xf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.maximumf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.matvec ins(%a, %v : memref<64x64xf32>, memref<64xf32>) outs(%r : memref<64xf32>)
  linalg.matmul ins(%h, %h : memref<64x64xf16>, memref<64x64xf16>) outs(%hc : memref<64x64xf16>)
  return
}

// -----

// A depthwise convolution is a matrix-vector product per channel as a GEMM
// (N = 1, K = 9), but the kernel runs convolutions as oneDNN's convolution
// primitive (HwAgent/Core/Convolution.h): it is sent, with its spec.
// CHECK-LABEL: func.func @depthwise
// CHECK: call @hwagent_contract_f32
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: memref<8x32x34x34xf32>, %w: memref<32x3x3xf32>, %y: memref<8x32x32x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw ins(%x, %w : memref<8x32x34x34xf32>, memref<32x3x3xf32>) outs(%y : memref<8x32x32x32xf32>)
  return
}
