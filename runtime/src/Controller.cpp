//===- Controller.cpp - the adaptive controller ---------------------------===//
//
// At each step end: learn from what ran (the per-program counters, so the
// hot path stays lock-free), take telemetry in as a control input, re-solve
// the placement of the programs and switch when it pays (hysteresis in
// Adaptive.cpp's decide), then choose an exploration probe within its
// budget. docs/adaptive.md.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include <cmath>

namespace hwagent_rt {

void Session::adaptAtStepEnd(int64_t step) {
  if (!options.adaptive)
    return;
  MutexLock lock(&adaptiveMutex);
  learnFromCounters();
  std::vector<int32_t> current = currentBackends();
  if (options.use_telemetry)
    followTelemetry(step);
  adaptive.model.advance();
  repartition(step, current);
  explore(step, current);
}

/// One update per program and backend with the mean of the executions
/// since the last step end.
void Session::learnFromCounters() {
  AdaptiveState &a = adaptive;
  for (size_t p = 0; p < model.programs.size(); ++p)
    for (int b = 0; b < kNumBackends; ++b) {
      size_t slot = p * kNumBackends + b;
      int64_t executions =
          states[p].executions[b].load(std::memory_order_relaxed);
      int64_t nanos = states[p].nanos[b].load(std::memory_order_relaxed);
      int64_t n = executions - a.learnedExecutions[slot];
      if (n <= 0)
        continue;
      // The counters may wrap after absurd charges; their difference
      // modulo 2^64 is still the nanoseconds since the last update.
      uint64_t spent = static_cast<uint64_t>(nanos) -
                       static_cast<uint64_t>(a.learnedNanos[slot]);
      a.model.update(p, b, double(spent) * 1e-9 / double(n), n);
      a.compiled[slot] = true;
      a.learnedExecutions[slot] = executions;
      a.learnedNanos[slot] = nanos;
    }
}

/// The load and thermal state the next step runs under (here the
/// scenario's; on a device, the OS's) move the backends' offsets before the
/// decision, so a change known in advance needs no slow step to be seen.
void Session::followTelemetry(int64_t step) {
  AdaptiveState &a = adaptive;
  for (int b = 0; b < kNumBackends; ++b) {
    double factor = std::log(scenarioFactor(b));
    double delta = factor - a.telemetryLogFactor[b];
    if (std::abs(delta) < 1e-9)
      continue;
    a.model.shiftBackend(b, delta);
    a.telemetryLogFactor[b] = factor;
    MutexLock logLock(&mutex);
    log.write({{"type", "telemetry"},
               {"step", step + 1},
               {"backend", hwagent_backend_name(b)},
               {"speed_factor", std::exp(factor)}});
  }
}

/// A `decision` line says why a better placement did not clear the bar; a
/// `repartition` line records a switch (applied, or vetoed).
void Session::repartition(int64_t step, const std::vector<int32_t> &current) {
  AdaptiveState &a = adaptive;
  Decision decision = decide(model, a.model, current, a.compiled, a.params);
  auto logDecision = [&](const char *type, std::optional<bool> applied) {
    MutexLock logLock(&mutex);
    Json line = {{"type", type},
                 {"step", step},
                 {"current_seconds", decision.currentSeconds},
                 {"proposed_seconds", decision.proposedSeconds},
                 {"gain_stddev", decision.gainStdDev},
                 {"reason", decision.reason}};
    if (applied)
      line["applied"] = *applied;
    log.write(line);
  };
  if (!decision.switchWorthIt) {
    if (decision.proposedSeconds < decision.currentSeconds)
      logDecision("decision", std::nullopt);
    return;
  }
  hwagent_repartition_t event = {};
  event.step = step;
  event.num_programs = static_cast<uint32_t>(current.size());
  event.old_backends = current.data();
  event.new_backends = decision.backends.data();
  event.current_seconds = decision.currentSeconds;
  event.proposed_seconds = decision.proposedSeconds;
  event.reason = decision.reason;
  bool vetoed =
      options.on_repartition &&
      options.on_repartition(options.on_repartition_user, &event) != 0;
  if (vetoed) {
    ++a.regret.vetoes;
  } else {
    for (size_t i = 0; i < current.size(); ++i) {
      states[i].backend.store(decision.backends[i]);
      a.compiled[i * kNumBackends + decision.backends[i]] = true;
    }
    ++a.regret.switches;
    a.switchSteps.push_back(step);
  }
  logDecision("repartition", !vetoed);
}

/// The backend measured least recently (that some program could move to)
/// gets one probe at the next step, on the program that would gain most by
/// moving there if the estimate holds; what the probe teaches about the
/// backend's offset carries to all its programs. Probes are paid from a
/// credit that grows by a share of the predicted step time, so their total
/// cost stays within that share of the run.
void Session::explore(int64_t step, const std::vector<int32_t> &current) {
  AdaptiveState &a = adaptive;
  for (size_t p = 0; p < current.size(); ++p)
    a.lastMeasured[current[p]] = step;
  if (options.explore_every <= 0)
    return;
  auto estimated = [&](size_t p, int b) { return a.model.get(p, b).seconds(); };
  a.exploreCredit += a.exploreBudget * stepTime(model, current, estimated);
  if ((step + 1) % options.explore_every != 0)
    return;
  int bestBackend = -1;
  for (int b = 0; b < kNumBackends; ++b) {
    bool movable = false;
    for (size_t p = 0; p < current.size(); ++p)
      movable |= Model::legal(model.programs[p], b) && current[p] != b;
    if (movable &&
        (bestBackend < 0 || a.lastMeasured[b] < a.lastMeasured[bestBackend]))
      bestBackend = b;
  }
  if (bestBackend < 0)
    return;
  // Among the programs whose probe the credit covers, the one with the
  // largest estimated gain there.
  int bestProgram = -1;
  double bestGain = 0, bestCost = 0;
  for (size_t p = 0; p < current.size(); ++p) {
    if (!Model::legal(model.programs[p], bestBackend) ||
        current[p] == bestBackend)
      continue;
    double cost =
        std::max(0.0, moveDelta(model, current, p, bestBackend, estimated));
    if (cost > a.exploreCredit)
      continue;
    double gain = estimated(p, current[p]) - estimated(p, bestBackend);
    if (bestProgram < 0 || gain > bestGain) {
      bestProgram = int(p);
      bestGain = gain;
      bestCost = cost;
    }
  }
  if (bestProgram < 0)
    return; // Not affordable yet: the credit keeps growing.
  a.exploreCredit -= bestCost;
  exploreBackend.store(bestBackend);
  exploreProgram.store(bestProgram);
  a.lastMeasured[bestBackend] = step + 1;
  ++a.regret.explorations;
}

} // namespace hwagent_rt
