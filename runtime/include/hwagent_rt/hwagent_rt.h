/*===- hwagent_rt.h - the hwagent runtime C ABI -------------------*- C -*-===*
 *
 * The ABI between code hwagent-lower-to-runtime generates, the programs that
 * drive it (hwagent-run, compiled trainers) and libhwagent_rt. C only: opaque
 * handles, status codes, plain structs checked by static_assert. The runtime
 * has no MLIR/LLVM dependency. docs/runtime.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_RT_H
#define HWAGENT_RT_HWAGENT_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped on any incompatible change of this header. */
#define HWAGENT_RT_API_VERSION 1u

/** The version the linked library implements. */
uint32_t hwagent_rt_api_version(void);

typedef enum hwagent_status {
  HWAGENT_OK = 0,
  HWAGENT_INVALID_ARGUMENT = 1,
  HWAGENT_VERSION_MISMATCH = 2,
  HWAGENT_IO_ERROR = 3,
  HWAGENT_NOT_FOUND = 4,
} hwagent_status_t;

typedef enum hwagent_backend {
  HWAGENT_BACKEND_CPU = 0,
  HWAGENT_BACKEND_ANE = 1,
  HWAGENT_BACKEND_GPU = 2,
} hwagent_backend_t;

#define HWAGENT_NUM_BACKENDS 3

typedef struct hwagent_session hwagent_session_t;

/** A re-partition the adaptive runtime is about to apply. */
typedef struct hwagent_repartition {
  int64_t step;
  uint32_t num_regions;
  uint32_t reserved;
  const int64_t *region_ids;
  const int32_t *old_backends;
  const int32_t *new_backends;
  /** Predicted step time (seconds) of the current and the new assignment. */
  double current_seconds;
  double proposed_seconds;
  const char *reason;
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
  /** JSON Lines file, one line per region execution (NULL = none). */
  const char *log_path;
  /** Chrome trace-event file (Perfetto, chrome://tracing) (NULL = none). */
  const char *trace_path;
  /** Force every legal region onto this backend (-1 = the table's choice). */
  int32_t force_backend;
  /** Inject an ANE fault on this region id (-1 = none) ... */
  int64_t fault_region;
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
  /** Consider probing the least recently measured backend on one region
   *  every N steps (0 = never). */
  int32_t explore_every;
  /** 1 (hwagent_options_init's default): a change in telemetry (a
   *  backend's load, the thermal state) shifts the online model at once;
   *  0: the model learns only from measurements. */
  int32_t use_telemetry;
  /** Steps a switch must pay off over (0 = 50). */
  double horizon;
  /** Share of the predicted run time probes may cost, in [0, 1] (0 = 0.02): a probe
   *  runs only when the credit accumulated at this rate covers its
   *  predicted extra cost, so cheap probes are frequent and costly ones
   *  rare (docs/adaptive.md). */
  double explore_budget;
  /** Write the measured profile here at destroy (NULL = none). */
  const char *profile_out;
  /** Called before each re-partition; may veto it. */
  hwagent_repartition_callback_t on_repartition;
  void *on_repartition_user;
} hwagent_options_t;

void hwagent_options_init(hwagent_options_t *options);

/** Creates a session from the region table text generated code provides
 *  (its __hwagent_region_table function). */
hwagent_status_t hwagent_session_create(const char *region_table,
                                        const hwagent_options_t *options,
                                        hwagent_session_t **session);
/** Flushes logs and the trace, then frees the session. */
void hwagent_session_destroy(hwagent_session_t *session);
/** The message of the last failed call on `session` ("" if none). */
const char *hwagent_session_last_error(const hwagent_session_t *session);

/** The session generated code talks to (one per process at a time). */
void hwagent_session_make_current(hwagent_session_t *session);

/** Pins region `region` (its id in the table) to `backend` from now on;
 *  HWAGENT_INVALID_ARGUMENT when the region cannot run there. */
hwagent_status_t hwagent_session_pin(hwagent_session_t *session, int64_t region,
                                     int32_t backend);

/** Marks the end of a training step; `loss` is logged. */
hwagent_status_t hwagent_session_end_step(hwagent_session_t *session,
                                          double loss);

/* ---- Called by generated code (on the current session) ----------------- */

/** The backend to run region `region` on (a hwagent_backend_t). */
int32_t hwagent_rt_select(int64_t region);
/** Brackets one execution of a region's variant. */
void hwagent_rt_begin(int64_t region, int32_t backend);
/** Ends it; `nonfinite` != 0 when a result holds inf/NaN. Returns 1 when
 *  the execution failed and generated code must re-run the CPU variant. */
int32_t hwagent_rt_end(int64_t region, int32_t backend, int32_t nonfinite);

/* ---- Telemetry ---------------------------------------------------------- */

typedef enum hwagent_thermal {
  HWAGENT_THERMAL_NOMINAL = 0,
  HWAGENT_THERMAL_FAIR = 1,
  HWAGENT_THERMAL_SERIOUS = 2,
  HWAGENT_THERMAL_CRITICAL = 3,
} hwagent_thermal_t;

typedef struct hwagent_telemetry {
  /** Share of each backend used by others, in [0, 1]: the CPU's from
   *  /proc/stat since the previous call (busy time of the whole machine),
   *  the simulated backends' from the scenario's contention. */
  double utilization[HWAGENT_NUM_BACKENDS];
  /** From the scenario when it sets one, else from the hottest thermal zone
   *  (>= 75 C fair, >= 85 C serious, >= 95 C critical), else nominal. */
  int32_t thermal_state;
  int32_t thermal_zones;
  /** Hottest zone in degrees Celsius, -1 without zones. */
  double max_temperature_c;
  /** MemAvailable from /proc/meminfo, 0 when unknown. */
  int64_t free_memory_bytes;
} hwagent_telemetry_t;

hwagent_status_t hwagent_session_telemetry(hwagent_session_t *session,
                                           hwagent_telemetry_t *telemetry);

/* ---- Statistics ------------------------------------------------------- */

typedef struct hwagent_region_stats {
  int64_t region_id;
  int64_t executions[HWAGENT_NUM_BACKENDS];
  /** Seconds per backend: measured on the CPU, simulated on the ANE/GPU. */
  double seconds[HWAGENT_NUM_BACKENDS];
  /** ANE executions that failed and were re-run on the CPU. */
  int64_t faults;
} hwagent_region_stats_t;

typedef struct hwagent_step_stats {
  int64_t steps;
  /** Wall time of the last step on this machine (simulators included). */
  double last_wall_seconds;
  /** The last step as the target would run it: measured CPU regions plus
   *  simulated ANE/GPU regions. */
  double last_step_seconds;
  /** Share of last_step_seconds per backend. */
  double share[HWAGENT_NUM_BACKENDS];
  int64_t faults;
} hwagent_step_stats_t;

/** Adaptive evaluation (with simulate_cpu): seconds summed over the steps
 *  run so far for what ran, the per-step oracle, and the best fixed
 *  assignment in hindsight; switches applied and vetoed. */
typedef struct hwagent_regret {
  int64_t steps;
  int64_t switches;
  int64_t vetoes;
  int64_t explorations;
  double actual_seconds;
  double oracle_seconds;
  double best_fixed_seconds;
} hwagent_regret_t;

hwagent_status_t hwagent_session_regret(const hwagent_session_t *session,
                                        hwagent_regret_t *regret);
/** Steps at which re-partitions were applied; returns their number (writes
 *  at most `capacity`). */
uint32_t hwagent_session_switch_steps(const hwagent_session_t *session,
                                      int64_t *steps, uint32_t capacity);

uint32_t hwagent_session_num_regions(const hwagent_session_t *session);
hwagent_status_t hwagent_session_region_stats(const hwagent_session_t *session,
                                              uint32_t index,
                                              hwagent_region_stats_t *stats);
hwagent_status_t hwagent_session_step_stats(const hwagent_session_t *session,
                                            hwagent_step_stats_t *stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* Layouts shared with generated code and other compilers must not drift. */
#ifdef __cplusplus
static_assert(sizeof(hwagent_region_stats_t) == 64, "hwagent_region_stats_t");
static_assert(sizeof(hwagent_step_stats_t) == 56, "hwagent_step_stats_t");
static_assert(sizeof(hwagent_backend_t) == 4, "enum size");
static_assert(sizeof(hwagent_telemetry_t) == 48, "hwagent_telemetry_t");
static_assert(sizeof(hwagent_repartition_t) == 64, "hwagent_repartition_t");
static_assert(sizeof(hwagent_regret_t) == 56, "hwagent_regret_t");
#else
_Static_assert(sizeof(hwagent_region_stats_t) == 64, "hwagent_region_stats_t");
_Static_assert(sizeof(hwagent_step_stats_t) == 56, "hwagent_step_stats_t");
_Static_assert(sizeof(hwagent_backend_t) == 4, "enum size");
_Static_assert(sizeof(hwagent_telemetry_t) == 48, "hwagent_telemetry_t");
_Static_assert(sizeof(hwagent_repartition_t) == 64, "hwagent_repartition_t");
_Static_assert(sizeof(hwagent_regret_t) == 56, "hwagent_regret_t");
#endif

#endif /* HWAGENT_RT_HWAGENT_RT_H */
