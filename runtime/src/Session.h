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
#include "Lock.h"
#include "Model.h"
#include "Output.h"
#include "Telemetry.h"

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/status/status.h"

#include <atomic>
#include <memory>
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
  std::atomic<int64_t> faults{0};
};

/// The adaptive controller's state (guarded by the session's adaptiveMutex).
struct AdaptiveState {
  AdaptiveParameters params;
  OnlineModel model;
  /// Per program and backend: a variant was built (no first-compile cost).
  std::vector<bool> compiled;
  std::vector<int64_t> switchSteps;
  hwagent_regret_t regret = {};
  /// Per program and backend, the truth summed over the steps run.
  std::vector<double> truthTotals;
  /// The per-step oracle's step time and the scenario factors it was
  /// solved under (the truth changes only when they do).
  double oracleSeconds = -1;
  double oracleFactors[kNumBackends] = {0, 0, 0};
  /// Per program and backend, the executions and nanoseconds the model has
  /// already learned from.
  std::vector<int64_t> learnedExecutions, learnedNanos;
  int64_t lastMeasured[kNumBackends] = {-1, -1, -1};
  double exploreBudget = 0.02;
  /// The telemetry's log speed factor per backend the model last saw.
  double telemetryLogFactor[kNumBackends] = {0, 0, 0};
  /// Seconds of predicted step time probes may still spend.
  double exploreCredit = 0;
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
  absl::Status flush();
  /// Flushes the log, closes the trace and writes the profile.
  absl::Status finish();
  hwagent_telemetry_t telemetry();
  hwagent_regret_t regret();
  std::vector<int64_t> switchSteps();
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
  double simulatedSeconds(const hwagent_program_info_t &program, int backend);
  void record(int64_t program, int backend, double seconds, double wall,
              bool fault);
  void applyScenario(int64_t step);
  double scenarioFactor(int backend) const;

  // Regret.cpp
  void accountStep(int64_t step);
  // Controller.cpp
  void adaptAtStepEnd(int64_t step);
  void learnFromCounters() ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void followTelemetry(int64_t step)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void repartition(int64_t step, const std::vector<int32_t> &current)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(adaptiveMutex);
  void explore(int64_t step, const std::vector<int32_t> &current)
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

  // Scripted scenario: per-backend slowdown and thermal state in force.
  std::vector<ScenarioEvent> scenario;
  size_t nextEvent = 0;
  std::atomic<double> slowdown[kNumBackends] = {1.0, 1.0, 1.0};
  std::atomic<int> thermal{-1};

  // Probes chosen by the controller for the next step.
  std::atomic<int32_t> exploreProgram{-1};
  std::atomic<int32_t> exploreBackend{0};

  Mutex adaptiveMutex;
  AdaptiveState adaptive ABSL_GUARDED_BY(adaptiveMutex);

  Mutex mutex;
  JsonLinesLog log ABSL_GUARDED_BY(mutex);
  TraceWriter trace ABSL_GUARDED_BY(mutex);
  double virtualNow ABSL_GUARDED_BY(mutex) = 0;
  absl::BitGen rng ABSL_GUARDED_BY(mutex);
  CpuUtilization cpuUtilization ABSL_GUARDED_BY(mutex);
  hwagent_step_stats_t last ABSL_GUARDED_BY(mutex) = {};
  bool finished = false;
};

} // namespace hwagent_rt

#endif // HWAGENT_RT_SESSION_H
