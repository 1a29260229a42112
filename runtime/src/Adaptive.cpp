//===- Adaptive.cpp - online cost learning and re-partitioning ------------===//

#include "Adaptive.h"

#include "HwAgent/Core/Solver.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace hwagent_rt {

/// The smallest change of a backend's speed (log) a single measurement is
/// taken to announce.
static const double kChangeLogFactor = std::log(1.25);

void OnlineModel::reset(const Model &model, const AdaptiveParameters &p) {
  params = p;
  logPredicted.assign(model.programs.size() * kNumBackends, 0.0);
  deviation.assign(model.programs.size() * kNumBackends, Estimate{});
  for (size_t r = 0; r < model.programs.size(); ++r)
    for (int b = 0; b < kNumBackends; ++b) {
      logPredicted[r * kNumBackends + b] =
          std::log(std::max(model.programs[r].predicted[b], 1e-9));
      deviation[r * kNumBackends + b].variance = params.priorVariance;
      deviation[r * kNumBackends + b].sumVariance =
          params.priorVariance + params.backendPriorVariance;
    }
  chipWide = 0;
  for (int b = 0; b < kNumBackends; ++b) {
    stepExcess[b] = lastExcess[b] = 0;
    stepCount[b] = 0;
    wasMeasured[b] = false;
    offset[b] = Estimate{0, params.backendPriorVariance, 0};
    baseline[b] = 0;
    noise[b] = params.measurementVariance;
  }
  lastLog.assign(model.programs.size() * kNumBackends, 0.0);
  lastTick.assign(model.programs.size() * kNumBackends,
                  std::numeric_limits<int64_t>::min());
  fastest.assign(model.programs.size() * kNumBackends,
                 std::numeric_limits<double>::infinity());
  fastestRelative = fastest;
  tick = 0;
}

double OnlineModel::measurementVariance(int backend) const {
  return std::max(params.measurementVariance, noise[backend]);
}

Estimate OnlineModel::get(unsigned region, int backend) const {
  const Estimate &d = deviation[region * kNumBackends + backend];
  const Estimate &o = offset[backend];
  return Estimate{logPredicted[region * kNumBackends + backend] + o.mean +
                      d.mean,
                  std::min(o.variance + d.variance, d.sumVariance), d.samples,
                  d.sumVariance};
}

void OnlineModel::update(unsigned region, int backend, double seconds,
                         int64_t samples) {
  Estimate &d = deviation[region * kNumBackends + backend];
  Estimate &o = offset[backend];
  double z = std::log(std::max(seconds, 1e-9));
  double innovation =
      z - (logPredicted[region * kNumBackends + backend] + o.mean + d.mean);
  double n = double(std::max<int64_t>(samples, 1));
  double measurement = measurementVariance(backend) / n;
  // A measurement far outside the spread the filter expects (four standard
  // deviations, and at least 25 %: smaller changes the filter tracks) means
  // the backend changed (another client took it, it throttled): the
  // offset's variance returns to its prior so that one measurement moves it
  // most of the way instead of a fraction per step (change-point reset).
  double before = std::min(o.variance + d.variance, d.sumVariance);
  bool changed =
      innovation * innovation > 16 * (before + measurementVariance(backend)) &&
      std::abs(innovation) > kChangeLogFactor;
  if (changed) {
    o.variance = std::max(o.variance, params.backendPriorVariance);
    before = o.variance + d.variance;
    ++changeCount;
  }
  // The measurement noise, learned: two measurements of one program and
  // backend in consecutive steps differ by twice its variance (drift over
  // one step is small), averaged over about 20 pairs; never below the
  // parameter. Noisier than assumed, the filter would chase noise.
  size_t slot = region * kNumBackends + backend;
  if (!changed && lastTick[slot] == tick - 1) {
    double difference = z - lastLog[slot];
    noise[backend] += 0.05 * (difference * difference * n / 2 - noise[backend]);
  }
  lastLog[slot] = z;
  lastTick[slot] = tick;
  d.sumVariance = before * measurement / (before + measurement);
  // Joint update of the two terms: each takes its share of the innovation
  // by its variance (the measurement sees their sum).
  double total = o.variance + d.variance + measurement;
  double gainOffset = o.variance / total, gainDeviation = d.variance / total;
  o.mean += gainOffset * innovation;
  d.mean += gainDeviation * innovation;
  o.variance *= 1 - gainOffset;
  d.variance *= 1 - gainDeviation;
  d.samples += samples;
  o.samples += samples;
  double whole = logPredicted[slot] + o.mean + d.mean;
  fastest[slot] = std::min(fastest[slot], whole);
  // How much slower than its fastest (telemetry's shifts excluded) the
  // region now runs: followChipWide's evidence.
  double relative = whole - baseline[backend];
  fastestRelative[slot] = std::min(fastestRelative[slot], relative);
  stepExcess[backend] += relative - fastestRelative[slot];
  ++stepCount[backend];
}

void OnlineModel::advance(const bool *measured) {
  ++tick;
  for (Estimate &d : deviation) {
    d.mean *= 1 - params.deviationDecay;
    d.variance =
        std::min(d.variance + params.processVariance, params.priorVariance);
    d.sumVariance += params.processVariance + params.backendProcessVariance;
  }
  if (measured)
    followChipWide(measured);
  for (int b = 0; b < kNumBackends; ++b) {
    Estimate &o = offset[b];
    if (measured && !measured[b])
      o.mean += params.offsetReversion * (baseline[b] + chipWide - o.mean);
    o.variance = std::min(o.variance + params.backendProcessVariance,
                          params.backendPriorVariance);
  }
}

/// How closely (log) two backends' slowdowns must agree to be read as one
/// throttle of the whole chip.
static const double kChipWideAgreement = std::log(1.1);

void OnlineModel::followChipWide(const bool *measured) {
  double excess[kNumBackends] = {};
  double least = std::numeric_limits<double>::infinity();
  for (int b = 0; b < kNumBackends; ++b) {
    if (!measured[b] || stepCount[b] == 0)
      continue;
    excess[b] = stepExcess[b] / double(stepCount[b]);
    least = std::min(least, excess[b]);
  }
  // A backend measured again (a probe) slowed alike with the one measured
  // the step before: a throttle slows the whole chip by one factor, and
  // two contentions rarely agree within the change threshold.
  for (int b = 0; b < kNumBackends; ++b)
    for (int a = 0; a < kNumBackends; ++a)
      if (measured[b] && !wasMeasured[b] && wasMeasured[a] && a != b &&
          std::min(lastExcess[a], excess[b]) > kChangeLogFactor &&
          std::abs(lastExcess[a] - excess[b]) < kChipWideAgreement)
        chipWide = std::max(chipWide, std::min(lastExcess[a], excess[b]));
  // It lasts while what runs stays slowed by as much.
  chipWide = least < kChangeLogFactor ? 0.0 : std::min(chipWide, least);
  for (int b = 0; b < kNumBackends; ++b) {
    wasMeasured[b] = measured[b];
    if (measured[b])
      lastExcess[b] = excess[b];
    stepExcess[b] = 0;
    stepCount[b] = 0;
  }
}

void OnlineModel::shiftBackend(int backend, double logFactor) {
  Estimate &o = offset[backend];
  baseline[backend] += logFactor;
  ++changeCount;
  o.mean += logFactor;
  o.variance = std::min(o.variance + measurementVariance(backend),
                        params.backendPriorVariance);
  for (size_t i = backend; i < deviation.size(); i += kNumBackends)
    deviation[i].sumVariance += measurementVariance(backend);
}

/// The partition problem of the programs with unary costs cost(p, b)
/// (illegal where a program has no variant), the host pinned to the CPU,
/// and boundaries weighted by `edgeWeight`.
template <typename CostFn>
static hwcore::PartitionProblem makeProblem(const Model &table, CostFn cost,
                                            double edgeWeight,
                                            const Pricing &pricing) {
  hwcore::PartitionProblem problem;
  problem.numLabels = kNumBackends;
  for (unsigned r = 0; r < table.programs.size(); ++r) {
    std::vector<double> unary(kNumBackends, hwcore::kIllegal);
    for (int b = 0; b < kNumBackends; ++b)
      if (Model::legal(table.programs[r], b))
        unary[b] = cost(r, b);
    // The max-flow solver takes no NaN: a cost nobody can price is illegal.
    for (double &u : unary)
      if (std::isnan(u))
        u = hwcore::kIllegal;
    problem.addNode(unary);
  }
  std::vector<double> hostCosts(kNumBackends, hwcore::kIllegal);
  hostCosts[HWAGENT_BACKEND_CPU] = 0;
  unsigned host = problem.addNode(hostCosts);
  for (const hwagent_edge_info_t &e : table.edges) {
    std::vector<double> costs(kNumBackends * kNumBackends);
    for (int a = 0; a < kNumBackends; ++a)
      for (int b = 0; b < kNumBackends; ++b)
        costs[a * kNumBackends + b] = edgeWeight * pricing.edge(table, e, a, b);
    // A boundary nobody can price costs more than any real one.
    for (double &c : costs)
      if (std::isnan(c))
        c = 1e150;
    problem.addEdge(e.from < 0 ? host : unsigned(e.from),
                    e.to < 0 ? host : unsigned(e.to), costs);
  }
  return problem;
}

double bestStepTime(const Model &table,
                    const std::function<double(size_t, int)> &cost,
                    double edgeWeight, std::vector<int32_t> *best,
                    const Pricing &pricing) {
  hwcore::PartitionProblem problem =
      makeProblem(table, cost, edgeWeight, pricing);
  std::string error;
  std::optional<hwcore::PartitionResult> result =
      hwcore::solvePairwise(problem, error);
  if (!result)
    return hwcore::kIllegal;
  if (best)
    best->assign(result->labels.begin(),
                 result->labels.begin() + table.programs.size());
  return result->objective;
}

/// E[(X - threshold) 1{X >= bar}] for X ~ N(mean, stdDev^2), bar >=
/// threshold: the gain beyond the threshold of the switches made when X
/// clears the bar.
static double enabledGain(double mean, double stdDev, double threshold,
                          double bar) {
  if (stdDev <= 0)
    return mean >= bar ? mean - threshold : 0.0;
  double z = (bar - mean) / stdDev;
  double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  double tail = 0.5 * std::erfc(z / std::sqrt(2.0));
  return stdDev * pdf + (mean - threshold) * tail;
}

/// The relative (log-time) variance of what moving from `from` to `to`
/// puts on new backends: the gain's deviation over the moved programs'
/// estimated time there.
static double movedRelativeVariance(const OnlineModel &model,
                                    const std::vector<int32_t> &from,
                                    const std::vector<int32_t> &to,
                                    const GainEstimate &g,
                                    const Pricing &pricing) {
  double moved = 0;
  for (size_t p = 0; p < from.size(); ++p)
    if (to[p] != from[p])
      moved += pricing.perSecond[to[p]] * model.get(p, to[p]).seconds();
  return moved > 0 ? (g.stdDev / moved) * (g.stdDev / moved) : 0;
}

/// One measurement's variance on the backends `to` moves programs onto
/// (the largest).
static double movedNoise(const OnlineModel &model,
                         const std::vector<int32_t> &from,
                         const std::vector<int32_t> &to) {
  double m = 0;
  for (size_t p = 0; p < from.size(); ++p)
    if (to[p] != from[p])
      m = std::max(m, model.measurementVariance(to[p]));
  return m;
}

namespace {
/// One step-end decision (decide): the proposal within the compile limits,
/// whether switching to it clears every bar, and otherwise which probe is
/// worth its cost.
class Decider {
public:
  Decider(const Model &table, const OnlineModel &model,
          const std::vector<int32_t> &current, const SwitchCosts &costs,
          const AdaptiveParameters &params, const Pricing &pricing)
      : table(table), model(model), current(current), costs(costs),
        params(params), pricing(pricing),
        horizon(std::max(params.horizon, 1.0)),
        forbidden(table.programs.size() * kNumBackends, false) {
    decision.backends = current;
  }

  /// The best placement whose builds fit the compile limits; false when
  /// no placement is legal.
  bool propose();
  /// Switches when the gain is large, certain and backed by recent
  /// measurements; otherwise says why not. True when decided.
  bool judgeSwitch();
  /// The probe whose expected value over the horizon beats its cost by the
  /// most, when `credit` covers it.
  void chooseProbe(double credit, bool rateLimited, double debt);

  Decision decision;

private:
  /// A placement's cost per step with its one-time switching costs spread
  /// over the horizon; a variant past the compile limit (or forbidden
  /// while fitting the limits) is illegal.
  double allowed(size_t p, int b, double scale) const {
    if (forbidden[p * kNumBackends + b] || !costs.canRun(p, b))
      return hwcore::kIllegal;
    return pricing.program(p, b, model.get(p, b).seconds() * scale) +
           pricing.switching(b, costs.move(p, current[p], b)) / horizon;
  }
  double threshold(const GainEstimate &g) const {
    return std::max(params.minRelativeGain * g.from, g.switchCost / horizon);
  }
  /// The candidates of a probe: the proposal and, per backend, the best
  /// placement with its estimates at their optimistic bound.
  std::vector<std::vector<int32_t>> probeCandidates(bool rateLimited);
  /// The most moving to `to` could gain per step (switching not counted):
  /// each moved program at the fastest it was seen running there (never
  /// measured: its estimate at the optimistic bound), the others as
  /// estimated.
  double bestCaseGain(const std::vector<int32_t> &to) const;

  const Model &table;
  const OnlineModel &model;
  const std::vector<int32_t> &current;
  const SwitchCosts &costs;
  const AdaptiveParameters &params;
  const Pricing &pricing;
  double horizon;
  std::vector<bool> forbidden;
  std::vector<int32_t> proposed;
  GainEstimate gain;
  bool fits = false, unmeasured = false;
};
} // namespace

bool Decider::propose() {
  // Under a compile limit the solver may want more builds than are left:
  // the build that saves least is forbidden and the problem re-solved until
  // the proposal fits.
  for (;;) {
    if (std::isinf(bestStepTime(
            table, [&](size_t p, int b) { return allowed(p, b, 1.0); }, 1.0,
            &proposed, pricing))) {
      decision.reason = "no legal assignment";
      return false;
    }
    if (costs.fits(proposed))
      return true;
    int worst = -1;
    double worstSaving = 0;
    for (size_t p = 0; p < proposed.size(); ++p) {
      if (proposed[p] == current[p] || costs.canRunBuilt(p, proposed[p]))
        continue;
      double saving =
          pricing.program(p, current[p], model.get(p, current[p]).seconds()) -
          pricing.program(p, proposed[p], model.get(p, proposed[p]).seconds());
      if (worst < 0 || saving < worstSaving) {
        worst = int(p);
        worstSaving = saving;
      }
    }
    forbidden[worst * kNumBackends + proposed[worst]] = true;
  }
}

bool Decider::judgeSwitch() {
  const GainEstimate &g = gain =
      estimateGain(table, model, current, proposed, costs, pricing);
  decision.currentCost = g.from;
  decision.proposedCost = g.to;
  decision.proposal = proposed;
  decision.gainStdDev = g.stdDev;
  decision.switchCost = g.switchCost;
  bool differs = proposed != current;
  fits = differs && costs.fits(proposed);
  double relativeVariance =
      movedRelativeVariance(model, current, proposed, g, pricing);
  if (!differs || g.gain <= 0) {
    decision.reason = "the current assignment is still the best";
  } else if (!fits) {
    decision.reason = "the better assignment needs more compiles than the "
                      "backend's compile limit leaves";
  } else if (g.gain < params.minRelativeGain * g.from) {
    decision.reason = "gain below the minimum relative gain";
  } else if (g.gain * horizon < g.switchCost) {
    decision.reason = "gain over the horizon below the switching cost";
  } else if (g.gain < params.confidence * g.stdDev) {
    decision.reason = "gain within the estimates' uncertainty";
  } else if (relativeVariance > 4 * movedNoise(model, current, proposed)) {
    // Never trusted blindly: an estimate no recent measurement backs
    // (unmeasured, or its backend changed since) is probed first.
    decision.reason = "the better assignment's estimates rest on no recent "
                      "measurement";
    unmeasured = true;
  } else {
    decision.action = Decision::switchTo;
    decision.backends = proposed;
    decision.reason = pricing.better;
    return true;
  }
  return false;
}

std::vector<std::vector<int32_t>> Decider::probeCandidates(bool rateLimited) {
  std::vector<std::vector<int32_t>> candidates;
  if (fits)
    candidates.push_back(proposed);
  // Between rate-limited probes only the proposal that every test but a
  // recent measurement passes is probed (the switch waits on it alone).
  if (rateLimited && !unmeasured)
    return {};
  for (int b = 0; b < kNumBackends && !rateLimited; ++b) {
    std::vector<int32_t> optimistic;
    auto cost = [&](size_t p, int c) {
      double scale = 1.0;
      if (c == b)
        scale =
            std::exp(-params.confidence * std::sqrt(model.get(p, c).variance));
      return allowed(p, c, scale);
    };
    if (std::isinf(bestStepTime(table, cost, 1.0, &optimistic, pricing)) ||
        optimistic == current || !costs.fits(optimistic))
      continue;
    if (std::find(candidates.begin(), candidates.end(), optimistic) ==
        candidates.end())
      candidates.push_back(std::move(optimistic));
  }
  return candidates;
}

double Decider::bestCaseGain(const std::vector<int32_t> &to) const {
  auto best = [&](size_t p, int b) {
    Estimate e = model.get(p, b);
    if (b == current[p])
      return e.seconds();
    double fastest = model.fastestLog(p, b);
    double bound = std::isinf(fastest)
                       ? e.mean - params.confidence * std::sqrt(e.variance)
                       : std::min(e.mean, fastest + model.chipWideLog());
    return std::exp(bound);
  };
  auto estimated = [&](size_t p, int b) { return model.get(p, b).seconds(); };
  return stepCost(table, pricing, current, estimated) -
         stepCost(table, pricing, to, best);
}

void Decider::chooseProbe(double credit, bool rateLimited, double debt) {
  // Value of information: a probe runs the candidate for one step; its
  // value is the expected gain beyond the switching threshold over the
  // horizon (it is switched to when the measurement confirms it), its cost
  // the step's expected extra time plus switching there and back.
  double bestNet = params.minRelativeGain * gain.from;
  for (std::vector<int32_t> &candidate : probeCandidates(rateLimited)) {
    GainEstimate q =
        estimateGain(table, model, current, candidate, costs, pricing);
    // One probe measures the moved programs once: the gain's spread after
    // it (posterior) and how far its mean may move (preposterior), from the
    // moved programs' relative variance r and one measurement's m.
    double r = movedRelativeVariance(model, current, candidate, q, pricing);
    double m = movedNoise(model, current, candidate);
    double after = r > 0 ? q.stdDev * std::sqrt(m / (r + m)) : 0;
    double shift = r > 0 ? q.stdDev * std::sqrt(r / (r + m)) : 0;
    // Its value: the gain over the horizon of the switches it would enable
    // (the mean then clears the threshold by `confidence` deviations).
    // Bounded by what it can gain: the candidate at its fastest (each moved
    // program as fast as it was ever seen there, or at its optimistic
    // bound when never measured) must clear the threshold, and the value
    // is at most that gain over the horizon. A backend that was measured
    // slower at its best cannot become worth it by forgetting alone.
    double reachable = bestCaseGain(candidate) - threshold(q);
    if (reachable <= 0)
      continue;
    double value = std::min(
        horizon * reachable,
        horizon * enabledGain(q.gain, shift, threshold(q),
                              threshold(q) + params.confidence * after));
    double back = 0;
    for (size_t p = 0; p < current.size(); ++p)
      back += pricing.switching(
          current[p], table.weightMoveCost(p, candidate[p], current[p]));
    // Its cost: the step's expected extra time (an expected saving is not
    // counted: it rests on the estimate the probe is there to check) and
    // switching there and back.
    double cost = std::max(0.0, -q.gain) + q.switchCost + back;
    // Beyond the credit (a probe cost more than expected, and the debt is
    // being repaid) only a probe whose expected net value also repays the
    // debt is worth it: a debt is past bad luck, not a reason to leave a
    // large, likely gain unchecked for hundreds of steps.
    if (value - cost <= bestNet || (cost > credit && value - cost < debt))
      continue;
    bestNet = value - cost;
    decision.action = Decision::probe;
    decision.backends = candidate;
    decision.proposedCost = q.to;
    decision.proposal = candidate;
    decision.gainStdDev = q.stdDev;
    decision.switchCost = q.switchCost;
    decision.probeValue = value;
    decision.probeCost = cost;
    decision.reason = "the expected gain of knowing exceeds the probe's cost";
  }
}

Decision decide(const Model &table, const OnlineModel &model,
                const std::vector<int32_t> &current, const SwitchCosts &costs,
                const AdaptiveParameters &params, double probeCredit,
                bool rateLimited, const Pricing &pricing, double probeDebt) {
  Decider decider(table, model, current, costs, params, pricing);
  if (decider.propose() && !decider.judgeSwitch() && probeCredit >= 0)
    decider.chooseProbe(probeCredit, rateLimited, std::max(probeDebt, 0.0));
  return std::move(decider.decision);
}

} // namespace hwagent_rt
