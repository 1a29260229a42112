/*===- hwagent_rt.h - the hwagent runtime C ABI -------------------*- C -*-===*
 *
 * The ABI between the code hwagent-lower-to-runtime generates, the programs
 * that drive it (hwagent-run, compiled trainers) and libhwagent_rt. C only:
 * opaque handles, status codes, plain structs whose layouts are checked by
 * static_assert. It is also the root of hwagent's vocabulary: the backend,
 * thermal-state and weight-update enums below are the ones the compiler
 * uses (its C++ and ODS enums are tied to them by static_assert).
 *
 * The compiler hands the runtime a `hwagent_model_info_t` (a constant global
 * in the generated code, returned by its `__hwagent_model_info` function):
 * the regions, the programs (the units the chip launches) and the boundaries
 * between programs, with the compiler's predictions. docs/runtime.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_RT_H
#define HWAGENT_RT_HWAGENT_RT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define HWAGENT_RT_API
#else
#define HWAGENT_RT_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped on any incompatible change of this header. */
#define HWAGENT_RT_API_VERSION 5u

/** The version the linked library implements. */
HWAGENT_RT_API uint32_t hwagent_rt_api_version(void);

/* ---- Vocabulary ------------------------------------------------------- */

typedef enum hwagent_status {
  HWAGENT_OK = 0,
  HWAGENT_INVALID_ARGUMENT = 1,
  HWAGENT_VERSION_MISMATCH = 2,
  HWAGENT_IO_ERROR = 3,
  HWAGENT_NOT_FOUND = 4,
} hwagent_status_t;

/** The message of the last call on this thread that did not return
 *  HWAGENT_OK ("" if none). The library never prints: callers decide. */
HWAGENT_RT_API const char *hwagent_error_message(void);

/** Execution backends. Adding one: a value here, its name in
 *  hwagent_backend_name, the dialect's Backend enum case (tied by
 *  static_assert) and its cost parameters in the targets. */
typedef enum hwagent_backend {
  HWAGENT_BACKEND_CPU = 0,
  HWAGENT_BACKEND_ANE = 1,
  HWAGENT_BACKEND_GPU = 2,
} hwagent_backend_t;

#define HWAGENT_NUM_BACKENDS 3

/** "cpu", "ane", "gpu"; "unknown" out of range. */
HWAGENT_RT_API const char *hwagent_backend_name(int32_t backend);

/** How a program on a backend that bakes weights into compiled programs
 *  (the ANE) sees weights that change every training step. */
typedef enum hwagent_weight_update {
  /** No weights change (inference), or the backend reads weights as data. */
  HWAGENT_WEIGHTS_STATIC = 0,
  /** Weights passed as program inputs: no recompile, lower throughput. */
  HWAGENT_WEIGHTS_INPUT = 1,
  /** The program is recompiled with the new weights every step. */
  HWAGENT_WEIGHTS_RECOMPILE = 2,
  /** The compiled program's weights are reloaded in place every step. */
  HWAGENT_WEIGHTS_RELOAD = 3,
} hwagent_weight_update_t;

#define HWAGENT_NUM_WEIGHT_UPDATES 4

HWAGENT_RT_API const char *hwagent_weight_update_name(int32_t mode);

/** What the partitioner and the adaptive runtime minimize. */
typedef enum hwagent_objective {
  /** The step's seconds. */
  HWAGENT_OBJECTIVE_TIME = 0,
  /** The step's joules (modelled from the target's power values). */
  HWAGENT_OBJECTIVE_ENERGY = 1,
  /** Joules x seconds (energy-delay product). */
  HWAGENT_OBJECTIVE_EDP = 2,
} hwagent_objective_t;

#define HWAGENT_NUM_OBJECTIVES 3

/** "time", "energy", "edp"; "unknown" out of range. */
HWAGENT_RT_API const char *hwagent_objective_name(int32_t objective);

typedef enum hwagent_thermal {
  HWAGENT_THERMAL_NOMINAL = 0,
  HWAGENT_THERMAL_FAIR = 1,
  HWAGENT_THERMAL_SERIOUS = 2,
  HWAGENT_THERMAL_CRITICAL = 3,
} hwagent_thermal_t;

/** Element types of the tensors a step binds and the files hold. */
typedef enum hwagent_dtype {
  HWAGENT_DTYPE_F32 = 0,
  HWAGENT_DTYPE_F16 = 1,
  HWAGENT_DTYPE_F64 = 2,
  HWAGENT_DTYPE_I32 = 3,
  HWAGENT_DTYPE_I64 = 4,
  HWAGENT_DTYPE_I8 = 5,
  HWAGENT_DTYPE_U8 = 6,
  HWAGENT_DTYPE_BOOL = 7,
} hwagent_dtype_t;

#define HWAGENT_NUM_DTYPES 8

/** "f32", "f16", "f64", "i32", "i64", "i8", "u8", "bool"; "unknown". */
HWAGENT_RT_API const char *hwagent_dtype_name(int32_t dtype);
/** Bytes of one element (0 for an unknown dtype). */
HWAGENT_RT_API int64_t hwagent_dtype_size(int32_t dtype);

/** What a step's argument or result is to a trainer. */
typedef enum hwagent_role {
  /** Data fed every step (a batch of samples). */
  HWAGENT_ROLE_INPUT = 0,
  /** Targets: integer class labels or one-hot rows. */
  HWAGENT_ROLE_LABEL = 1,
  /** A trained parameter; as a result, its new value. */
  HWAGENT_ROLE_PARAMETER = 2,
  /** Result 0 of a training step. */
  HWAGENT_ROLE_LOSS = 3,
  /** Any other result (logits, a correct count...). */
  HWAGENT_ROLE_OUTPUT = 4,
} hwagent_role_t;

/** "input", "label", "parameter", "loss", "output"; "unknown". */
HWAGENT_RT_API const char *hwagent_role_name(int32_t role);

/** Largest rank of a tensor the C API binds. */
#define HWAGENT_MAX_RANK 8

/* ---- The compiled model (written by the compiler, read by the runtime) - */

/** Bumped on any change of the structs below. */
#define HWAGENT_MODEL_INFO_VERSION 4u

/** Price of moving data from one backend to another. */
typedef struct hwagent_link_info {
  /** Copy bandwidth, bytes/s. */
  double bandwidth;
  /** f32 <-> f16 conversion throughput, bytes/s (0 = free). */
  double convert_bandwidth;
  /** Seconds of synchronization per program boundary. */
  double sync;
} hwagent_link_info_t;

/** One hwagent.region of the compiled step. */
typedef struct hwagent_region_info {
  /** Structural hash of what the region computes (the profile's key). */
  uint64_t key;
  int64_t flops;
  /** Bytes the region reads and writes. */
  int64_t bytes;
  /** The region's id (unique in the module). */
  int32_t id;
  /** Index of the program it belongs to. */
  int32_t program;
  /** Predicted seconds per backend inside a program (its launch and weight
   *  handling are the program's); 0 where illegal. */
  double predicted[HWAGENT_NUM_BACKENDS];
  /** Bit b set: the region can run on backend b. */
  uint32_t legal_mask;
  uint32_t reserved;
} hwagent_region_info_t;

/** A program: a convex, connected set of regions placed on one backend,
 *  compiled together and launched once. The runtime dispatches programs. */
typedef struct hwagent_program_info {
  /** Backend chosen at compile time. */
  int32_t assigned;
  /** Bit b set: the program has a variant on backend b. */
  uint32_t legal_mask;
  /** Its regions are regions[first_region .. first_region + num_regions). */
  uint32_t first_region;
  uint32_t num_regions;
  /** Predicted seconds per execution on each backend, launch and weight
   *  handling included; 0 where illegal. */
  double predicted[HWAGENT_NUM_BACKENDS];
  int64_t flops;
  /** Bytes of weights the program holds (training: updated every step). */
  int64_t weight_bytes;
  /** hwagent_weight_update_t of its weights on each backend. */
  int32_t weight_update[HWAGENT_NUM_BACKENDS];
  uint32_t reserved;
  /** Joules per execution on each backend that do not scale with its time
   *  (per FLOP, per byte of traffic, the launch); an execution of t
   *  seconds costs fixed_joules[b] + power.running[b] * t (modelled from
   *  the target's power values, docs/cost-model.md "Energy"). */
  double fixed_joules[HWAGENT_NUM_BACKENDS];
} hwagent_program_info_t;

/** Data flowing from one program to another (-1: the host, which is the
 *  CPU: function arguments and results). */
typedef struct hwagent_edge_info {
  int32_t from;
  int32_t to;
  /** Bytes that cross. */
  int64_t bytes;
  /** Of those, bytes of f32 data converted to f16 to or from the ANE. */
  int64_t convert_bytes;
} hwagent_edge_info_t;

/** One argument or result of a compiled function. */
typedef struct hwagent_value_info {
  /** `{hwagent.name}` in the IR, the parameter's name for its update,
   *  "loss", else "arg<i>" / "result<i>" (docs/training.md). */
  const char *name;
  /** `rank` sizes; -1 for a dynamic size. */
  const int64_t *shape;
  int32_t rank;
  /** A hwagent_dtype_t (-1: not bindable through the C API). */
  int32_t dtype;
  /** A hwagent_role_t. */
  int32_t role;
  /** For a result: the argument it is the new value of (-1: none). */
  int32_t updates;
} hwagent_value_info_t;

/** A public function of the compiled module. */
typedef struct hwagent_function_info {
  const char *name;
  /** Calls the function: args[i] points at argument i (a memref descriptor
   *  for a tensor, the value for a scalar); args[num_args] at the results
   *  (the struct MLIR's C interface returns). hwagent_step_t wraps it. */
  void (*invoke)(void **args);
  const hwagent_value_info_t *args;
  const hwagent_value_info_t *results;
  uint32_t num_args;
  uint32_t num_results;
} hwagent_function_info_t;

/** The target's power model as the runtime prices a step's energy
 *  (docs/targets.md "Power"): a step of T seconds whose programs run b_i
 *  seconds on backend i costs its programs' joules, the host's at the
 *  boundaries, static * T and idle[i] * (T - b_i) per backend. */
typedef struct hwagent_power_info {
  /** Watts of each backend while it waits (the ANE's rail is off: 0). */
  double idle[HWAGENT_NUM_BACKENDS];
  /** Watts while a program runs on the backend: its active power and the
   *  host's while it feeds it. */
  double running[HWAGENT_NUM_BACKENDS];
  /** Watts of the host while it copies and converts at a boundary. */
  double boundary;
  /** Joules per byte crossing a boundary. */
  double boundary_per_byte;
  /** The package's static power over the whole step. */
  double static_power;
} hwagent_power_info_t;

typedef struct hwagent_model_info {
  /** HWAGENT_MODEL_INFO_VERSION. */
  uint32_t version;
  /** HWAGENT_NUM_BACKENDS as the compiler knew it. */
  uint32_t num_backends;
  uint32_t num_regions;
  uint32_t num_programs;
  uint32_t num_edges;
  uint32_t num_functions;
  /** Name of the target the step was partitioned for. */
  const char *target;
  const hwagent_region_info_t *regions;
  const hwagent_program_info_t *programs;
  const hwagent_edge_info_t *edges;
  /** links[from][to]; the diagonal is unused. */
  hwagent_link_info_t links[HWAGENT_NUM_BACKENDS][HWAGENT_NUM_BACKENDS];
  /** Seconds to build a program's variant on a backend the first time. */
  double compile[HWAGENT_NUM_BACKENDS];
  /** The module's public functions (training and evaluation steps). */
  const hwagent_function_info_t *functions;
  /** Seconds per byte of a program's weights added to compile[b] (the ANE
   *  compiles weights into the program: docs/adaptive.md). */
  double compile_per_byte[HWAGENT_NUM_BACKENDS];
  /** Program compiles one process can do on each backend (0: no limit);
   *  the runtime never builds a variant past it. */
  int64_t max_compiles[HWAGENT_NUM_BACKENDS];
  hwagent_power_info_t power;
  /** The hwagent_objective_t the step was partitioned for; a session
   *  optimizes it unless its options say otherwise. */
  int32_t objective;
  int32_t reserved;
  /** Average watts over a step the placement may not exceed (0: none). */
  double power_cap;
} hwagent_model_info_t;

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

/* ---- Called by generated code (on the current session) ----------------- */

/** The backend to run program `program` on (a hwagent_backend_t). */
HWAGENT_RT_API int32_t hwagent_rt_select(int64_t program);
/** Brackets one execution of a program's variant. */
HWAGENT_RT_API void hwagent_rt_begin(int64_t program, int32_t backend);
/** Ends it; `nonfinite` != 0 when a result holds inf/NaN. Returns 1 when
 *  the execution failed and generated code must re-run the CPU variant. */
HWAGENT_RT_API int32_t hwagent_rt_end(int64_t program, int32_t backend,
                                      int32_t nonfinite);

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

/** A dense row-major tensor: a view, never owning `data`. */
typedef struct hwagent_tensor {
  const char *name;
  void *data;
  int64_t shape[HWAGENT_MAX_RANK];
  int32_t rank;
  /** A hwagent_dtype_t. */
  int32_t dtype;
} hwagent_tensor_t;

/** Elements of a tensor (1 for rank 0). */
HWAGENT_RT_API int64_t hwagent_tensor_elements(const hwagent_tensor_t *tensor);

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

/** Tensors in the files users have: NumPy .npy (one array, named after the
 *  file's stem) and .npz (one per member, compressed or not), safetensors.
 *  .npy and safetensors are memory-mapped; an .npz member is read once. */
typedef struct hwagent_tensor_file hwagent_tensor_file_t;

/** Opens `path` by its extension; the error names the file and what is
 *  wrong with it (truncated, a dtype the API lacks, Fortran order...). */
HWAGENT_RT_API hwagent_status_t
hwagent_tensor_file_open(const char *path, hwagent_tensor_file_t **file);
HWAGENT_RT_API void hwagent_tensor_file_close(hwagent_tensor_file_t *file);
HWAGENT_RT_API uint32_t
hwagent_tensor_file_count(const hwagent_tensor_file_t *file);
/** Tensor `index` (in the file's order); views valid until close. */
HWAGENT_RT_API hwagent_status_t
hwagent_tensor_file_get(const hwagent_tensor_file_t *file, uint32_t index,
                        hwagent_tensor_t *tensor);
/** The tensor called `name`; HWAGENT_NOT_FOUND if none. */
HWAGENT_RT_API hwagent_status_t
hwagent_tensor_file_find(const hwagent_tensor_file_t *file, const char *name,
                         hwagent_tensor_t *tensor);
/** A safetensors file's `__metadata__` value for `key`, NULL if none. */
HWAGENT_RT_API const char *
hwagent_tensor_file_metadata(const hwagent_tensor_file_t *file,
                             const char *key);

/** Writes `count` tensors to `path` as safetensors, atomically (a
 *  temporary file, flushed to disk, renamed over `path`: a reader sees the
 *  old file or the new one, never a torn one). `metadata` holds
 *  `num_metadata` key/value string pairs for `__metadata__`. */
HWAGENT_RT_API hwagent_status_t hwagent_safetensors_write(
    const char *path, const hwagent_tensor_t *tensors, uint32_t count,
    const char *const *metadata, uint32_t num_metadata);

/** Whether an atomic write to `path` (hwagent_safetensors_write, the
 *  profile) could create its file now: drivers check their outputs before
 *  the first step. HWAGENT_IO_ERROR with the path and reason if not. */
HWAGENT_RT_API hwagent_status_t hwagent_check_writable(const char *path);

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

/* Layouts shared with generated code and other compilers must not drift.
 * The compiler emits the model structs as LLVM constants of the same
 * layout (hwagent-lower-to-runtime); these checks pin it. */
#ifdef __cplusplus
#define HWAGENT_RT_STATIC_ASSERT static_assert
#else
#define HWAGENT_RT_STATIC_ASSERT _Static_assert
#endif
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_backend_t) == 4, "enum size");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_link_info_t) == 24,
                         "hwagent_link_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_region_info_t) == 64,
                         "hwagent_region_info_t");
HWAGENT_RT_STATIC_ASSERT(offsetof(hwagent_region_info_t, predicted) == 32,
                         "hwagent_region_info_t.predicted");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_program_info_t) == 96,
                         "hwagent_program_info_t");
HWAGENT_RT_STATIC_ASSERT(offsetof(hwagent_program_info_t, flops) == 40,
                         "hwagent_program_info_t.flops");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_edge_info_t) == 24,
                         "hwagent_edge_info_t");
HWAGENT_RT_STATIC_ASSERT(offsetof(hwagent_model_info_t, links) == 56,
                         "hwagent_model_info_t.links");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_model_info_t) == 56 + 24 * 9 + 8 * 3 +
                                                             8 + 8 * 3 + 8 * 3 +
                                                             8 * 9 + 4 + 4 + 8,
                         "hwagent_model_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_value_info_t) == 32,
                         "hwagent_value_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_function_info_t) == 40,
                         "hwagent_function_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_tensor_t) == 88, "hwagent_tensor_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_power_info_t) == 72,
                         "hwagent_power_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_program_stats_t) == 88,
                         "hwagent_program_stats_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_step_stats_t) == 104,
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
