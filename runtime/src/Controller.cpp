//===- Controller.cpp - the adaptive controller ---------------------------===//
//
// At each step end: learn from what ran (the per-program counters, so the
// hot path stays lock-free), take telemetry in as a control input, re-solve
// the placement of the programs and switch when it pays, or probe a
// candidate for one step when knowing its cost is worth more than the probe
// (Adaptive.cpp's decide). docs/adaptive.md.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "HwAgent/Core/Energy.h"
#include "HwAgent/Core/Solver.h"
#include "hwagent_rt/hwagent_kernels.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace hwagent_rt {

void Session::adaptAtStepEnd(int64_t step) {
  MutexLock lock(&adaptiveMutex);
  if (!options.adaptive) {
    followCap();
    return;
  }
  bool measured[kNumBackends] = {};
  learnFromCounters(measured);
  std::vector<int32_t> current = currentBackends();
  chargeProbe();
  if (options.use_telemetry)
    followTelemetry(step);
  adaptive.model.advance(measured);
  repartition(step, current);
  followCap();
}

void Session::followCap() {
  double cap = powerCap.load();
  if (!(cap > 0)) {
    clock.store(1.0);
    clockCap = -1;
    return;
  }
  std::vector<int32_t> next = currentBackends();
  for (size_t p = 0; p < next.size(); ++p)
    if (int32_t probed = states[p].probe.load(); probed >= 0)
      next[p] = probed;
  // From the predictions the clock changes only with the cap or the
  // placement (a bisection over the step per step end otherwise).
  if (!options.adaptive && cap == clockCap && next == clockPlacement)
    return;
  clockCap = cap;
  clockPlacement = next;
  std::function<double(size_t, int)> seconds = [&](size_t p, int b) {
    return model.programs[p].predicted[b];
  };
  if (options.adaptive)
    seconds = [&](size_t p, int b) {
      return adaptive.model.get(p, b).seconds();
    };
  clock.store(clockUnderCap(model, cap, next, seconds));
}

/// The kernels' and loops' threads follow the cores other processes leave
/// (threadsUnderContention, docs/cpu-backend.md "Under contention").
void Session::adaptThreads(int64_t step) {
  MutexLock lock(&mutex);
  // The first sample after 0.1 s of the session (/proc/stat's 10 ms ticks
  // give the busy cores to about 0.2 over it, under the quarter of a core
  // threadsUnderContention ignores), then every 0.2 s: a run of 50 steps
  // of 4 ms under one busy core otherwise ran its whole length on both
  // cores (docs/cpu-backend.md "Under contention").
  double others = contention.sample(kernelThreads == 0 ? 0.1 : 0.2);
  if (others < 0)
    return;
  int online =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // cpu_threads is the most the session uses (0: every online CPU); under
  // contention it uses no more than the cores the others leave free.
  int configured = options.cpu_threads > 0 ? options.cpu_threads : online;
  if (kernelThreads == 0)
    kernelThreads = configured;
  int want = threadsUnderContention(configured, online, others);
  // Fewer at once (one busy core stalls every parallel region); more only
  // when two samples in a row agree (the other process may pause briefly).
  if (want > kernelThreads && ++raiseVotes < 2)
    return;
  if (want <= kernelThreads)
    raiseVotes = 0;
  if (want == kernelThreads)
    return;
  raiseVotes = 0;
  kernelThreads = hwagent_kernels_set_threads(want);
  if (log.isOpen())
    log.write({{"type", "threads"},
               {"step", step + 1},
               {"threads", kernelThreads},
               {"others_busy_cores", others}});
}

std::vector<bool> Session::builtVariants() const {
  std::vector<bool> built(model.programs.size() * kNumBackends);
  for (size_t p = 0; p < model.programs.size(); ++p) {
    uint32_t mask = states[p].built.load(std::memory_order_relaxed);
    for (int b = 0; b < kNumBackends; ++b)
      built[p * kNumBackends + b] = (mask >> b) & 1u;
  }
  return built;
}

SwitchCosts Session::switchCosts(const std::vector<bool> &built) const {
  SwitchCosts costs;
  costs.model = &model;
  costs.built = &built;
  for (int b = 0; b < kNumBackends; ++b)
    costs.compilesLeft[b] =
        model.maxCompiles[b] > 0
            ? std::max<int64_t>(0, model.maxCompiles[b] - compiles[b].load())
            : -1;
  return costs;
}

/// One update per program and backend with the mean of the executions
/// since the last step end.
void Session::learnFromCounters(bool *measured) {
  AdaptiveState &a = adaptive;
  a.stepMeasured.assign(model.programs.size() * kNumBackends, -1.0);
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
      // At the peak clock: the simulated executions ran at the session's
      // (Model::stretch is 1 for this machine's CPU).
      a.stepMeasured[slot] =
          double(spent) * 1e-9 / double(n) / model.stretch(p, b, clock.load());
      a.model.update(p, b, a.stepMeasured[slot], n);
      measured[b] = true;
      a.learnedExecutions[slot] = executions;
      a.learnedNanos[slot] = nanos;
    }
}

/// A probe is charged to the credit what it was expected to cost when it
/// was chosen; once it ran, the difference to what it really cost (its
/// programs' measured times against the placement it left, as now
/// estimated) is settled, so an optimistic estimate cannot buy probes
/// beyond the budget.
void Session::chargeProbe() {
  AdaptiveState &a = adaptive;
  if (a.pendingProbe.empty())
    return;
  auto estimated = [&](size_t p, int b) { return a.model.get(p, b).seconds(); };
  auto ran = [&](size_t p, int b) {
    double m = a.stepMeasured[p * kNumBackends + b];
    return b == a.pendingProbe[p] && m >= 0 ? m : estimated(p, b);
  };
  double realized = stepTime(model, a.pendingProbe, ran) -
                    stepTime(model, a.probeBase, estimated);
  a.exploreCredit -= std::max(0.0, realized) - a.probeCharged;
  a.pendingProbe.clear();
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

Pricing Session::objectivePricing(const std::vector<int32_t> &current,
                                  const SwitchCosts &costs) {
  AdaptiveState &a = adaptive;
  int32_t goal = objective.load();
  double cap = powerCap.load();
  if (goal == HWAGENT_OBJECTIVE_TIME && cap <= 0)
    return Pricing::time();
  if (goal == HWAGENT_OBJECTIVE_ENERGY && cap <= 0)
    return Pricing::energy(model);
  // The energy-delay product and a cap are not sums over programs: the
  // placements minimizing seconds + w x joules for w from 0 to infinity
  // (the supported points of the time-energy front, w in units of the
  // current placement's average power) are evaluated exactly and the best
  // for the objective decides which blend prices the decision. Under a cap
  // each is priced at the clock that meets it (clockUnderCap, the
  // compiler's frequency scaling), solved again at that clock until the
  // placement keeps it (three rounds at most).
  std::function<double(size_t, int)> estimated = [&](size_t p, int b) {
    return a.model.get(p, b).seconds();
  };
  double seconds = stepTime(model, current, estimated);
  double joules = stepCost(model, Pricing::energy(model), current, estimated);
  double watts = seconds > 0 && joules > 0 ? joules / seconds : 1.0;
  Pricing best = Pricing::energy(model);
  double bestValue = hwcore::kIllegal;
  auto consider = [&](const std::function<Pricing(double)> &priced) {
    double clock = 1;
    for (int round = 0; round < 3; ++round) {
      Pricing pricing = priced(clock);
      std::vector<int32_t> placement;
      double cost = bestStepTime(
          model,
          [&](size_t p, int b) {
            return costs.canRun(p, b) ? pricing.program(p, b, estimated(p, b))
                                      : hwcore::kIllegal;
          },
          1.0, &placement, pricing);
      if (std::isinf(cost))
        return;
      double next = clockUnderCap(model, cap, placement, estimated);
      // The compiler's objective (hwcore::objectiveValue) at that clock.
      double value = hwcore::objectiveValue(
          static_cast<hwcore::Objective>(goal), cap,
          stepCost(model, Pricing::time(model, next), placement, estimated),
          stepCost(model, Pricing::energy(model, next), placement, estimated));
      if (value < bestValue) {
        bestValue = value;
        best = next == clock ? pricing : priced(next);
      }
      if (next == clock)
        return;
      clock = next;
    }
  };
  for (double w : {0.0, 1.0 / 64, 1.0 / 16, 1.0 / 4, 1.0, 4.0, 16.0, 64.0})
    if (w == 0)
      consider([&](double clock) { return Pricing::time(model, clock); });
    else if (std::isfinite(w / watts))
      consider([&](double clock) {
        return Pricing::blend(model, w / watts, clock);
      });
  consider([&](double clock) { return Pricing::energy(model, clock); });
  return best;
}

/// A new objective or cap (the OS said the machine went on battery, a
/// low-power mode) is a change: it is logged, lifts the hysteresis and buys
/// a probe like a detected one.
void Session::noteGoalChange(int64_t step) {
  AdaptiveState &a = adaptive;
  int32_t goal = objective.load();
  double cap = powerCap.load();
  if (goal == a.decidedObjective && cap == a.decidedCap)
    return;
  if (a.decidedObjective >= 0) {
    a.changesAtSwitch = -1;
    ++a.goalChanges;
    MutexLock logLock(&mutex);
    log.write({{"type", "objective"},
               {"step", step + 1},
               {"objective", hwagent_objective_name(goal)},
               {"power_cap", cap}});
  }
  a.decidedObjective = goal;
  a.decidedCap = cap;
}

/// A change the model detected or telemetry announced buys one probe at
/// once, and so does a better placement that waits only on a measurement;
/// otherwise probes come at most every explore_every steps, paid from the
/// credit (seconds). explore_every 0 turns probing off (-1).
double Session::probeCredit(int64_t step, bool &rateLimited) {
  AdaptiveState &a = adaptive;
  bool changed = a.model.changes() != a.probedChanges ||
                 a.goalChanges != a.probedGoalChanges;
  rateLimited = !changed && a.lastProbe >= 0 &&
                step - a.lastProbe < options.explore_every;
  if (options.explore_every <= 0)
    return -1;
  return changed ? hwcore::kIllegal : std::max(a.exploreCredit, 0.0);
}

/// A `decision` line says why a better placement did not clear the bar; a
/// `repartition` line records a switch (applied, or vetoed); a `probe` line
/// a one-step probe. Seconds and joules of both placements as estimated
/// now.
void Session::logDecision(const char *type, int64_t step,
                          const std::vector<int32_t> &current,
                          const Decision &decision, const Pricing &pricing,
                          std::optional<bool> applied) {
  AdaptiveState &a = adaptive;
  auto estimated = [&](size_t p, int b) { return a.model.get(p, b).seconds(); };
  // Both placements at the clock the pricing assumes.
  Pricing time = Pricing::time(model, pricing.clock);
  Pricing energy = Pricing::energy(model, pricing.clock);
  const std::vector<int32_t> &proposal =
      decision.proposal.empty() ? current : decision.proposal;
  double cap = powerCap.load();
  MutexLock logLock(&mutex);
  Json line = {
      {"type", type},
      {"step", step},
      {"objective", hwagent_objective_name(objective.load())},
      {"current_seconds", stepCost(model, time, current, estimated)},
      {"proposed_seconds", stepCost(model, time, proposal, estimated)},
      {"current_joules", stepCost(model, energy, current, estimated)},
      {"proposed_joules", stepCost(model, energy, proposal, estimated)},
      {"current_cost", decision.currentCost},
      {"proposed_cost", decision.proposedCost},
      {"unit", pricing.unit},
      {"gain_stddev", decision.gainStdDev},
      {"switch_cost", decision.switchCost},
      {"reason", decision.reason}};
  if (cap > 0) {
    line["power_cap"] = cap;
    line["clock"] = pricing.clock;
  }
  if (decision.action == Decision::probe) {
    line["value"] = decision.probeValue;
    line["cost_seconds"] = decision.probeCost;
  }
  if (applied)
    line["applied"] = *applied;
  log.write(line);
}

/// Offers the switch to the trainer (which may veto it) and applies it.
bool Session::applySwitch(int64_t step, const std::vector<int32_t> &current,
                          const Decision &decision) {
  AdaptiveState &a = adaptive;
  auto estimated = [&](size_t p, int b) { return a.model.get(p, b).seconds(); };
  hwagent_repartition_t event = {};
  event.step = step;
  event.num_programs = static_cast<uint32_t>(current.size());
  event.old_backends = current.data();
  event.new_backends = decision.backends.data();
  event.current_seconds = stepTime(model, current, estimated);
  event.proposed_seconds = stepTime(model, decision.proposal, estimated);
  event.reason = decision.reason;
  bool vetoed =
      options.on_repartition &&
      options.on_repartition(options.on_repartition_user, &event) != 0;
  if (vetoed) {
    ++a.regret.vetoes;
    return false;
  }
  for (size_t i = 0; i < current.size(); ++i)
    states[i].backend.store(decision.backends[i]);
  ++a.regret.switches;
  a.switchSteps.push_back(step);
  a.changesAtSwitch = a.model.changes();
  return true;
}

void Session::repartition(int64_t step, const std::vector<int32_t> &current) {
  AdaptiveState &a = adaptive;
  std::vector<bool> built = builtVariants();
  SwitchCosts costs = switchCosts(built);
  auto estimated = [&](size_t p, int b) { return a.model.get(p, b).seconds(); };
  a.exploreCredit += a.exploreBudget * stepTime(model, current, estimated);
  noteGoalChange(step);
  bool rateLimited = false;
  double credit = probeCredit(step, rateLimited);
  // Hysteresis against flapping between near-equal placements: without a
  // detected or announced change since the last switch, another one needs
  // three times the minimum gain.
  AdaptiveParameters params = a.params;
  if (!a.switchSteps.empty() && a.model.changes() == a.changesAtSwitch)
    params.minRelativeGain *= 3;
  Pricing pricing = objectivePricing(current, costs);
  // The probe credit is a share of step time whatever the objective: it is
  // handed to the decision in the pricing's unit.
  double seconds = stepTime(model, current, estimated);
  double perSecond =
      seconds > 0 ? stepCost(model, pricing, current, estimated) / seconds : 1;
  if (credit > 0 && !std::isinf(credit))
    credit *= perSecond;
  double debt = std::max(0.0, -a.exploreCredit) * perSecond;
  Decision decision = decide(model, a.model, current, costs, params, credit,
                             rateLimited, pricing, debt);
  if (decision.action == Decision::probe && perSecond > 0)
    decision.probeCost /= perSecond;
  if (decision.action == Decision::probe) {
    probe(step, decision, current);
    logDecision("probe", step, current, decision, pricing, std::nullopt);
    return;
  }
  if (!decision.switchWorthIt()) {
    if (decision.proposedCost < decision.currentCost)
      logDecision("decision", step, current, decision, pricing, std::nullopt);
    return;
  }
  bool applied = applySwitch(step, current, decision);
  logDecision("repartition", step, current, decision, pricing, applied);
}

/// The programs the decision moves run there for the next step only; what
/// they measure updates their estimates and their backends' offsets.
void Session::probe(int64_t step, const Decision &decision,
                    const std::vector<int32_t> &current) {
  AdaptiveState &a = adaptive;
  a.probeCharged = std::max(0.0, decision.probeCost);
  a.exploreCredit -= a.probeCharged;
  a.pendingProbe = decision.backends;
  a.probeBase = current;
  a.lastProbe = step;
  a.probedChanges = a.model.changes();
  a.probedGoalChanges = a.goalChanges;
  for (size_t p = 0; p < current.size(); ++p)
    if (decision.backends[p] != current[p])
      states[p].probe.store(decision.backends[p]);
  a.probeSteps.push_back(step + 1);
  ++a.regret.explorations;
}

} // namespace hwagent_rt
