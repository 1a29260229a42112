//===- SolverTest.cpp - partition solver against brute force --------------===//

#include "HwAgent/Core/Solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace hwcore;

namespace {

/// A random region graph: unary costs in [0, 10) with some illegal
/// placements (label 0, the CPU, always legal), edges weighted by a random
/// "bytes" factor times a label metric.
PartitionProblem randomProblem(std::mt19937 &rng, unsigned nodes,
                               unsigned labels, bool potts) {
  std::uniform_real_distribution<double> cost(0.0, 10.0);
  std::uniform_real_distribution<double> weight(0.0, 4.0);
  std::bernoulli_distribution illegal(0.2);
  PartitionProblem problem;
  problem.numLabels = labels;
  for (unsigned n = 0; n < nodes; ++n) {
    std::vector<double> unary(labels);
    for (unsigned l = 0; l < labels; ++l)
      unary[l] = l > 0 && illegal(rng) ? kIllegal : cost(rng);
    problem.addNode(unary);
  }
  // A metric on labels: Potts, or distances between points on a line.
  std::vector<double> position(labels);
  for (unsigned l = 0; l < labels; ++l)
    position[l] = potts ? 0 : cost(rng);
  for (unsigned v = 1; v < nodes; ++v)
    for (unsigned u = 0; u < v; ++u) {
      if (rng() % 3)
        continue;
      double w = weight(rng);
      std::vector<double> pairwise(labels * labels, 0.0);
      for (unsigned a = 0; a < labels; ++a)
        for (unsigned b = 0; b < labels; ++b)
          if (a != b)
            pairwise[a * labels + b] =
                w * (potts ? 1.0 : std::abs(position[a] - position[b]) + 0.1);
      problem.addEdge(u, v, pairwise);
    }
  return problem;
}

TEST(Solver, TwoBackendsMinCutIsExact) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    unsigned nodes = 2 + trial % 15; // up to 16
    PartitionProblem problem = randomProblem(rng, nodes, 2, trial % 2);
    // Asymmetric boundaries (a conversion only one way) stay exact.
    for (unsigned e = 0; e < problem.edges.size(); ++e)
      problem.pairwiseOf(e)[1] *= 1.5;
    std::string error;
    std::optional<PartitionResult> result = solvePairwise(problem, error);
    ASSERT_TRUE(result) << error;
    PartitionResult best = solveBruteForce(problem);
    EXPECT_NEAR(result->objective, best.objective,
                1e-9 * std::max(1.0, best.objective))
        << "trial " << trial;
    EXPECT_EQ(result->cuts, 1u);
  }
}

TEST(Solver, ThreeBackendsWithinExpansionBound) {
  // For a metric with max/min distance ratio c, alpha-expansion is within
  // 2c of the optimum (Boykov, Veksler & Zabih 2001); Potts has c = 1.
  std::mt19937 rng(11);
  int exact = 0, trials = 150;
  for (int trial = 0; trial < trials; ++trial) {
    unsigned nodes = 2 + trial % 11; // up to 12: 3^12 assignments
    bool potts = trial % 2 == 0;
    PartitionProblem problem = randomProblem(rng, nodes, 3, potts);
    // c: the largest ratio of label distances on any edge.
    double c = 1;
    for (unsigned e = 0; e < problem.edges.size(); ++e) {
      double lo = kIllegal, hi = 0;
      for (unsigned a = 0; a < 3; ++a)
        for (unsigned b = 0; b < 3; ++b)
          if (a != b) {
            lo = std::min(lo, problem.pairwise(e, a, b));
            hi = std::max(hi, problem.pairwise(e, a, b));
          }
      if (lo > 0)
        c = std::max(c, hi / lo);
    }
    std::string error;
    std::optional<PartitionResult> result = solvePairwise(problem, error);
    ASSERT_TRUE(result) << error;
    PartitionResult best = solveBruteForce(problem);
    EXPECT_GE(result->objective, best.objective - 1e-9);
    EXPECT_LE(result->objective, 2 * c * best.objective + 1e-9)
        << "trial " << trial;
    EXPECT_EQ(result->tightenedTerms, 0u) << "metric costs are submodular";
    exact += std::abs(result->objective - best.objective) <=
             1e-9 * std::max(1.0, best.objective);
  }
  // The bound is loose in practice: most small cases are solved exactly.
  EXPECT_GE(exact, trials * 8 / 10);
}

TEST(Solver, ConstraintsAndExtremeCosts) {
  // Two nodes joined by an expensive boundary; label 1 is cheaper for each
  // alone, but only node 0 may take it.
  PartitionProblem problem;
  problem.numLabels = 2;
  problem.addNode({5.0, 1.0});
  problem.addNode({4.0, kIllegal});
  problem.addEdge(0, 1, {0.0, 10.0, 10.0, 0.0});
  std::string error;
  PartitionResult best = *solvePairwise(problem, error);
  EXPECT_EQ(best.labels, (std::vector<unsigned>{0, 0}));
  EXPECT_DOUBLE_EQ(best.objective, 9.0);
  EXPECT_EQ(cheapestLabels(problem), (std::vector<unsigned>{1, 0}));

  // Finite costs beyond any fixed sentinel never make the solver pick an
  // illegal label (a tiny link bandwidth, a very slow backend).
  PartitionProblem extreme;
  extreme.numLabels = 2;
  extreme.addNode({1e40, kIllegal});
  extreme.addNode({kIllegal, 1e38});
  extreme.addEdge(0, 1, {0.0, 1e45, 1e45, 0.0});
  std::optional<PartitionResult> result = solvePairwise(extreme, error);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->labels, (std::vector<unsigned>{0, 1}));
  EXPECT_TRUE(std::isfinite(result->objective));

  // A node with no legal label is an error, not a crash.
  problem.addNode({kIllegal, kIllegal});
  EXPECT_FALSE(solvePairwise(problem, error));
  EXPECT_EQ(error, "node 2 has no legal backend");
}

} // namespace
