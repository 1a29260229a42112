//===- Regret.cpp - regret against the simulator's truth ------------------===//
//
// With simulate_cpu every backend is charged its predicted time under the
// scenario, so the truth of every placement is known: the runtime sums what
// ran (probes and switching included) and keeps the stretches of steps
// under constant conditions (segments). From them: the clairvoyant oracle
// (the best placement per segment, knowing every change in advance and
// paying the same switching costs: a dynamic program over segments), the
// best fixed placement in hindsight, and per change of conditions how much
// a better placement was worth and how the runtime reacted.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include <functional>

#include "HwAgent/Core/Solver.h"

#include <algorithm>

namespace hwagent_rt {

void Session::accountStep(int64_t step, double overheadSeconds) {
  if (!options.simulate_cpu)
    return;
  MutexLock lock(&adaptiveMutex);
  AdaptiveState &a = adaptive;
  auto truthCost = [&](size_t p, int b) { return truth(p, b); };
  std::vector<int32_t> ran(model.programs.size());
  for (size_t p = 0; p < ran.size(); ++p)
    ran[p] = states[p].lastRun.load(std::memory_order_relaxed);
  a.regret.actual_seconds += stepTime(model, ran, truthCost) + overheadSeconds;
  a.regret.actual_joules +=
      stepCost(model, Pricing::energy(model), ran, truthCost) +
      model.powerModel.programJoules(hwcore::BackendKind::cpu, 0,
                                     overheadSeconds);
  a.regret.switch_seconds += overheadSeconds;
  PerBackend<double> factors;
  for (int b = 0; b < kNumBackends; ++b)
    factors[b] = scenarioFactor(b);
  if (a.segments.empty() || factors != a.segments.back().factors) {
    Segment segment;
    segment.start = step;
    segment.factors = factors;
    // The placement in use when the conditions changed: that of the step
    // before (the change's first step may already run on a new one).
    segment.inUse = a.segments.empty() ? currentBackends() : a.lastInUse;
    for (size_t p = 0; p < model.programs.size(); ++p)
      segment.built.push_back(states[p].built.load(std::memory_order_relaxed));
    a.segments.push_back(std::move(segment));
  }
  a.lastInUse = currentBackends();
  ++a.segments.back().steps;
  for (size_t p = 0; p < model.programs.size(); ++p)
    for (int b = 0; b < kNumBackends; ++b)
      a.truthTotals[p * kNumBackends + b] += truth(p, b);
  a.regret.steps = step + 1;
}

/// The clairvoyant oracle over candidate placements: the starting one and,
/// per segment, the best one under its conditions with and without the
/// builds it needs charged (a short segment may not pay a compile). The
/// oracle may switch only where conditions change: within a segment nothing
/// does, so that is no loss. Two dynamic programs over segments, each the
/// cost of schedules it can carry out, so the smaller is the tighter bound:
/// one whose state is the placement in use and the candidates used so far
/// (builds paid exactly once) over the first 10 candidates (4 on graphs of
/// over 64 programs: the starting placement and the longest segments'), and
/// one whose state is the placement alone over every candidate, paying a
/// build on every entry into a variant the start did not have.
namespace {
/// The oracle's two dynamic programs over the segments
/// (Session::oracleSeconds), on the candidates and their tables.
class Oracle {
public:
  using Truth = std::function<double(const Segment &, size_t, int)>;
  Oracle(const Model &model, const AdaptiveState &a, Truth truth)
      : model(model), a(a), truth(std::move(truth)), n(model.programs.size()),
        initiallyBuilt(n * kNumBackends, false) {
    for (size_t p = 0; p < n; ++p) {
      initiallyBuilt[p * kNumBackends + HWAGENT_BACKEND_CPU] = true;
      initiallyBuilt[p * kNumBackends + a.initial[p]] = true;
    }
  }

  double seconds() {
    collectCandidates();
    tabulate();
    return std::min(chargedOnEveryEntry(), buildsPaidOnce());
  }

private:
  /// The starting placement and, per segment (longest first), its best
  /// placement with and without the builds it needs spread over it.
  void collectCandidates();
  /// Per segment and candidate its steps at the segment's truth, and the
  /// weight moves between candidates.
  void tabulate();
  /// Every candidate, a build paid on each entry into a new variant.
  double chargedOnEveryEntry();
  /// The first k candidates, builds paid once.
  double buildsPaidOnce();

  const Model &model;
  const AdaptiveState &a;
  Truth truth;
  size_t n;
  std::vector<bool> initiallyBuilt;
  std::vector<std::vector<int32_t>> candidates;
  std::vector<std::vector<double>> run;
  std::vector<double> moves;
};
} // namespace

void Oracle::collectCandidates() {
  candidates = {a.initial};
  std::vector<size_t> order(a.segments.size());
  for (size_t s = 0; s < order.size(); ++s)
    order[s] = s;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return a.segments[x].steps > a.segments[y].steps;
  });
  constexpr size_t kMaxCandidates = 256;
  auto add = [&](std::vector<int32_t> placement) {
    if (candidates.size() < kMaxCandidates &&
        std::find(candidates.begin(), candidates.end(), placement) ==
            candidates.end())
      candidates.push_back(std::move(placement));
  };
  for (size_t s : order) {
    const Segment &segment = a.segments[s];
    std::vector<int32_t> best;
    auto cost = [&](size_t p, int b) { return truth(segment, p, b); };
    if (!std::isinf(bestStepTime(model, cost, 1.0, &best)))
      add(best);
    auto withBuilds = [&](size_t p, int b) {
      double build =
          initiallyBuilt[p * kNumBackends + b] ? 0 : model.buildCost(p, b);
      return truth(segment, p, b) + build / double(segment.steps);
    };
    if (!std::isinf(bestStepTime(model, withBuilds, 1.0, &best)))
      add(best);
  }
}

void Oracle::tabulate() {
  size_t all = candidates.size();
  run.assign(a.segments.size(), std::vector<double>(all));
  for (size_t s = 0; s < a.segments.size(); ++s)
    for (size_t c = 0; c < all; ++c)
      run[s][c] = double(a.segments[s].steps) *
                  stepTime(model, candidates[c], [&](size_t p, int b) {
                    return truth(a.segments[s], p, b);
                  });
  // Entering candidate j from candidate i with the candidates in `mask`
  // used before (i among them): weight moves from i, and builds of the
  // variants no used candidate (nor the start) has. Both are independent
  // of the segment: the moves are tabled once, the builds per mask on
  // first use.
  moves.assign(all * all, 0.0);
  for (size_t i = 0; i < all; ++i)
    for (size_t j = 0; j < all; ++j)
      for (size_t p = 0; p < n; ++p)
        moves[i * all + j] +=
            model.weightMoveCost(p, candidates[i][p], candidates[j][p]);
}

double Oracle::chargedOnEveryEntry() {
  size_t all = candidates.size();
  std::vector<double> entry(all, 0.0);
  for (size_t j = 0; j < all; ++j)
    for (size_t p = 0; p < n; ++p)
      if (!initiallyBuilt[p * kNumBackends + candidates[j][p]])
        entry[j] += model.buildCost(p, candidates[j][p]);
  std::vector<double> plain(all, hwcore::kIllegal), plainNext(all);
  plain[0] = 0;
  for (size_t s = 0; s < a.segments.size(); ++s) {
    for (size_t j = 0; j < all; ++j) {
      double from = plain[j];
      for (size_t i = 0; i < all; ++i)
        if (i != j)
          from = std::min(from, plain[i] + moves[i * all + j] + entry[j]);
      plainNext[j] = from + run[s][j];
    }
    plain.swap(plainNext);
  }
  return *std::min_element(plain.begin(), plain.end());
}

double Oracle::buildsPaidOnce() {
  size_t all = candidates.size();
  size_t k = std::min<size_t>(all, n > 64 ? 4 : 10);
  std::vector<double> builds(k << k, -1.0);
  auto buildsFor = [&](size_t j, uint32_t mask) {
    double &cost = builds[(size_t(mask) * k) + j];
    if (cost >= 0)
      return cost;
    cost = 0;
    for (size_t p = 0; p < n; ++p) {
      int to = candidates[j][p];
      bool built = initiallyBuilt[p * kNumBackends + to];
      for (size_t c = 0; c < k && !built; ++c)
        built = ((mask >> c) & 1u) && candidates[c][p] == to;
      if (!built)
        cost += model.buildCost(p, to);
    }
    return cost;
  };
  auto enter = [&](size_t i, size_t j, uint32_t mask) {
    return moves[i * all + j] + buildsFor(j, mask);
  };
  size_t states = k << k;
  std::vector<double> best(states, hwcore::kIllegal), next(states);
  auto index = [&](size_t c, uint32_t mask) { return (size_t(mask) * k) + c; };
  best[index(0, 1u)] = 0;
  for (size_t s = 0; s < a.segments.size(); ++s) {
    std::fill(next.begin(), next.end(), hwcore::kIllegal);
    for (uint32_t mask = 1; mask < (1u << k); ++mask)
      for (size_t i = 0; i < k; ++i) {
        double here = best[index(i, mask)];
        if (std::isinf(here))
          continue;
        for (size_t j = 0; j < k; ++j) {
          uint32_t after = mask | (1u << j);
          double cost = here + (i == j ? 0 : enter(i, j, mask)) + run[s][j];
          double &slot = next[index(j, after)];
          slot = std::min(slot, cost);
        }
      }
    best.swap(next);
  }
  return *std::min_element(best.begin(), best.end());
}

double Session::oracleSeconds() {
  return Oracle(model, adaptive,
                [this](const Segment &segment, size_t p, int b) {
                  return truthUnder(segment, unsigned(p), b);
                })
      .seconds();
}

hwagent_regret_t Session::regret() {
  MutexLock lock(&adaptiveMutex);
  hwagent_regret_t result = adaptive.regret;
  for (int b = 0; b < kNumBackends; ++b)
    result.compiles += compiles[b].load();
  // The compiles before training are not the run's.
  result.compiles -= static_cast<int64_t>(adaptive.initial.size());
  if (result.steps > 0) {
    result.oracle_seconds = oracleSeconds();
    // One placement for the whole run, moved to once from the start.
    result.best_fixed_seconds = bestStepTime(
        model,
        [&](size_t p, int b) {
          int from = adaptive.initial[p];
          double move = 0;
          if (b != from && b != HWAGENT_BACKEND_CPU)
            move += model.buildCost(p, b);
          move += model.weightMoveCost(p, from, b);
          return adaptive.truthTotals[p * kNumBackends + b] + move;
        },
        double(result.steps));
  }
  return result;
}

std::vector<int64_t> Session::switchSteps() {
  MutexLock lock(&adaptiveMutex);
  return adaptive.switchSteps;
}

std::vector<hwagent_event_outcome_t> Session::eventOutcomes() {
  MutexLock lock(&adaptiveMutex);
  const AdaptiveState &a = adaptive;
  std::vector<hwagent_event_outcome_t> outcomes;
  for (size_t s = 0; s < a.segments.size(); ++s) {
    const Segment &segment = a.segments[s];
    // The first stretch is a change only when its conditions are not the
    // nominal ones the compiler assumed (a scenario event at step 0).
    if (s == 0 && segment.factors == hwcore::perBackend(1.0))
      continue;
    auto cost = [&](size_t p, int b) { return truthUnder(segment, p, b); };
    double inUse = stepTime(model, segment.inUse, cost);
    // The best placement for the stretch, paying for its switch (builds of
    // variants not built then, weight moves) over the stretch's steps.
    auto withSwitch = [&](size_t p, int b) {
      int from = segment.inUse[p];
      double move = model.weightMoveCost(p, from, b);
      if (!((segment.built[p] >> b) & 1u))
        move += model.buildCost(p, b);
      return truthUnder(segment, p, b) + move / double(segment.steps);
    };
    double best = bestStepTime(model, withSwitch, 1.0);
    hwagent_event_outcome_t outcome = {};
    outcome.step = segment.start;
    outcome.steps = segment.steps;
    outcome.best_gain = inUse > 0 ? std::max(0.0, 1 - best / inUse) : 0;
    outcome.reaction_steps = -1;
    // Decisions at the end of the step before the change already see it
    // through telemetry; those at the segment's last step act after it.
    int64_t from = segment.start - 1, to = segment.start + segment.steps - 1;
    for (int64_t step : a.switchSteps)
      if (step >= from && step < to) {
        if (outcome.reaction_steps < 0)
          outcome.reaction_steps = step - segment.start + 1;
        ++outcome.switches;
      }
    for (int64_t step : a.probeSteps)
      outcome.probes += step >= segment.start && step <= to;
    outcomes.push_back(outcome);
  }
  return outcomes;
}

} // namespace hwagent_rt
