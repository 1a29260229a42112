//===- Solver.cpp - pairwise labeling by graph cuts -----------------------===//

#include "HwAgent/Core/Solver.h"

#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace hwcore;

unsigned PartitionProblem::addNode(const std::vector<double> &costs) {
  assert(costs.size() == numLabels && "one cost per label");
  double *row = addNodeCosts(0.0);
  std::copy(costs.begin(), costs.end(), row);
  return nodeCount - 1;
}

void PartitionProblem::addEdge(unsigned u, unsigned v,
                               const std::vector<double> &cost) {
  assert(cost.size() == size_t(numLabels) * numLabels &&
         "one cost per pair of labels");
  double *table = addEdgeCosts(u, v, 0.0);
  std::copy(cost.begin(), cost.end(), table);
}

double *PartitionProblem::addNodeCosts(double initial) {
  unaryCosts.resize(unaryCosts.size() + numLabels, initial);
  ++nodeCount;
  return unaryCosts.data() + unaryCosts.size() - numLabels;
}

double *PartitionProblem::addEdgeCosts(unsigned u, unsigned v, double initial) {
  edges.push_back({u, v});
  size_t size = size_t(numLabels) * numLabels;
  pairwiseCosts.resize(pairwiseCosts.size() + size, initial);
  return pairwiseCosts.data() + pairwiseCosts.size() - size;
}

void PartitionProblem::reserve(unsigned nodes, size_t numEdges) {
  unaryCosts.reserve(size_t(nodes) * numLabels);
  edges.reserve(numEdges);
  pairwiseCosts.reserve(numEdges * numLabels * numLabels);
}

double hwcore::evaluate(const PartitionProblem &problem,
                        const std::vector<unsigned> &labels) {
  double total = 0;
  for (unsigned node = 0; node < problem.numNodes(); ++node) {
    double cost = problem.unary(node, labels[node]);
    if (std::isinf(cost))
      return kIllegal;
    total += cost;
  }
  for (unsigned e = 0; e < problem.edges.size(); ++e) {
    const PartitionProblem::Edge &edge = problem.edges[e];
    total += problem.pairwise(e, labels[edge.u], labels[edge.v]);
  }
  return total;
}

namespace {

/// A binary labeling problem (0 = source side, 1 = sink side) solved by one
/// max-flow. Energies follow Kolmogorov & Zabih, "What energy functions can
/// be minimized via graph cuts?" (PAMI 2004). Arcs are collected first and
/// the flow network is built once as a compressed sparse row graph (a few
/// flat arrays instead of one edge list per vertex: building the network
/// was most of a cut's time on graphs of 10^4-10^5 regions).
class BinaryCut {
  using Graph = boost::compressed_sparse_row_graph<boost::directedS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  using Edge = boost::graph_traits<Graph>::edge_descriptor;

public:
  /// Starts a problem over `numNodes` nodes. The buffers stay allocated
  /// across problems: an expansion solves several cuts of one size.
  void reset(unsigned nodes) {
    numNodes = nodes;
    source = nodes;
    sink = nodes + 1;
    cost0.assign(nodes, 0.0);
    cost1.assign(nodes, 0.0);
    tails.clear();
    heads.clear();
    capacities.clear();
    constant = 0;
    couplingSum = 0;
  }

  /// Finite costs beyond +-1e150 (no seconds or joules are) are taken as
  /// 1e150: sums of them stay finite, so the hard constraint's weight and
  /// the residual capacities do (inf - inf in the max flow is NaN); NaN is
  /// illegal.
  static double bounded(double e) {
    if (std::isnan(e))
      return kIllegal;
    return std::isinf(e) ? e : std::clamp(e, -1e150, 1e150);
  }

  /// Adds E(x) = e0 when x = 0, e1 when x = 1 (finite or kIllegal).
  void addUnary(unsigned node, double e0, double e1) {
    cost0[node] += bounded(e0);
    cost1[node] += bounded(e1);
  }

  /// Adds E(x_u, x_v) with table (a, b, c, d) = E(0,0), E(0,1), E(1,0),
  /// E(1,1). Requires b + c >= a + d (submodular).
  void addPairwise(unsigned u, unsigned v, double a, double b, double c,
                   double d) {
    // E = a + (c - a) x_u + (d - c) x_v + (b + c - a - d) (1 - x_u) x_v
    a = bounded(a), b = bounded(b), c = bounded(c), d = bounded(d);
    constant += a;
    cost1[u] += c - a;
    cost1[v] += d - c;
    double coupling = b + c - a - d;
    if (coupling > 0) {
      addArc(u, v, coupling);
      couplingSum += coupling;
    }
  }

  /// Returns the labels of a minimum cut.
  std::vector<unsigned> solve() {
    unsigned n = numNodes;
    // A hard constraint must outweigh every finite cost together, however
    // extreme the target's figures (a fixed sentinel could lose to them).
    double finite = couplingSum;
    for (unsigned node = 0; node < n; ++node)
      for (double e : {cost0[node], cost1[node]})
        if (!std::isinf(e))
          finite += std::abs(e);
    double kBig = 2 * finite + 1;
    for (unsigned node = 0; node < n; ++node) {
      // Only the difference matters; both infinite cannot happen (callers
      // keep the current legal label available).
      double e0 = cost0[node], e1 = cost1[node];
      if (std::isinf(e0) && std::isinf(e1))
        e1 = kBig;
      e0 = std::isinf(e0) ? kBig : e0;
      e1 = std::isinf(e1) ? kBig : e1;
      double low = std::min(e0, e1);
      constant += low;
      // x = 1 (sink side) cuts source->node; x = 0 cuts node->sink.
      if (e1 - low > 0)
        addArc(source, node, e1 - low);
      if (e0 - low > 0)
        addArc(node, sink, e0 - low);
    }

    // Every arc and its reverse, ordered by tail (a counting sort, stable):
    // arc i of the lists lands at slot[i].
    const unsigned numVertices = n + 2;
    const size_t numArcs = tails.size();
    start.assign(numVertices + 1, 0);
    for (unsigned tail : tails)
      ++start[tail + 1];
    for (unsigned v = 0; v < numVertices; ++v)
      start[v + 1] += start[v];
    slot.resize(numArcs);
    sorted.resize(numArcs);
    for (size_t i = 0; i < numArcs; ++i) {
      slot[i] = start[tails[i]]++;
      sorted[slot[i]] = {tails[i], heads[i]};
    }
    Graph graph(boost::edges_are_sorted, sorted.begin(), sorted.end(),
                numVertices);

    // Edge properties by edge index (= slot). Arcs come in pairs, 2k
    // forward and 2k + 1 backward; the reverse of an edge starts at its head.
    capacity.resize(numArcs);
    residual.resize(numArcs);
    reverseSlot.resize(numArcs);
    for (size_t i = 0; i < numArcs; ++i) {
      capacity[slot[i]] = capacities[i];
      reverseSlot[slot[i]] = slot[i ^ 1];
    }
    auto edgeIndex = boost::get(boost::edge_index, graph);
    auto reverseOf = [&](const Edge &e) {
      return Edge(boost::target(e, graph), reverseSlot[e.idx]);
    };
    boost::function_property_map<decltype(reverseOf), Edge, Edge> reverse(
        reverseOf);
    predecessor.assign(numVertices, Edge());
    color.assign(numVertices, boost::white_color);
    distance.assign(numVertices, 0);
    auto vertexIndex = boost::get(boost::vertex_index, graph);
    boost::boykov_kolmogorov_max_flow(
        graph, boost::make_iterator_property_map(capacity.begin(), edgeIndex),
        boost::make_iterator_property_map(residual.begin(), edgeIndex), reverse,
        boost::make_iterator_property_map(predecessor.begin(), vertexIndex),
        boost::make_iterator_property_map(color.begin(), vertexIndex),
        boost::make_iterator_property_map(distance.begin(), vertexIndex),
        vertexIndex, Vertex(source), Vertex(sink));
    boost::default_color_type sinkColor = color[sink];
    std::vector<unsigned> labels(n);
    for (unsigned node = 0; node < n; ++node)
      labels[node] = color[node] == sinkColor ? 1 : 0;
    return labels;
  }

private:
  void addArc(unsigned from, unsigned to, double capacity) {
    tails.push_back(from);
    heads.push_back(to);
    capacities.push_back(capacity);
    tails.push_back(to);
    heads.push_back(from);
    capacities.push_back(0);
  }

  unsigned numNodes = 0, source = 0, sink = 1;
  std::vector<double> cost0, cost1;
  /// Arc lists: 2k is an arc, 2k + 1 its reverse (capacity 0).
  std::vector<unsigned> tails, heads;
  std::vector<double> capacities;
  double constant = 0;
  double couplingSum = 0;
  // Scratch of solve().
  std::vector<size_t> start, slot, reverseSlot;
  std::vector<std::pair<Vertex, Vertex>> sorted;
  std::vector<Edge> predecessor;
  std::vector<double> capacity, residual;
  std::vector<boost::default_color_type> color;
  std::vector<long> distance;
};

} // namespace

std::vector<unsigned> hwcore::cheapestLabels(const PartitionProblem &problem) {
  std::vector<unsigned> labels(problem.numNodes(), 0);
  for (unsigned node = 0; node < problem.numNodes(); ++node) {
    const double *costs = problem.unaryOf(node);
    labels[node] = std::min_element(costs, costs + problem.numLabels) - costs;
  }
  return labels;
}

namespace {

/// Exact for two labels: label 0 on the source side.
PartitionResult solveTwoLabels(const PartitionProblem &problem) {
  BinaryCut cut;
  cut.reset(problem.numNodes());
  for (unsigned node = 0; node < problem.numNodes(); ++node)
    cut.addUnary(node, problem.unary(node, 0), problem.unary(node, 1));
  for (unsigned e = 0; e < problem.edges.size(); ++e) {
    const double *cost = problem.pairwiseOf(e);
    cut.addPairwise(problem.edges[e].u, problem.edges[e].v, cost[0], cost[1],
                    cost[2], cost[3]);
  }
  PartitionResult result;
  result.labels = cut.solve();
  result.cuts = 1;
  result.objective = evaluate(problem, result.labels);
  return result;
}

/// Alpha-expansion (Boykov, Veksler & Zabih, PAMI 2001) from the cheapest
/// labels: for each alpha, every node may switch to alpha in one min-cut.
PartitionResult solveExpansion(const PartitionProblem &problem,
                               unsigned maxRounds) {
  PartitionResult result;
  result.labels = cheapestLabels(problem);
  result.objective = evaluate(problem, result.labels);
  unsigned L = problem.numLabels;
  BinaryCut cut;
  for (unsigned round = 0; round < maxRounds; ++round) {
    bool improved = false;
    for (unsigned alpha = 0; alpha < L; ++alpha) {
      const std::vector<unsigned> &current = result.labels;
      cut.reset(problem.numNodes());
      for (unsigned node = 0; node < problem.numNodes(); ++node)
        cut.addUnary(node, problem.unary(node, current[node]),
                     problem.unary(node, alpha));
      for (unsigned e = 0; e < problem.edges.size(); ++e) {
        const PartitionProblem::Edge &edge = problem.edges[e];
        const double *cost = problem.pairwiseOf(e);
        unsigned lu = current[edge.u], lv = current[edge.v];
        double a = cost[lu * L + lv], b = cost[lu * L + alpha],
               c = cost[alpha * L + lv], d = cost[alpha * L + alpha];
        if (b + c < a + d) {
          // Not submodular for this move: raise the mixed terms so the move
          // overestimates; the true objective decides below.
          b = a + d - c;
          ++result.tightenedTerms;
        }
        cut.addPairwise(edge.u, edge.v, a, b, c, d);
      }
      std::vector<unsigned> move = cut.solve();
      ++result.cuts;
      std::vector<unsigned> next = current;
      for (unsigned node = 0; node < problem.numNodes(); ++node)
        if (move[node])
          next[node] = alpha;
      double objective = evaluate(problem, next);
      if (objective < result.objective - 1e-15 * std::abs(result.objective)) {
        result.labels = std::move(next);
        result.objective = objective;
        improved = true;
      }
    }
    if (!improved)
      break;
  }
  return result;
}

} // namespace

std::optional<PartitionResult>
hwcore::solvePairwise(const PartitionProblem &problem, std::string &error,
                      unsigned maxRounds) {
  for (unsigned node = 0; node < problem.numNodes(); ++node)
    if (std::all_of(problem.unaryOf(node),
                    problem.unaryOf(node) + problem.numLabels,
                    [](double c) { return std::isinf(c); })) {
      error = "node " + std::to_string(node) + " has no legal backend";
      return std::nullopt;
    }
  PartitionResult result;
  if (problem.numLabels == 1)
    result.labels.assign(problem.numNodes(), 0);
  else if (problem.numLabels == 2)
    result = solveTwoLabels(problem);
  else
    result = solveExpansion(problem, maxRounds);
  result.objective = evaluate(problem, result.labels);
  return result;
}

PartitionResult hwcore::solveBruteForce(const PartitionProblem &problem) {
  unsigned n = problem.numNodes(), L = problem.numLabels;
  std::vector<unsigned> labels(n, 0);
  PartitionResult best;
  best.objective = kIllegal;
  while (true) {
    double objective = evaluate(problem, labels);
    if (objective < best.objective) {
      best.objective = objective;
      best.labels = labels;
    }
    unsigned i = 0;
    while (i < n && ++labels[i] == L)
      labels[i++] = 0;
    if (i == n)
      break;
  }
  return best;
}
