//===- StepSolver.h - the program-aware partitioner's shared parts -*- C++
//-*-===//
//
// Private to lib/Core: what the partitioner's files share. Programs.cpp
// holds the step graph and the driver (solveStep), StepBound.cpp the
// pairwise surrogate and the lower bound, StepSearch.cpp the local search;
// the evaluator that prices a placement exactly is here.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_LIB_CORE_STEPSOLVER_H
#define HWAGENT_LIB_CORE_STEPSOLVER_H

#include "HwAgent/Core/Programs.h"
#include "HwAgent/Core/Solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>
#include <vector>

namespace hwcore::detail {

/// The step's energy (hwcore::stepEnergy, Energy.h) from its seconds, its
/// programs' joules, its boundary seconds and the bytes crossing between
/// labels, and the seconds each label's programs run (`busy`, one per
/// label; the host's boundaries are added there).
EnergyParts stepEnergy(const StepGraph &graph, double seconds,
                       double programJoules, double boundarySeconds,
                       double crossingBytes, const std::vector<double> &busy);
/// Fills in the energy of an evaluated plan (StepPlan::joules).
void priceEnergy(const StepGraph &graph, StepPlan &plan);
/// Whether the objective or a power cap needs each placement's joules.
inline bool needsEnergy(const StepGraph &graph) {
  return graph.objective != Objective::time || graph.powerCap > 0;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Whether independent programs on `backend` can be one program: it has no
/// per-program weight limit (the CPU, the GPU), so joining never makes a
/// legal placement illegal (Evaluator::mergeIndependent).
inline bool joinsIndependentPrograms(const BackendDescription &backend) {
  return backend.maxWeightBytes == 0;
}

/// Union-find with path halving.
struct DisjointSets {
  std::vector<unsigned> parent;
  explicit DisjointSets(unsigned n) : parent(n) {
    std::iota(parent.begin(), parent.end(), 0u);
  }
  unsigned find(unsigned x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }
};

/// Groups equal (tail, head) pairs in O(pairs + vertices), without hashing
/// or sorting: pairs bucketed by tail (stably), each head marked once per
/// bucket. Its buffers stay allocated across calls (the evaluator groups
/// the crossings of every placement it prices).
class PairGrouper {
public:
  /// Sets `groupOf[i]` to the group of pair i (ids in tail order) and
  /// returns the number of groups. Vertices are below `vertices`.
  unsigned group(const std::vector<unsigned> &tails,
                 const std::vector<unsigned> &heads, unsigned vertices,
                 std::vector<unsigned> &groupOf) {
    start.assign(vertices + 1, 0);
    for (unsigned tail : tails)
      ++start[tail + 1];
    for (unsigned v = 0; v < vertices; ++v)
      start[v + 1] += start[v];
    cursor.assign(start.begin(), start.end() - 1);
    byTail.resize(tails.size());
    for (size_t i = 0; i < tails.size(); ++i)
      byTail[cursor[tails[i]]++] = unsigned(i);
    markedBy.assign(vertices, ~0u);
    groupAt.resize(vertices);
    groupOf.resize(tails.size());
    unsigned groups = 0;
    for (unsigned tail = 0; tail < vertices; ++tail)
      for (size_t k = start[tail]; k < start[tail + 1]; ++k) {
        unsigned head = heads[byTail[k]];
        if (markedBy[head] != tail) {
          markedBy[head] = tail;
          groupAt[head] = groups++;
        }
        groupOf[byTail[k]] = groupAt[head];
      }
    return groups;
  }

private:
  std::vector<size_t> start, cursor;
  std::vector<unsigned> byTail, markedBy, groupAt;
};

/// Prices placements of one graph; keeps the adjacency and scratch space
/// between evaluations so that pricing a placement allocates nothing.
class Evaluator {
public:
  explicit Evaluator(const StepGraph &graph) : graph(graph) {
    unsigned n = graph.numRegions();
    predStart.assign(n + 1, 0);
    for (const StepGraph::Edge &e : graph.edges)
      if (e.from < n && e.to < n)
        ++predStart[e.to + 1];
    for (unsigned v = 0; v < n; ++v)
      predStart[v + 1] += predStart[v];
    preds.resize(predStart[n]);
    std::vector<unsigned> fill(predStart.begin(), predStart.end() - 1);
    for (const StepGraph::Edge &e : graph.edges)
      if (e.from < n && e.to < n)
        preds[fill[e.to]++] = e.from;
    parent.resize(n);
    for (const BackendDescription &backend : graph.backends)
      sharesPrograms.push_back(joinsIndependentPrograms(backend));
    lowest = graph.powerCap > 0 ? lowestClock(graph.backends) : 1;
  }

  unsigned evaluations = 0;

  /// The exact objective of `labels` (infinite when illegal): the step
  /// time unless the graph asks for energy (objectiveValue).
  double total(const std::vector<unsigned> &labels) {
    ++evaluations;
    const unsigned n = graph.numRegions(), L = graph.numLabels();
    for (unsigned v = 0; v < n; ++v)
      if (!graph.legal(v, labels[v]))
        return kInf;
    unsigned count = formPrograms(labels);
    // Regions grouped by program (counting sort), boundary bytes, weights.
    start.assign(count + 1, 0);
    for (unsigned v = 0; v < n; ++v)
      ++start[programOf[v] + 1];
    for (unsigned p = 0; p < count; ++p)
      start[p + 1] += start[p];
    members.resize(n);
    cursor.assign(start.begin(), start.end() - 1);
    programLabel.resize(count);
    for (unsigned v = 0; v < n; ++v) {
      unsigned p = programOf[v];
      members[cursor[p]++] = &graph.costs[v][labels[v]];
      programLabel[p] = labels[v];
    }
    crossFrom.clear();
    crossTo.clear();
    double boundary = 0, crossingBytes = 0;
    for (const StepGraph::Edge &e : graph.edges) {
      int from = e.from == n ? -1 : int(programOf[e.from]);
      int to = e.to == n ? -1 : int(programOf[e.to]);
      if (from == to)
        continue;
      unsigned la = from < 0 ? graph.hostLabel : programLabel[from];
      unsigned lb = to < 0 ? graph.hostLabel : programLabel[to];
      if (la == lb)
        continue;
      // Bytes per edge; one synchronization per pair of programs.
      LinkDescription link = graph.links[la][lb];
      link.sync = 0;
      boundary += linkCost(link, e.bytes, e.convertBytes);
      crossingBytes += double(e.bytes);
      crossFrom.push_back(from + 1);
      crossTo.push_back(to + 1);
    }
    // Distinct (from, to) pairs of programs (the host is 0), counted per
    // pair of labels and summed in label order.
    unsigned pairs = grouper.group(crossFrom, crossTo, count + 1, pairOf);
    pairSeen.assign(pairs, false);
    pairsPerLink.assign(L * L, 0);
    auto labelOfProgram = [&](unsigned p) {
      return p == 0 ? graph.hostLabel : programLabel[p - 1];
    };
    for (size_t i = 0; i < pairOf.size(); ++i)
      if (!pairSeen[pairOf[i]]) {
        pairSeen[pairOf[i]] = true;
        ++pairsPerLink[labelOfProgram(crossFrom[i]) * L +
                       labelOfProgram(crossTo[i])];
      }
    for (unsigned la = 0; la < L; ++la)
      for (unsigned lb = 0; lb < L; ++lb)
        if (pairsPerLink[la * L + lb])
          boundary += pairsPerLink[la * L + lb] * graph.links[la][lb].sync;
    weightPrograms.assign(L, 0);
    stepWeightBytes.assign(L, 0);
    for (unsigned p = 0; p < count; ++p) {
      bool weighted = false;
      for (unsigned i = start[p]; i < start[p + 1]; ++i) {
        stepWeightBytes[programLabel[p]] += members[i]->weightBytes;
        weighted |= members[i]->weightBytes > 0;
      }
      weightPrograms[programLabel[p]] += weighted ? 1 : 0;
    }
    double programs = 0, programJoules = 0;
    bool energy = needsEnergy(graph), scales = lowest < 1;
    if (energy)
      busy.assign(L, 0);
    if (scales)
      loads.assign(L, ClockedLoad());
    for (unsigned p = 0; p < count; ++p) {
      ProgramCost cost = priced(p);
      if (!cost.legal)
        return kInf;
      programs += cost.seconds;
      if (energy) {
        programJoules += cost.joules + cost.hostJoules;
        busy[programLabel[p]] += cost.seconds;
      }
      if (scales)
        loads[programLabel[p]].add(graph.backends[programLabel[p]], cost);
    }
    lastSeconds = programs + boundary;
    lastJoules = energy ? stepEnergy(graph, lastSeconds, programJoules,
                                     boundary, crossingBytes, busy)
                              .total()
                        : 0;
    lastClock = 1;
    if (scales && lastJoules > graph.powerCap * lastSeconds)
      clockDown(boundary, crossingBytes);
    return objectiveValue(graph, lastSeconds, lastJoules);
  }

  /// The placement with its programs, in a topological order, and its
  /// boundaries, priced as `total` prices it.
  StepPlan evaluate(const std::vector<unsigned> &labels) {
    StepPlan plan;
    plan.labels = labels;
    plan.objective = total(labels);
    plan.total = std::isfinite(plan.objective) ? lastSeconds : kInf;
    if (!std::isfinite(plan.total))
      return plan;
    const unsigned n = graph.numRegions();
    unsigned count = start.size() - 1;
    // Topological order of the programs (the program graph is acyclic).
    std::vector<std::vector<unsigned>> succ(count);
    std::vector<unsigned> indegree(count, 0);
    for (const StepGraph::Edge &e : graph.edges)
      if (e.from < n && e.to < n && programOf[e.from] != programOf[e.to]) {
        succ[programOf[e.from]].push_back(programOf[e.to]);
        ++indegree[programOf[e.to]];
      }
    std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>> ready;
    for (unsigned p = 0; p < count; ++p)
      if (indegree[p] == 0)
        ready.push(p);
    std::vector<unsigned> rank(count, 0);
    unsigned next = 0;
    while (!ready.empty()) {
      unsigned p = ready.top();
      ready.pop();
      rank[p] = next++;
      for (unsigned s : succ[p])
        if (--indegree[s] == 0)
          ready.push(s);
    }
    plan.programs.assign(count, Program());
    plan.programOf.resize(n);
    plan.clock = lastClock;
    for (unsigned p = 0; p < count; ++p) {
      Program &program = plan.programs[rank[p]];
      program.label = programLabel[p];
      program.cost = priced(p);
      clockProgram(graph.backends[program.label], program.cost, lastClock);
      plan.programSeconds += program.cost.seconds;
    }
    for (unsigned v = 0; v < n; ++v) {
      plan.programOf[v] = rank[programOf[v]];
      plan.programs[rank[programOf[v]]].regions.push_back(v);
    }
    // Boundaries per ordered pair of programs (or the host).
    std::map<std::pair<int, int>, unsigned> index;
    for (const StepGraph::Edge &e : graph.edges) {
      int from = e.from == n ? -1 : int(plan.programOf[e.from]);
      int to = e.to == n ? -1 : int(plan.programOf[e.to]);
      if (from == to)
        continue;
      auto [it, inserted] =
          index.try_emplace({from, to}, plan.boundaries.size());
      if (inserted)
        plan.boundaries.push_back({from, to, 0, 0, 0});
      plan.boundaries[it->second].bytes += e.bytes;
      plan.boundaries[it->second].convertBytes += e.convertBytes;
    }
    auto labelOf = [&](int p) {
      return p < 0 ? graph.hostLabel : plan.programs[p].label;
    };
    for (StepPlan::Boundary &b : plan.boundaries) {
      unsigned la = labelOf(b.from), lb = labelOf(b.to);
      b.seconds =
          la == lb ? 0 : linkCost(graph.links[la][lb], b.bytes, b.convertBytes);
      plan.boundarySeconds += b.seconds;
    }
    priceEnergy(graph, plan);
    return plan;
  }

private:
  /// The last `total`'s step, over the power cap at the peak, priced at the
  /// clock that meets it (or the lowest; docs/partitioning.md "Power cap").
  void clockDown(double boundary, double crossingBytes) {
    auto powerAt = [&](double clock) {
      double seconds = boundary, joules = 0;
      for (unsigned l = 0; l < graph.numLabels(); ++l) {
        double s = 0, j = 0;
        loads[l].at(graph.backends[l], clock, s, j);
        seconds += s;
        joules += j;
        busy[l] = s;
      }
      lastSeconds = seconds;
      lastJoules =
          stepEnergy(graph, seconds, joules, boundary, crossingBytes, busy)
              .total();
      return seconds > 0 ? lastJoules / seconds : 0;
    };
    lastClock = clockUnderCap(graph.powerCap, lowest, powerAt);
    powerAt(lastClock);
  }

  /// The cost of provisional program `p` of the last `total`.
  ProgramCost priced(unsigned p) const {
    ProgramContext context;
    context.telemetryFactor = graph.telemetryFactor[programLabel[p]];
    context.weightPrograms = weightPrograms[programLabel[p]];
    context.stepWeightBytes = stepWeightBytes[programLabel[p]];
    return programCost(graph.backends[programLabel[p]],
                       members.data() + start[p], start[p + 1] - start[p],
                       context, graph.options);
  }

  /// Levels, then connected regions of one label and level, then
  /// independent programs joined where the backend allows it
  /// (mergeIndependent); sets programOf (numbered by first region) and
  /// returns the count.
  unsigned formPrograms(const std::vector<unsigned> &labels) {
    const unsigned n = graph.numRegions(), L = graph.numLabels();
    level.assign(n, 0);
    // exits[v * L + b]: for a region not on b, the most exits from b of a
    // path from a b-region to it (-1: none reaches it).
    exits.assign(size_t(n) * L, -1);
    for (unsigned v = 0; v < n; ++v) {
      unsigned lv = labels[v];
      int k = 0;
      int *row = exits.data() + size_t(v) * L;
      for (unsigned i = predStart[v]; i < predStart[v + 1]; ++i) {
        unsigned p = preds[i], lp = labels[p];
        const int *prow = exits.data() + size_t(p) * L;
        k = std::max(k, lp == lv ? level[p] : prow[lv]);
        for (unsigned b = 0; b < L; ++b)
          if (b != lv)
            row[b] = std::max(row[b], lp == b ? level[p] + 1 : prow[b]);
      }
      level[v] = k;
    }
    for (unsigned v = 0; v < n; ++v)
      parent[v] = v;
    auto find = [&](unsigned x) {
      while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
      return x;
    };
    for (const StepGraph::Edge &e : graph.edges)
      if (e.from < n && e.to < n && labels[e.from] == labels[e.to] &&
          level[e.from] == level[e.to]) {
        unsigned a = find(e.from), b = find(e.to);
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);
      }
    programOf.assign(n, 0);
    first.assign(n, -1);
    unsigned count = 0;
    for (unsigned v = 0; v < n; ++v) {
      unsigned root = find(v);
      if (first[root] < 0)
        first[root] = count++;
      programOf[v] = first[root];
    }
    return mergeIndependent(labels, count);
  }

  /// Joins independent programs of one label where its backend allows it
  /// (no per-program weight limit, so a joined program is never illegal
  /// where its parts were legal: the CPU's and the GPU's): each program
  /// gets a stage, the most label changes on a path of programs into it,
  /// and programs of one such label and stage become one. A joined
  /// program stays convex and the program graph acyclic: along an edge
  /// between programs the stage never falls and rises when the label
  /// changes, so a path that leaves a stage's programs of one label never
  /// comes back to them. Renumbers programOf by first region; returns the
  /// count.
  unsigned mergeIndependent(const std::vector<unsigned> &labels,
                            unsigned count) {
    const unsigned n = graph.numRegions(), L = graph.numLabels();
    groupLabel.assign(count, 0);
    joinable.assign(count, true);
    for (unsigned v = 0; v < n; ++v) {
      groupLabel[programOf[v]] = labels[v];
      if (!graph.hostOrdered.empty() && graph.hostOrdered[v])
        joinable[programOf[v]] = false;
    }
    // The program graph (CSR by tail), then stages in a topological order.
    succStart.assign(count + 1, 0);
    indegree.assign(count, 0);
    for (const StepGraph::Edge &e : graph.edges)
      if (e.from < n && e.to < n && programOf[e.from] != programOf[e.to])
        ++succStart[programOf[e.from] + 1];
    for (unsigned p = 0; p < count; ++p)
      succStart[p + 1] += succStart[p];
    succ.resize(succStart[count]);
    cursor.assign(succStart.begin(), succStart.end() - 1);
    for (const StepGraph::Edge &e : graph.edges)
      if (e.from < n && e.to < n && programOf[e.from] != programOf[e.to]) {
        succ[cursor[programOf[e.from]]++] = programOf[e.to];
        ++indegree[programOf[e.to]];
      }
    stage.assign(count, 0);
    order.clear();
    for (unsigned p = 0; p < count; ++p)
      if (indegree[p] == 0)
        order.push_back(p);
    unsigned maxStage = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      unsigned p = order[i];
      maxStage = std::max(maxStage, stage[p]);
      for (unsigned k = succStart[p]; k < succStart[p + 1]; ++k) {
        unsigned s = succ[k];
        stage[s] =
            std::max(stage[s], stage[p] + (groupLabel[p] != groupLabel[s]));
        if (--indegree[s] == 0)
          order.push_back(s);
      }
    }
    // One id per (label, stage) of joinable programs, others their own;
    // numbered by first region.
    keyGroup.assign(size_t(maxStage + 1) * L, -1);
    first.assign(count, -1);
    unsigned merged = 0;
    for (unsigned v = 0; v < n; ++v) {
      unsigned p = programOf[v];
      if (first[p] < 0) {
        int *key = nullptr;
        if (joinable[p] && sharesPrograms[groupLabel[p]])
          key = &keyGroup[size_t(stage[p]) * L + groupLabel[p]];
        if (key && *key >= 0) {
          first[p] = *key;
        } else {
          first[p] = merged++;
          if (key)
            *key = first[p];
        }
      }
      programOf[v] = first[p];
    }
    return merged;
  }

  const StepGraph &graph;
  std::vector<unsigned> predStart, preds, parent, programOf, start, cursor,
      programLabel;
  std::vector<int> level, exits, first, keyGroup;
  std::vector<unsigned> groupLabel, succStart, succ, indegree, stage, order;
  std::vector<bool> joinable, sharesPrograms;
  std::vector<const RegionCost *> members;
  std::vector<int64_t> weightPrograms;
  /// Weight bytes of all programs per label (ProgramContext).
  std::vector<int64_t> stepWeightBytes;
  std::vector<double> busy;
  /// Per label, the last `total`'s programs (under a cap, for clockDown).
  std::vector<ClockedLoad> loads;
  double lastSeconds = 0, lastJoules = 0, lastClock = 1, lowest = 1;
  std::vector<unsigned> crossFrom, crossTo, pairOf, pairsPerLink;
  std::vector<bool> pairSeen;
  PairGrouper grouper;
};

/// Edges merged per ordered pair of nodes.
struct PairEdge {
  unsigned from, to;
  int64_t bytes = 0, convertBytes = 0;
  /// The pair carries the forest edge of `to` (its largest input).
  bool forest = false;
};

/// How the surrogate and the relaxation price what they count: in
/// seconds, or in joules (docs/cost-model.md "Energy"): per label the watts
/// a second of its programs costs (the backend's active power, the host's
/// feeding power and the package's static power), joules per FLOP and per
/// launch; per boundary second the watts of the host copying plus the
/// static power, and joules per byte crossing.
struct Pricing {
  std::vector<double> power, perFlop, perLaunch;
  double boundaryPower = 1, perByte = 0;
  bool joulesUnit = false;
  static Pricing seconds(const StepGraph &graph);
  /// `lowestClock`: the backends that scale priced at their lowest clock
  /// (what a power cap can bring them down to: the bound stays below every
  /// capped placement's joules).
  static Pricing joules(const StepGraph &graph, bool lowestClock = false);
  /// A program alone, priced.
  double program(const StepGraph &graph, unsigned label,
                 const ProgramCost &cost) const;
  /// `seconds` of boundary moving `bytes`, priced.
  double boundary(double seconds, double bytes) const {
    return boundaryPower * seconds + perByte * bytes;
  }
  /// A launch on `label` (refunded where regions share one), priced.
  double launch(const StepGraph &graph, unsigned label) const;
};

/// The region alone as a program on `label` (kInf when illegal), priced.
double standalone(const StepGraph &graph, unsigned v, unsigned label,
                  double utilizationFlops = 0,
                  const Pricing *pricing = nullptr);
/// Edges merged per ordered pair of nodes, each pair's forest edge marked.
std::vector<PairEdge> mergeEdges(const StepGraph &graph);
/// The pairwise surrogate of the step (StepBound.cpp).
PartitionProblem surrogate(const StepGraph &graph,
                           const std::vector<PairEdge> &edges, bool optimistic,
                           const Pricing &pricing);
/// A relaxation no placement beats (StepBound.cpp), in the pricing's unit.
double relaxation(const StepGraph &graph, const std::vector<PairEdge> &edges,
                  bool launches, unsigned *cuts, const Pricing &pricing);
/// Each region's cheapest label as a program of its own.
std::vector<unsigned> localLabels(const StepGraph &graph);
/// `preferred` where legal, else `labels`.
std::vector<unsigned> preferLabels(const StepGraph &graph,
                                   const std::vector<unsigned> &preferred,
                                   std::vector<unsigned> labels);
/// Improves `plan` by moving programs and boundary regions (StepSearch.cpp);
/// returns the moves kept.
unsigned refine(const StepGraph &graph, Evaluator &evaluator, StepPlan &plan,
                unsigned budget);

} // namespace hwcore::detail

#endif // HWAGENT_LIB_CORE_STEPSOLVER_H
