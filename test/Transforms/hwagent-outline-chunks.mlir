// RUN: hwagent-opt %s --hwagent-outline-chunks="max-loops=2" | FileCheck %s

// Five loops, at most two per function: three private noinline functions
// called in order. The buffer the first run allocates and a later run reads
// is a result of the first and an argument of the later one; the constants
// each run reads are cloned into it.

// CHECK-LABEL: func.func private @step_part0(%{{.*}}: memref<16xf32>) -> memref<16xf32> attributes {passthrough = ["noinline"]}
// CHECK-DAG: arith.constant 16 : index
// CHECK-DAG: arith.constant 2.000000e+00 : f32
// CHECK: memref.alloc
// CHECK-COUNT-2: scf.for
// CHECK: return
// CHECK-LABEL: func.func private @step_part1(
// CHECK-LABEL: func.func private @step_part2(
// CHECK-LABEL: func.func @step(
// CHECK: %[[BUF:.*]] = call @step_part0(%arg0)
// CHECK-NEXT: call @step_part1(%arg0, %[[BUF]])
// CHECK-NEXT: call @step_part2(%arg0, %[[BUF]])
// CHECK-NEXT: return %[[BUF]]
func.func @step(%x: memref<16xf32>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %buf = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %buf[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %buf[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %buf[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %buf[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %w = arith.addf %v, %two : f32
    memref.store %w, %buf[%i] : memref<16xf32>
  }
  return %buf : memref<16xf32>
}

// A short body stays as it is.
// CHECK-LABEL: func.func @short(
// CHECK-NOT: call
// CHECK: scf.for
func.func @short(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
  }
  return
}

// Loops inside a conditional count (the entry of a step with ANE programs
// holds each program's variants and transfers in one): three conditionals
// of two loops each, at most two loops per function, make three functions,
// one per conditional, not one function of six loops.
// CHECK-LABEL: func.func private @nested_part0(
// CHECK: scf.if
// CHECK-COUNT-2: scf.for
// CHECK: return
// CHECK-LABEL: func.func private @nested_part1(
// CHECK-LABEL: func.func private @nested_part2(
// CHECK-LABEL: func.func @nested(
// CHECK: call @nested_part0(
// CHECK-NEXT: call @nested_part1(
// CHECK-NEXT: call @nested_part2(
func.func @nested(%x: memref<16xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.if %c {
    scf.for %i = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i] : memref<16xf32>
      memref.store %v, %x[%i] : memref<16xf32>
    }
    scf.for %i = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i] : memref<16xf32>
      memref.store %v, %x[%i] : memref<16xf32>
    }
  }
  scf.if %c {
    scf.for %i = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i] : memref<16xf32>
      memref.store %v, %x[%i] : memref<16xf32>
    }
    scf.for %i = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i] : memref<16xf32>
      memref.store %v, %x[%i] : memref<16xf32>
    }
  }
  scf.if %c {
    scf.for %i = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i] : memref<16xf32>
      memref.store %v, %x[%i] : memref<16xf32>
    }
    scf.for %i = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i] : memref<16xf32>
      memref.store %v, %x[%i] : memref<16xf32>
    }
  }
  return
}
