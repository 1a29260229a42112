// RUN: hwagent-opt %s --hwagent-expand-strided-copies | FileCheck %s

// A copy into a strided view (the padding of a convolution input, as
// bufferization leaves it) becomes linalg.copy, which lowers to a loop nest
// instead of the runner utilities' element-by-element memrefCopy; a copy
// between contiguous buffers stays memref.copy (a memcpy).
// CHECK-LABEL: func.func @pad_copy
// CHECK-SAME: (%[[SRC:.*]]: memref<1x3x8x8xf32>, %[[DST:.*]]: memref<1x3x10x10xf32>)
// CHECK:        %[[VIEW:.*]] = memref.subview %[[DST]][0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1]
// CHECK-NEXT:   linalg.copy ins(%[[SRC]] : memref<1x3x8x8xf32>) outs(%[[VIEW]] : memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>)
// CHECK-NOT:    memref.copy
// CHECK:        return
func.func @pad_copy(%src: memref<1x3x8x8xf32>, %dst: memref<1x3x10x10xf32>) {
  %view = memref.subview %dst[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1]
      : memref<1x3x10x10xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %src, %view : memref<1x3x8x8xf32> to memref<1x3x8x8xf32, strided<[300, 100, 10, 1], offset: 11>>
  return
}

// CHECK-LABEL: func.func @contiguous
// CHECK:        memref.copy %arg0, %arg1 : memref<4x4xf32> to memref<4x4xf32>
// CHECK-NOT:    linalg.copy
func.func @contiguous(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  return
}
