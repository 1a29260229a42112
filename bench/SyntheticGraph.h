//===- SyntheticGraph.h - large synthetic training graphs -------*- C++ -*-===//

#ifndef HWAGENT_BENCH_SYNTHETICGRAPH_H
#define HWAGENT_BENCH_SYNTHETICGRAPH_H

#include <string>

namespace mlir::hwagent::bench {

/// MLIR text of one function with about `numOps` linalg/arith ops shaped like
/// a deep MLP: per layer a matmul, bias add and ReLU, a residual add every
/// fourth layer and a row reduction every eighth, on 16x16 tensors with eight
/// shared weight arguments. Deterministic.
std::string makeSyntheticGraph(int numOps);

} // namespace mlir::hwagent::bench

#endif // HWAGENT_BENCH_SYNTHETICGRAPH_H
