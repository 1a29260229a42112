//===- SolverBenchmark.cpp - partition solver at scale --------------------===//
//
// Times hwcore::solve on synthetic region graphs shaped like training steps
// (a chain with skip connections every few regions, some regions illegal on
// the accelerators). Target (issue 5): 10k regions in <= 1 s.
//
//   build/bin/hwagent-bench-solver
//
//===----------------------------------------------------------------------===//

#include "hwagent/Partition/Solver.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace hwcore;

namespace {

PartitionProblem makeProblem(unsigned regions, unsigned labels) {
  std::mt19937 rng(regions * 31 + labels);
  std::uniform_real_distribution<double> time(1e-5, 5e-3);
  std::uniform_real_distribution<double> bytes(1e3, 1e7);
  std::bernoulli_distribution illegal(0.15);
  PartitionProblem problem;
  problem.numLabels = labels;
  for (unsigned r = 0; r < regions; ++r) {
    std::vector<double> unary(labels);
    for (unsigned l = 0; l < labels; ++l)
      unary[l] = l > 0 && illegal(rng) ? kIllegal : time(rng);
    problem.addNode(unary);
  }
  auto boundary = [&](double b) {
    std::vector<double> cost(labels * labels, 0.0);
    for (unsigned a = 0; a < labels; ++a)
      for (unsigned c = 0; c < labels; ++c)
        if (a != c)
          cost[a * labels + c] = 2e-4 + b / 1.2e11 + (a == 1 || c == 1 ? b / 6e10 : 0);
    return cost;
  };
  for (unsigned r = 1; r < regions; ++r) {
    problem.addEdge(r - 1, r, boundary(bytes(rng)));
    if (r >= 4 && r % 3 == 0)
      problem.addEdge(r - 4, r, boundary(bytes(rng)));
  }
  return problem;
}

void solveOptimal(benchmark::State &state) {
  unsigned regions = state.range(0), labels = state.range(1);
  PartitionProblem problem = makeProblem(regions, labels);
  SolveOptions options;
  PartitionResult last;
  for (auto _ : state) {
    std::string error;
    std::optional<PartitionResult> result = solve(problem, options, error);
    if (!result) {
      state.SkipWithError(error.c_str());
      return;
    }
    last = *result;
    benchmark::DoNotOptimize(last.objective);
  }
  state.counters["cuts"] = last.cuts;
  state.counters["objective_ms"] = last.objective * 1e3;
}

} // namespace

BENCHMARK(solveOptimal)
    ->ArgsProduct({{1000, 10000}, {2, 3}})
    ->ArgNames({"regions", "backends"})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
