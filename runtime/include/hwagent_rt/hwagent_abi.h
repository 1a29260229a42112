/*===- hwagent_abi.h - what compiled steps are and call ---------*- C -*-===*
 *
 * The ABI between the code hwagent-lower-to-runtime generates and
 * libhwagent_rt: the model info the compiler emits as constant globals of
 * these structs (returned by the generated `__hwagent_model_info`), the
 * calls every program dispatch makes (select, begin, end), and the names of
 * those symbols, which the compiler's passes emit and the runtime defines
 * (one table: a test resolves each in the shared library). C only; layouts
 * checked by static_assert.
 *
 * The model info: the regions, the programs (the units the chip launches)
 * and the boundaries between programs, with the compiler's predictions.
 * docs/runtime.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_ABI_H
#define HWAGENT_RT_HWAGENT_ABI_H

#include "hwagent_rt/hwagent_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The compiled model (written by the compiler, read by the runtime) - */

/** Bumped on any change of the structs below. */
#define HWAGENT_MODEL_INFO_VERSION 6u

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

/** A program: a convex set of regions placed on one backend (connected on
 *  the ANE; on the CPU and the GPU independent parts may share one),
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
  /** Of predicted[b], the compute-bound seconds: what grows as 1/s when the
   *  backend runs at a clock s of its peak (hwagent_clock_info_t). Every
   *  prediction and joule of this struct is at the peak clock. */
  double clocked[HWAGENT_NUM_BACKENDS];
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

/** Frequency scaling under a power cap, the compiler's model (docs/targets.md
 *  "DVFS", docs/adaptive.md "Objectives"): at a clock s of its peak
 *  (min_clock <= s <= 1) a backend's compute-bound seconds grow as 1/s, its
 *  active power falls as s ^ dvfs_exponent and its joules per FLOP as
 *  s ^ (dvfs_exponent - 1); traffic, launches and the host's feeding power
 *  stay. A backend with dvfs_exponent 0 or min_clock 1 does not scale. */
typedef struct hwagent_clock_info {
  double dvfs_exponent[HWAGENT_NUM_BACKENDS];
  double min_clock[HWAGENT_NUM_BACKENDS];
  /** Of power.running[b], the backend's own watts (the rest is the host's
   *  feeding it): the part that scales. */
  double active[HWAGENT_NUM_BACKENDS];
  /** Joules per FLOP at the peak (part of fixed_joules). */
  double per_flop[HWAGENT_NUM_BACKENDS];
} hwagent_clock_info_t;

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
  /** The names of the regions' learned-cost features (hwcore's
   *  LearnedFeatures.h; docs/cost-model.md), num_features of them. */
  const char *const *feature_names;
  /** num_regions x num_features values, row-major: each region's features
   *  as the cost pass saw them (the runtime writes them into its profile). */
  const double *region_features;
  uint32_t num_features;
  uint32_t reserved_features;
  /** How each backend's clock scales under power_cap (since version 6). */
  hwagent_clock_info_t clock;
} hwagent_model_info_t;

/* ---- Called by generated code (on the current session) ----------------- */

/** The backend to run program `program` on (a hwagent_backend_t). */
HWAGENT_RT_API int32_t hwagent_rt_select(int64_t program);
/** Brackets one execution of a program's variant. */
HWAGENT_RT_API void hwagent_rt_begin(int64_t program, int32_t backend);
/** Ends it; `nonfinite` != 0 when a result holds inf/NaN. Returns 1 when
 *  the execution failed and generated code must re-run the CPU variant. */
HWAGENT_RT_API int32_t hwagent_rt_end(int64_t program, int32_t backend,
                                      int32_t nonfinite);

/* ---- Symbol names (emitted by the compiler, defined here) --------------- */

/** The generated function returning the module's hwagent_model_info_t. */
#define HWAGENT_MODEL_INFO_SYMBOL "__hwagent_model_info"
/** hwagent_rt_select, hwagent_rt_begin and hwagent_rt_end above. */
#define HWAGENT_SELECT_SYMBOL "hwagent_rt_select"
#define HWAGENT_BEGIN_SYMBOL "hwagent_rt_begin"
#define HWAGENT_END_SYMBOL "hwagent_rt_end"

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifdef __cplusplus
#define HWAGENT_RT_STATIC_ASSERT static_assert
#else
#define HWAGENT_RT_STATIC_ASSERT _Static_assert
#endif
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_link_info_t) == 24,
                         "hwagent_link_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_region_info_t) == 64,
                         "hwagent_region_info_t");
HWAGENT_RT_STATIC_ASSERT(offsetof(hwagent_region_info_t, predicted) == 32,
                         "hwagent_region_info_t.predicted");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_program_info_t) == 120,
                         "hwagent_program_info_t");
HWAGENT_RT_STATIC_ASSERT(offsetof(hwagent_program_info_t, flops) == 40,
                         "hwagent_program_info_t.flops");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_edge_info_t) == 24,
                         "hwagent_edge_info_t");
HWAGENT_RT_STATIC_ASSERT(offsetof(hwagent_model_info_t, links) == 56,
                         "hwagent_model_info_t.links");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_model_info_t) ==
                             56 + 24 * 9 + 8 * 3 + 8 + 8 * 3 + 8 * 3 + 8 * 9 +
                                 4 + 4 + 8 + 8 + 8 + 4 + 4 + 8 * 12,
                         "hwagent_model_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_clock_info_t) == 96,
                         "hwagent_clock_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_value_info_t) == 32,
                         "hwagent_value_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_function_info_t) == 40,
                         "hwagent_function_info_t");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_power_info_t) == 72,
                         "hwagent_power_info_t");
#undef HWAGENT_RT_STATIC_ASSERT

#endif /* HWAGENT_RT_HWAGENT_ABI_H */
