//===- LoopPasses.td - how linalg ops become loops ----------*- tablegen -*-===//
//
// The passes between bufferized linalg ops and their loops (included by
// Passes.td): loop order, vectorizable reductions, merged parallel loops.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TRANSFORMS_LOOPPASSES_TD
#define HWAGENT_TRANSFORMS_LOOPPASSES_TD

include "mlir/Pass/PassBase.td"

def OrderLoops : Pass<"hwagent-order-loops", "::mlir::func::FuncOp"> {
  let summary = "Order each linalg op's loops for unit-stride inner loops";
  let description = [{
    convert-linalg-to-(parallel-)loops nests the loops in the order of the
    op's iteration domain, which for a depthwise convolution in NCHW
    (n, oh, ow, c, kh, kw) puts the channel, 1024 floats apart, innermost:
    no vector loads and a cache line per element. On bufferized ops this
    pass picks as innermost the loop that moves the most operands along
    their unit-stride dimension (weighted by its trip count up to a vector's
    worth), puts the other parallel loops outermost in the output's memory
    order and the reductions between them in their original order (so each
    element's accumulation order, and the results, do not change unless the
    innermost loop is a reduction), generalizing named ops where the order
    changes.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ReassociateReductions : Pass<"hwagent-reassociate-reductions", "::mlir::func::FuncOp"> {
  let summary = "Let the JIT vectorize floating-point reductions";
  let description = [{
    On bufferized linalg.generic ops with reduction loops whose body
    accumulates into the output with one associative floating-point op
    (arith.addf, mulf, maximumf, minimumf, maxnumf, minnumf): merges the
    innermost reduction loops that every operand walks contiguously into one
    loop (NCHW's h and w: a loop long enough to vectorize instead of a
    width of 8-16 that LLVM unrolls fully) and marks the accumulating op
    `fastmath<reassoc>`, so that LLVM's loop vectorizer may split the sum
    into vector lanes. Run after hwagent-order-loops (which puts the
    unit-stride loop innermost) and before convert-linalg-to-loops. Each
    output element is still summed by one thread in an order fixed at
    compile time: results do not depend on the thread count.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def MergeParallelLoops : Pass<"hwagent-merge-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Merge contiguous innermost parallel loops into one";
  let description = [{
    On bufferized linalg.generic, linalg.copy and linalg.fill ops (a fill
    becomes a generic where it merges): merges the innermost parallel loops
    that every operand walks contiguously into one loop (h and w of an NCHW
    elementwise op: one loop of h x w elements; linalg's
    collapseOpIterationDims with memref.collapse_shape), from the innermost
    outwards until the merged loop has `inner-trips` iterations, never the
    outermost loop (the one hwagent-outline-parallel-loops hands to the
    threads). An innermost width of 8-16 elements is unrolled fully by
    LLVM's -O1 pipeline before its loop vectorizer runs, so BatchNorm,
    ReLU6, residual adds and their gradients ran scalar; a merged loop of
    64-256 is vectorized. Each element is computed by the same ops as
    before: results are bit-identical. Run after hwagent-order-loops and
    before convert-linalg-to-(parallel-)loops.
  }];
  let options = [
    Option<"innerTrips", "inner-trips", "int64_t", "64",
           "Stop merging outwards once the merged loop has this many "
           "iterations (0: merge every contiguous parallel loop but the "
           "outermost)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // HWAGENT_TRANSFORMS_LOOPPASSES_TD
