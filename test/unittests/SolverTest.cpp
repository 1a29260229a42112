//===- SolverTest.cpp - partition solver against brute force --------------===//

#include "HwAgent/Core/Solver.h"
#include "HwAgent/Core/Programs.h"
#include "HwAgent/Core/Target.h"

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

/// Two regions on apple-m4's backends, every placement legal.
StepGraph twoRegions() {
  TargetDescription target = *getBuiltinTarget("apple-m4");
  StepGraph g;
  for (BackendKind kind : kAllBackends)
    g.backends.push_back(*target.lookup(kind));
  unsigned L = g.numLabels();
  g.links.assign(L, std::vector<LinkDescription>(L));
  for (unsigned a = 0; a < L; ++a)
    for (unsigned b = 0; b < L; ++b)
      g.links[a][b] = target.link(g.backends[a].kind, g.backends[b].kind);
  g.telemetryFactor.assign(L, 1.0);
  g.staticPower = target.staticPower;
  for (double seconds : {1e-3, 4e-4}) {
    std::vector<RegionCost> row;
    for (BackendKind kind : kAllBackends) {
      RegionCost c;
      c.backend = kind;
      c.compute = c.computeInputWeights = seconds;
      c.flops = 2000000000;
      c.memory = c.memoryInputWeights = seconds / 4;
      row.push_back(c);
    }
    g.costs.push_back(row);
  }
  g.edges = {{2, 0, 0, 0}, {0, 1, 0, 0}, {1, 2, 0, 0}};
  return g;
}

// Issue 38: a power cap of 1e-310 W (or powers near DBL_MAX) made every
// placement's objective +inf and the refinement crashed (SIGSEGV in
// candidateMoves). Every placement is over the cap: the search still ends
// with a legal plan and a finite objective.
TEST(Solver, ExtremePowerCapsStillPlace) {
  for (double cap : {1e-310, 1e-300, 5e-324}) {
    for (Objective objective :
         {Objective::time, Objective::energy, Objective::edp}) {
      StepGraph g = twoRegions();
      g.powerCap = cap;
      g.objective = objective;
      ASSERT_EQ(g.validate(), "");
      std::string error;
      std::optional<StepSolution> solution =
          solveStep(g, Strategy::optimal, error);
      ASSERT_TRUE(solution) << error;
      EXPECT_TRUE(solution->plan.legal());
      EXPECT_TRUE(std::isfinite(solution->plan.objective)) << cap;
    }
  }
}

} // namespace
