//===- Session.cpp - creation, the hot path and step ends -----------------===//

#include "Session.h"

#include "HwAgent/Core/Limits.h"

#include "hwagent_rt/hwagent_kernels.h"

#include <algorithm>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hwagent_rt {

absl::StatusOr<std::unique_ptr<Session>>
Session::create(const hwagent_model_info_t *info,
                const hwagent_options_t *options) {
  std::unique_ptr<Session> session(new Session());
  if (absl::Status status = session->initialize(info, options); !status.ok())
    return status;
  return session;
}

static int64_t nowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static absl::StatusOr<std::vector<ScenarioEvent>>
readScenario(const std::string &path) {
  std::ifstream file(path);
  if (!file)
    return absl::UnavailableError(
        absl::StrCat("cannot read scenario '", path, "'"));
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<std::vector<ScenarioEvent>> events = parseScenario(text.str());
  if (!events.ok())
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", events.status().message()));
  return events;
}

/// Each program on its assigned backend (or the forced one), with the
/// variants built before training; the clock model of this machine's CPU.
void Session::placePrograms() {
  size_t n = model.programs.size();
  states = std::make_unique<ProgramState[]>(n);
  for (size_t i = 0; i < n; ++i) {
    const hwagent_program_info_t &p = model.programs[i];
    int backend = p.assigned;
    int forced = options.force_backend;
    if (forced >= 0 && forced < kNumBackends)
      backend = Model::legal(p, forced) ? forced : HWAGENT_BACKEND_CPU;
    states[i].backend.store(backend);
    states[i].lastRun.store(backend);
    // The host code (CPU) and the starting placement's variants are built
    // before training.
    states[i].built.store((1u << HWAGENT_BACKEND_CPU) | (1u << backend));
    compiles[backend].fetch_add(1);
  }
  // This machine's CPU, measured, runs at whatever clock the OS gives it:
  // the session does not price it clocked down under a cap.
  if (!options.simulate_cpu) {
    model.clock.dvfs_exponent[HWAGENT_BACKEND_CPU] = 0;
    model.clock.min_clock[HWAGENT_BACKEND_CPU] = 1;
  }
}

absl::Status Session::initialize(const hwagent_model_info_t *info,
                                 const hwagent_options_t *given) {
  hwagent_options_init(&options);
  if (given) {
    if (given->struct_size != sizeof(hwagent_options_t))
      return absl::FailedPreconditionError(absl::StrCat(
          "options were compiled against another hwagent_rt.h (struct_size ",
          given->struct_size, ", this runtime's is ", sizeof(hwagent_options_t),
          ")"));
    options = *given;
  }
  if (absl::Status status = validateOptions(options); !status.ok())
    return status;
  absl::StatusOr<Model> loaded = loadModel(info);
  if (!loaded.ok())
    return loaded.status();
  model = std::move(*loaded);
  if (options.fault_program >= 0 &&
      size_t(options.fault_program) >= model.programs.size())
    return absl::InvalidArgumentError(
        absl::StrCat("fault_program ", options.fault_program,
                     ": the model has ", model.programs.size(), " programs"));

  for (std::atomic<double> &s : slowdown)
    s.store(1.0);
  objective.store(options.objective >= 0 ? options.objective : model.objective);
  powerCap.store(options.power_cap >= 0 ? options.power_cap : model.powerCap);

  placePrograms();
  if (options.scenario_path) {
    absl::StatusOr<std::vector<ScenarioEvent>> events =
        readScenario(options.scenario_path);
    if (!events.ok())
      return events.status();
    scenario = std::move(*events);
    applyScenario(0);
  }
  {
    MutexLock lock(&mutex);
    // A fixed engine (absl::BitGen salts its seed per process): the same
    // seed gives the same noise in every run.
    rng.seed(options.seed);
    if (options.log_path)
      if (absl::Status status = log.open(options.log_path); !status.ok())
        return status;
    if (options.trace_path)
      if (absl::Status status = trace.open(options.trace_path, model.target);
          !status.ok())
        return status;
    // The profile is written at the end: its path is checked now.
    if (options.profile_out)
      if (absl::Status status = checkWritable(options.profile_out);
          !status.ok())
        return status;
    // The host's energy counter where the kernel exposes one
    // (HWAGENT_SYSFS_ROOT points tests at a tree of their own).
    const char *sysfs = std::getenv("HWAGENT_SYSFS_ROOT");
    counter = EnergyCounter::open(sysfs && *sysfs ? sysfs : "/sys");
    if (counter) {
      counterName = counter->name();
      counterAtStepStart = counter->joules();
    }
    // Contention is measured from here: the first decision can come before
    // a short run is over (adaptThreads).
    contention.sample();
  }
  {
    MutexLock lock(&adaptiveMutex);
    AdaptiveState &a = adaptive;
    if (options.horizon > 0)
      a.params.horizon = options.horizon;
    a.exploreBudget =
        options.explore_budget > 0 ? options.explore_budget : 0.02;
    a.model.reset(model, a.params);
    followCap();
    a.initial = currentBackends();
    size_t n = model.programs.size();
    a.truthTotals.assign(n * kNumBackends, 0.0);
    a.learnedExecutions.assign(n * kNumBackends, 0);
    a.learnedNanos.assign(n * kNumBackends, 0);
  }
  stepWallStart.store(nowNanos());
  return absl::OkStatus();
}

Session::~Session() { (void)finish(); }

std::vector<int32_t> Session::currentBackends() const {
  std::vector<int32_t> backends(model.programs.size());
  for (size_t i = 0; i < backends.size(); ++i)
    backends[i] = states[i].backend.load(std::memory_order_relaxed);
  return backends;
}

void Session::applyScenario(int64_t step) {
  while (nextEvent < scenario.size() && scenario[nextEvent].step <= step) {
    const ScenarioEvent &e = scenario[nextEvent++];
    if (e.backend >= 0)
      slowdown[e.backend].store(e.slowdown);
    else if (e.thermal >= 0)
      thermal.store(e.thermal);
    if (e.objective >= 0)
      objective.store(e.objective);
    if (e.powerCap >= 0)
      powerCap.store(e.powerCap);
  }
}

absl::Status Session::setObjective(int32_t newObjective, double newCap) {
  if (newObjective < 0 || newObjective >= HWAGENT_NUM_OBJECTIVES)
    return absl::InvalidArgumentError(
        absl::StrCat("objective ", newObjective,
                     " is not one of time (0), energy (1), edp (2)"));
  if (std::string error = hwcore::checkPowerCap(newCap); !error.empty())
    return absl::InvalidArgumentError(error);
  objective.store(newObjective);
  powerCap.store(newCap);
  return absl::OkStatus();
}

double Session::scenarioFactor(int backend) const {
  return slowdown[backend].load(std::memory_order_relaxed) *
         thermalFactor(thermal.load(std::memory_order_relaxed));
}

double Session::simulatedSeconds(const hwagent_program_info_t &program,
                                 int backend) {
  double seconds = program.predicted[backend];
  if (options.sim_noise > 0) {
    MutexLock lock(&mutex);
    seconds *= std::exp(absl::Gaussian<double>(rng, 0.0, options.sim_noise));
  }
  return seconds;
}

void Session::record(int64_t program, int backend, double seconds,
                     double joules, double wall, bool fault) {
  if (!options.log_path && !options.trace_path)
    return;
  bool simulated = backend != HWAGENT_BACKEND_CPU || options.simulate_cpu;
  MutexLock lock(&mutex);
  int64_t step = steps.load(std::memory_order_relaxed);
  if (log.isOpen())
    log.write(
        {{"type", "program"},
         {"step", step},
         {"program", program},
         {"backend", hwagent_backend_name(backend)},
         {"simulated", simulated},
         {"seconds", seconds},
         {"predicted_seconds", model.programs[program].predicted[backend]},
         {"joules", joules},
         {"wall_seconds", wall},
         {"fault", fault}});
  if (trace.isOpen()) {
    trace.span(program, backend, virtualNow, seconds, step, simulated, fault);
    virtualNow += seconds;
  }
}

int32_t Session::select(int64_t program) {
  if (program < 0 || size_t(program) >= model.programs.size())
    return HWAGENT_BACKEND_CPU;
  ProgramState &state = states[program];
  if (state.probe.load(std::memory_order_relaxed) >= 0) {
    int32_t probed = state.probe.exchange(-1);
    if (probed >= 0)
      return probed;
  }
  return state.backend.load(std::memory_order_relaxed);
}

int32_t Session::end(int64_t program, int32_t backend, int32_t nonfinite,
                     int64_t wallNanos) {
  if (program < 0 || size_t(program) >= model.programs.size() || backend < 0 ||
      backend >= kNumBackends)
    return 0;
  const hwagent_program_info_t &info = model.programs[program];
  double wall = wallNanos * 1e-9;
  bool measured = backend == HWAGENT_BACKEND_CPU && !options.simulate_cpu;
  double at = clock.load(std::memory_order_relaxed);
  double seconds = (measured ? wall
                             : simulatedSeconds(info, backend) *
                                   model.stretch(program, backend, at)) *
                   scenarioFactor(backend);
  bool fault = false;
  if (backend == HWAGENT_BACKEND_ANE) {
    int64_t step = steps.load(std::memory_order_relaxed);
    bool injected = options.fault_program == program &&
                    (options.fault_step < 0 || options.fault_step == step);
    fault = nonfinite != 0 || injected;
  }
  ProgramState &state = states[program];
  // Switching as the chip charges it: the first execution of a variant
  // builds it (the ANE compiles the program with its weights), and a
  // program that changed backend moves its weights. Charged to the step
  // (simulated), not to the program's measured time.
  double overhead = 0;
  uint32_t bit = 1u << backend;
  if (!(state.built.load(std::memory_order_relaxed) & bit) &&
      !(state.built.fetch_or(bit) & bit)) {
    overhead += model.buildCost(program, backend);
    compiles[backend].fetch_add(1, std::memory_order_relaxed);
    MutexLock lock(&mutex);
    if (log.isOpen())
      log.write({{"type", "build"},
                 {"step", steps.load(std::memory_order_relaxed)},
                 {"program", program},
                 {"backend", hwagent_backend_name(backend)},
                 {"simulated", true},
                 {"seconds", model.buildCost(program, backend)}});
  }
  int32_t previous = state.lastRun.load(std::memory_order_relaxed);
  overhead += model.weightMoveCost(program, previous, backend);
  state.lastRun.store(fault ? HWAGENT_BACKEND_CPU : backend,
                      std::memory_order_relaxed);
  // Saturate: a predicted time times a scenario's slowdown can exceed what
  // int64 nanoseconds hold (found by scripts/fuzz). 1e6 s per execution is
  // longer than any real program and leaves the counters 9,000 executions
  // of headroom; differences of counters are taken modulo 2^64. Joules
  // likewise at 1e6 J.
  constexpr double kMaxSeconds = 1e6, kMaxJoules = 1e6;
  // NaN (a fuzzed model's 0 W times an overflowed time) and negatives count
  // as nothing.
  auto nano = [](double value, double max) {
    if (!(value > 0))
      return int64_t(0);
    return static_cast<int64_t>(std::min(value, max) * 1e9);
  };
  if (overhead > 0) {
    // Builds and weight moves run on the host.
    int64_t overheadNanos = nano(overhead, kMaxSeconds);
    stepNanos[backend].fetch_add(overheadNanos, std::memory_order_relaxed);
    stepOverheadNanos.fetch_add(overheadNanos, std::memory_order_relaxed);
    stepOverheadNanojoules.fetch_add(
        nano(model.powerModel.programJoules(hwcore::BackendKind::cpu, 0,
                                            overhead),
             kMaxJoules),
        std::memory_order_relaxed);
  }
  int64_t nanos = nano(seconds, kMaxSeconds);
  double joules =
      model.programJoules(program, backend, std::min(seconds, kMaxSeconds), at);
  int64_t nanojoules = nano(joules, kMaxJoules);
  state.executions[backend].fetch_add(1, std::memory_order_relaxed);
  state.nanos[backend].fetch_add(nanos, std::memory_order_relaxed);
  state.nanojoules[backend].fetch_add(nanojoules, std::memory_order_relaxed);
  stepNanojoules.fetch_add(nanojoules, std::memory_order_relaxed);
  stepNanos[backend].fetch_add(nanos, std::memory_order_relaxed);
  stepLaunches.fetch_add(1, std::memory_order_relaxed);
  if (fault) {
    state.faults.fetch_add(1, std::memory_order_relaxed);
    faults.fetch_add(1, std::memory_order_relaxed);
    stepFaults.fetch_add(1, std::memory_order_relaxed);
  }
  record(program, backend, seconds, joules, wall, fault);
  return fault ? 1 : 0;
}

absl::Status Session::endStep(double loss) {
  int64_t now = nowNanos();
  hwagent_step_stats_t stats = {};
  double total = 0;
  double perBackend[kNumBackends];
  for (int b = 0; b < kNumBackends; ++b) {
    perBackend[b] = stepNanos[b].exchange(0) * 1e-9;
    total += perBackend[b];
  }
  for (int b = 0; b < kNumBackends; ++b)
    stats.share[b] = total > 0 ? perBackend[b] / total : 0;
  stats.last_step_seconds = total;
  stats.last_wall_seconds = (now - stepWallStart.exchange(now)) * 1e-9;
  stats.steps = steps.fetch_add(1) + 1;
  stats.faults = stepFaults.exchange(0);
  stats.launches = stepLaunches.exchange(0);
  stats.cpu_measured = options.simulate_cpu ? 0 : 1;
  stats.objective = objective.load();
  stats.power_cap = powerCap.load();
  stats.clock = clock.load();
  // Modelled energy, the compiler's formula (hwcore::stepEnergy): the
  // programs' and switching's, the package's static power over the step
  // and each backend's idle power while it waits. The runtime times no
  // boundary of its own: boundaries run inside the host's code.
  double programJoules = stepNanojoules.exchange(0) * 1e-9;
  double switchJoules = stepOverheadNanojoules.exchange(0) * 1e-9;
  std::array<double, hwcore::kNumBackendKinds> busy{};
  for (int b = 0; b < kNumBackends; ++b)
    busy[b] = perBackend[b];
  hwcore::EnergyParts energy = hwcore::stepEnergy(
      model.powerModel, total, programJoules + switchJoules, 0, 0, busy);
  double staticJoules = energy.statics, idleJoules = energy.idle;
  stats.last_program_joules = energy.programs;
  stats.last_step_joules = energy.total();
  stats.last_counter_joules = -1;
  absl::Status status = absl::OkStatus();
  {
    MutexLock lock(&mutex);
    if (counter) {
      double now = counter->joules();
      if (now >= 0 && counterAtStepStart >= 0)
        stats.last_counter_joules = now - counterAtStepStart;
      counterAtStepStart = now;
    }
    last = stats;
    if (log.isOpen()) {
      // Per backend, keyed by the vocabulary's names.
      Json share = Json::object(), scenario = Json::object();
      for (int b = 0; b < kNumBackends; ++b) {
        share[hwagent_backend_name(b)] = stats.share[b];
        scenario[hwagent_backend_name(b)] = slowdown[b].load();
      }
      scenario["thermal"] = thermal.load();
      log.write({{"type", "step"},
                 {"step", stats.steps - 1},
                 {"loss", loss},
                 {"step_seconds", stats.last_step_seconds},
                 {"wall_seconds", stats.last_wall_seconds},
                 {"share", std::move(share)},
                 {"cpu_measured", stats.cpu_measured != 0},
                 {"objective", hwagent_objective_name(stats.objective)},
                 {"power_cap", stats.power_cap},
                 {"clock", stats.clock},
                 {"modelled_joules", stats.last_step_joules},
                 {"energy",
                  {{"programs", programJoules},
                   {"switching", switchJoules},
                   {"static", staticJoules},
                   {"idle", idleJoules}}},
                 {"counter_joules", stats.last_counter_joules >= 0
                                        ? Json(stats.last_counter_joules)
                                        : Json(nullptr)},
                 {"launches", stats.launches},
                 {"faults", stats.faults},
                 {"total_faults", faults.load()},
                 {"scenario", std::move(scenario)}});
      status = log.flush();
    }
  }
  adaptThreads(stats.steps - 1);
  accountStep(stats.steps - 1, stepOverheadNanos.exchange(0) * 1e-9);
  // The next step runs under the events due then; the adaptive loop sees
  // them as telemetry.
  applyScenario(stats.steps);
  adaptAtStepEnd(stats.steps - 1);
  return status;
}

absl::Status Session::logMetrics(
    const std::string &type,
    const std::vector<std::pair<std::string, double>> &metrics) {
  MutexLock lock(&mutex);
  if (!log.isOpen())
    return absl::OkStatus();
  Json record = {{"type", type}, {"step", steps.load()}};
  for (const auto &[key, value] : metrics)
    record[key] = value;
  log.write(record);
  return log.flush();
}

void Session::discardStep() {
  for (int b = 0; b < kNumBackends; ++b)
    stepNanos[b].store(0);
  stepFaults.store(0);
  stepLaunches.store(0);
  stepOverheadNanos.store(0);
  stepNanojoules.store(0);
  stepOverheadNanojoules.store(0);
  stepWallStart.store(nowNanos());
  MutexLock lock(&mutex);
  if (counter)
    counterAtStepStart = counter->joules();
}

absl::Status Session::pin(int64_t program, int32_t backend) {
  if (program < 0 || size_t(program) >= model.programs.size())
    return absl::NotFoundError(absl::StrCat("no program ", program,
                                            " (the model has ",
                                            model.programs.size(), ")"));
  if (!Model::legal(model.programs[program], backend))
    return absl::InvalidArgumentError(
        absl::StrCat("program ", program, " has no variant on backend ",
                     hwagent_backend_name(backend)));
  states[program].backend.store(backend);
  return absl::OkStatus();
}

absl::Status Session::flush() {
  MutexLock lock(&mutex);
  absl::Status status = log.flush();
  absl::Status traced = trace.flush();
  return status.ok() ? traced : status;
}

absl::Status Session::finish() {
  if (finished)
    return absl::OkStatus();
  finished = true;
  absl::Status status;
  {
    MutexLock lock(&mutex);
    absl::Status traced = trace.close();
    absl::Status logged = log.close();
    status = !traced.ok() ? traced : logged;
  }
  absl::Status profiled = writeProfile();
  return status.ok() ? profiled : status;
}

hwagent_telemetry_t Session::telemetry() {
  hwagent_telemetry_t t;
  {
    MutexLock lock(&mutex);
    t = readHostTelemetry(cpuUtilization);
  }
  for (int b = 0; b < kNumBackends; ++b)
    if (b != HWAGENT_BACKEND_CPU)
      t.utilization[b] = 1.0 - 1.0 / slowdown[b].load();
  if (int scripted = thermal.load(); scripted >= 0)
    t.thermal_state = scripted;
  return t;
}

hwagent_step_stats_t Session::stepStats() {
  MutexLock lock(&mutex);
  return last;
}

hwagent_program_stats_t Session::programStats(uint32_t index) const {
  hwagent_program_stats_t stats = {};
  const ProgramState &state = states[index];
  stats.program = index;
  for (int b = 0; b < kNumBackends; ++b) {
    stats.executions[b] = state.executions[b].load();
    stats.seconds[b] = state.nanos[b].load() * 1e-9;
    stats.joules[b] = state.nanojoules[b].load() * 1e-9;
  }
  stats.faults = state.faults.load();
  return stats;
}

} // namespace hwagent_rt
