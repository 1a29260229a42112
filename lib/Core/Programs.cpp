//===- Programs.cpp - programs, step time and the partitioner -------------===//

#include "HwAgent/Core/Programs.h"

#include "HwAgent/Core/Solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>

using namespace hwcore;

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

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
  }

  unsigned evaluations = 0;

  /// The exact step time of `labels` (infinite when illegal).
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
    boundaryBytes.assign(count, 0);
    crossFrom.clear();
    crossTo.clear();
    double boundary = 0;
    for (const StepGraph::Edge &e : graph.edges) {
      int from = e.from == n ? -1 : int(programOf[e.from]);
      int to = e.to == n ? -1 : int(programOf[e.to]);
      if (from == to)
        continue;
      if (from >= 0)
        boundaryBytes[from] += e.bytes;
      if (to >= 0)
        boundaryBytes[to] += e.bytes;
      unsigned la = from < 0 ? graph.hostLabel : programLabel[from];
      unsigned lb = to < 0 ? graph.hostLabel : programLabel[to];
      if (la == lb)
        continue;
      // Bytes per edge; one synchronization per pair of programs.
      LinkDescription link = graph.links[la][lb];
      link.sync = 0;
      boundary += linkCost(link, e.bytes, e.convertBytes);
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
    for (unsigned p = 0; p < count; ++p)
      for (unsigned i = start[p]; i < start[p + 1]; ++i)
        if (members[i]->weightBytes > 0) {
          ++weightPrograms[programLabel[p]];
          break;
        }
    double programs = 0;
    for (unsigned p = 0; p < count; ++p) {
      ProgramCost cost = priced(p);
      if (!cost.legal)
        return kInf;
      programs += cost.seconds;
    }
    return programs + boundary;
  }

  /// The placement with its programs, in a topological order, and its
  /// boundaries, priced as `total` prices it.
  StepPlan evaluate(const std::vector<unsigned> &labels) {
    StepPlan plan;
    plan.labels = labels;
    plan.total = total(labels);
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
    for (unsigned p = 0; p < count; ++p) {
      Program &program = plan.programs[rank[p]];
      program.label = programLabel[p];
      program.boundaryBytes = boundaryBytes[p];
      program.cost = priced(p);
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
    return plan;
  }

private:
  /// The cost of provisional program `p` of the last `total`.
  ProgramCost priced(unsigned p) const {
    ProgramContext context;
    context.boundaryBytes = boundaryBytes[p];
    context.telemetryFactor = graph.telemetryFactor[programLabel[p]];
    context.weightPrograms = weightPrograms[programLabel[p]];
    return programCost(graph.backends[programLabel[p]],
                       members.data() + start[p], start[p + 1] - start[p],
                       context, graph.options);
  }

  /// Levels, then connected regions of one label and level; sets
  /// programOf (numbered by first region) and returns the count.
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
    return count;
  }

  const StepGraph &graph;
  std::vector<unsigned> predStart, preds, parent, programOf, start, cursor,
      programLabel;
  std::vector<int> level, exits, first;
  std::vector<const RegionCost *> members;
  std::vector<int64_t> boundaryBytes, weightPrograms;
  std::vector<unsigned> crossFrom, crossTo, pairOf, pairsPerLink;
  std::vector<bool> pairSeen;
  PairGrouper grouper;
};

/// Bytes of every edge touching each region.
std::vector<int64_t> incidentBytes(const StepGraph &graph) {
  std::vector<int64_t> bytes(graph.numRegions() + 1, 0);
  for (const StepGraph::Edge &e : graph.edges) {
    bytes[e.from] += e.bytes;
    bytes[e.to] += e.bytes;
  }
  bytes.pop_back();
  return bytes;
}

/// The region alone as a program on `label` (kInf when illegal).
double standalone(const StepGraph &graph, unsigned v, unsigned label,
                  int64_t ioBytes, double utilizationFlops = 0) {
  const RegionCost &cost = graph.costs[v][label];
  if (!cost.legal)
    return kInf;
  ProgramContext context;
  context.boundaryBytes = ioBytes;
  context.telemetryFactor = graph.telemetryFactor[label];
  context.utilizationFlops = utilizationFlops;
  ProgramCost program =
      programCost(graph.backends[label], {&cost}, context, graph.options);
  return program.legal ? program.seconds : kInf;
}

/// Edges merged per ordered pair of nodes.
struct PairEdge {
  unsigned from, to;
  int64_t bytes = 0, convertBytes = 0;
  /// The pair carries the forest edge of `to` (its largest input).
  bool forest = false;
};

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
                           const std::vector<PairEdge> &edges,
                           bool optimistic) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  std::vector<int64_t> io = incidentBytes(graph);
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
      unary[l] =
          standalone(graph, v, l, io[v],
                     componentFlops[l].empty() ? 0 : componentFlops[l][v]);
  }
  problem.addNodeCosts(kInf)[graph.hostLabel] = 0;
  for (const PairEdge &e : edges) {
    double *cost = problem.addEdgeCosts(e.from, e.to, 0.0);
    for (unsigned a = 0; a < L; ++a)
      for (unsigned b = 0; b < L; ++b)
        if (a != b)
          cost[a * L + b] =
              linkCost(graph.links[a][b], e.bytes, e.convertBytes);
    if (e.forest)
      for (unsigned l = 0; l < L; ++l) {
        const BackendDescription &b = graph.backends[l];
        double refund = b.launch;
        if (b.fusedMemory)
          refund += double(e.bytes) / b.bandwidth;
        cost[l * L + l] -= refund * graph.telemetryFactor[l];
      }
  }
  return problem;
}

/// A relaxation no placement beats: regions at full utilization without
/// weight handling, boundaries without synchronization, and launches
/// counted as regions minus edges on each label (never more than its
/// connected groups, never more than its programs). `launches` off: no
/// launch at all. With three labels the accelerators are merged into one
/// label priced at their cheaper terms, so that the min-cut stays exact.
double relaxation(const StepGraph &graph, const std::vector<PairEdge> &edges,
                  bool launches, unsigned *cuts) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  auto unaryOf = [&](unsigned v, unsigned l) {
    const RegionCost &c = graph.costs[v][l];
    if (!c.legal)
      return kInf;
    const BackendDescription &b = graph.backends[l];
    double work = std::min(c.compute, c.computeInputWeights);
    if (!b.fusedMemory)
      work = std::max(work, c.memory);
    double t = work + c.regionLaunch + (launches ? b.launch : 0);
    return t * graph.telemetryFactor[l];
  };
  auto edgeOf = [&](const PairEdge &e, unsigned a, unsigned b) {
    if (a == b)
      return launches && e.from < n && e.to < n
                 ? -graph.backends[a].launch * graph.telemetryFactor[a]
                 : 0.0;
    LinkDescription link = graph.links[a][b];
    link.sync = 0;
    return linkCost(link, e.bytes, e.convertBytes);
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

/// Each region's cheapest label as a program of its own.
std::vector<unsigned> localLabels(const StepGraph &graph) {
  std::vector<int64_t> io = incidentBytes(graph);
  std::vector<unsigned> labels(graph.numRegions(), graph.hostLabel);
  for (unsigned v = 0; v < graph.numRegions(); ++v) {
    double best = kInf;
    for (unsigned l = 0; l < graph.numLabels(); ++l) {
      double t = standalone(graph, v, l, io[v]);
      if (t < best) {
        best = t;
        labels[v] = l;
      }
    }
  }
  return labels;
}

/// `preferred` where legal, else the local choice (`labels`, from
/// localLabels).
std::vector<unsigned> preferLabels(const StepGraph &graph,
                                   const std::vector<unsigned> &preferred,
                                   std::vector<unsigned> labels) {
  for (unsigned v = 0; v < graph.numRegions(); ++v)
    for (unsigned l : preferred)
      if (graph.legal(v, l)) {
        labels[v] = l;
        break;
      }
  return labels;
}

/// A move the refinement may try: regions to a label, with the step-time
/// change estimated locally. The regions are a program's (`program` >= 0) or
/// the run [first, first + length); no move owns a list, since a large graph
/// has hundreds of thousands of candidates of which a few dozen are priced.
struct Move {
  int program;
  unsigned first, length;
  unsigned label;
  double estimate;

  template <typename Fn> void forEachRegion(const StepPlan &plan, Fn fn) const {
    if (program >= 0) {
      for (unsigned v : plan.programs[program].regions)
        fn(v);
      return;
    }
    for (unsigned v = first; v < first + length; ++v)
      fn(v);
  }
};

/// A region's time inside a program on `label` (telemetry applied).
double inside(const StepGraph &graph, unsigned v, unsigned label) {
  return graph.costs[v][label].insideSeconds() * graph.telemetryFactor[label];
}

/// The refinement's candidates, best estimate first. It tries every move
/// that looks like an improvement (until its budget ends) and then at most
/// `hopeful` of the rest, so only that many of the rest are kept: a large
/// graph has hundreds of thousands of candidates (seven run lengths per
/// region and label) of which a few dozen are priced.
class MoveQueue {
public:
  explicit MoveQueue(unsigned hopeful) : hopeful(hopeful) {}

  void push(const Move &move) {
    // An estimate that is not a number cannot be ranked (and would break
    // the heaps' order): such a move is not tried.
    if (std::isnan(move.estimate))
      return;
    if (move.estimate < 0) {
      improving.push_back(move);
      return;
    }
    // A max-heap of the `hopeful` best non-improving moves.
    if (rest.size() < hopeful) {
      rest.push_back(move);
      std::push_heap(rest.begin(), rest.end(), better);
    } else if (hopeful > 0 && better(move, rest.front())) {
      std::pop_heap(rest.begin(), rest.end(), better);
      rest.back() = move;
      std::push_heap(rest.begin(), rest.end(), better);
    }
  }

  /// Orders what was pushed; call once before popping.
  void seal() {
    std::make_heap(improving.begin(), improving.end(), worse);
    std::sort(rest.begin(), rest.end(), worse);
  }

  bool empty() const { return improving.empty() && rest.empty(); }

  Move pop() {
    if (!improving.empty()) {
      std::pop_heap(improving.begin(), improving.end(), worse);
      Move move = improving.back();
      improving.pop_back();
      return move;
    }
    Move move = rest.back();
    rest.pop_back();
    return move;
  }

private:
  /// A strict total order: by estimate, ties in a fixed order.
  static bool better(const Move &a, const Move &b) {
    if (a.estimate != b.estimate)
      return a.estimate < b.estimate;
    return std::tie(a.program, a.first, a.length, a.label) <
           std::tie(b.program, b.first, b.length, b.label);
  }
  static bool worse(const Move &a, const Move &b) { return better(b, a); }

  unsigned hopeful;
  std::vector<Move> improving;
  /// Sorted worst first once sealed (popped from the back).
  std::vector<Move> rest;
};

/// Moves from `plan`: every program to every other label where it is
/// legal, every region on a boundary to every other legal label, each with
/// a local estimate of the change (the program's own cost there, its
/// boundaries re-priced, launches saved by merging or added by splitting).
void candidateMoves(const StepGraph &graph, const StepPlan &plan,
                    const std::vector<std::vector<unsigned>> &neighbours,
                    MoveQueue &moves) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  auto labelOf = [&](int p) {
    return p < 0 ? graph.hostLabel : plan.programs[p].label;
  };
  std::vector<std::vector<unsigned>> touching(plan.programs.size());
  for (unsigned i = 0; i < plan.boundaries.size(); ++i) {
    const StepPlan::Boundary &b = plan.boundaries[i];
    if (b.from >= 0)
      touching[b.from].push_back(i);
    if (b.to >= 0)
      touching[b.to].push_back(i);
  }
  std::vector<const RegionCost *> members;
  for (unsigned p = 0; p < plan.programs.size(); ++p) {
    const Program &program = plan.programs[p];
    for (unsigned c = 0; c < L; ++c) {
      if (c == program.label)
        continue;
      members.clear();
      bool legal = true;
      for (unsigned v : program.regions) {
        legal &= graph.legal(v, c);
        members.push_back(&graph.costs[v][c]);
      }
      if (!legal)
        continue;
      ProgramContext context;
      context.boundaryBytes = program.boundaryBytes;
      context.telemetryFactor = graph.telemetryFactor[c];
      ProgramCost there =
          programCost(graph.backends[c], members, context, graph.options);
      if (!there.legal)
        continue;
      double estimate = there.seconds - program.cost.seconds;
      for (unsigned i : touching[p]) {
        const StepPlan::Boundary &b = plan.boundaries[i];
        unsigned la = b.from == int(p) ? c : labelOf(b.from);
        unsigned lb = b.to == int(p) ? c : labelOf(b.to);
        double now =
            la == lb ? 0
                     : linkCost(graph.links[la][lb], b.bytes, b.convertBytes);
        estimate += now - b.seconds;
        int other = b.from == int(p) ? b.to : b.from;
        if (other >= 0 && labelOf(other) == c)
          estimate -= graph.backends[c].launch * graph.telemetryFactor[c];
      }
      moves.push({int(p), 0, 0, c, estimate});
    }
  }
  // Single regions: those on a boundary (every region of a small graph).
  for (unsigned v = 0; v < n; ++v) {
    unsigned l = plan.labels[v];
    bool boundary = n <= 64;
    for (unsigned u : neighbours[v])
      boundary |= plan.labels[u] != l;
    if (!boundary)
      continue;
    const Program &program = plan.programs[plan.programOf[v]];
    for (unsigned c = 0; c < L; ++c) {
      if (c == l || !graph.legal(v, c))
        continue;
      double estimate = inside(graph, v, c) - inside(graph, v, l);
      bool joins = false;
      for (unsigned u : neighbours[v])
        joins |= plan.labels[u] == c;
      if (!joins)
        estimate += graph.backends[c].launch * graph.telemetryFactor[c];
      if (program.regions.size() == 1)
        estimate -= program.cost.seconds - inside(graph, v, l);
      moves.push({-1, v, 1, c, estimate});
    }
  }
  // Runs of consecutive regions (layers of a network are consecutive in
  // the topological numbering): what single moves cannot reach, such as
  // the tail of a program moving to another backend as a whole.
  for (unsigned length : {2u, 3u, 4u, 6u, 8u, 12u, 16u}) {
    if (length > n)
      break;
    for (unsigned first = 0; first + length <= n; ++first)
      for (unsigned c = 0; c < L; ++c) {
        bool legal = true, changes = false;
        double estimate = graph.backends[c].launch * graph.telemetryFactor[c];
        for (unsigned v = first; v < first + length && legal; ++v) {
          legal = graph.legal(v, c);
          changes |= plan.labels[v] != c;
          if (legal)
            estimate += inside(graph, v, c) - inside(graph, v, plan.labels[v]);
        }
        if (!legal || !changes)
          continue;
        moves.push({-1, first, length, c, estimate});
      }
  }
  moves.seal();
}

/// Improves `plan` by moving programs and boundary regions to other
/// labels: candidates ranked by their local estimate, each priced exactly,
/// kept when the step gets faster; at most `budget` evaluations.
unsigned refine(const StepGraph &graph, Evaluator &evaluator, StepPlan &plan,
                unsigned budget) {
  const unsigned n = graph.numRegions();
  unsigned moves = 0;
  std::vector<std::vector<unsigned>> neighbours(n);
  for (const StepGraph::Edge &e : graph.edges)
    if (e.from < n && e.to < n) {
      neighbours[e.from].push_back(e.to);
      neighbours[e.to].push_back(e.from);
    }
  // Estimates are local; a few candidates that look neutral or slightly
  // worse are still priced, since merges and splits reach further.
  constexpr unsigned kHopefulExtra = 64;
  while (evaluator.evaluations < budget) {
    MoveQueue candidates(kHopefulExtra);
    candidateMoves(graph, plan, neighbours, candidates);
    std::vector<unsigned> labels = plan.labels;
    double best = plan.total;
    bool improved = false;
    unsigned extra = 0;
    while (!candidates.empty()) {
      Move move = candidates.pop();
      if (evaluator.evaluations >= budget)
        break;
      if (move.estimate >= 0 && ++extra > kHopefulExtra)
        break;
      std::vector<unsigned> trial = labels;
      bool changed = false;
      move.forEachRegion(plan, [&](unsigned v) {
        changed |= trial[v] != move.label;
        trial[v] = move.label;
      });
      if (!changed)
        continue;
      double total = evaluator.total(trial);
      if (total < best - 1e-12 * std::abs(best)) {
        labels = std::move(trial);
        best = total;
        improved = true;
        ++moves;
      }
    }
    if (!improved)
      break;
    plan = evaluator.evaluate(labels);
  }
  return moves;
}

} // namespace

StepPlan hwcore::evaluatePlan(const StepGraph &graph,
                              const std::vector<unsigned> &labels) {
  Evaluator evaluator(graph);
  return evaluator.evaluate(labels);
}

namespace {
double lowerBound(const StepGraph &graph, const std::vector<PairEdge> &edges,
                  unsigned *cuts) {
  return std::max(relaxation(graph, edges, false, cuts),
                  relaxation(graph, edges, true, cuts));
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
  std::vector<unsigned> bestLabels;
  double bestTotal = kInf;
  auto consider = [&](const std::vector<unsigned> &labels) {
    double total = evaluator.total(labels);
    if (bestLabels.empty() || total < bestTotal) {
      bestTotal = total;
      bestLabels = labels;
    }
  };
  for (bool optimistic : {false, true}) {
    PartitionProblem problem = surrogate(graph, edges, optimistic);
    std::string cutError;
    if (std::optional<PartitionResult> cut = solvePairwise(problem, cutError)) {
      solution.cuts += cut->cuts;
      consider(
          std::vector<unsigned>(cut->labels.begin(), cut->labels.begin() + n));
    }
  }
  for (Strategy s : kAllStrategies)
    if (s != Strategy::optimal)
      consider(baseline(s));
  // Exact evaluations are O(regions + edges): bound the refinement's work.
  double work = double(n) * L + double(graph.edges.size()) + 1;
  unsigned budget =
      evaluator.evaluations + unsigned(std::clamp(4e6 / work, 24.0, 4000.0));
  StepPlan best = evaluator.evaluate(bestLabels);
  solution.moves = refine(graph, evaluator, best, budget);
  solution.plan = std::move(best);
  solution.evaluations = evaluator.evaluations;
  solution.lowerBound = lowerBound(graph, edges, &solution.cuts);
  return solution;
}

StepPlan hwcore::solveStepBruteForce(const StepGraph &graph) {
  const unsigned n = graph.numRegions(), L = graph.numLabels();
  Evaluator evaluator(graph);
  std::vector<unsigned> labels(n, 0);
  StepPlan best;
  best.total = kInf;
  while (true) {
    bool legal = true;
    for (unsigned v = 0; v < n && legal; ++v)
      legal = graph.legal(v, labels[v]);
    if (legal) {
      StepPlan plan = evaluator.evaluate(labels);
      if (plan.total < best.total)
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
