// A tiny MLP training step (16 -> 32 -> 4, batch 8) in linalg-on-tensors:
// forward, mean-squared-error loss, backward and an SGD update (lr = 0.01).
// Signature convention (docs/workloads.md): inputs first, then parameters;
// results are the loss followed by the updated parameters in the same order.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bcast_row = affine_map<(d0, d1) -> (d1)>
#scalar2 = affine_map<(d0, d1) -> ()>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func @train_step(%x: tensor<8x16xf32>, %y: tensor<8x4xf32>,
                      %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                      %w2: tensor<32x4xf32>, %b2: tensor<4xf32>)
    -> (tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %lr = arith.constant 0.01 : f32
  %scale = arith.constant 0.0625 : f32  // 2 / (8 * 4): d(mean(d^2))/dd

  // ---- forward ----
  %e8x32 = tensor.empty() : tensor<8x32xf32>
  %z8x32 = linalg.fill ins(%zero : f32) outs(%e8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h0 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>)
                      outs(%z8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.generic {indexing_maps = [#id2, #bcast_row, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h0, %b1 : tensor<8x32xf32>, tensor<32xf32>) outs(%e8x32 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %act = linalg.generic {indexing_maps = [#id2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x32xf32>) outs(%e8x32 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e8x4 = tensor.empty() : tensor<8x4xf32>
  %z8x4 = linalg.fill ins(%zero : f32) outs(%e8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %o0 = linalg.matmul ins(%act, %w2 : tensor<8x32xf32>, tensor<32x4xf32>)
                      outs(%z8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %out = linalg.generic {indexing_maps = [#id2, #bcast_row, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%o0, %b2 : tensor<8x4xf32>, tensor<4xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>

  // ---- loss: mean((out - y)^2) ----
  %diff = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                          iterator_types = ["parallel", "parallel"]}
      ins(%out, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<8x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sumsq = linalg.generic {indexing_maps = [#id2, #scalar2],
                           iterator_types = ["reduction", "reduction"]}
      ins(%diff : tensor<8x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%d: f32, %acc: f32):
    %sq = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %inv = arith.constant 0.03125 : f32
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                          iterator_types = []}
      ins(%sumsq : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.mulf %s, %inv : f32
    linalg.yield %m : f32
  } -> tensor<f32>

  // ---- backward ----
  %dout = linalg.generic {indexing_maps = [#id2, #id2],
                          iterator_types = ["parallel", "parallel"]}
      ins(%diff : tensor<8x4xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%d: f32, %o: f32):
    %g = arith.mulf %d, %scale : f32
    linalg.yield %g : f32
  } -> tensor<8x4xf32>
  %e32x8 = tensor.empty() : tensor<32x8xf32>
  %actT = linalg.transpose ins(%act : tensor<8x32xf32>) outs(%e32x8 : tensor<32x8xf32>) permutation = [1, 0]
  %e32x4 = tensor.empty() : tensor<32x4xf32>
  %z32x4 = linalg.fill ins(%zero : f32) outs(%e32x4 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %dw2 = linalg.matmul ins(%actT, %dout : tensor<32x8xf32>, tensor<8x4xf32>)
                       outs(%z32x4 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %db2 = linalg.generic {indexing_maps = [#id2, #col],
                         iterator_types = ["reduction", "parallel"]}
      ins(%dout : tensor<8x4xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%g: f32, %acc: f32):
    %s = arith.addf %acc, %g : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e4x32 = tensor.empty() : tensor<4x32xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<32x4xf32>) outs(%e4x32 : tensor<4x32xf32>) permutation = [1, 0]
  %dact = linalg.matmul ins(%dout, %w2T : tensor<8x4xf32>, tensor<4x32xf32>)
                        outs(%z8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %dh = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%dact, %h : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e8x32 : tensor<8x32xf32>) {
  ^bb0(%g: f32, %pre: f32, %o: f32):
    %pos = arith.cmpf ogt, %pre, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e16x8 = tensor.empty() : tensor<16x8xf32>
  %xT = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e16x8 : tensor<16x8xf32>) permutation = [1, 0]
  %e16x32 = tensor.empty() : tensor<16x32xf32>
  %z16x32 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %dw1 = linalg.matmul ins(%xT, %dh : tensor<16x8xf32>, tensor<8x32xf32>)
                       outs(%z16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e32 = tensor.empty() : tensor<32xf32>
  %z32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<32xf32>) -> tensor<32xf32>
  %db1 = linalg.generic {indexing_maps = [#id2, #col],
                         iterator_types = ["reduction", "parallel"]}
      ins(%dh : tensor<8x32xf32>) outs(%z32 : tensor<32xf32>) {
  ^bb0(%g: f32, %acc: f32):
    %s = arith.addf %acc, %g : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>

  // ---- SGD update: p -= lr * g ----
  %nw1 = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w1, %dw1 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e16x32 : tensor<16x32xf32>) {
  ^bb0(%p: f32, %g: f32, %o: f32):
    %u = arith.mulf %g, %lr : f32
    %n = arith.subf %p, %u : f32
    linalg.yield %n : f32
  } -> tensor<16x32xf32>
  %nb1 = linalg.generic {indexing_maps = [#id1, #id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%b1, %db1 : tensor<32xf32>, tensor<32xf32>) outs(%e32 : tensor<32xf32>) {
  ^bb0(%p: f32, %g: f32, %o: f32):
    %u = arith.mulf %g, %lr : f32
    %n = arith.subf %p, %u : f32
    linalg.yield %n : f32
  } -> tensor<32xf32>
  %nw2 = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w2, %dw2 : tensor<32x4xf32>, tensor<32x4xf32>) outs(%e32x4 : tensor<32x4xf32>) {
  ^bb0(%p: f32, %g: f32, %o: f32):
    %u = arith.mulf %g, %lr : f32
    %n = arith.subf %p, %u : f32
    linalg.yield %n : f32
  } -> tensor<32x4xf32>
  %nb2 = linalg.generic {indexing_maps = [#id1, #id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%b2, %db2 : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %g: f32, %o: f32):
    %u = arith.mulf %g, %lr : f32
    %n = arith.subf %p, %u : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw1, %nb1, %nw2, %nb2
      : tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>
}
