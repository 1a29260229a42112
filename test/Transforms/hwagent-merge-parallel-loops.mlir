// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, hwagent-merge-parallel-loops))' | FileCheck %s
// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, hwagent-merge-parallel-loops{inner-trips=0}))' | FileCheck %s --check-prefix=ALL
// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, hwagent-merge-parallel-loops, convert-linalg-to-parallel-loops))' | FileCheck %s --check-prefix=LOOPS

// BatchNorm's apply on an NCHW tensor, x * scale[c] + shift[c]: h and w
// merge into one loop of 256 contiguous elements (n and c stay: the
// per-channel operands index c alone), and the body is unchanged (no
// fast-math flags: the results are bit-identical). As loops, the parallel
// nest keeps n and c outside the merged loop.
// CHECK-LABEL: func.func @batchnorm_apply
// CHECK-SAME: (%[[X:.*]]: memref<8x16x16x16xf32>, %[[S:.*]]: memref<16xf32>, %[[B:.*]]: memref<16xf32>, %[[Y:.*]]: memref<8x16x16x16xf32>)
// CHECK-DAG: %[[XC:.*]] = memref.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : memref<8x16x16x16xf32> into memref<8x16x256xf32>
// CHECK-DAG: %[[YC:.*]] = memref.collapse_shape %[[Y]] {{\[}}[0], [1], [2, 3]] : memref<8x16x16x16xf32> into memref<8x16x256xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[XC]], %[[S]], %[[B]] : memref<8x16x256xf32>, memref<16xf32>, memref<16xf32>) outs(%[[YC]] : memref<8x16x256xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// ALL-LABEL: func.func @batchnorm_apply
// ALL: memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<8x16x16x16xf32> into memref<8x16x256xf32>
// LOOPS-LABEL: func.func @batchnorm_apply
// LOOPS: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c8, %c16, %c256)
// LOOPS: memref.load %{{.*}} : memref<8x16x256xf32>
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (c)>
func.func @batchnorm_apply(%x: memref<8x16x16x16xf32>, %s: memref<16xf32>, %b: memref<16xf32>, %y: memref<8x16x16x16xf32>) {
  linalg.generic {indexing_maps = [#nchw, #chan, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s, %b : memref<8x16x16x16xf32>, memref<16xf32>, memref<16xf32>) outs(%y : memref<8x16x16x16xf32>) {
  ^bb0(%a: f32, %sc: f32, %sh: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    %r = arith.addf %m, %sh : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A residual add of 8x8 images: h and w merge into 64 elements, enough for
// the default inner-trips; with inner-trips=0 the channels merge too (every
// operand is contiguous over c, h, w), but never the batch, the loop the
// threads share.
// CHECK-LABEL: func.func @residual_add
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<4x32x8x8xf32> into memref<4x32x64xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// ALL-LABEL: func.func @residual_add
// ALL: memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<4x32x8x8xf32> into memref<4x2048xf32>
// ALL: linalg.generic
// ALL-SAME: iterator_types = ["parallel", "parallel"]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @residual_add(%x: memref<4x32x8x8xf32>, %r: memref<4x32x8x8xf32>, %y: memref<4x32x8x8xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %r : memref<4x32x8x8xf32>, memref<4x32x8x8xf32>) outs(%y : memref<4x32x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A fill (the zeros a contraction accumulates into) becomes a generic over
// the merged h x w, and a contiguous linalg.copy merges the same way.
// CHECK-LABEL: func.func @fill_and_copy
// CHECK-SAME: (%[[X:.*]]: memref<8x64x16x16xf32>, %[[Y:.*]]: memref<8x64x16x16xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[XC:.*]] = memref.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : memref<8x64x16x16xf32> into memref<8x64x256xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ZERO]] : f32) outs(%[[XC]] : memref<8x64x256xf32>)
// CHECK: linalg.copy ins(%{{.*}} : memref<8x64x256xf32>) outs(%{{.*}} : memref<8x64x256xf32>)
// LOOPS-LABEL: func.func @fill_and_copy
// LOOPS: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c8, %c64, %c256)
// LOOPS: memref.store %{{.*}} : memref<8x64x256xf32>
func.func @fill_and_copy(%x: memref<8x64x16x16xf32>, %y: memref<8x64x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<8x64x16x16xf32>)
  linalg.copy ins(%x : memref<8x64x16x16xf32>) outs(%y : memref<8x64x16x16xf32>)
  return
}

// -----

// A two-loop op: merging would leave no outer loop for the threads, so it
// stays as it is.
// CHECK-LABEL: func.func @matrix_relu
// CHECK-NOT: collapse_shape
// CHECK: return
// ALL-LABEL: func.func @matrix_relu
// ALL-NOT: collapse_shape
// ALL: return
#rows = affine_map<(i, j) -> (i, j)>
func.func @matrix_relu(%x: memref<8x10xf32>, %y: memref<8x10xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x10xf32>) outs(%y : memref<8x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  return
}
