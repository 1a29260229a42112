//===- SolverBenchmark.cpp - the partitioner at scale ---------------------===//
//
// Times the program-aware partitioner (hwcore::solveStep: surrogate min-cut
// or alpha-expansion, exact pricing of candidates, refinement, lower bound)
// on synthetic step graphs shaped like training steps: a chain with skip
// connections every few regions, apple-m4's device models, random region
// costs, 15 % of regions illegal on the accelerators. Also the pairwise
// solver alone (what the runtime re-solves its programs with). Target:
// 10k regions in under 1 s.
//
//   build/bin/hwagent-bench-solver
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Core/Programs.h"
#include "HwAgent/Core/Solver.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace hwcore;

namespace {

StepGraph makeGraph(unsigned regions, unsigned labels) {
  std::mt19937 rng(regions * 31 + labels);
  std::uniform_real_distribution<double> compute(1e-6, 2e-3);
  std::uniform_real_distribution<double> flops(1e5, 1e10);
  std::uniform_int_distribution<int64_t> bytes(1000, 10000000);
  std::bernoulli_distribution illegal(0.15), weights(0.3);
  TargetDescription target = *getBuiltinTarget("apple-m4");
  StepGraph graph;
  for (BackendKind kind :
       {BackendKind::cpu, BackendKind::ane, BackendKind::gpu})
    if (graph.backends.size() < labels)
      graph.backends.push_back(*target.lookup(kind));
  graph.hostLabel = 0;
  unsigned L = graph.numLabels();
  graph.links.assign(L, std::vector<LinkDescription>(L));
  for (unsigned a = 0; a < L; ++a)
    for (unsigned b = 0; b < L; ++b)
      graph.links[a][b] =
          target.link(graph.backends[a].kind, graph.backends[b].kind);
  graph.telemetryFactor.assign(L, 1.0);
  for (unsigned r = 0; r < regions; ++r) {
    std::vector<RegionCost> row(L);
    bool hasWeights = weights(rng);
    for (unsigned l = 0; l < L; ++l) {
      RegionCost &c = row[l];
      c.backend = graph.backends[l].kind;
      if (l > 0 && illegal(rng)) {
        c.legal = false;
        c.reason = "synthetic";
        continue;
      }
      c.compute = compute(rng);
      c.computeInputWeights = hasWeights ? 2 * c.compute : c.compute;
      c.memory = compute(rng) / 4;
      c.flops = int64_t(flops(rng));
      c.weightBytes = hasWeights ? bytes(rng) : 0;
      c.regionLaunch = graph.backends[l].regionLaunch;
    }
    graph.costs.push_back(std::move(row));
  }
  for (unsigned r = 1; r < regions; ++r) {
    int64_t b = bytes(rng);
    graph.edges.push_back({r - 1, r, b, b});
    if (r >= 4 && r % 3 == 0) {
      b = bytes(rng);
      graph.edges.push_back({r - 4, r, b, b});
    }
  }
  graph.edges.push_back({graph.host(), 0, 4096, 4096});
  graph.edges.push_back({regions - 1, graph.host(), 4, 4});
  return graph;
}

void partitionStep(benchmark::State &state) {
  StepGraph graph = makeGraph(state.range(0), state.range(1));
  StepSolution last;
  for (auto _ : state) {
    std::string error;
    std::optional<StepSolution> solution =
        solveStep(graph, Strategy::optimal, error);
    if (!solution) {
      state.SkipWithError(error.c_str());
      return;
    }
    last = std::move(*solution);
    benchmark::DoNotOptimize(last.plan.total);
  }
  state.counters["programs"] = last.plan.programs.size();
  state.counters["evaluations"] = last.evaluations;
  state.counters["step_ms"] = last.plan.total * 1e3;
  state.counters["gap_pct"] =
      100 * (last.plan.total - last.lowerBound) / last.plan.total;
}

void pairwise(benchmark::State &state) {
  unsigned n = state.range(0), L = state.range(1);
  std::mt19937 rng(n * 17 + L);
  std::uniform_real_distribution<double> time(1e-5, 5e-3);
  std::bernoulli_distribution illegal(0.15);
  PartitionProblem problem;
  problem.numLabels = L;
  for (unsigned r = 0; r < n; ++r) {
    std::vector<double> unary(L);
    for (unsigned l = 0; l < L; ++l)
      unary[l] = l > 0 && illegal(rng) ? kIllegal : time(rng);
    problem.addNode(unary);
  }
  for (unsigned r = 1; r < n; ++r) {
    std::vector<double> cost(L * L, 0.0);
    for (unsigned a = 0; a < L; ++a)
      for (unsigned b = 0; b < L; ++b)
        cost[a * L + b] = a == b ? 0 : time(rng);
    problem.addEdge(r - 1, r, cost);
  }
  for (auto _ : state) {
    std::string error;
    benchmark::DoNotOptimize(solvePairwise(problem, error));
  }
}

} // namespace

BENCHMARK(partitionStep)
    ->ArgsProduct({{1000, 10000}, {2, 3}})
    ->ArgNames({"regions", "backends"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(pairwise)
    ->ArgsProduct({{1000, 10000}, {2, 3}})
    ->ArgNames({"programs", "backends"})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
