//===- StepSearch.cpp - the partitioner's local search --------------------===//

#include "StepSolver.h"

#include <queue>

namespace hwcore::detail {

/// Each region's cheapest label as a program of its own.
std::vector<unsigned> localLabels(const StepGraph &graph) {
  std::vector<unsigned> labels(graph.numRegions(), graph.hostLabel);
  for (unsigned v = 0; v < graph.numRegions(); ++v) {
    double best = kInf;
    for (unsigned l = 0; l < graph.numLabels(); ++l) {
      double t = standalone(graph, v, l);
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
  // A plan that cannot be priced (an infinite or NaN objective: powers or a
  // cap at the edge of double's range) offers no gradient to follow.
  if (!std::isfinite(plan.objective) || plan.programs.empty())
    return 0;
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
    double best = plan.objective;
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

} // namespace hwcore::detail
