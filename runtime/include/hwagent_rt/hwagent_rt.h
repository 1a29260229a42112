/*===- hwagent_rt.h - the hwagent runtime C API for trainers -----*- C -*-===*
 *
 * What a program that drives compiled steps links (hwagent-run, compiled
 * trainers): sessions over a compiled model (hwagent_abi.h), steps bound by
 * name, telemetry, statistics and regret. C only: opaque handles, status
 * codes, plain structs whose layouts are checked by static_assert. Tensor
 * files are libhwagent_tensorfile's (hwagent_tensor_file.h); the kernels
 * compiled code calls are hwagent_kernels.h. docs/runtime.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_RT_H
#define HWAGENT_RT_HWAGENT_RT_H

#include "hwagent_rt/hwagent_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sessions ----------------------------------------------------------- */

typedef struct hwagent_session hwagent_session_t;

/** A re-partition the adaptive runtime is about to apply. */
typedef struct hwagent_repartition {
  int64_t step;
  uint32_t num_programs;
  uint32_t reserved;
  const int32_t *old_backends;
  const int32_t *new_backends;
  /** Predicted step time (seconds) of the current and the new assignment. */
  double current_seconds;
  double proposed_seconds;
  const char *reason;
  const void *reserved_ptr;
} hwagent_repartition_t;

/** Observes a re-partition; return nonzero to veto it. */
typedef int32_t (*hwagent_repartition_callback_t)(
    void *user, const hwagent_repartition_t *event);

/** Session options; initialize with hwagent_options_init. */
typedef struct hwagent_options {
  /** sizeof(hwagent_options_t) as the caller compiled it. */
  uint32_t struct_size;
  /** Relative standard deviation of simulated times (0 = deterministic). */
  double sim_noise;
  /** Seed of the simulator's noise. */
  uint64_t seed;
  /** JSON Lines file, one line per program execution (NULL = none). */
  const char *log_path;
  /** Chrome trace-event file (Perfetto, chrome://tracing), streamed while
   *  the session runs (NULL = none). */
  const char *trace_path;
  /** Force every program onto this backend where it has a variant (-1 = the
   *  compiler's choice). */
  int32_t force_backend;
  /** Inject an ANE fault on this program (-1 = none) ... */
  int64_t fault_program;
  /** ... at this step (-1 = every step). */
  int64_t fault_step;
  /** Scenario file scripting contention and thermal events (NULL = none);
   *  format in docs/runtime.md. */
  const char *scenario_path;
  /** 1: learn costs online and re-partition at step ends (docs/adaptive.md). */
  int32_t adaptive;
  /** 1: charge the CPU its predicted time too (deterministic evaluation;
   *  regret against the oracle needs it). */
  int32_t simulate_cpu;
  /** Probing (docs/adaptive.md): at most one probe expected to cost time
   *  every N steps (0 = never probe: the runtime then never moves work
   *  onto a backend it has not measured); a change the model detects or
   *  telemetry announces buys one probe at once. hwagent_options_init: 10. */
  int32_t explore_every;
  /** 1 (hwagent_options_init's default): a change in telemetry (a
   *  backend's load, the thermal state) shifts the online model at once;
   *  0: the model learns only from measurements. */
  int32_t use_telemetry;
  /** Steps a switch must pay off over (0 = 50). */
  double horizon;
  /** Share of the predicted run time probes may cost, in [0, 1] (0 = 0.02):
   *  a probe runs only when the credit accumulated at this rate covers its
   *  predicted extra cost (docs/adaptive.md). */
  double explore_budget;
  /** Write the measured profile here at destroy (NULL = none). */
  const char *profile_out;
  /** Called before each re-partition; may veto it. */
  hwagent_repartition_callback_t on_repartition;
  void *on_repartition_user;
  /** Threads the CPU code may use: the contraction kernels (oneDNN) and
   *  the compiled parallel loops (elementwise ops, depthwise convolutions,
   *  reductions, copies). 0 = the runtime chooses: every online CPU, fewer
   *  while other processes keep cores busy (docs/cpu-backend.md). */
  int32_t cpu_threads;
  /** The hwagent_objective_t the adaptive runtime minimizes (-1, the
   *  default: the one the model was compiled for). */
  int32_t objective;
  /** Average watts over a step the adaptive runtime keeps under (0: none;
   *  -1, the default: the model's). */
  double power_cap;
} hwagent_options_t;

HWAGENT_RT_API void hwagent_options_init(hwagent_options_t *options);

/** Creates a session for a compiled model. On failure returns the status,
 *  sets *session to NULL and hwagent_error_message() says why. */
HWAGENT_RT_API hwagent_status_t hwagent_session_create(
    const hwagent_model_info_t *model, const hwagent_options_t *options,
    hwagent_session_t **session);
/** Flushes logs and the trace, writes the profile, frees the session.
 *  Returns the first output error (the files could not be written). */
HWAGENT_RT_API hwagent_status_t
hwagent_session_destroy(hwagent_session_t *session);

/** The session generated code talks to (one per process at a time). */
HWAGENT_RT_API void hwagent_session_make_current(hwagent_session_t *session);

/** Changes what the adaptive runtime minimizes from the next step end on:
 *  `objective` a hwagent_objective_t, `power_cap` average watts (0: none).
 *  What a host application calls when the OS says the machine went on
 *  battery or into a low-power mode (a scenario's `objective` and
 *  `power_cap` events do the same in simulation). */
HWAGENT_RT_API hwagent_status_t hwagent_session_set_objective(
    hwagent_session_t *session, int32_t objective, double power_cap);

/** Pins program `program` (its index) to `backend` from now on;
 *  HWAGENT_INVALID_ARGUMENT when it has no variant there. */
HWAGENT_RT_API hwagent_status_t hwagent_session_pin(hwagent_session_t *session,
                                                    int64_t program,
                                                    int32_t backend);

/** Marks the end of a training step; `loss` is logged. */
HWAGENT_RT_API hwagent_status_t
hwagent_session_end_step(hwagent_session_t *session, double loss);

/** Flushes the log and the trace written so far (e.g. from a signal
 *  handler's deferred work); HWAGENT_IO_ERROR when they cannot be written. */
HWAGENT_RT_API hwagent_status_t
hwagent_session_flush(hwagent_session_t *session);

/** Writes one metrics record into the session's log (when it has one):
 *  {"type": type, "step": steps so far, keys[i]: values[i]...}; a
 *  non-finite value is written as null. */
HWAGENT_RT_API hwagent_status_t hwagent_session_log_metrics(
    hwagent_session_t *session, const char *type, const char *const *keys,
    const double *values, uint32_t count);

/** Forgets the executions since the last step end as part of a training
 *  step (an evaluation ran in between): the next step's time, launches and
 *  faults count from here. Per-program statistics keep them. */
HWAGENT_RT_API hwagent_status_t
hwagent_session_discard_step(hwagent_session_t *session);

/* ---- Tensors, steps bound by name ---------------------------------------- */

/** The public function `name` of a compiled model, NULL if none. */
HWAGENT_RT_API const hwagent_function_info_t *
hwagent_model_function(const hwagent_model_info_t *model, const char *name);

/** A compiled function with its arguments bound to the caller's buffers by
 *  name: no memref descriptors by hand. */
typedef struct hwagent_step hwagent_step_t;

/** A step calling function `function` of `model`. */
HWAGENT_RT_API hwagent_status_t
hwagent_step_create(const hwagent_model_info_t *model, const char *function,
                    hwagent_step_t **step);
HWAGENT_RT_API void hwagent_step_destroy(hwagent_step_t *step);
/** Binds argument `name` to `data` (the caller's, row-major, kept alive
 *  while bound). The dtype and shape must be the argument's: the error
 *  names the argument, what it is and what was given. */
HWAGENT_RT_API hwagent_status_t hwagent_step_bind(hwagent_step_t *step,
                                                  const char *name, void *data,
                                                  int32_t dtype, int32_t rank,
                                                  const int64_t *shape);
/** Runs the function on the current session (hwagent_session_make_current).
 *  Every argument must be bound. A result that updates an argument (a
 *  parameter's new value) is copied into that argument's buffer, so the
 *  caller's parameters are current after each run; the other results stay
 *  readable through hwagent_step_result until the next run. */
HWAGENT_RT_API hwagent_status_t hwagent_step_run(hwagent_step_t *step);
/** Result `name` of the last run (a view owned by the step). */
HWAGENT_RT_API hwagent_status_t hwagent_step_result(const hwagent_step_t *step,
                                                    const char *name,
                                                    hwagent_tensor_t *result);
/** The function the step calls (its arguments' and results' names, roles,
 *  dtypes and shapes). */
HWAGENT_RT_API const hwagent_function_info_t *
hwagent_step_function(const hwagent_step_t *step);

/* ---- Telemetry ---------------------------------------------------------- */

typedef struct hwagent_telemetry {
  /** Share of each backend used by others, in [0, 1]: the CPU's from
   *  /proc/stat since the previous reading (busy time of the whole
   *  machine), the simulated backends' from a session's scenario. */
  double utilization[HWAGENT_NUM_BACKENDS];
  /** A hwagent_thermal_t: from a session's scenario when it sets one, else
   *  from the hottest thermal zone (>= 75 C fair, >= 85 C serious, >= 95 C
   *  critical), else nominal. */
  int32_t thermal_state;
  int32_t thermal_zones;
  /** Hottest zone in degrees Celsius, -1 without zones. */
  double max_temperature_c;
  /** MemAvailable from /proc/meminfo, 0 when unknown. */
  int64_t free_memory_bytes;
} hwagent_telemetry_t;

/** The host's telemetry, without a session (CPU utilization since the
 *  previous call of this function). */
HWAGENT_RT_API hwagent_status_t
hwagent_telemetry_read(hwagent_telemetry_t *telemetry);
/** The telemetry a session's adaptive loop sees (its scenario included). */
HWAGENT_RT_API hwagent_status_t hwagent_session_telemetry(
    hwagent_session_t *session, hwagent_telemetry_t *telemetry);

/** One scripted event of a session's scenario. */
typedef struct hwagent_scenario_event {
  int64_t step;
  /** The backend slowed down (-1: another event). */
  int32_t backend;
  /** A hwagent_thermal_t for thermal events, -1 otherwise. */
  int32_t thermal_state;
  /** Time multiplier of `backend` from `step` on (>= 1). */
  double slowdown;
  /** A hwagent_objective_t the session switches to (-1: none). */
  int32_t objective;
  int32_t reserved;
  /** A power cap the session sets (watts, 0: lifts it; -1: none). */
  double power_cap;
} hwagent_scenario_event_t;

/** The session's scripted events in step order; returns their number
 *  (writes at most `capacity`). */
HWAGENT_RT_API uint32_t hwagent_session_scenario_events(
    const hwagent_session_t *session, hwagent_scenario_event_t *events,
    uint32_t capacity);

/* ---- Statistics ------------------------------------------------------- */

typedef struct hwagent_program_stats {
  int64_t program;
  int64_t executions[HWAGENT_NUM_BACKENDS];
  /** Seconds per backend: measured on the CPU (unless simulate_cpu),
   *  simulated on the ANE/GPU. */
  double seconds[HWAGENT_NUM_BACKENDS];
  /** ANE executions that failed and were re-run on the CPU. */
  int64_t faults;
  /** Joules per backend, modelled from the seconds above and the target's
   *  power values (fixed_joules + power.running x seconds). */
  double joules[HWAGENT_NUM_BACKENDS];
} hwagent_program_stats_t;

typedef struct hwagent_step_stats {
  int64_t steps;
  /** Wall time of the last step on this machine (simulators included). */
  double last_wall_seconds;
  /** The last step as the target would run it: measured CPU programs plus
   *  simulated ANE/GPU programs. */
  double last_step_seconds;
  /** Share of last_step_seconds per backend. */
  double share[HWAGENT_NUM_BACKENDS];
  /** Faults in the last step. */
  int64_t faults;
  /** Program launches in the last step. */
  int64_t launches;
  /** 1 when the CPU share was measured here, 0 when simulate_cpu charged
   *  the CPU its predicted time. */
  int32_t cpu_measured;
  /** The objective the session minimized in the last step. */
  int32_t objective;
  /** Joules of the last step as the target would spend them, modelled
   *  from last_step_seconds' parts and the target's power values:
   *  programs (switching included), static and idle power. */
  double last_step_joules;
  /** Of last_step_joules: the programs', switching included. */
  double last_program_joules;
  /** Joules this machine's energy counter (powercap/RAPL or a perf energy
   *  event: the whole package, every process) counted over the last step's
   *  wall time: measured; -1 when no counter is readable. */
  double last_counter_joules;
  /** The power cap in force (0: none). */
  double power_cap;
  /** The chip's clock the last step's simulated programs ran at, a share
   *  of the peak: the clock that meets power_cap (docs/adaptive.md
   *  "Objectives"); 1 without a cap. Modelled. */
  double clock;
} hwagent_step_stats_t;

/** The energy counter the session reads ("powercap:<zone>" or
 *  "perf:power/energy-pkg/"), or NULL when none is readable here: then
 *  every joule it reports is modelled. */
HWAGENT_RT_API const char *
hwagent_session_energy_counter(const hwagent_session_t *session);

/** Adaptive evaluation (with simulate_cpu): seconds summed over the steps
 *  run so far for what ran (switching charged), the clairvoyant oracle (the
 *  best placement for every stretch of conditions, knowing them in advance
 *  and paying the same switching costs), and the best fixed assignment in
 *  hindsight; switches applied and vetoed, probes (`explorations`).
 *  docs/adaptive.md. */
typedef struct hwagent_regret {
  int64_t steps;
  int64_t switches;
  int64_t vetoes;
  int64_t explorations;
  double actual_seconds;
  double oracle_seconds;
  double best_fixed_seconds;
  /** Of actual_seconds: building variants and moving weights (simulated). */
  double switch_seconds;
  /** Variants built while running, all backends. */
  int64_t compiles;
  /** Joules of what ran (modelled from the truth's seconds), switching
   *  included. The oracle and the best fixed placement are the
   *  time-optimal ones: compare runs' joules under an energy objective. */
  double actual_joules;
} hwagent_regret_t;

/** One change of the scenario's conditions and how the runtime met it. */
typedef struct hwagent_event_outcome {
  /** First step under the new conditions. */
  int64_t step;
  /** Steps they lasted (so far). */
  int64_t steps;
  /** Share by which the best placement under them is faster than the one in
   *  use when they began, switching to it (builds, weight moves) spread over
   *  their steps (0: that one stays best). */
  double best_gain;
  /** Steps from `step` to the first switch (0: at the end of the step
   *  before, announced by telemetry); -1: none. */
  int64_t reaction_steps;
  int32_t switches;
  int32_t probes;
} hwagent_event_outcome_t;

/** Needs simulate_cpu; returns the number of changes (writes at most
 *  `capacity`). */
HWAGENT_RT_API uint32_t hwagent_session_event_outcomes(
    const hwagent_session_t *session, hwagent_event_outcome_t *outcomes,
    uint32_t capacity);

HWAGENT_RT_API hwagent_status_t hwagent_session_regret(
    const hwagent_session_t *session, hwagent_regret_t *regret);
/** Steps at which re-partitions were applied; returns their number (writes
 *  at most `capacity`). */
HWAGENT_RT_API uint32_t hwagent_session_switch_steps(
    const hwagent_session_t *session, int64_t *steps, uint32_t capacity);

HWAGENT_RT_API uint32_t
hwagent_session_num_programs(const hwagent_session_t *session);
HWAGENT_RT_API hwagent_status_t
hwagent_session_program_stats(const hwagent_session_t *session, uint32_t index,
                              hwagent_program_stats_t *stats);
HWAGENT_RT_API hwagent_status_t hwagent_session_step_stats(
    const hwagent_session_t *session, hwagent_step_stats_t *stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifdef __cplusplus
#define HWAGENT_RT_STATIC_ASSERT static_assert
#else
#define HWAGENT_RT_STATIC_ASSERT _Static_assert
#endif
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_program_stats_t) == 88,
                         "hwagent_program_stats_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_step_stats_t) == 112,
                         "hwagent_step_stats_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_telemetry_t) == 48,
                         "hwagent_telemetry_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_scenario_event_t) == 40,
                         "hwagent_scenario_event_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_repartition_t) == 64,
                         "hwagent_repartition_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_regret_t) == 80, "hwagent_regret_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_event_outcome_t) == 40,
                         "hwagent_event_outcome_t");
#undef HWAGENT_RT_STATIC_ASSERT

#endif /* HWAGENT_RT_HWAGENT_RT_H */
