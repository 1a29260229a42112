//===- Adaptive.cpp - online cost learning and re-partitioning ------------===//

#include "Adaptive.h"

#include "HwAgent/Core/Solver.h"

#include <algorithm>
#include <functional>

namespace hwagent_rt {

void OnlineModel::reset(const Model &model, const AdaptiveParameters &p) {
  params = p;
  logPredicted.assign(model.programs.size() * kNumBackends, 0.0);
  deviation.assign(model.programs.size() * kNumBackends, Estimate{});
  for (size_t r = 0; r < model.programs.size(); ++r)
    for (int b = 0; b < kNumBackends; ++b) {
      logPredicted[r * kNumBackends + b] =
          std::log(std::max(model.programs[r].predicted[b], 1e-9));
      deviation[r * kNumBackends + b].variance = params.priorVariance;
    }
  for (Estimate &o : offset)
    o = Estimate{0, params.backendPriorVariance, 0};
}

Estimate OnlineModel::get(unsigned region, int backend) const {
  const Estimate &d = deviation[region * kNumBackends + backend];
  const Estimate &o = offset[backend];
  return Estimate{logPredicted[region * kNumBackends + backend] + o.mean +
                      d.mean,
                  o.variance + d.variance, d.samples};
}

void OnlineModel::update(unsigned region, int backend, double seconds,
                         int64_t samples) {
  Estimate &d = deviation[region * kNumBackends + backend];
  Estimate &o = offset[backend];
  double z = std::log(std::max(seconds, 1e-9));
  double innovation =
      z - (logPredicted[region * kNumBackends + backend] + o.mean + d.mean);
  // Joint update of the two terms: each takes its share of the innovation
  // by its variance (the measurement sees their sum).
  double total =
      o.variance + d.variance +
      params.measurementVariance / double(std::max<int64_t>(samples, 1));
  double gainOffset = o.variance / total, gainDeviation = d.variance / total;
  o.mean += gainOffset * innovation;
  d.mean += gainDeviation * innovation;
  o.variance *= 1 - gainOffset;
  d.variance *= 1 - gainDeviation;
  d.samples += samples;
  o.samples += samples;
}

void OnlineModel::advance() {
  for (Estimate &d : deviation) {
    d.mean *= 1 - params.deviationDecay;
    d.variance =
        std::min(d.variance + params.processVariance, params.priorVariance);
  }
  for (Estimate &o : offset)
    o.variance = std::min(o.variance + params.backendProcessVariance,
                          params.backendPriorVariance);
}

void OnlineModel::shiftBackend(int backend, double logFactor) {
  Estimate &o = offset[backend];
  o.mean += logFactor;
  o.variance = std::min(o.variance + params.measurementVariance,
                        params.backendPriorVariance);
}

/// The partition problem of the programs with unary costs cost(p, b)
/// (illegal where a program has no variant), the host pinned to the CPU,
/// and boundaries weighted by `edgeWeight`.
template <typename CostFn>
static hwcore::PartitionProblem makeProblem(const Model &table, CostFn cost,
                                            double edgeWeight) {
  hwcore::PartitionProblem problem;
  problem.numLabels = kNumBackends;
  for (unsigned r = 0; r < table.programs.size(); ++r) {
    std::vector<double> unary(kNumBackends, hwcore::kIllegal);
    for (int b = 0; b < kNumBackends; ++b)
      if (Model::legal(table.programs[r], b))
        unary[b] = cost(r, b);
    problem.addNode(unary);
  }
  std::vector<double> hostCosts(kNumBackends, hwcore::kIllegal);
  hostCosts[HWAGENT_BACKEND_CPU] = 0;
  unsigned host = problem.addNode(hostCosts);
  for (const hwagent_edge_info_t &e : table.edges) {
    std::vector<double> costs(kNumBackends * kNumBackends);
    for (int a = 0; a < kNumBackends; ++a)
      for (int b = 0; b < kNumBackends; ++b)
        costs[a * kNumBackends + b] = edgeWeight * table.linkCost(e, a, b);
    problem.addEdge(e.from < 0 ? host : unsigned(e.from),
                    e.to < 0 ? host : unsigned(e.to), costs);
  }
  return problem;
}

double bestStepTime(const Model &table,
                    const std::function<double(size_t, int)> &cost,
                    double edgeWeight, std::vector<int32_t> *best) {
  hwcore::PartitionProblem problem = makeProblem(table, cost, edgeWeight);
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

Decision decide(const Model &table, const OnlineModel &model,
                const std::vector<int32_t> &current,
                const std::vector<bool> &compiled,
                const AdaptiveParameters &params) {
  unsigned n = table.programs.size();
  Decision decision;
  decision.backends = current;
  std::vector<int32_t> proposed;
  auto estimated = [&](size_t r, int b) { return model.get(r, b).seconds(); };
  if (std::isinf(bestStepTime(table, estimated, 1.0, &proposed))) {
    decision.reason = "no legal assignment";
    return decision;
  }
  decision.currentSeconds = stepTime(table, current, estimated);
  decision.proposedSeconds = stepTime(table, proposed, estimated);
  double gain = decision.currentSeconds - decision.proposedSeconds;
  // Uncertainty of the gain: the changed regions' estimates on both sides
  // (a log-normal's relative spread is about its log standard deviation).
  double variance = 0, switchCost = 0;
  for (unsigned r = 0; r < n; ++r) {
    if (proposed[r] == current[r])
      continue;
    Estimate now = model.get(r, current[r]);
    Estimate next = model.get(r, proposed[r]);
    variance += now.variance * now.seconds() * now.seconds() +
                next.variance * next.seconds() * next.seconds();
    if (!compiled[r * kNumBackends + proposed[r]])
      switchCost += table.compile[proposed[r]];
  }
  decision.gainStdDev = std::sqrt(variance);
  if (gain <= 0) {
    decision.reason = "the current assignment is still the best";
  } else if (gain < params.minRelativeGain * decision.currentSeconds) {
    decision.reason = "gain below the minimum relative gain";
  } else if (gain < params.confidence * decision.gainStdDev) {
    decision.reason = "gain within the estimates' uncertainty";
  } else if (gain * params.horizon < switchCost) {
    decision.reason = "gain over the horizon below the switching cost";
  } else {
    decision.switchWorthIt = true;
    decision.backends = std::move(proposed);
    decision.reason = "lower predicted step time";
  }
  return decision;
}

} // namespace hwagent_rt
