//===- Solver.h - pairwise labeling by graph cuts ---------------*- C++ -*-===//
//
// Minimizes  sum_r unary[r][label_r] + sum_(u,v)
// pairwise[u,v][label_u][label_v] over labels (backends). Two labels: an exact
// minimum s-t cut. More: alpha-expansion, one min-cut per label and round,
// accepting a move only when the true objective drops. Infinite unary costs are
// hard constraints. Plain C++ (Boost.Graph's Boykov-Kolmogorov max-flow), no
// LLVM or MLIR: the runtime re-partitions its programs with it, and the
// compiler's program-aware partitioner (Programs.h) solves its surrogate and
// lower bound with it. docs/partitioning.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_SOLVER_H
#define HWAGENT_CORE_SOLVER_H

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

struct PartitionResult {
  std::vector<unsigned> labels;
  double objective = 0;
  /// Min-cut solves performed.
  unsigned cuts = 0;
  /// Pairwise terms that were not submodular in some expansion move and were
  /// tightened for that move (0 for metric boundary costs).
  unsigned tightenedTerms = 0;
};

/// Minimizes `problem`'s objective. Fails (nullopt, `error` set) only when
/// some node has no legal label.
std::optional<PartitionResult> solvePairwise(const PartitionProblem &problem,
                                             std::string &error,
                                             unsigned maxRounds = 32);

/// Each node's cheapest label, boundaries ignored.
std::vector<unsigned> cheapestLabels(const PartitionProblem &problem);

/// Exhaustive search, for tests: labels^nodes assignments.
PartitionResult solveBruteForce(const PartitionProblem &problem);

} // namespace hwcore

#endif // HWAGENT_CORE_SOLVER_H
