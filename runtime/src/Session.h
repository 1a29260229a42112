//===- Session.h - a runtime session ----------------------------*- C++ -*-===//
//
// The state behind a hwagent_session_t, with its jobs in their own files:
//   Session.cpp     creation, the hot path (select, begin, end), step ends
//   Controller.cpp  the adaptive controller (learning, re-partitioning,
//                   exploration)
//   Regret.cpp      regret accounting against the simulator's truth
//   Profile.cpp     the measured profile written for the compiler
//   Options.cpp     option checks
//   CApi.cpp        the C ABI (hwagent_rt.h) over all of it
//
// The hot path takes no lock unless logging or tracing is on: per-program
// counters are atomics and the open execution lives in a thread-local. CPU
// executions are timed with the monotonic clock; ANE/GPU executions run
// their numerics on this CPU (the simulator) and are charged the target's
// predicted time, with optional noise.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_SESSION_H
#define HWAGENT_RT_SESSION_H

#include "hwagent_rt/hwagent_rt.h"

#include "Adaptive.h"
#include "EnergyCounter.h"
#include "Lock.h"
#include "Model.h"
#include "Output.h"
#include "Telemetry.h"

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/status/status.h"

#include <atomic>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace hwagent_rt {

/// Checks the numeric options (sim_noise, explore_every, explore_budget,
/// horizon, cpu_threads); the error names the option.
absl::Status validateOptions(const hwagent_options_t &options);

struct ProgramState {
  std::atomic<int32_t> backend{0};
  /// The backend its last completed execution ran on.
  std::atomic<int32_t> lastRun{0};
  std::atomic<int64_t> executions[kNumBackends] = {};
  std::atomic<int64_t> nanos[kNumBackends] = {};
  /// Modelled joules (nanojoules) per backend.
  std::atomic<int64_t> nanojoules[kNumBackends] = {};
  std::atomic<int64_t> faults{0};
  /// Bit b: the program's variant on backend b is built (the CPU's always
  /// is; the compile-time placement's are built before training).
  std::atomic<uint32_t> built{0};
  /// The backend its next execution probes (-1: none).
  std::atomic<int32_t> probe{-1};
};

/// A stretch of steps under one set of scenario conditions.
struct Segment {
  int64_t start = 0, steps = 0;
  PerBackend<double> factors = hwcore::perBackend(1.0);
  /// The placement in use when it began (the step before it).
  std::vector<int32_t> inUse;
  /// Per program, the variants built when it began (ProgramState::built).
  std::vector<uint32_t> built;
};

/// The adaptive controller's state (guarded by the session's adaptiveMutex).
struct AdaptiveState {
  AdaptiveParameters params;
  OnlineModel model;
  std::vector<int64_t> switchSteps, probeSteps;
  /// The placement the session started with.
  std::vector<int32_t> initial;
  std::vector<Segment> segments;
  std::vector<int32_t> lastInUse;
  hwagent_regret_t regret = {};
  /// Per program and backend, the truth summed over the steps run.
  std::vector<double> truthTotals;
  /// Per program and backend, the executions and nanoseconds the model has
  /// already learned from.
  std::vector<int64_t> learnedExecutions, learnedNanos;
  /// The step of the last probe, and the model's change count then.
  int64_t lastProbe = -1;
  int64_t probedChanges = 0;
  /// The model's change count at the last switch.
  int64_t changesAtSwitch = 0;
  double exploreBudget = 0.02;
  /// The telemetry's log speed factor per backend the model last saw.
  double telemetryLogFactor[kNumBackends] = {};
  /// Seconds of predicted step time probes may still spend (negative: a
  /// probe cost more than the credit held, and the debt is paid first).
  double exploreCredit = 0;
  /// The probe run in the step now ending (empty: none), the placement it
  /// left, and what was charged for it when it was chosen; once measured
  /// the probe is charged what it really cost.
  std::vector<int32_t> pendingProbe, probeBase;
  double probeCharged = 0;
  /// Per program and backend, the mean measured in the step now ending
  /// (negative: none).
  std::vector<double> stepMeasured;
  /// The objective and cap the last decision was made for (logged when
  /// they change; a change lifts the hysteresis like a detected one).
  int32_t decidedObjective = -1;
  double decidedCap = 0;
  /// Changes of the objective or cap so far, and their count at the last
  /// probe.
  int64_t goalChanges = 0, probedGoalChanges = 0;
};

class Session {
public:
  /// Creates a session; the error says what is wrong with the model, the
  /// options or an output.
  static absl::StatusOr<std::unique_ptr<Session>>
  create(const hwagent_model_info_t *info, const hwagent_options_t *options);
  ~Session();

  // Generated code.
  int32_t select(int64_t program);
  int32_t end(int64_t program, int32_t backend, int32_t nonfinite,
              int64_t wallNanos);
  // Drivers.
  absl::Status endStep(double loss);
  /// One metrics record in the log ({"type", "step", key: value...}).
  absl::Status
  logMetrics(const std::string &type,
             const std::vector<std::pair<std::string, double>> &metrics);
  /// Forgets the executions since the last step end as step time.
  void discardStep();
  absl::Status pin(int64_t program, int32_t backend);
  /// What the adaptive runtime minimizes from the next step end on.
  absl::Status setObjective(int32_t objective, double powerCap);
  /// The energy counter read ("" when none).
  const std::string &energyCounterName() const { return counterName; }
  absl::Status flush();
  /// Flushes the log, closes the trace and writes the profile.
  absl::Status finish();
  hwagent_telemetry_t telemetry();
  hwagent_regret_t regret();
  std::vector<int64_t> switchSteps();
  /// Per change of the scenario's conditions: how much a better placement
  /// was worth and how the runtime reacted.
  std::vector<hwagent_event_outcome_t> eventOutcomes();
  hwagent_step_stats_t stepStats();
  hwagent_program_stats_t programStats(uint32_t index) const;

  const Model &getModel() const { return model; }
  const std::vector<ScenarioEvent> &getScenario() const { return scenario; }

private:
  Session() = default;
  absl::Status initialize(const hwagent_model_info_t *info,
                          const hwagent_options_t *options);

  /// The expected time of program `index` on `backend` this step (the
  /// simulator's truth: the prediction under the scenario's factors).
  double truth(unsigned index, int backend) const {
    return model.programs[index].predicted[backend] * scenarioFactor(backend);
  }
  std::vector<int32_t> currentBackends() const;
  void placePrograms();
  /// Sets `clock` for the placement the next step runs (a probe's included)
  /// from the estimates (adaptive) or the compiler's predictions.
  void followCap() ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  double simulatedSeconds(const hwagent_program_info_t &program, int backend);
  void record(int64_t program, int backend, double seconds, double joules,
              double wall, bool fault);
  void applyScenario(int64_t step);
  /// With the thread count left to the runtime: the kernels' threads
  /// follow the cores other processes leave (threadsUnderContention).
  void adaptThreads(int64_t step);
  double scenarioFactor(int backend) const;
  /// The pricing the next decision optimizes: the objective's, or for the
  /// energy-delay product and under a power cap the blend of time and
  /// energy whose best placement is best for the objective (Controller.cpp).
  Pricing objectivePricing(const std::vector<int32_t> &current,
                           const SwitchCosts &costs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);

  // Regret.cpp
  void accountStep(int64_t step, double overheadSeconds);
  /// The truth of program p on backend b under a segment's conditions.
  double truthUnder(const Segment &segment, unsigned p, int b) const {
    return model.programs[p].predicted[b] * segment.factors[b];
  }
  double oracleSeconds() ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  /// What the chip charges to move from `from` to `to` (builds of variants
  /// not in `built`, weight moves).
  SwitchCosts switchCosts(const std::vector<bool> &built) const;
  std::vector<bool> builtVariants() const;
  // Controller.cpp
  void adaptAtStepEnd(int64_t step);
  /// Sets measured[b] for every backend something ran on.
  void learnFromCounters(bool *measured)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void chargeProbe() ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void followTelemetry(int64_t step)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void repartition(int64_t step, const std::vector<int32_t> &current)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void noteGoalChange(int64_t step)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  /// Seconds probes may cost now (-1: probing off; infinite: a change
  /// buys one); `rateLimited` when the last probe was too recent.
  double probeCredit(int64_t step, bool &rateLimited)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void logDecision(const char *type, int64_t step,
                   const std::vector<int32_t> &current,
                   const Decision &decision, const Pricing &pricing,
                   std::optional<bool> applied)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  /// False when the trainer vetoed it.
  bool applySwitch(int64_t step, const std::vector<int32_t> &current,
                   const Decision &decision)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void probe(int64_t step, const Decision &decision,
             const std::vector<int32_t> &current)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  // Profile.cpp
  absl::Status writeProfile();

  Model model;
  std::unique_ptr<ProgramState[]> states;
  hwagent_options_t options = {};

  // The step in progress (nanoseconds per backend).
  std::atomic<int64_t> stepNanos[kNumBackends] = {};
  std::atomic<int64_t> stepWallStart{0};
  std::atomic<int64_t> steps{0};
  std::atomic<int64_t> faults{0}, stepFaults{0}, stepLaunches{0};
  /// Switching charged in the step in progress (builds, weight moves).
  std::atomic<int64_t> stepOverheadNanos{0};
  /// Modelled nanojoules of the step in progress: programs, switching.
  std::atomic<int64_t> stepNanojoules{0}, stepOverheadNanojoules{0};
  /// What the session minimizes now (a hwagent_objective_t) and its cap.
  std::atomic<int32_t> objective{HWAGENT_OBJECTIVE_TIME};
  std::atomic<double> powerCap{0};
  /// The chip's clock (a share of the peak) under the cap, as the session
  /// prices the placement it runs (clockUnderCap): the simulated backends'
  /// executions are timed and their joules modelled at it, and what they
  /// measure is learned back at the peak. 1 without a cap.
  std::atomic<double> clock{1.0};
  /// The cap and placement `clock` was last found for (followCap).
  double clockCap ABSL_GUARDED_BY(adaptiveMutex) = -1;
  std::vector<int32_t> clockPlacement ABSL_GUARDED_BY(adaptiveMutex);
  /// Variants built per backend (the compile limit counts them).
  std::atomic<int64_t> compiles[kNumBackends] = {};

  // Scripted scenario: per-backend slowdown and thermal state in force.
  std::vector<ScenarioEvent> scenario;
  size_t nextEvent = 0;
  /// 1 per backend from initialize() on.
  std::atomic<double> slowdown[kNumBackends];
  std::atomic<int> thermal{-1};

  Mutex adaptiveMutex;
  AdaptiveState adaptive ABSL_GUARDED_BY(adaptiveMutex);

  Mutex mutex;
  JsonLinesLog log ABSL_GUARDED_BY(mutex);
  TraceWriter trace ABSL_GUARDED_BY(mutex);
  double virtualNow ABSL_GUARDED_BY(mutex) = 0;
  std::mt19937_64 rng ABSL_GUARDED_BY(mutex);
  CpuUtilization cpuUtilization ABSL_GUARDED_BY(mutex);
  hwagent_step_stats_t last ABSL_GUARDED_BY(mutex) = {};
  /// The host's energy counter (null: none readable) and its reading at
  /// the start of the step in progress.
  std::unique_ptr<EnergyCounter> counter ABSL_GUARDED_BY(mutex);
  Contention contention ABSL_GUARDED_BY(mutex);
  /// The kernels' threads now (0: not yet set by contention) and the
  /// samples in a row that asked for more.
  int32_t kernelThreads = 0;
  int raiseVotes = 0;
  double counterAtStepStart ABSL_GUARDED_BY(mutex) = 0;
  std::string counterName;
  bool finished = false;
};

} // namespace hwagent_rt

#endif // HWAGENT_RT_SESSION_H
