//===- StepBound.cpp - the pairwise surrogate and the step's lower bound
//---===//

#include "StepSolver.h"

namespace hwcore::detail {

Pricing Pricing::seconds(const StepGraph &graph) {
  Pricing p;
  p.power.assign(graph.numLabels(), 1.0);
  p.perFlop.assign(graph.numLabels(), 0.0);
  p.perLaunch.assign(graph.numLabels(), 0.0);
  return p;
}

Pricing Pricing::joules(const StepGraph &graph, bool lowestClock) {
  Pricing p;
  p.joulesUnit = true;
  for (const BackendDescription &b : graph.backends) {
    // At a clock s the active power is s ^ alpha of the peak's over seconds
    // that never shrink, the joules per FLOP s ^ (alpha - 1) (alpha >= 1):
    // both at their least at the lowest clock.
    double s = lowestClock ? clockOf(b, 0) : 1;
    double alpha = b.scalesClock() ? b.dvfsExponent : 0;
    p.power.push_back(b.activePower * std::pow(s, alpha) + b.hostPower +
                      graph.staticPower);
    p.perFlop.push_back(b.energyPerFlop * std::pow(s, alpha - 1));
    p.perLaunch.push_back(b.launchEnergy);
  }
  const BackendDescription &host = graph.backends[graph.hostLabel];
  p.boundaryPower = graph.staticPower + hwcore::boundaryPower(host);
  p.perByte = boundaryJoulesPerByte(host);
  return p;
}

double Pricing::program(const StepGraph &graph, unsigned label,
                        const ProgramCost &cost) const {
  if (!joulesUnit)
    return cost.seconds;
  return programEnergy(graph, cost);
}

double Pricing::launch(const StepGraph &graph, unsigned label) const {
  return power[label] * graph.backends[label].launch *
             graph.telemetryFactor[label] +
         perLaunch[label];
}

double standalone(const StepGraph &graph, unsigned v, unsigned label,
                  double utilizationFlops, const Pricing *pricing) {
  const RegionCost &cost = graph.costs[v][label];
  if (!cost.legal)
    return kInf;
  ProgramContext context;
  context.telemetryFactor = graph.telemetryFactor[label];
  context.utilizationFlops = utilizationFlops;
  ProgramCost program =
      programCost(graph.backends[label], {&cost}, context, graph.options);
  if (!program.legal)
    return kInf;
  return pricing ? pricing->program(graph, label, program) : program.seconds;
}

std::vector<PairEdge> mergeEdges(const StepGraph &graph) {
  // Edges with the same ends merge, in the order of their first occurrence.
  std::vector<unsigned> edgeIndex, tails, heads, groupOf;
  for (size_t i = 0; i < graph.edges.size(); ++i)
    if (graph.edges[i].from != graph.edges[i].to) {
      edgeIndex.push_back(unsigned(i));
      tails.push_back(graph.edges[i].from);
      heads.push_back(graph.edges[i].to);
    }
  PairGrouper grouper;
  unsigned groups =
      grouper.group(tails, heads, graph.numRegions() + 1, groupOf);
  constexpr unsigned kNone = ~0u;
  std::vector<unsigned> mergedIndex(groups, kNone);
  std::vector<PairEdge> merged;
  merged.reserve(groups);
  for (size_t k = 0; k < edgeIndex.size(); ++k) {
    const StepGraph::Edge &e = graph.edges[edgeIndex[k]];
    unsigned &index = mergedIndex[groupOf[k]];
    if (index == kNone) {
      index = merged.size();
      merged.push_back({e.from, e.to});
    }
    merged[index].bytes += e.bytes;
    merged[index].convertBytes += e.convertBytes;
  }
  // Each region's forest parent: the region it receives most bytes from.
  std::vector<int> parent(graph.numRegions(), -1);
  std::vector<int64_t> best(graph.numRegions(), -1);
  for (unsigned i = 0; i < merged.size(); ++i) {
    const PairEdge &e = merged[i];
    if (e.from < graph.numRegions() && e.to < graph.numRegions() &&
        e.bytes > best[e.to]) {
      best[e.to] = e.bytes;
      parent[e.to] = int(i);
    }
  }
  for (int i : parent)
    if (i >= 0)
      merged[i].forest = true;
  return merged;
}

/// The pairwise surrogate: each region priced as a program of its own,
/// each boundary as its link, and each forest edge kept on one label
/// refunding that label's launch (regions joined along a forest edge share
/// one). `optimistic`: a region's utilization is that of the largest
/// program it could join (the legal component around it).
PartitionProblem surrogate(const StepGraph &graph,
                           const std::vector<PairEdge> &edges, bool optimistic,
                           const Pricing &pricing) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  std::vector<std::vector<double>> componentFlops(L);
  if (optimistic)
    for (unsigned l = 0; l < L; ++l) {
      if (!graph.backends[l].programRamp)
        continue;
      DisjointSets sets(n);
      for (const PairEdge &e : edges)
        if (e.from < n && e.to < n && graph.legal(e.from, l) &&
            graph.legal(e.to, l))
          sets.unite(e.from, e.to);
      std::vector<double> flops(n, 0);
      for (unsigned v = 0; v < n; ++v)
        if (graph.legal(v, l))
          flops[sets.find(v)] += double(graph.costs[v][l].flops);
      componentFlops[l].resize(n);
      for (unsigned v = 0; v < n; ++v)
        componentFlops[l][v] = flops[sets.find(v)];
    }
  PartitionProblem problem;
  problem.numLabels = L;
  problem.reserve(n + 1, edges.size());
  for (unsigned v = 0; v < n; ++v) {
    double *unary = problem.addNodeCosts(0.0);
    for (unsigned l = 0; l < L; ++l)
      unary[l] = standalone(
          graph, v, l, componentFlops[l].empty() ? 0 : componentFlops[l][v],
          &pricing);
  }
  problem.addNodeCosts(kInf)[graph.hostLabel] = 0;
  for (const PairEdge &e : edges) {
    double *cost = problem.addEdgeCosts(e.from, e.to, 0.0);
    for (unsigned a = 0; a < L; ++a)
      for (unsigned b = 0; b < L; ++b)
        if (a != b)
          cost[a * L + b] = pricing.boundary(
              linkCost(graph.links[a][b], e.bytes, e.convertBytes),
              double(e.bytes));
    if (e.forest)
      for (unsigned l = 0; l < L; ++l)
        cost[l * L + l] -= pricing.launch(graph, l);
  }
  return problem;
}

/// A relaxation no placement beats: regions at full utilization without
/// weight handling, boundaries without synchronization, and launches
/// counted as regions minus edges on each label (never more than its
/// connected groups, never more than its programs), none on a label whose
/// independent programs join (its programs may be fewer than its connected
/// groups). `launches` off: no launch at all. With three labels the
/// accelerators are merged into one label priced at their cheaper terms, so
/// that the min-cut stays exact.
double relaxation(const StepGraph &graph, const std::vector<PairEdge> &edges,
                  bool launches, unsigned *cuts, const Pricing &pricing) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  auto launched = [&](unsigned l) {
    return launches && !joinsIndependentPrograms(graph.backends[l]);
  };
  auto unaryOf = [&](unsigned v, unsigned l) {
    const RegionCost &c = graph.costs[v][l];
    if (!c.legal)
      return kInf;
    double work =
        std::max(std::min(c.compute, c.computeInputWeights), c.memory);
    double t = (work + c.regionLaunch) * graph.telemetryFactor[l];
    return pricing.power[l] * t + pricing.perFlop[l] * double(c.flops) +
           (launched(l) ? pricing.launch(graph, l) : 0.0);
  };
  auto edgeOf = [&](const PairEdge &e, unsigned a, unsigned b) {
    if (a == b)
      return launched(a) && e.from < n && e.to < n ? -pricing.launch(graph, a)
                                                   : 0.0;
    LinkDescription link = graph.links[a][b];
    link.sync = 0;
    return pricing.boundary(linkCost(link, e.bytes, e.convertBytes),
                            double(e.bytes));
  };
  // Label groups: the host's label alone, and (with three or more labels)
  // every other label merged.
  std::vector<std::vector<unsigned>> groups;
  if (L <= 2) {
    for (unsigned l = 0; l < L; ++l)
      groups.push_back({l});
  } else {
    groups.push_back({graph.hostLabel});
    groups.push_back({});
    for (unsigned l = 0; l < L; ++l)
      if (l != graph.hostLabel)
        groups.back().push_back(l);
  }
  unsigned G = groups.size();
  PartitionProblem problem;
  problem.numLabels = G;
  problem.reserve(n + 1, edges.size());
  for (unsigned v = 0; v < n; ++v) {
    double *unary = problem.addNodeCosts(kInf);
    for (unsigned g = 0; g < G; ++g)
      for (unsigned l : groups[g])
        unary[g] = std::min(unary[g], unaryOf(v, l));
  }
  double *host = problem.addNodeCosts(kInf);
  for (unsigned g = 0; g < G; ++g)
    if (std::count(groups[g].begin(), groups[g].end(), graph.hostLabel))
      host[g] = 0;
  for (const PairEdge &e : edges) {
    double *cost = problem.addEdgeCosts(e.from, e.to, kInf);
    for (unsigned ga = 0; ga < G; ++ga)
      for (unsigned gb = 0; gb < G; ++gb) {
        double &c = cost[ga * G + gb];
        for (unsigned a : groups[ga])
          for (unsigned b : groups[gb])
            c = std::min(c, edgeOf(e, a, b));
      }
    // Merged accelerators: a placement on two of them pays at least 0
    // between them; on one, its launch refund. The lower of the two.
    for (unsigned g = 0; g < G; ++g)
      if (groups[g].size() > 1) {
        double refund = 0;
        for (unsigned l : groups[g])
          refund = std::min(refund, edgeOf(e, l, l));
        cost[g * G + g] = refund;
      }
  }
  std::string error;
  std::optional<PartitionResult> result = solvePairwise(problem, error);
  if (cuts && result)
    *cuts += result->cuts;
  return result ? result->objective : 0;
}

} // namespace hwcore::detail
