//===- Regret.cpp - regret against the simulator's truth ------------------===//
//
// With simulate_cpu every backend is charged its predicted time under the
// scenario, so the truth of every placement is known: the runtime sums what
// ran (probes included), the per-step oracle (re-solved only when the
// scenario changes) and, when asked, the best fixed placement in hindsight.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

namespace hwagent_rt {

void Session::accountStep(int64_t step) {
  if (!options.simulate_cpu)
    return;
  MutexLock lock(&adaptiveMutex);
  AdaptiveState &a = adaptive;
  auto truthCost = [&](size_t p, int b) { return truth(p, b); };
  std::vector<int32_t> ran(model.programs.size());
  for (size_t p = 0; p < ran.size(); ++p)
    ran[p] = states[p].lastRun.load(std::memory_order_relaxed);
  a.regret.actual_seconds += stepTime(model, ran, truthCost);
  bool changed = a.oracleSeconds < 0;
  for (int b = 0; b < kNumBackends; ++b) {
    changed |= a.oracleFactors[b] != scenarioFactor(b);
    a.oracleFactors[b] = scenarioFactor(b);
  }
  if (changed)
    a.oracleSeconds = bestStepTime(model, truthCost, 1.0);
  a.regret.oracle_seconds += a.oracleSeconds;
  for (size_t p = 0; p < model.programs.size(); ++p)
    for (int b = 0; b < kNumBackends; ++b)
      a.truthTotals[p * kNumBackends + b] += truth(p, b);
  a.regret.steps = step + 1;
}

hwagent_regret_t Session::regret() {
  MutexLock lock(&adaptiveMutex);
  hwagent_regret_t result = adaptive.regret;
  if (result.steps > 0)
    result.best_fixed_seconds = bestStepTime(
        model,
        [&](size_t p, int b) {
          return adaptive.truthTotals[p * kNumBackends + b];
        },
        double(result.steps));
  return result;
}

std::vector<int64_t> Session::switchSteps() {
  MutexLock lock(&adaptiveMutex);
  return adaptive.switchSteps;
}

} // namespace hwagent_rt
