// RUN: hwagent-opt %s --split-input-file --hwagent-emit-invokers -verify-diagnostics | FileCheck %s

// The packed entry point of a two-argument function returning its results
// through a pointer: slots 0 and 1 are the arguments, slot 2 the results.
// CHECK-LABEL: llvm.func internal @__hwagent_invoke_step
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr)
// CHECK-NOT: hwagent_rt.
// CHECK: %[[R:.*]] = llvm.getelementptr %[[P]][2]
// CHECK: %[[RES:.*]] = llvm.load %[[R]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.getelementptr %[[P]][0]
// CHECK: llvm.getelementptr %[[P]][1]
// CHECK: llvm.call @_mlir_ciface_step(%[[RES]], %{{.*}}, %{{.*}})
llvm.func @_mlir_ciface_step(%r: !llvm.ptr, %a: !llvm.ptr, %b: !llvm.ptr) {
  llvm.return
}
llvm.func @__hwagent_invoke_step(!llvm.ptr) attributes {hwagent_rt.invoke_of = "step", hwagent_rt.num_args = 2 : i64}

// -----

// A scalar result comes back as a value and is stored through the last slot;
// a scalar argument is loaded from its slot.
// CHECK-LABEL: llvm.func internal @__hwagent_invoke_scalar
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: %[[V:.*]] = llvm.call @_mlir_ciface_scalar(%[[A]]) : (f32) -> f32
// CHECK: llvm.store %[[V]], %{{.*}} : f32, !llvm.ptr
llvm.func @_mlir_ciface_scalar(%a: f32) -> f32 {
  llvm.return %a : f32
}
llvm.func @__hwagent_invoke_scalar(!llvm.ptr) attributes {hwagent_rt.invoke_of = "scalar", hwagent_rt.num_args = 1 : i64}

// -----

// expected-error @+1 {{no C interface _mlir_ciface_missing to call (lower with emit-c-interface)}}
llvm.func @__hwagent_invoke_missing(!llvm.ptr) attributes {hwagent_rt.invoke_of = "missing", hwagent_rt.num_args = 1 : i64}

// -----

llvm.func @_mlir_ciface_arity(%a: !llvm.ptr) {
  llvm.return
}
// expected-error @+1 {{_mlir_ciface_arity takes 1 parameters for 3 arguments}}
llvm.func @__hwagent_invoke_arity(!llvm.ptr) attributes {hwagent_rt.invoke_of = "arity", hwagent_rt.num_args = 3 : i64}
