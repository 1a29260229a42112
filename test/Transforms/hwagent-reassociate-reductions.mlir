// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, hwagent-reassociate-reductions))' | FileCheck %s
// RUN: hwagent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hwagent-order-loops, hwagent-reassociate-reductions, convert-linalg-to-loops), convert-arith-to-llvm)' | FileCheck %s --check-prefix=LLVM

// BatchNorm's per-channel sum over (n, h, w) of an NCHW tensor: the channel
// loop outermost, then n, then h and w merged into one loop of 256
// contiguous elements, and the accumulating add may be reassociated (so
// that LLVM's loop vectorizer splits it into vector lanes); after
// convert-arith-to-llvm the flag is on the LLVM add.
// CHECK-LABEL: func.func @channel_sum
// CHECK-SAME: (%[[X:.*]]: memref<8x16x16x16xf32>, %[[Y:.*]]: memref<16xf32>)
// CHECK: %[[C:.*]] = memref.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : memref<8x16x16x16xf32> into memref<8x16x256xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[C]] : memref<8x16x256xf32>) outs(%[[Y]] : memref<16xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// LLVM-LABEL: func.func @channel_sum
// LLVM: scf.for
// LLVM: scf.for
// LLVM: scf.for
// LLVM: memref.load %{{.*}} : memref<8x16x256xf32>
// LLVM: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc>} : f32
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (c)>
func.func @channel_sum(%x: memref<8x16x16x16xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [#nchw, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : memref<8x16x16x16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %b, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Softmax's row maximum: one reduction loop (nothing to merge), the
// maximum marked; a flag already there stays.
// CHECK-LABEL: func.func @row_max
// CHECK-NOT: collapse_shape
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,nnan> : f32
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @row_max(%x: memref<8x10xf32>, %y: memref<8xf32>) {
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x10xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %b, %a fastmath<nnan> : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A sum of squares over a strided view (a row of every other channel): the
// computed operand is accumulated (the add is marked), but h and w of the
// view are not contiguous, so they stay two loops.
// CHECK-LABEL: func.func @strided_squares
// CHECK-NOT: collapse_shape
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
#nchw3 = affine_map<(c, h, w) -> (c, h, w)>
#chan3 = affine_map<(c, h, w) -> (c)>
func.func @strided_squares(%x: memref<4x8x8xf32, strided<[128, 16, 1]>>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [#nchw3, #chan3], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<4x8x8xf32, strided<[128, 16, 1]>>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    %r = arith.addf %b, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Not an accumulation: the output is read twice (an arg-max's compare and
// select), and an elementwise op has no reduction; neither is touched.
// CHECK-LABEL: func.func @not_accumulations
// CHECK-NOT: reassoc
// CHECK: return
#rows2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @not_accumulations(%x: memref<8x10xf32>, %y: memref<8xf32>, %z: memref<8x10xf32>) {
  linalg.generic {indexing_maps = [#rows2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x10xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %r = arith.select %gt, %a, %b : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#rows2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x10xf32>) outs(%z : memref<8x10xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}
