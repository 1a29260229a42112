//===- Programs.cpp - programs, step time and the partitioner -------------===//
//
// The step graph and the partitioner's driver; the surrogate and bound are
// in StepBound.cpp, the local search in StepSearch.cpp, the exact evaluator
// in StepSolver.h.
//
//===----------------------------------------------------------------------===//

#include "StepSolver.h"

#include <algorithm>
#include <cmath>

using namespace hwcore;
using namespace hwcore::detail;

/// How many of the best distinct starting placements the local search
/// refines (solveStep).
static constexpr size_t kRefinedStarts = 4;

/// Refines `starts` (exact objective, labels) best first until the
/// evaluator has made `budget` evaluations, at most kRefinedStarts of
/// them, and returns the best result (`moves`: the moves it took).
static StepPlan
refineStarts(const StepGraph &graph, Evaluator &evaluator,
             std::vector<std::pair<double, std::vector<unsigned>>> &starts,
             unsigned budget, unsigned &moves) {
  std::stable_sort(
      starts.begin(), starts.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  StepPlan best;
  for (size_t i = 0; i < std::min<size_t>(starts.size(), kRefinedStarts) &&
                     (i == 0 || evaluator.evaluations < budget);
       ++i) {
    StepPlan plan = evaluator.evaluate(starts[i].second);
    unsigned taken = refine(graph, evaluator, plan, budget);
    if (i == 0 || plan.objective < best.objective) {
      best = std::move(plan);
      moves = taken;
    }
  }
  return best;
}

std::optional<unsigned> StepGraph::labelOf(BackendKind kind) const {
  for (unsigned l = 0; l < backends.size(); ++l)
    if (backends[l].kind == kind)
      return l;
  return std::nullopt;
}

std::string StepGraph::validate() const {
  unsigned L = numLabels();
  if (L == 0 || hostLabel >= L)
    return "no labels or host label out of range";
  if (links.size() != L || telemetryFactor.size() != L)
    return "links and telemetry factors need one entry per label";
  for (const auto &row : links)
    if (row.size() != L)
      return "links need one entry per pair of labels";
  for (const auto &row : costs)
    if (row.size() != L)
      return "every region needs a cost per label";
  for (const Edge &e : edges) {
    if (e.from > numRegions() || e.to > numRegions())
      return "edge names an unknown node";
    if (e.from < numRegions() && e.to < numRegions() && e.from >= e.to)
      return "region edges must run forward in the numbering";
  }
  return "";
}

bool StepPlan::legal() const { return std::isfinite(total); }

double StepPlan::boundarySecondsOf(unsigned p) const {
  double total = 0;
  for (const Boundary &b : boundaries)
    if (b.from == int(p) || b.to == int(p))
      total += b.seconds;
  return total;
}

PowerModel hwcore::powerModel(const StepGraph &graph) {
  PowerModel power;
  power.staticPower = graph.staticPower;
  for (const BackendDescription &backend : graph.backends) {
    unsigned b = index(backend.kind);
    power.present[b] = true;
    power.idle[b] = backend.idlePower;
    power.running[b] = runningPower(backend);
  }
  const BackendDescription &host = graph.backends[graph.hostLabel];
  power.host = host.kind;
  power.boundary = boundaryPower(host);
  power.boundaryPerByte = boundaryJoulesPerByte(host);
  return power;
}

EnergyParts hwcore::detail::stepEnergy(const StepGraph &graph, double seconds,
                                       double programJoules,
                                       double boundarySeconds,
                                       double crossingBytes,
                                       const std::vector<double> &busy) {
  std::array<double, kNumBackendKinds> byBackend{};
  for (unsigned l = 0; l < graph.numLabels(); ++l)
    byBackend[index(graph.backends[l].kind)] += busy[l];
  return hwcore::stepEnergy(powerModel(graph), seconds, programJoules,
                            boundarySeconds, crossingBytes, byBackend);
}

void hwcore::detail::priceEnergy(const StepGraph &graph, StepPlan &plan) {
  std::vector<double> busy(graph.numLabels(), 0);
  double programJoules = 0, crossingBytes = 0;
  for (const Program &program : plan.programs) {
    busy[program.label] += program.cost.seconds;
    programJoules += program.cost.joules + program.cost.hostJoules;
  }
  auto labelOf = [&](int p) {
    return p < 0 ? graph.hostLabel : plan.programs[p].label;
  };
  for (const StepPlan::Boundary &b : plan.boundaries)
    if (labelOf(b.from) != labelOf(b.to))
      crossingBytes += double(b.bytes);
  EnergyParts parts = stepEnergy(graph, plan.total, programJoules,
                                 plan.boundarySeconds, crossingBytes, busy);
  plan.programJoules = parts.programs;
  plan.boundaryJoules = parts.boundaries;
  plan.staticJoules = parts.statics;
  plan.idleJoules = parts.idle;
  plan.joules = parts.total();
}

double hwcore::objectiveValue(const StepGraph &graph, double seconds,
                              double joules) {
  return objectiveValue(graph.objective, graph.powerCap, seconds, joules);
}

StepPlan hwcore::evaluatePlan(const StepGraph &graph,
                              const std::vector<unsigned> &labels) {
  Evaluator evaluator(graph);
  return evaluator.evaluate(labels);
}

namespace {
/// No placement's objective is below this: the relaxation in seconds, in
/// joules, or their product for the energy-delay product (both are lower
/// bounds of non-negative terms). Under a power cap a placement over it
/// at the peak runs at a lower clock: never faster, but perhaps with fewer
/// joules, so the joules are bounded at the lowest clock.
double lowerBound(const StepGraph &graph, const std::vector<PairEdge> &edges,
                  unsigned *cuts) {
  auto bound = [&](const Pricing &pricing) {
    return std::max(relaxation(graph, edges, false, cuts, pricing),
                    relaxation(graph, edges, true, cuts, pricing));
  };
  bool capped = graph.powerCap > 0;
  switch (graph.objective) {
  case Objective::time:
    return bound(Pricing::seconds(graph));
  case Objective::energy:
    return bound(Pricing::joules(graph, capped));
  case Objective::edp:
    return bound(Pricing::seconds(graph)) *
           bound(Pricing::joules(graph, capped));
  }
  return 0;
}
} // namespace

double hwcore::stepLowerBound(const StepGraph &graph, unsigned *cuts) {
  return lowerBound(graph, mergeEdges(graph), cuts);
}

std::optional<StepSolution> hwcore::solveStep(const StepGraph &graph,
                                              Strategy strategy,
                                              std::string &error) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  for (unsigned v = 0; v < n; ++v) {
    bool any = false;
    for (unsigned l = 0; l < L; ++l)
      any |= graph.legal(v, l);
    if (!any) {
      error = "region " + std::to_string(v) + " has no legal backend";
      return std::nullopt;
    }
  }
  StepSolution solution;
  Evaluator evaluator(graph);
  std::vector<unsigned> ordered;
  for (BackendKind kind :
       {BackendKind::ane, BackendKind::gpu, BackendKind::cpu})
    if (std::optional<unsigned> l = graph.labelOf(kind))
      ordered.push_back(*l);

  // Each region's own best label: the start of every baseline.
  const std::vector<unsigned> local = localLabels(graph);
  auto baseline = [&](Strategy s) -> std::vector<unsigned> {
    switch (s) {
    case Strategy::local:
    case Strategy::optimal:
      return local;
    case Strategy::greedy:
      return preferLabels(graph, ordered, local);
    case Strategy::cpu:
    case Strategy::ane:
    case Strategy::gpu: {
      std::optional<unsigned> l = graph.labelOf(*fixedBackend(s));
      return l ? preferLabels(graph, {*l}, local) : local;
    }
    }
    return local;
  };

  std::vector<PairEdge> edges = mergeEdges(graph);
  if (strategy != Strategy::optimal) {
    solution.plan = evaluator.evaluate(baseline(strategy));
    solution.evaluations = evaluator.evaluations;
    solution.lowerBound = lowerBound(graph, edges, &solution.cuts);
    return solution;
  }

  // Candidates priced exactly: both surrogates' optima and every baseline
  // (so the result is never worse than a baseline).
  std::vector<std::pair<double, std::vector<unsigned>>> starts;
  auto consider = [&](const std::vector<unsigned> &labels) {
    for (const auto &start : starts)
      if (start.second == labels)
        return;
    starts.emplace_back(evaluator.total(labels), labels);
  };
  // Surrogates in the objective's unit; in both for the energy-delay
  // product and under a power cap (fast and frugal candidates).
  std::vector<Pricing> pricings;
  if (graph.objective != Objective::energy)
    pricings.push_back(Pricing::seconds(graph));
  if (needsEnergy(graph))
    pricings.push_back(Pricing::joules(graph));
  for (const Pricing &pricing : pricings)
    for (bool optimistic : {false, true}) {
      PartitionProblem problem = surrogate(graph, edges, optimistic, pricing);
      std::string cutError;
      if (std::optional<PartitionResult> cut =
              solvePairwise(problem, cutError)) {
        solution.cuts += cut->cuts;
        consider(std::vector<unsigned>(cut->labels.begin(),
                                       cut->labels.begin() + n));
      }
    }
  for (Strategy s : kAllStrategies)
    if (s != Strategy::optimal)
      consider(baseline(s));
  // Exact evaluations are O(regions + edges): bound the refinement's work.
  // The refinement is a local search: the best start is refined first, and
  // what its convergence leaves of the budget refines the next distinct
  // starts (up to kRefinedStarts); the best result is kept. On the ByteIR
  // ResNet-18 step the best start's basin was 4 % above another start's.
  double work = double(n) * L + double(graph.edges.size()) + 1;
  unsigned budget =
      evaluator.evaluations + unsigned(std::clamp(4e6 / work, 24.0, 4000.0));
  solution.plan =
      refineStarts(graph, evaluator, starts, budget, solution.moves);
  solution.evaluations = evaluator.evaluations;
  solution.lowerBound = lowerBound(graph, edges, &solution.cuts);
  return solution;
}

StepPlan hwcore::solveStepBruteForce(const StepGraph &graph) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  Evaluator evaluator(graph);
  std::vector<unsigned> labels(n, 0);
  StepPlan best;
  best.total = best.objective = kInf;
  while (true) {
    bool legal = true;
    for (unsigned v = 0; v < n && legal; ++v)
      legal = graph.legal(v, labels[v]);
    if (legal) {
      StepPlan plan = evaluator.evaluate(labels);
      if (plan.objective < best.objective)
        best = std::move(plan);
    }
    unsigned i = 0;
    while (i < n && ++labels[i] == L)
      labels[i++] = 0;
    if (i == n)
      break;
  }
  return best;
}
