// RUN: hwagent-opt %s --allow-unregistered-dialect --split-input-file --hwagent-form-regions --hwagent-profile --hwagent-estimate-costs="target=apple-m4" 2>%t.stderr | FileCheck %s
// (Warnings go to a file of their own: written between the buffered
// output's flushes they could land inside a checked line.)

// Each ANE refusal comes with its reason; the CPU takes everything.

// CHECK-LABEL: func.func @dynamic_shape
// CHECK: costs = #hwagent.costs<cpu = {{.*}}, ane = illegal "dynamic shape (3 dynamic dimensions); the ane compiles static shapes only"
func.func @dynamic_shape(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>, %acc: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %m : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func.func @oversize_dimension
// CHECK: ane = illegal "dimension of size 20000 exceeds the ane's per-axis limit of 16384"
func.func @oversize_dimension(%a: tensor<1x20000xf32>) -> tensor<1x20000xf32> {
  %e = math.exp %a : tensor<1x20000xf32>
  return %e : tensor<1x20000xf32>
}

// -----

// CHECK-LABEL: func.func @recurrence
// CHECK: ane = illegal "loop or recurrence; the ane runs straight-line programs only", gpu = illegal "loop or recurrence; the gpu runs straight-line programs only"
func.func @recurrence(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %h = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %h0) -> (tensor<1x4xf32>) {
    %m = linalg.matmul ins(%acc, %w : tensor<1x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
    scf.yield %m : tensor<1x4xf32>
  }
  return %h : tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func.func @opaque
// CHECK: ane = illegal "opaque op (no ane implementation known)"
func.func @opaque(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = "vendor.magic"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @integer_compute
// CHECK: ane = illegal "element type i32 is not supported by the ane (it computes in fp16; f16/f32 inputs are cast, i8 weights widened)", gpu = {{[0-9]}}
func.func @integer_compute(%a: tensor<4xi32>) -> tensor<4xi32> {
  %r = arith.addi %a, %a : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @bf16
// CHECK: ane = illegal "element type bf16 is not supported by the ane
func.func @bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = arith.addf %a, %a : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

#id = affine_map<(d0) -> (d0)>
// An embedding lookup (data-dependent tensor.extract in a linalg body).
// CHECK-LABEL: func.func @gather
// CHECK: ane = illegal "element type i64
// CHECK-LABEL: func.func @gather_f32_index
// CHECK: ane = illegal "gather (data-dependent tensor.extract in a linalg body) is not supported by the ane"
func.func @gather(%table: tensor<16xf32>, %ids: tensor<4xi64>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ids : tensor<4xi64>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i64, %o: f32):
    %idx = arith.index_cast %i : i64 to index
    %v = tensor.extract %table[%idx] : tensor<16xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @gather_f32_index(%table: tensor<16xf32>, %ids: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ids : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.fptosi %i : f32 to i32
    %idx = arith.index_cast %n : i32 to index
    %v = tensor.extract %table[%idx] : tensor<16xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

#m5a = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
#m5b = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5, d4)>
#m5c = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>
// A rank-5 batched matmul (a generic contraction).
// CHECK-LABEL: func.func @rank5_matmul
// CHECK: ane = illegal "rank-5 matmul exceeds the ane's rank limit of 4"
func.func @rank5_matmul(%a: tensor<2x2x2x4x8xf32>, %b: tensor<2x2x2x8x4xf32>, %c: tensor<2x2x2x4x4xf32>) -> tensor<2x2x2x4x4xf32> {
  %r = linalg.generic {indexing_maps = [#m5a, #m5b, #m5c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x2x2x4x8xf32>, tensor<2x2x2x8x4xf32>) outs(%c : tensor<2x2x2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x2x2x4x4xf32>
  return %r : tensor<2x2x2x4x4xf32>
}
