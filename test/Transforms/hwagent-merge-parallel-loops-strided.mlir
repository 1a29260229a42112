// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, hwagent-merge-parallel-loops{inner-trips=0}))' | FileCheck %s

// Operands that do not walk h and w contiguously keep the loops apart.

// The input is the interior of a padded buffer (rows of 18 floats, a
// convolution's padding): its w is unit-stride, but h and w together are
// not one run of memory, so nothing merges, not even for the contiguous
// output.
// CHECK-LABEL: func.func @padded_interior
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @padded_interior(%x: memref<2x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>, %y: memref<2x8x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<2x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>) outs(%y : memref<2x8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %lo = arith.maximumf %a, %zero : f32
    %r = arith.minimumf %lo, %six : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// One input read transposed (h and w swapped): the loops' order is (h, w)
// for the output and (w, h) for that input, not one sequence for both, so
// they stay apart.
// CHECK-LABEL: func.func @transposed_input
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#nchw_t = affine_map<(n, c, h, w) -> (n, c, w, h)>
func.func @transposed_input(%x: memref<2x8x16x16xf32>, %t: memref<2x8x16x16xf32>, %y: memref<2x8x16x16xf32>) {
  linalg.generic {indexing_maps = [#nchw, #nchw_t, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %t : memref<2x8x16x16xf32>, memref<2x8x16x16xf32>) outs(%y : memref<2x8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}
