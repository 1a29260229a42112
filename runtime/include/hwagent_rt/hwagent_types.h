/*===- hwagent_types.h - the words every hwagent header shares -*- C -*-===*
 *
 * The base of the runtime's C API (docs/runtime.md): the API version, status
 * codes and the thread's last error message, and hwagent's vocabulary as C
 * enums (backends, weight updates, objectives, thermal states, dtypes,
 * roles), each tied to the core's C++ enum by static_assert
 * (runtime/src/Vocabulary.h). Included by the three audiences' headers:
 *   hwagent_abi.h          what compiled steps are and call (the compiler
 *                          emits it: the model info, select/begin/end)
 *   hwagent_rt.h           what a trainer links (sessions, steps bound by
 *                          name, telemetry, statistics)
 *   hwagent_kernels.h      the kernels compiled steps call (contraction,
 *                          parallel loops, buffers)
 * and hwagent_tensor_file.h, the tensor files of libhwagent_tensorfile.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_TYPES_H
#define HWAGENT_RT_HWAGENT_TYPES_H

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
#define HWAGENT_RT_API_VERSION 6u

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

/** Sets the thread's message (what hwagent_error_message() returns) and
 *  returns `status`: how the libraries beside the runtime
 *  (libhwagent_tensorfile) report through the same convention. */
HWAGENT_RT_API hwagent_status_t hwagent_set_error(hwagent_status_t status,
                                                  const char *message);

/** Execution backends: the core's hwcore::BackendKind (HwAgent/Core/
 *  Vocabulary.h says how to add one), tied by static_assert. */
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

/** A dense row-major tensor: a view, never owning `data`. */
typedef struct hwagent_tensor {
  const char *name;
  void *data;
  int64_t shape[HWAGENT_MAX_RANK];
  int32_t rank;
  /** A hwagent_dtype_t. */
  int32_t dtype;
} hwagent_tensor_t;

/** Elements of a tensor (1 for rank 0); -1 for NULL, a rank outside
 *  0..HWAGENT_MAX_RANK, a negative dimension or a product that overflows. */
HWAGENT_RT_API int64_t hwagent_tensor_elements(const hwagent_tensor_t *tensor);

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifdef __cplusplus
#define HWAGENT_RT_STATIC_ASSERT static_assert
#else
#define HWAGENT_RT_STATIC_ASSERT _Static_assert
#endif
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_backend_t) == 4, "enum size");
HWAGENT_RT_STATIC_ASSERT(sizeof(hwagent_tensor_t) == 88, "hwagent_tensor_t");
#undef HWAGENT_RT_STATIC_ASSERT

#endif /* HWAGENT_RT_HWAGENT_TYPES_H */
