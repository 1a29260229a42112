//===- Solver.h - backend assignment (select_backend) -----------*- C++ -*-===//
//
// Minimizes  sum_r unary[r][label_r] + sum_(u,v) pairwise[u,v][label_u][label_v]
// over labels (backends). Two labels: an exact minimum s-t cut. More:
// alpha-expansion, one min-cut per label and round, accepting a move only
// when the true objective drops. Infinite unary costs are hard constraints.
// Plain C++ (Boost.Graph's Boykov-Kolmogorov max-flow), no MLIR: the runtime
// re-partitions with the same code. Namespace hwcore holds this MLIR-free
// core shared by compiler and runtime. docs/partitioning.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_PARTITION_SOLVER_H
#define HWAGENT_PARTITION_SOLVER_H

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace hwcore {

constexpr double kIllegal = std::numeric_limits<double>::infinity();

struct PartitionProblem {
  unsigned numLabels = 0;
  /// unary[node][label]: cost of placing the node there; kIllegal forbids.
  std::vector<std::vector<double>> unary;
  struct Edge {
    unsigned u = 0, v = 0;
    /// cost[a * numLabels + b] when u takes a and v takes b; the diagonal
    /// (same label) is normally 0.
    std::vector<double> cost;
  };
  std::vector<Edge> edges;

  unsigned numNodes() const { return unary.size(); }
  /// Adds a node; returns its index.
  unsigned addNode(std::vector<double> costs);
  /// Adds an edge whose cost is `sameLabel` when both ends agree and
  /// `between(a, b)` otherwise.
  void addEdge(unsigned u, unsigned v, std::vector<double> cost);
};

/// Objective of an assignment; kIllegal when it violates a hard constraint.
double evaluate(const PartitionProblem &problem,
                const std::vector<unsigned> &labels);

enum class Strategy {
  /// Minimum objective: min-cut (2 labels) or alpha-expansion (more).
  Optimal,
  /// Offload every node an accelerator accepts (the first legal label of
  /// `preference`), ignoring costs: what Core ML, ONNX Runtime execution
  /// providers and TFLite delegates do.
  Greedy,
  /// Each node's cheapest legal label, boundaries ignored.
  Local,
  /// Everything on one label (falling back to the cheapest legal label).
  Fixed,
};

struct SolveOptions {
  Strategy strategy = Strategy::Optimal;
  /// Greedy: labels in order of preference (accelerators first).
  std::vector<unsigned> preference;
  /// Fixed: the label.
  unsigned fixedLabel = 0;
  /// Alpha-expansion: most rounds over all labels.
  unsigned maxRounds = 32;
};

struct PartitionResult {
  std::vector<unsigned> labels;
  double objective = 0;
  /// Min-cut solves performed.
  unsigned cuts = 0;
  /// Pairwise terms that were not submodular in some expansion move and were
  /// tightened for that move (0 for metric boundary costs).
  unsigned tightenedTerms = 0;
};

/// Solves `problem`. Fails (nullopt, `error` set) only when some node has
/// no legal label.
std::optional<PartitionResult> solve(const PartitionProblem &problem,
                                     const SolveOptions &options,
                                     std::string &error);

/// Exhaustive search, for tests: labels^nodes assignments.
PartitionResult solveBruteForce(const PartitionProblem &problem);

} // namespace hwcore

#endif // HWAGENT_PARTITION_SOLVER_H
