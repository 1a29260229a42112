//===- Solver.cpp - pairwise labeling by graph cuts -----------------------===//

#include "HwAgent/Core/Solver.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>

#include <algorithm>
#include <cmath>

using namespace hwcore;

unsigned PartitionProblem::addNode(std::vector<double> costs) {
  unary.push_back(std::move(costs));
  return unary.size() - 1;
}

void PartitionProblem::addEdge(unsigned u, unsigned v,
                               std::vector<double> cost) {
  edges.push_back({u, v, std::move(cost)});
}

double hwcore::evaluate(const PartitionProblem &problem,
                        const std::vector<unsigned> &labels) {
  double total = 0;
  for (unsigned node = 0; node < problem.numNodes(); ++node) {
    double cost = problem.unary[node][labels[node]];
    if (std::isinf(cost))
      return kIllegal;
    total += cost;
  }
  for (const PartitionProblem::Edge &edge : problem.edges)
    total += edge.cost[labels[edge.u] * problem.numLabels + labels[edge.v]];
  return total;
}

namespace {

/// A binary labeling problem (0 = source side, 1 = sink side) solved by one
/// max-flow. Energies follow Kolmogorov & Zabih, "What energy functions can
/// be minimized via graph cuts?" (PAMI 2004).
class BinaryCut {
  using Traits =
      boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using Graph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS,
      boost::property<
          boost::vertex_index_t, long,
          boost::property<
              boost::vertex_color_t, boost::default_color_type,
              boost::property<boost::vertex_distance_t, long,
                              boost::property<boost::vertex_predecessor_t,
                                              Traits::edge_descriptor>>>>,
      boost::property<
          boost::edge_capacity_t, double,
          boost::property<boost::edge_residual_capacity_t, double,
                          boost::property<boost::edge_reverse_t,
                                          Traits::edge_descriptor>>>>;

public:
  explicit BinaryCut(unsigned numNodes)
      : graph(numNodes + 2), source(numNodes), sink(numNodes + 1),
        cost0(numNodes, 0.0), cost1(numNodes, 0.0) {}

  /// Adds E(x) = e0 when x = 0, e1 when x = 1 (finite or kIllegal).
  void addUnary(unsigned node, double e0, double e1) {
    cost0[node] += e0;
    cost1[node] += e1;
  }

  /// Adds E(x_u, x_v) with table (a, b, c, d) = E(0,0), E(0,1), E(1,0),
  /// E(1,1). Requires b + c >= a + d (submodular).
  void addPairwise(unsigned u, unsigned v, double a, double b, double c,
                   double d) {
    // E = a + (c - a) x_u + (d - c) x_v + (b + c - a - d) (1 - x_u) x_v
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
    unsigned n = cost0.size();
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
    boost::boykov_kolmogorov_max_flow(graph, source, sink);
    auto colors = boost::get(boost::vertex_color, graph);
    boost::default_color_type sinkColor = boost::get(colors, sink);
    std::vector<unsigned> labels(n);
    for (unsigned node = 0; node < n; ++node)
      labels[node] = boost::get(colors, node) == sinkColor ? 1 : 0;
    return labels;
  }

private:
  void addArc(unsigned from, unsigned to, double capacity) {
    auto capacities = boost::get(boost::edge_capacity, graph);
    auto reverse = boost::get(boost::edge_reverse, graph);
    auto forward = boost::add_edge(from, to, graph).first;
    auto backward = boost::add_edge(to, from, graph).first;
    capacities[forward] = capacity;
    capacities[backward] = 0;
    reverse[forward] = backward;
    reverse[backward] = forward;
  }

  Graph graph;
  unsigned source, sink;
  std::vector<double> cost0, cost1;
  double constant = 0;
  double couplingSum = 0;
};

} // namespace

std::vector<unsigned> hwcore::cheapestLabels(const PartitionProblem &problem) {
  std::vector<unsigned> labels(problem.numNodes(), 0);
  for (unsigned node = 0; node < problem.numNodes(); ++node) {
    const std::vector<double> &costs = problem.unary[node];
    labels[node] = std::min_element(costs.begin(), costs.end()) - costs.begin();
  }
  return labels;
}

namespace {

/// Exact for two labels: label 0 on the source side.
PartitionResult solveTwoLabels(const PartitionProblem &problem) {
  BinaryCut cut(problem.numNodes());
  for (unsigned node = 0; node < problem.numNodes(); ++node)
    cut.addUnary(node, problem.unary[node][0], problem.unary[node][1]);
  for (const PartitionProblem::Edge &edge : problem.edges)
    cut.addPairwise(edge.u, edge.v, edge.cost[0], edge.cost[1], edge.cost[2],
                    edge.cost[3]);
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
  for (unsigned round = 0; round < maxRounds; ++round) {
    bool improved = false;
    for (unsigned alpha = 0; alpha < L; ++alpha) {
      const std::vector<unsigned> &current = result.labels;
      BinaryCut cut(problem.numNodes());
      for (unsigned node = 0; node < problem.numNodes(); ++node)
        cut.addUnary(node, problem.unary[node][current[node]],
                     problem.unary[node][alpha]);
      for (const PartitionProblem::Edge &edge : problem.edges) {
        unsigned lu = current[edge.u], lv = current[edge.v];
        double a = edge.cost[lu * L + lv], b = edge.cost[lu * L + alpha],
               c = edge.cost[alpha * L + lv], d = edge.cost[alpha * L + alpha];
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
    if (std::all_of(problem.unary[node].begin(), problem.unary[node].end(),
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
