// hwagent-lower-to-runtime: one dispatch per program, its variants, and the
// model table as constant globals of the runtime's C types (hwagent_rt.h).
// strategy=ane puts the two matmuls and the tanh in one ANE program
// (program 0); the i32 add cannot run on the ANE (program 1, CPU only).

// RUN: hwagent-opt %s --partition-backends="target=%S/Inputs/simple-target.json strategy=ane" --hwagent-lower-to-runtime | FileCheck %s

// The step: each program is selected, bracketed by begin/end, and an ANE
// execution that faults or yields inf/NaN re-runs the CPU variant.
// CHECK-LABEL: func.func @f(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-NOT:   arith.truncf
// CHECK:       %[[P0:.*]] = arith.constant 0 : i64
// CHECK:       %[[SEL:.*]] = call @hwagent_rt_select(%[[P0]])
// CHECK:       %[[IDX:.*]] = arith.index_cast %[[SEL]]
// CHECK:       scf.index_switch %[[IDX]] -> tensor<16x16xf32>
// CHECK-NEXT:  case 1 {
// CHECK:         func.call @hwagent_rt_begin(%[[P0]], %{{.*}})
// CHECK:         %[[ANE:.*]] = func.call @__hwagent_f_p0_ane(%arg0, %arg1)
// CHECK:         math.absf
// CHECK:         %[[FAULT:.*]] = func.call @hwagent_rt_end(%[[P0]]
// CHECK:         scf.if
// CHECK:           func.call @__hwagent_f_p0_cpu(%arg0, %arg1)
// CHECK:       default {
// CHECK:         func.call @__hwagent_f_p0_cpu(%arg0, %arg1)
// CHECK:       %[[P1:.*]] = arith.constant 1 : i64
// CHECK:       call @hwagent_rt_select(%[[P1]])
// CHECK:       scf.index_switch
// CHECK-NOT:   case
// CHECK:       default {
// CHECK:         func.call @__hwagent_f_p1_cpu(%arg2)

// The program's interface is f32 (the f16 boundary of the partitioned IR
// moves into the ANE variant): the CPU variant computes exactly as the
// all-CPU step; the ANE variant rounds every value it stores, its arguments
// included, through f16 and computes in f32: after a named op as separate
// conversions, inside the payload of an elementwise op (one pass over the
// data), which it first turns into a linalg.generic.
// CHECK-LABEL: func.func private @__hwagent_f_p0_cpu(
// CHECK-NOT:     f16
// CHECK-COUNT-2: linalg.matmul
// CHECK-LABEL: func.func private @__hwagent_f_p0_ane(
// CHECK:         %[[M:.*]] = linalg.matmul
// CHECK-NEXT:    %[[H:.*]] = arith.truncf %[[M]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-NEXT:    %[[R:.*]] = arith.extf %[[H]] : tensor<16x16xf16> to tensor<16x16xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[R]] : tensor<16x16xf32>)
// CHECK:           %[[T:.*]] = math.tanh
// CHECK-NEXT:      %[[TH:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK-NEXT:      %[[TW:.*]] = arith.extf %[[TH]] : f16 to f32
// CHECK-NEXT:      linalg.yield %[[TW]] : f32
// CHECK-LABEL: func.func private @__hwagent_f_p1_cpu(
// CHECK:         arith.addi

// The table: three regions (key, FLOPs, bytes, id, program, predicted
// seconds per backend, legal backends), two programs (assigned backend,
// variants, first region, regions, predictions, FLOPs, weight bytes,
// weight update, fixed joules and compute-bound seconds per backend), the
// boundaries between programs.
// CHECK: llvm.mlir.global internal constant @__hwagent_regions([
// CHECK-SAME: 0 : i32, 0 : i32, [{{.*}}], 3 : i32, 0 : i32],
// CHECK-SAME: 2 : i32, 1 : i32, [{{.*}}], 1 : i32, 0 : i32]]) {{.*}} : !llvm.array<3 x struct<(i64, i64, i64, i32, i32, array<3 x f64>, i32, i32)>>
// CHECK: llvm.mlir.global internal constant @__hwagent_programs([
// CHECK-SAME: [1 : i32, 3 : i32, 0 : i32, 2 : i32, [{{.*}}], 16640, 1024, [0 : i32, 0 : i32, 0 : i32], 0 : i32, [{{.*}}], [{{.*}}]],
// CHECK-SAME: [0 : i32, 1 : i32, 2 : i32, 1 : i32, [{{.*}}], 4, 0, [0 : i32, 0 : i32, 0 : i32], 0 : i32, [{{.*}}], [{{.*}}]]]) {{.*}} : !llvm.array<2 x struct<(i32, i32, i32, i32, array<3 x f64>, i64, i64, array<3 x i32>, i32, array<3 x f64>, array<3 x f64>)>>
// CHECK: llvm.mlir.global internal constant @__hwagent_edges([
// CHECK-SAME: [-1 : i32, 0 : i32, 3072, 3072], [-1 : i32, 1 : i32, 16, 0], [0 : i32, -1 : i32, 512, 0], [1 : i32, -1 : i32, 16, 0]])
// CHECK: llvm.mlir.global internal constant @__hwagent_target_name("simple\00")
// CHECK: llvm.mlir.global internal constant @__hwagent_model()
// CHECK: llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.mlir.addressof @__hwagent_regions
// CHECK: llvm.insertvalue %{{.*}}[10, 0, 1, 1]
// CHECK-LABEL: func.func @__hwagent_model_info() -> !llvm.ptr
// CHECK: llvm.mlir.addressof @__hwagent_model
// CHECK-NOT: hwagent.

// Lowered to the LLVM dialect, the calls into the runtime and the accessor
// remain; each program's variants and transfers count as the loops they
// hold, so @f's body moves into short parts (hwagent-outline-chunks).
// RUN: hwagent-opt %s --partition-backends="target=%S/Inputs/simple-target.json strategy=ane" --hwagent-lower-to-runtime --hwagent-lower-to-llvm | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.func @f_part0(
// LLVM: llvm.call @hwagent_rt_select
// LLVM: llvm.func @f(
// LLVM: llvm.call @f_part0(
// LLVM: llvm.func @_mlir_ciface_f(
// LLVM: llvm.func @__hwagent_model_info() -> !llvm.ptr
// LLVM-NOT: tensor<
// LLVM-NOT: memref.alloc

func.func @f(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>, %n: tensor<4xi32>) -> (tensor<16x16xf32>, tensor<4xi32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %t = math.tanh %m : tensor<16x16xf32>
  %m2 = linalg.matmul ins(%t, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %i = arith.addi %n, %n : tensor<4xi32>
  return %m2, %i : tensor<16x16xf32>, tensor<4xi32>
}
