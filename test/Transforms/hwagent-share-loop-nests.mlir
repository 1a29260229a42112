// RUN: hwagent-opt %s --hwagent-share-loop-nests --split-input-file | FileCheck %s
// RUN: hwagent-opt %s --hwagent-share-loop-nests="min-copies=3" --split-input-file | FileCheck %s --check-prefix=THREE

// Identical ops on different buffers, in two functions, share one private
// noinline function; an op that differs in its body, its types or the
// constant its body reads keeps its own code. The function takes the
// operands, the scalar of a fill included.

#map = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @train(
// CHECK-SAME: %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>, %[[D:.*]]: memref<2x8xf32>
// CHECK: call @[[ADD:__hwagent_shared_[0-9]+]](%[[A]], %[[B]])
// CHECK: call @[[ADD]](%[[B]], %[[C]])
// CHECK: linalg.generic
// CHECK: arith.addf %{{.*}}, %[[TWO:.*]] : f32
// CHECK: linalg.generic
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: call @[[FILL:__hwagent_shared_[0-9]+]](%{{.*}}, %[[A]])
// CHECK: call @[[FILL]](%{{.*}}, %[[C]])
// CHECK-LABEL: func.func @eval(
// CHECK: call @[[ADD]](%{{.*}}, %{{.*}}) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK: func.func private @[[ADD]](%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>) attributes {passthrough = ["noinline"]}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: linalg.generic
// CHECK: arith.addf %{{.*}}, %[[ONE]] : f32
// CHECK: return
// CHECK: func.func private @[[FILL]](%{{.*}}: f32, %{{.*}}: memref<4x8xf32>)
// CHECK-NEXT: linalg.fill

// Three copies of the add (two in @train, one in @eval), two of the fill:
// with min-copies=3 only the add is shared.
// THREE-COUNT-3: call @__hwagent_shared_0(
// THREE-NOT: call @
func.func @train(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>,
                 %d: memref<2x8xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %one : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %one : f32
    linalg.yield %s : f32
  }
  // Another constant: not the same computation.
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %two : f32
    linalg.yield %s : f32
  }
  // Other shapes: not the same computation.
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%d : memref<2x8xf32>) outs(%d : memref<2x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%a : memref<4x8xf32>)
  linalg.fill ins(%half : f32) outs(%c : memref<4x8xf32>)
  return
}

func.func @eval(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %one : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A body that reads a value that is not a constant (an argument) stays
// where it is: sharing it would need that value per copy.

// CHECK-LABEL: func.func @captures(
// CHECK-NOT: call
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: __hwagent_shared
#map = affine_map<(d0) -> (d0)>
func.func @captures(%a: memref<8xf32>, %b: memref<8xf32>, %s: f32) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.mulf %x, %s : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%b : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.mulf %x, %s : f32
    linalg.yield %r : f32
  }
  return
}
