// RUN: hwagent-opt %s --split-input-file --hwagent-define-parallel-dispatch -verify-diagnostics | FileCheck %s

// The dispatcher stores its captures (here a flattened 1-d memref
// descriptor and a scalar) in a stack struct and hands the trampoline and
// the struct to the runtime; the trampoline loads them back and calls the
// body with its slice.
// CHECK-LABEL: llvm.func internal @__hwagent_par_body_3
// CHECK-LABEL: llvm.func internal @__hwagent_par_tramp_3
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[CTX]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, i64, i64, i64, f32)>
// CHECK: %[[A0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[P5:.*]] = llvm.getelementptr %[[CTX]][0, 5]
// CHECK: %[[A5:.*]] = llvm.load %[[P5]] : !llvm.ptr -> f32
// CHECK: llvm.call @__hwagent_par_body_3(%[[BEGIN]], %[[END]], %[[A0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A5]])
// CHECK-LABEL: llvm.func internal @__hwagent_par_dispatch_3
// CHECK-SAME: (%[[N:.*]]: i64, %[[W:.*]]: i64, %[[M0:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[S:.*]]: f32)
// CHECK: %[[CTXD:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, i64, i64, f32)>
// CHECK: llvm.store %[[M0]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[S]], %{{.*}} : f32, !llvm.ptr
// CHECK: %[[FN:.*]] = llvm.mlir.addressof @__hwagent_par_tramp_3
// CHECK: llvm.call @hwagent_parallel_for(%[[FN]], %[[CTXD]], %[[N]], %[[W]])
// CHECK: llvm.func @hwagent_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64)
llvm.func @__hwagent_par_body_3(%b: i64, %e: i64, %p0: !llvm.ptr, %p1: !llvm.ptr, %o: i64, %s: i64, %st: i64, %x: f32) {
  llvm.return
}
llvm.func @__hwagent_par_dispatch_3(i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, f32)

// -----

// expected-error @+1 {{no outlined loop body __hwagent_par_body_9 for this parallel dispatcher}}
llvm.func @__hwagent_par_dispatch_9(i64, i64, f32)

// -----

llvm.func @__hwagent_par_body_1(%b: i64, %e: i64, %x: f64) {
  llvm.return
}
// expected-error @+1 {{parallel dispatcher and body __hwagent_par_body_1 disagree on their parameters}}
llvm.func @__hwagent_par_dispatch_1(i64, i64, f32)
