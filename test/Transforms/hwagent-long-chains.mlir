// RUN: hwagent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hwagent-fresh-outputs))" | FileCheck %s --check-prefix=FRESH
// RUN: hwagent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hwagent-split-long-blocks{max-ops=3}))" | FileCheck %s --check-prefix=SPLIT

#id = affine_map<(d0) -> (d0)>

// An elementwise op that overwrites its init gets a tensor.empty init (so
// bufferization does not weigh writing into %a, which is read again); a
// reduction, whose payload reads the init, keeps it.
// FRESH-LABEL: func.func @chain
// FRESH:         %[[E:.*]] = tensor.empty() : tensor<8xf32>
// FRESH:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// FRESH:         linalg.generic {{.*}} outs(%arg2 : tensor<f32>)
func.func @chain(%a: tensor<8xf32>, %b: tensor<8xf32>, %acc: tensor<f32>) -> (tensor<8xf32>, tensor<f32>) {
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%0 : tensor<8xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0, %1 : tensor<8xf32>, tensor<f32>
}

// -----

// Two elementwise ops writing into one shared tensor.empty (what CSE makes
// of per-op empties) each get their own; an op alone with its empty keeps it.
// FRESH-LABEL: func.func @shared
// FRESH:         %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// FRESH-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// FRESH-NEXT:    %[[A:.*]] = linalg.generic {{.*}} outs(%[[E1]] : tensor<8xf32>)
// FRESH:         linalg.generic {{.*}} ins(%[[A]], %arg1 : tensor<8xf32>, tensor<8xf32>) outs(%[[E0]] : tensor<8xf32>)
// FRESH:         %[[OWN:.*]] = tensor.empty() : tensor<4xf32>
// FRESH-NEXT:    linalg.generic {{.*}} outs(%[[OWN]] : tensor<4xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @shared(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%0, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %f = tensor.empty() : tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : tensor<4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %1, %2 : tensor<8xf32>, tensor<4xf32>
}

// -----

// A straight-line body of 9 ops becomes blocks of at most 3 (two ops and
// a branch); the loop body (a nested region) is not split.
// SPLIT-LABEL: func.func @straight
// SPLIT:         arith.constant 0
// SPLIT-NEXT:    arith.constant 1
// SPLIT-NEXT:    cf.br ^bb1
// SPLIT:       ^bb1:
// SPLIT-NEXT:    arith.addf
// SPLIT-NEXT:    arith.addf
// SPLIT-NEXT:    cf.br ^bb2
// SPLIT:       ^bb2:
// SPLIT-NEXT:    arith.addf
// SPLIT-NEXT:    scf.for
// SPLIT-NEXT:      arith.addf
// SPLIT-NEXT:      arith.addf
// SPLIT-NEXT:      arith.addf
// SPLIT-NEXT:      arith.addf
// SPLIT-NEXT:      scf.yield
// SPLIT-NEXT:    }
// SPLIT-NEXT:    cf.br ^bb3
// SPLIT:       ^bb3:
// SPLIT-NEXT:    arith.addf
// SPLIT-NEXT:    arith.addf
// SPLIT-NEXT:    return
func.func @straight(%x: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = arith.addf %x, %x : f32
  %1 = arith.addf %0, %x : f32
  %2 = arith.addf %1, %x : f32
  %3 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %2) -> f32 {
    %a = arith.addf %v, %x : f32
    %b = arith.addf %a, %x : f32
    %c = arith.addf %b, %x : f32
    %d = arith.addf %c, %x : f32
    scf.yield %d : f32
  }
  %4 = arith.addf %3, %x : f32
  %5 = arith.addf %4, %x : f32
  return %5 : f32
}
