//===- Session.cpp - libhwagent_rt sessions and the C ABI -----------------===//
//
// The hot path (select, begin, end) takes no lock unless logging or tracing
// is on: per-region counters are atomics and the open execution lives in a
// thread-local. CPU executions are timed with the monotonic clock; ANE/GPU
// executions run their numerics on this CPU (the simulator) and are charged
// the target's predicted time from the region table, with optional noise.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_rt.h"

#include "Adaptive.h"
#include "RegionTable.h"
#include "Telemetry.h"

#include "absl/container/flat_hash_map.h"
#include "absl/random/distributions.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "Lock.h"
#include "absl/base/thread_annotations.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <random>
#include <string>
#include <vector>

using hwagent_rt::kNumBackends;

namespace {

int64_t nowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct RegionState {
  std::atomic<int32_t> backend{0};
  /// The backend its last completed execution ran on.
  std::atomic<int32_t> lastRun{0};
  std::atomic<int64_t> executions[kNumBackends] = {};
  std::atomic<int64_t> nanos[kNumBackends] = {};
  std::atomic<int64_t> faults{0};
};

struct TraceEvent {
  int64_t region;
  int backend;
  double start, seconds;
  int64_t step;
  bool fault;
};

/// The execution a thread has open between begin and end.
struct OpenExecution {
  int64_t region = -1;
  int32_t backend = 0;
  int64_t start = 0;
};
thread_local OpenExecution openExecution;

} // namespace

struct hwagent_session {
  hwagent_rt::RegionTable table;
  std::unique_ptr<RegionState[]> states;
  hwagent_options_t options;
  std::string lastError;

  // Current step (nanoseconds, per backend).
  std::atomic<int64_t> stepNanos[kNumBackends] = {};
  std::atomic<int64_t> stepWallStart{0};
  std::atomic<int64_t> steps{0};
  std::atomic<int64_t> faults{0};
  hwagent_step_stats_t last = {};

  // Scripted scenario: per-backend slowdown and thermal state in force.
  std::vector<hwagent_rt::ScenarioEvent> scenario;
  size_t nextEvent = 0;
  std::atomic<double> slowdown[kNumBackends] = {1.0, 1.0, 1.0};
  std::atomic<int> thermal{-1};
  hwagent_rt::CpuUtilization cpuUtilization;

  // Adaptive state (guarded by adaptiveMutex).
  hwagent_rt::Mutex adaptiveMutex;
  hwagent_rt::AdaptiveParameters adaptiveParams;
  hwagent_rt::OnlineModel model ABSL_GUARDED_BY(adaptiveMutex);
  std::vector<bool> compiled ABSL_GUARDED_BY(adaptiveMutex);
  std::vector<int64_t> switchSteps ABSL_GUARDED_BY(adaptiveMutex);
  hwagent_regret_t regret ABSL_GUARDED_BY(adaptiveMutex) = {};
  std::vector<double> truthTotals ABSL_GUARDED_BY(adaptiveMutex);
  /// The per-step oracle's step time and the scenario factors it was
  /// solved under (the truth changes only when they do).
  double oracleSeconds ABSL_GUARDED_BY(adaptiveMutex) = -1;
  /// Per region and backend, the executions and nanoseconds the model has
  /// already learned from (the counters themselves are the atomics in
  /// RegionState: executions stay lock-free).
  std::vector<int64_t> learnedExecutions ABSL_GUARDED_BY(adaptiveMutex);
  std::vector<int64_t> learnedNanos ABSL_GUARDED_BY(adaptiveMutex);
  double oracleFactors[kNumBackends] ABSL_GUARDED_BY(adaptiveMutex) = {0, 0, 0};
  std::atomic<int32_t> exploreRegion{-1};
  int64_t lastMeasured[kNumBackends] ABSL_GUARDED_BY(adaptiveMutex) = {-1, -1, -1};
  double exploreBudget = 0.02;
  /// The telemetry's log speed factor per backend the model last saw.
  double telemetryLogFactor[kNumBackends] ABSL_GUARDED_BY(adaptiveMutex) = {0, 0, 0};
  /// Seconds of predicted step time probes may still spend.
  double exploreCredit ABSL_GUARDED_BY(adaptiveMutex) = 0;
  std::atomic<int32_t> exploreBackend{0};

  /// The expected time of region `index` on `backend` this step (the
  /// simulator's truth: the prediction under the scenario's factors).
  double truth(unsigned index, int backend) const {
    return table.regions[index].predicted[backend] * scenarioFactor(backend);
  }

  std::vector<int32_t> currentBackends() const {
    std::vector<int32_t> backends(table.regions.size());
    for (size_t i = 0; i < backends.size(); ++i)
      backends[i] = states[i].backend.load(std::memory_order_relaxed);
    return backends;
  }

  /// Regret bookkeeping for the step that just ran (under its scenario).
  void accountStep(int64_t step);
  /// The adaptive loop, once the next step's telemetry is known.
  void adaptAtStepEnd(int64_t step);
  void writeProfile();

  /// Applies the scenario events due at `step`.
  void applyScenario(int64_t step) {
    while (nextEvent < scenario.size() && scenario[nextEvent].step <= step) {
      const hwagent_rt::ScenarioEvent &e = scenario[nextEvent++];
      if (e.backend >= 0)
        slowdown[e.backend].store(e.slowdown);
      else
        thermal.store(e.thermal);
    }
  }
  /// Multiplier the scenario puts on `backend`'s time (1 without one).
  double scenarioFactor(int backend) const {
    return slowdown[backend].load(std::memory_order_relaxed) *
           hwagent_rt::thermalFactor(thermal.load(std::memory_order_relaxed));
  }

  hwagent_rt::Mutex mutex;
  std::FILE *log ABSL_GUARDED_BY(mutex) = nullptr;
  std::vector<TraceEvent> trace ABSL_GUARDED_BY(mutex);
  double virtualNow ABSL_GUARDED_BY(mutex) = 0;
  absl::BitGen rng ABSL_GUARDED_BY(mutex);

  const hwagent_rt::RegionInfo *lookup(int64_t id, uint32_t *index) const {
    auto it = table.indexOf.find(id);
    if (it == table.indexOf.end())
      return nullptr;
    *index = it->second;
    return &table.regions[it->second];
  }

  double simulatedSeconds(const hwagent_rt::RegionInfo &region, int backend) {
    double seconds = region.predicted[backend];
    if (options.sim_noise > 0) {
      hwagent_rt::MutexLock lock(&mutex);
      seconds *= std::exp(absl::Gaussian<double>(rng, 0.0, options.sim_noise));
    }
    return seconds;
  }

  void record(const hwagent_rt::RegionInfo &region, int backend, double seconds,
              double wallSeconds, bool fault) {
    if (!log && !options.trace_path)
      return;
    hwagent_rt::MutexLock lock(&mutex);
    int64_t step = steps.load(std::memory_order_relaxed);
    if (log)
      absl::FPrintF(log,
                    "{\"type\": \"region\", \"step\": %d, \"region\": %d, "
                    "\"backend\": \"%s\", \"simulated\": %s, \"seconds\": %.9g, "
                    "\"wall_seconds\": %.9g, \"fault\": %s}\n",
                    step, region.id, hwagent_rt::backendName(backend),
                    backend == HWAGENT_BACKEND_CPU ? "false" : "true", seconds,
                    wallSeconds, fault ? "true" : "false");
    if (options.trace_path) {
      trace.push_back({region.id, backend, virtualNow, seconds, step, fault});
      virtualNow += seconds;
    }
  }

  void writeTrace() {
    hwagent_rt::MutexLock lock(&mutex);
    if (!options.trace_path)
      return;
    std::FILE *file = std::fopen(options.trace_path, "w");
    if (!file)
      return;
    std::fprintf(file, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    static const char *const tracks[kNumBackends] = {
        "cpu (measured)", "ane (simulated)", "gpu (simulated)"};
    for (int b = 0; b < kNumBackends; ++b)
      std::fprintf(file,
                   "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
                   "\"tid\": %d, \"args\": {\"name\": \"%s\"}},\n",
                   b, tracks[b]);
    std::fprintf(file,
                 "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
                 "\"args\": {\"name\": \"hwagent %s\"}}",
                 table.target.c_str());
    for (const TraceEvent &e : trace)
      std::fprintf(file,
                   ",\n{\"name\": \"region %lld\", \"cat\": \"%s\", \"ph\": "
                   "\"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": "
                   "%.3f, \"args\": {\"step\": %lld, \"simulated\": %s, "
                   "\"fault\": %s}}",
                   static_cast<long long>(e.region),
                   hwagent_rt::backendName(e.backend), e.backend,
                   e.start * 1e6, e.seconds * 1e6,
                   static_cast<long long>(e.step),
                   e.backend == HWAGENT_BACKEND_CPU ? "false" : "true",
                   e.fault ? "true" : "false");
    std::fprintf(file, "\n]}\n");
    std::fclose(file);
  }
};

void hwagent_session::accountStep(int64_t step) {
  hwagent_rt::MutexLock lock(&adaptiveMutex);
  // Regret bookkeeping against the simulator's truth for this step; what
  // actually ran includes exploration probes.
  if (options.simulate_cpu) {
    auto truthCost = [&](size_t r, int b) { return truth(r, b); };
    std::vector<int32_t> ran(table.regions.size());
    for (size_t r = 0; r < ran.size(); ++r)
      ran[r] = states[r].lastRun.load(std::memory_order_relaxed);
    regret.actual_seconds += hwagent_rt::stepTime(table, ran, truthCost);
    bool changed = oracleSeconds < 0;
    for (int b = 0; b < kNumBackends; ++b) {
      changed |= oracleFactors[b] != scenarioFactor(b);
      oracleFactors[b] = scenarioFactor(b);
    }
    if (changed)
      oracleSeconds = hwagent_rt::bestStepTime(table, truthCost, 1.0);
    regret.oracle_seconds += oracleSeconds;
    for (size_t r = 0; r < table.regions.size(); ++r)
      for (int b = 0; b < kNumBackends; ++b)
        truthTotals[r * kNumBackends + b] += truth(r, b);
    regret.steps = step + 1;
  }
}

void hwagent_session::adaptAtStepEnd(int64_t step) {
  if (!options.adaptive)
    return;
  hwagent_rt::MutexLock lock(&adaptiveMutex);
  // What ran since the last step end: one update per region and backend
  // with the mean of its executions.
  for (size_t r = 0; r < table.regions.size(); ++r)
    for (int b = 0; b < kNumBackends; ++b) {
      size_t slot = r * kNumBackends + b;
      int64_t executions = states[r].executions[b].load(std::memory_order_relaxed);
      int64_t nanos = states[r].nanos[b].load(std::memory_order_relaxed);
      int64_t n = executions - learnedExecutions[slot];
      if (n <= 0)
        continue;
      model.update(r, b, double(nanos - learnedNanos[slot]) * 1e-9 / double(n), n);
      compiled[slot] = true;
      learnedExecutions[slot] = executions;
      learnedNanos[slot] = nanos;
    }
  std::vector<int32_t> current = currentBackends();
  // Telemetry as a control input: the load and thermal state the next step
  // runs under (here the scenario's; on a device, the OS's) move the
  // backends' offsets before the decision, so a change known in advance
  // needs no slow step to be seen.
  if (options.use_telemetry)
    for (int b = 0; b < kNumBackends; ++b) {
      double factor = std::log(scenarioFactor(b));
      double delta = factor - telemetryLogFactor[b];
      if (std::abs(delta) < 1e-9)
        continue;
      model.shiftBackend(b, delta);
      telemetryLogFactor[b] = factor;
      hwagent_rt::MutexLock logLock(&mutex);
      if (log)
        absl::FPrintF(log,
                      "{\"type\": \"telemetry\", \"step\": %d, \"backend\": "
                      "\"%s\", \"speed_factor\": %.6g}\n",
                      step + 1, hwagent_rt::backendName(b), std::exp(factor));
    }
  model.advance();
  hwagent_rt::Decision decision =
      hwagent_rt::decide(table, model, current, compiled, adaptiveParams);
  // A `decision` line says why a better assignment did not clear the bar;
  // a `repartition` line records a switch (applied, or vetoed).
  auto logDecision = [&](const char *type, const char *applied) {
    hwagent_rt::MutexLock logLock(&mutex);
    if (log)
      absl::FPrintF(log,
                    "{\"type\": \"%s\", \"step\": %d, %s\"current_seconds\": "
                    "%.9g, \"proposed_seconds\": %.9g, \"gain_stddev\": %.9g, "
                    "\"reason\": \"%s\"}\n",
                    type, step, applied, decision.currentSeconds,
                    decision.proposedSeconds, decision.gainStdDev, decision.reason);
  };
  if (!decision.switchWorthIt &&
      decision.proposedSeconds < decision.currentSeconds)
    logDecision("decision", "");
  if (decision.switchWorthIt) {
    std::vector<int64_t> ids;
    for (const hwagent_rt::RegionInfo &r : table.regions)
      ids.push_back(r.id);
    hwagent_repartition_t event = {};
    event.step = step;
    event.num_regions = static_cast<uint32_t>(ids.size());
    event.region_ids = ids.data();
    event.old_backends = current.data();
    event.new_backends = decision.backends.data();
    event.current_seconds = decision.currentSeconds;
    event.proposed_seconds = decision.proposedSeconds;
    event.reason = decision.reason;
    bool vetoed = options.on_repartition &&
                  options.on_repartition(options.on_repartition_user, &event) != 0;
    if (vetoed) {
      ++regret.vetoes;
    } else {
      for (size_t i = 0; i < table.regions.size(); ++i) {
        states[i].backend.store(decision.backends[i]);
        compiled[i * kNumBackends + decision.backends[i]] = true;
      }
      ++regret.switches;
      switchSteps.push_back(step);
    }
    logDecision("repartition",
                vetoed ? "\"applied\": false, " : "\"applied\": true, ");
  }
  // Exploration: the backend measured least recently (that some region
  // could move to) gets one probe at the next step, on the region that
  // would gain most by moving there if the estimate holds; what the probe
  // teaches about the backend's offset carries to all its regions. Probes
  // are paid from a credit that grows by a share of the predicted step
  // time, so their total cost stays within that share of the run: on a
  // graph whose steps are tiny next to an accelerator's dispatch, probing
  // it is correspondingly rare.
  for (size_t r = 0; r < table.regions.size(); ++r)
    lastMeasured[current[r]] = step;
  if (options.explore_every <= 0)
    return;
  auto estimated = [&](size_t r, int b) { return model.get(r, b).seconds(); };
  double currentSeconds = hwagent_rt::stepTime(table, current, estimated);
  exploreCredit += exploreBudget * currentSeconds;
  if ((step + 1) % options.explore_every != 0)
    return;
  int bestBackend = -1;
  for (int b = 0; b < kNumBackends; ++b) {
    bool movable = false;
    for (size_t r = 0; r < table.regions.size(); ++r)
      movable |= table.regions[r].legal(b) && current[r] != b;
    if (movable && (bestBackend < 0 || lastMeasured[b] < lastMeasured[bestBackend]))
      bestBackend = b;
  }
  if (bestBackend < 0)
    return;
  // Among the regions whose probe the credit covers, the one with the
  // largest estimated gain there.
  int bestRegion = -1;
  double bestGain = 0, bestCost = 0;
  for (size_t r = 0; r < table.regions.size(); ++r) {
    if (!table.regions[r].legal(bestBackend) || current[r] == bestBackend)
      continue;
    double cost = std::max(
        0.0, hwagent_rt::moveDelta(table, current, r, bestBackend, estimated));
    if (cost > exploreCredit)
      continue;
    double gain = estimated(r, current[r]) - estimated(r, bestBackend);
    if (bestRegion < 0 || gain > bestGain) {
      bestRegion = int(r);
      bestGain = gain;
      bestCost = cost;
    }
  }
  if (bestRegion < 0)
    return; // Not affordable yet: the credit keeps growing.
  exploreCredit -= bestCost;
  exploreBackend.store(bestBackend);
  exploreRegion.store(bestRegion);
  lastMeasured[bestBackend] = step + 1;
  ++regret.explorations;
}

void hwagent_session::writeProfile() {
  if (!options.profile_out)
    return;
  std::string text = absl::StrCat(
      "{\"schema\": \"hwagent.profile-db\", \"version\": 1, \"target\": \"",
      table.target, "\", \"entries\": [");
  bool first = true;
  for (size_t i = 0; i < table.regions.size(); ++i)
    for (int b = 0; b < kNumBackends; ++b) {
      int64_t n = states[i].executions[b].load();
      if (n == 0)
        continue;
      double seconds = states[i].nanos[b].load() * 1e-9 / double(n);
      bool simulated = b != HWAGENT_BACKEND_CPU || options.simulate_cpu;
      absl::StrAppend(&text, first ? "\n" : ",\n",
                      absl::StrFormat("  {\"key\": \"%s\", \"backend\": \"%s\", "
                                      "\"seconds\": %.9g, \"samples\": %d, "
                                      "\"simulated\": %s}",
                                      table.regions[i].key,
                                      hwagent_rt::backendName(b), seconds, n,
                                      simulated ? "true" : "false"));
      first = false;
    }
  text += "\n]}\n";
  // Atomic: write a temporary file, then rename it over the target.
  std::string temporary = std::string(options.profile_out) + ".tmp";
  std::FILE *file = std::fopen(temporary.c_str(), "w");
  if (!file)
    return;
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  ok &= std::fclose(file) == 0;
  if (ok)
    std::rename(temporary.c_str(), options.profile_out);
  else
    std::remove(temporary.c_str());
}

namespace {
std::atomic<hwagent_session *> currentSession{nullptr};
} // namespace

extern "C" {

uint32_t hwagent_rt_api_version(void) { return HWAGENT_RT_API_VERSION; }

void hwagent_options_init(hwagent_options_t *options) {
  *options = hwagent_options_t{};
  options->struct_size = sizeof(hwagent_options_t);
  options->use_telemetry = 1;
  options->sim_noise = 0.0;
  options->seed = 1;
  options->force_backend = -1;
  options->fault_region = -1;
  options->fault_step = -1;
}

hwagent_status_t hwagent_session_create(const char *regionTable,
                                        const hwagent_options_t *options,
                                        hwagent_session_t **session) {
  if (!regionTable || !session)
    return HWAGENT_INVALID_ARGUMENT;
  *session = nullptr;
  hwagent_options_t defaults;
  hwagent_options_init(&defaults);
  if (options && options->struct_size != sizeof(hwagent_options_t))
    return HWAGENT_VERSION_MISMATCH;
  if (options) {
    // Numeric options out of range are refused, not clamped.
    auto bad = [](const char *name, double value, const char *what) {
      std::fprintf(stderr, "hwagent runtime: option %s must be %s, got %g\n",
                   name, what, value);
      return HWAGENT_INVALID_ARGUMENT;
    };
    if (!(std::isfinite(options->sim_noise) && options->sim_noise >= 0))
      return bad("sim_noise", options->sim_noise, "finite and >= 0");
    if (options->explore_every < 0)
      return bad("explore_every", options->explore_every, ">= 0");
    if (!(std::isfinite(options->explore_budget) && options->explore_budget >= 0 &&
          options->explore_budget <= 1))
      return bad("explore_budget", options->explore_budget, "in [0, 1]");
    if (!(std::isfinite(options->horizon) && options->horizon >= 0))
      return bad("horizon", options->horizon, "finite and >= 0");
  }
  absl::StatusOr<hwagent_rt::RegionTable> table =
      hwagent_rt::parseRegionTable(regionTable);
  if (!table.ok()) {
    std::fprintf(stderr, "hwagent runtime: %s\n",
                 std::string(table.status().message()).c_str());
    return HWAGENT_INVALID_ARGUMENT;
  }
  auto s = std::make_unique<hwagent_session>();
  s->options = options ? *options : defaults;
  s->table = std::move(*table);
  s->states = std::make_unique<RegionState[]>(s->table.regions.size());
  for (uint32_t i = 0; i < s->table.regions.size(); ++i) {
    const hwagent_rt::RegionInfo &r = s->table.regions[i];
    int backend = r.assigned;
    int forced = s->options.force_backend;
    if (forced >= 0 && forced < kNumBackends)
      backend = r.legal(forced) ? forced : 0;
    s->states[i].backend.store(backend);
    s->states[i].lastRun.store(backend);
  }
  if (s->options.scenario_path) {
    std::ifstream file(s->options.scenario_path);
    if (!file) {
      std::fprintf(stderr, "hwagent runtime: cannot read scenario '%s'\n",
                   s->options.scenario_path);
      return HWAGENT_IO_ERROR;
    }
    std::stringstream text;
    text << file.rdbuf();
    absl::StatusOr<std::vector<hwagent_rt::ScenarioEvent>> events =
        hwagent_rt::parseScenario(text.str());
    if (!events.ok()) {
      std::fprintf(stderr, "hwagent runtime: %s: %s\n", s->options.scenario_path,
                   std::string(events.status().message()).c_str());
      return HWAGENT_INVALID_ARGUMENT;
    }
    s->scenario = std::move(*events);
    s->applyScenario(0);
  }
  {
    hwagent_rt::MutexLock lock(&s->mutex);
    s->rng = absl::BitGen(std::seed_seq{s->options.seed});
    if (s->options.log_path) {
      s->log = std::fopen(s->options.log_path, "w");
      if (!s->log)
        return HWAGENT_IO_ERROR;
    }
  }
  if (s->options.horizon > 0)
    s->adaptiveParams.horizon = s->options.horizon;
  s->exploreBudget = s->options.explore_budget > 0 ? s->options.explore_budget : 0.02;
  {
    hwagent_rt::MutexLock lock(&s->adaptiveMutex);
    s->model.reset(s->table, s->adaptiveParams);
    s->compiled.assign(s->table.regions.size() * kNumBackends, false);
    // The compile-time assignment's variants are built before training.
    for (uint32_t i = 0; i < s->table.regions.size(); ++i)
      s->compiled[i * kNumBackends + s->states[i].backend.load()] = true;
    s->truthTotals.assign(s->table.regions.size() * kNumBackends, 0.0);
    s->learnedExecutions.assign(s->table.regions.size() * kNumBackends, 0);
    s->learnedNanos.assign(s->table.regions.size() * kNumBackends, 0);
  }
  s->stepWallStart.store(nowNanos());
  *session = s.release();
  return HWAGENT_OK;
}

void hwagent_session_destroy(hwagent_session_t *session) {
  if (!session)
    return;
  hwagent_session_t *expected = session;
  currentSession.compare_exchange_strong(expected, nullptr);
  session->writeTrace();
  session->writeProfile();
  {
    hwagent_rt::MutexLock lock(&session->mutex);
    if (session->log)
      std::fclose(session->log);
    session->log = nullptr;
  }
  delete session;
}

const char *hwagent_session_last_error(const hwagent_session_t *session) {
  return session ? session->lastError.c_str() : "no session";
}

void hwagent_session_make_current(hwagent_session_t *session) {
  currentSession.store(session);
}

int32_t hwagent_rt_select(int64_t region) {
  hwagent_session_t *s = currentSession.load(std::memory_order_acquire);
  uint32_t index;
  if (!s || !s->lookup(region, &index))
    return HWAGENT_BACKEND_CPU;
  if (s->exploreRegion.load(std::memory_order_relaxed) == int32_t(index)) {
    int32_t expected = int32_t(index);
    if (s->exploreRegion.compare_exchange_strong(expected, -1))
      return s->exploreBackend.load();
  }
  return s->states[index].backend.load(std::memory_order_relaxed);
}

void hwagent_rt_begin(int64_t region, int32_t backend) {
  openExecution.region = region;
  openExecution.backend = backend;
  openExecution.start = nowNanos();
}

int32_t hwagent_rt_end(int64_t region, int32_t backend, int32_t nonfinite) {
  int64_t end = nowNanos();
  hwagent_session_t *s = currentSession.load(std::memory_order_acquire);
  uint32_t index;
  const hwagent_rt::RegionInfo *info = s ? s->lookup(region, &index) : nullptr;
  if (!info || backend < 0 || backend >= kNumBackends)
    return 0;
  double wall = (openExecution.region == region)
                    ? static_cast<double>(end - openExecution.start) * 1e-9
                    : 0.0;
  bool measured = backend == HWAGENT_BACKEND_CPU && !s->options.simulate_cpu;
  double seconds = (measured ? wall : s->simulatedSeconds(*info, backend)) *
                   s->scenarioFactor(backend);
  bool fault = false;
  if (backend == HWAGENT_BACKEND_ANE) {
    int64_t step = s->steps.load(std::memory_order_relaxed);
    bool injected = s->options.fault_region == region &&
                    (s->options.fault_step < 0 || s->options.fault_step == step);
    fault = nonfinite != 0 || injected;
  }
  RegionState &state = s->states[index];
  state.lastRun.store(fault ? HWAGENT_BACKEND_CPU : backend, std::memory_order_relaxed);
  int64_t nanos = static_cast<int64_t>(seconds * 1e9);
  state.executions[backend].fetch_add(1, std::memory_order_relaxed);
  state.nanos[backend].fetch_add(nanos, std::memory_order_relaxed);
  s->stepNanos[backend].fetch_add(nanos, std::memory_order_relaxed);
  if (fault) {
    state.faults.fetch_add(1, std::memory_order_relaxed);
    s->faults.fetch_add(1, std::memory_order_relaxed);
  }
  s->record(*info, backend, seconds, wall, fault);
  openExecution.region = -1;
  return fault ? 1 : 0;
}

hwagent_status_t hwagent_session_end_step(hwagent_session_t *s, double loss) {
  if (!s)
    return HWAGENT_INVALID_ARGUMENT;
  int64_t now = nowNanos();
  hwagent_step_stats_t stats = {};
  double total = 0;
  double perBackend[kNumBackends];
  for (int b = 0; b < kNumBackends; ++b) {
    perBackend[b] = s->stepNanos[b].exchange(0) * 1e-9;
    total += perBackend[b];
  }
  for (int b = 0; b < kNumBackends; ++b)
    stats.share[b] = total > 0 ? perBackend[b] / total : 0;
  stats.last_step_seconds = total;
  stats.last_wall_seconds = (now - s->stepWallStart.exchange(now)) * 1e-9;
  stats.steps = s->steps.fetch_add(1) + 1;
  stats.faults = s->faults.load();
  {
    hwagent_rt::MutexLock lock(&s->mutex);
    s->last = stats;
    if (s->log)
      absl::FPrintF(s->log,
                    "{\"type\": \"step\", \"step\": %d, \"loss\": %.9g, "
                    "\"step_seconds\": %.9g, \"wall_seconds\": %.9g, "
                    "\"share\": {\"cpu\": %.4f, \"ane\": %.4f, \"gpu\": %.4f}, "
                    "\"faults\": %d, \"scenario\": {\"cpu\": %.3g, "
                    "\"ane\": %.3g, \"gpu\": %.3g, \"thermal\": %d}}\n",
                    stats.steps - 1, loss, stats.last_step_seconds,
                    stats.last_wall_seconds, stats.share[0], stats.share[1],
                    stats.share[2], stats.faults, s->slowdown[0].load(),
                    s->slowdown[1].load(), s->slowdown[2].load(),
                    s->thermal.load());
  }
  s->accountStep(stats.steps - 1);
  // The next step runs under the events due then; the adaptive loop sees
  // them as telemetry.
  s->applyScenario(stats.steps);
  s->adaptAtStepEnd(stats.steps - 1);
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_pin(hwagent_session_t *s, int64_t region,
                                     int32_t backend) {
  uint32_t index;
  const hwagent_rt::RegionInfo *info = s ? s->lookup(region, &index) : nullptr;
  if (!info) {
    if (s)
      s->lastError = absl::StrCat("no region ", region);
    return s ? HWAGENT_NOT_FOUND : HWAGENT_INVALID_ARGUMENT;
  }
  if (backend < 0 || backend >= kNumBackends || !info->legal(backend)) {
    s->lastError = absl::StrCat("region ", region, " cannot run on backend ",
                                hwagent_rt::backendName(backend));
    return HWAGENT_INVALID_ARGUMENT;
  }
  s->states[index].backend.store(backend);
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_telemetry(hwagent_session_t *s,
                                           hwagent_telemetry_t *telemetry) {
  if (!s || !telemetry)
    return HWAGENT_INVALID_ARGUMENT;
  *telemetry = hwagent_telemetry_t{};
  {
    hwagent_rt::MutexLock lock(&s->mutex);
    telemetry->utilization[0] = std::max(0.0, s->cpuUtilization.sample());
  }
  for (int b = 1; b < kNumBackends; ++b)
    telemetry->utilization[b] = 1.0 - 1.0 / s->slowdown[b].load();
  hwagent_rt::ThermalReading zones = hwagent_rt::readThermalZones();
  telemetry->thermal_zones = zones.zones;
  telemetry->max_temperature_c = zones.maxCelsius;
  int scripted = s->thermal.load();
  if (scripted >= 0)
    telemetry->thermal_state = scripted;
  else if (zones.maxCelsius >= 95)
    telemetry->thermal_state = HWAGENT_THERMAL_CRITICAL;
  else if (zones.maxCelsius >= 85)
    telemetry->thermal_state = HWAGENT_THERMAL_SERIOUS;
  else if (zones.maxCelsius >= 75)
    telemetry->thermal_state = HWAGENT_THERMAL_FAIR;
  else
    telemetry->thermal_state = HWAGENT_THERMAL_NOMINAL;
  telemetry->free_memory_bytes = hwagent_rt::readAvailableMemory();
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_regret(const hwagent_session_t *s,
                                        hwagent_regret_t *regret) {
  if (!s || !regret)
    return HWAGENT_INVALID_ARGUMENT;
  auto *session = const_cast<hwagent_session_t *>(s);
  hwagent_rt::MutexLock lock(&session->adaptiveMutex);
  *regret = session->regret;
  // The best fixed assignment in hindsight: solved when asked for, over the
  // truth summed so far.
  if (regret->steps > 0)
    regret->best_fixed_seconds = hwagent_rt::bestStepTime(
        session->table,
        [&](size_t r, int b) { return session->truthTotals[r * kNumBackends + b]; },
        double(regret->steps));
  return HWAGENT_OK;
}

uint32_t hwagent_session_switch_steps(const hwagent_session_t *s, int64_t *steps,
                                      uint32_t capacity) {
  if (!s)
    return 0;
  auto *session = const_cast<hwagent_session_t *>(s);
  hwagent_rt::MutexLock lock(&session->adaptiveMutex);
  for (uint32_t i = 0; i < capacity && i < session->switchSteps.size(); ++i)
    steps[i] = session->switchSteps[i];
  return static_cast<uint32_t>(session->switchSteps.size());
}

uint32_t hwagent_session_num_regions(const hwagent_session_t *s) {
  return s ? static_cast<uint32_t>(s->table.regions.size()) : 0;
}

hwagent_status_t hwagent_session_region_stats(const hwagent_session_t *s,
                                              uint32_t index,
                                              hwagent_region_stats_t *stats) {
  if (!s || !stats)
    return HWAGENT_INVALID_ARGUMENT;
  if (index >= s->table.regions.size())
    return HWAGENT_NOT_FOUND;
  const RegionState &state = s->states[index];
  stats->region_id = s->table.regions[index].id;
  for (int b = 0; b < kNumBackends; ++b) {
    stats->executions[b] = state.executions[b].load();
    stats->seconds[b] = state.nanos[b].load() * 1e-9;
  }
  stats->faults = state.faults.load();
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_step_stats(const hwagent_session_t *s,
                                            hwagent_step_stats_t *stats) {
  if (!s || !stats)
    return HWAGENT_INVALID_ARGUMENT;
  hwagent_rt::MutexLock lock(&const_cast<hwagent_session_t *>(s)->mutex);
  *stats = s->last;
  return HWAGENT_OK;
}

} // extern "C"
