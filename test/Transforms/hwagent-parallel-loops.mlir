// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, convert-linalg-to-parallel-loops), hwagent-outline-parallel-loops)' | FileCheck %s
// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, convert-linalg-to-parallel-loops), hwagent-outline-parallel-loops{min-work=0})' | FileCheck %s --check-prefix=ALL

// An elementwise op over 8x32x32x16: the batch (8 iterations, too few for
// many cores) is collapsed with the next dimension into 256 outer
// iterations; the body runs a slice [begin, end) of them with constant
// inner trip counts; the call passes the iterations and the work per
// iteration (3 ops x 32 x 16 = 1536, plus the collapse's index arithmetic).
// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.*]]: memref<8x32x32x16xf32>, %[[Y:.*]]: memref<8x32x32x16xf32>)
// CHECK-NOT: scf.parallel
// CHECK: %[[N:.*]] = arith.maxsi
// CHECK: %[[W:.*]] = arith.constant 3072 : index
// CHECK: call @__hwagent_par_dispatch_0(%[[N]], %[[W]], %[[X]], %[[Y]])
// CHECK: func.func private @__hwagent_par_body_0(%[[BEGIN:.*]]: index, %[[END:.*]]: index, %{{.*}}: memref<8x32x32x16xf32>, %{{.*}}: memref<8x32x32x16xf32>)
// CHECK: %[[UB:.*]] = arith.minsi %c256{{.*}}, %{{.*}} : index
// CHECK: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%[[UB]], %c32{{.*}}, %c16{{.*}})
// CHECK: arith.maximumf
// CHECK: func.func private @__hwagent_par_dispatch_0(index, index, memref<8x32x32x16xf32>, memref<8x32x32x16xf32>)
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @relu(%x: memref<8x32x32x16xf32>, %y: memref<8x32x32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<8x32x32x16xf32>) outs(%y : memref<8x32x32x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Below min-work the loop stays inline (it runs on the calling thread);
// with min-work=0 it is outlined too.
// CHECK-LABEL: func.func @small
// CHECK: scf.parallel
// CHECK-NOT: __hwagent_par
// ALL-LABEL: func.func @small
// ALL: call @__hwagent_par_dispatch_0
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @small(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A dynamic outer dimension: the iterations are computed at run time, the
// row's reduction stays a sequential loop inside each iteration.
// CHECK-LABEL: func.func @rowsum
// CHECK: %[[D:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[DIFF:.*]] = arith.subi %[[D]], %c0
// CHECK: %[[ITER:.*]] = arith.ceildivsi %[[DIFF]], %c1
// CHECK: %[[N:.*]] = arith.maxsi %[[ITER]]
// CHECK: call @__hwagent_par_dispatch_0(%[[N]], %{{.*}}, %{{.*}}, %{{.*}}, %[[D]])
// CHECK: func.func private @__hwagent_par_body_0
// CHECK: scf.parallel
// CHECK: scf.for
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rowsum(%x: memref<?x4096xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x4096xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A loop nested in a sequential loop (an LSTM's time steps) is not
// outlined: it would fork once per outer iteration.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK-NOT: __hwagent_par
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @in_loop(%x: memref<256x256xf32>, %y: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %t = %c0 to %c4 step %c1 {
    linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<256x256xf32>) outs(%y : memref<256x256xf32>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.negf %a : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// A depthwise convolution in NCHW: linalg's domain is (n, oh, ow, c, kh, kw),
// which nests the channel (1024 floats apart) innermost. hwagent-order-loops
// makes the output's unit-stride loop (ow) innermost, the other parallel
// loops outermost in the output's order (n, c, oh) and keeps the window's
// reductions in their order between them.
// CHECK-LABEL: func.func @depthwise
// CHECK: call @__hwagent_par_dispatch_0
// CHECK: func.func private @__hwagent_par_body_0
// CHECK: scf.parallel (%[[NC:.*]], %[[OH:.*]]) =
// CHECK: scf.for %[[KH:.*]] =
// CHECK: scf.for %[[KW:.*]] =
// CHECK: scf.parallel (%[[OW:.*]]) =
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<8x32x34x34xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %[[OH]], %[[OW]]] : memref<8x32x32x32xf32>
func.func @depthwise(%x: memref<8x32x34x34xf32>, %w: memref<32x3x3xf32>, %y: memref<8x32x32x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<8x32x34x34xf32>, memref<32x3x3xf32>) outs(%y : memref<8x32x32x32xf32>)
  return
}
