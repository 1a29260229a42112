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
  struct Edge {
    unsigned u = 0, v = 0;
  };
  std::vector<Edge> edges;

  unsigned numNodes() const { return nodeCount; }
  /// Cost of placing `node` on `label`; kIllegal forbids.
  double unary(unsigned node, unsigned label) const {
    return unaryCosts[size_t(node) * numLabels + label];
  }
  /// The numLabels costs of `node`.
  const double *unaryOf(unsigned node) const {
    return unaryCosts.data() + size_t(node) * numLabels;
  }
  /// Cost of edge `edge` when its u takes `a` and its v takes `b`; the
  /// diagonal (same label) is normally 0.
  double pairwise(unsigned edge, unsigned a, unsigned b) const {
    return pairwiseOf(edge)[a * numLabels + b];
  }
  /// The numLabels^2 costs of `edge`, [a * numLabels + b].
  const double *pairwiseOf(unsigned edge) const {
    return pairwiseCosts.data() + size_t(edge) * numLabels * numLabels;
  }
  double *pairwiseOf(unsigned edge) {
    return pairwiseCosts.data() + size_t(edge) * numLabels * numLabels;
  }

  /// Adds a node with `costs` (numLabels of them); returns its index.
  unsigned addNode(const std::vector<double> &costs);
  /// Adds an edge with `cost` (numLabels^2 of them, [a * numLabels + b]).
  void addEdge(unsigned u, unsigned v, const std::vector<double> &cost);
  /// The same, for the caller to write the costs in place: returns the
  /// node's numLabels (the edge's numLabels^2) costs, all `initial`; valid
  /// until the next node (edge) is added.
  double *addNodeCosts(double initial);
  double *addEdgeCosts(unsigned u, unsigned v, double initial);
  void reserve(unsigned nodes, size_t numEdges);

private:
  // Flat: one allocation per problem, not one per node and edge (problems
  // of 10^5 regions are solved several times per partition).
  std::vector<double> unaryCosts, pairwiseCosts;
  unsigned nodeCount = 0;
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
