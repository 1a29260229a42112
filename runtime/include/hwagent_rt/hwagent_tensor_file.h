/*===- hwagent_tensor_file.h - .npy, .npz and safetensors ------*- C -*-===*
 *
 * libhwagent_tensorfile (hwagent::tensorfile): the files users keep arrays
 * and parameters in, read and written through the C API's conventions
 * (status codes, hwagent_error_message()). Its own library so that
 * compiled steps, which link libhwagent_rt, do not link libzip.
 * docs/training.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_TENSOR_FILE_H
#define HWAGENT_RT_HWAGENT_TENSOR_FILE_H

#include "hwagent_rt/hwagent_types.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/** Tensor `index` (in the file's order). The view points into memory the
 *  file owns, valid and writable until close; an .npz member is read the
 *  first time it is asked for (so a corrupt member fails here, not at
 *  open). */
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

/** Whether hwagent_safetensors_write would accept these tensors and this
 *  metadata (every name UTF-8, not empty, not `__metadata__`, no two alike;
 *  every dimension non-negative, no size overflow), without writing: a
 *  driver checks its checkpoint before the first step, not after the last.
 *  HWAGENT_INVALID_ARGUMENT with the tensor's index or name if not. */
HWAGENT_RT_API hwagent_status_t hwagent_safetensors_check(
    const char *path, const hwagent_tensor_t *tensors, uint32_t count,
    const char *const *metadata, uint32_t num_metadata);

/** Whether an atomic write to `path` (hwagent_safetensors_write, the
 *  profile) could create its file now: drivers check their outputs before
 *  the first step. HWAGENT_IO_ERROR with the path and reason if not. */
HWAGENT_RT_API hwagent_status_t hwagent_check_writable(const char *path);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HWAGENT_RT_HWAGENT_TENSOR_FILE_H */
