//===- SyntheticGraph.h - large synthetic training graphs -------*- C++ -*-===//

#ifndef HWAGENT_BENCH_SYNTHETICGRAPH_H
#define HWAGENT_BENCH_SYNTHETICGRAPH_H

#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlir::hwagent::bench {

/// MLIR text of one function with about `numOps` linalg/arith ops shaped like
/// a deep MLP: per layer a matmul, bias add and ReLU, a residual add every
/// fourth layer and a row reduction every eighth, on 16x16 tensors with eight
/// shared weight arguments. Deterministic.
std::string makeSyntheticGraph(int numOps);

/// MLIR text of a training-step-shaped function `(x, w) -> (loss, w')` whose
/// body is a chain of `numOps` elementwise arith ops on 64x64 tensors, each
/// also reading one of the two arguments (so every value of the chain is
/// read by later ops too), reduced to a scalar loss. Deterministic.
std::string makeElementwiseChain(int numOps);
/// The same chain written as linalg.generic ops, each writing into its own
/// tensor.empty or (`sharedInit`) all into one, as CSE leaves per-op
/// empties.
std::string makeGenericChain(int numOps, bool sharedInit);

/// One context for a benchmark program: hwagent's dialects loaded, its
/// passes and pipelines registered, multithreading off (the figures are
/// single-threaded).
MLIRContext &getBenchContext();

} // namespace mlir::hwagent::bench

#endif // HWAGENT_BENCH_SYNTHETICGRAPH_H
