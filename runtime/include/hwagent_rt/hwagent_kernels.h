/*===- hwagent_kernels.h - kernels compiled training steps call -*- C -*-===*\
|*                                                                            *|
|* hwagent-lower-to-llvm rewrites every large f32 contraction (matmuls,       *|
|* batched matmuls, convolutions and their gradients, written as named ops    *|
|* or as linalg.generic) into one call of hwagent_contract_f32, which packs   *|
|* the operands into matrices and multiplies them with oneDNN's SGEMM         *|
|* (docs/cpu-backend.md). Generated code calls the `_mlir_ciface_` entry      *|
|* (MLIR's C interface: pointers to memref descriptors); a trainer never      *|
|* calls it by hand.                                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef HWAGENT_RT_HWAGENT_KERNELS_H
#define HWAGENT_RT_HWAGENT_KERNELS_H

#include "hwagent_rt/hwagent_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The layout of a contraction's spec (a constant `memref<?xi64>` the
 *  compiler emits):
 *    [0] HWAGENT_CONTRACT_SPEC_VERSION
 *    [1] L, the number of loops; [2, 2 + L) their extents
 *    then for each operand, A (input 0), B (input 1), C (the output):
 *      its rank R, then per dimension: a constant, a term count T and T
 *      pairs (loop, coefficient); the dimension's index is
 *      constant + sum(coefficient * loop).
 *  The op computes C[...] += A[...] * B[...] over every point of the loops
 *  (linalg's semantics for a multiply-accumulate body). */
#define HWAGENT_CONTRACT_SPEC_VERSION 1

/** A ranked memref descriptor as MLIR passes it (rank 1, i64). */
typedef struct {
  int64_t *allocated;
  int64_t *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} hwagent_memref_i64_1d_t;

/** An unranked memref as MLIR passes it: the rank and a pointer to a ranked
 *  descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}. */
typedef struct {
  int64_t rank;
  void *descriptor;
} hwagent_unranked_memref_t;

/** The names hwagent-lower-to-llvm emits calls to (one table with the
 *  definitions below; a test resolves each in the shared library). The
 *  contraction is called through MLIR's C interface: its symbol is
 *  "_mlir_ciface_" HWAGENT_CONTRACT_F32_SYMBOL. */
#define HWAGENT_CONTRACT_F32_SYMBOL "hwagent_contract_f32"
#define HWAGENT_PARALLEL_FOR_SYMBOL "hwagent_parallel_for"

/** C += A * B as `spec` describes it (f32 operands). */
HWAGENT_RT_API void _mlir_ciface_hwagent_contract_f32(
    const hwagent_memref_i64_1d_t *spec, const hwagent_unranked_memref_t *a,
    const hwagent_unranked_memref_t *b, const hwagent_unranked_memref_t *c);

/** Threads the kernels and parallel loops may use (0 = every online CPU);
 *  the session sets it from hwagent_options_t::cpu_threads and lowers it
 *  under contention. Returns the count now in force. */
HWAGENT_RT_API int32_t hwagent_kernels_set_threads(int32_t threads);

/** Runs body(context, begin, end) over slices of [0, iterations) covering
 *  it once, on up to the thread limit's threads: as many as the work
 *  (iterations x work_per_iteration, in loop-body ops) gives each thread at
 *  least a grain of. Slices are contiguous chunks, a few per thread, taken
 *  by whichever thread is free; each iteration runs whole on one thread, so
 *  results do not depend on the thread count. hwagent-outline-parallel-loops
 *  emits the calls (each large parallel loop of a compiled step). */
HWAGENT_RT_API void hwagent_parallel_for(void (*body)(void *, int64_t, int64_t),
                                         void *context, int64_t iterations,
                                         int64_t work_per_iteration);

/** What hwagent_parallel_for measured since the last reset. */
typedef struct {
  int64_t calls;
  /** Calls that ran on more than one thread. */
  int64_t threaded_calls;
  /** Threads summed over calls (threads / calls: the average team). */
  int64_t threads;
  /** Wall time inside the calls, measured on this machine. */
  double seconds;
} hwagent_parallel_stats_t;

HWAGENT_RT_API void hwagent_parallel_stats(hwagent_parallel_stats_t *stats);
HWAGENT_RT_API void hwagent_parallel_reset_stats(void);

/** What the contraction kernel measured for one compiled contraction (one
 *  spec) since the last reset: measured wall time on this machine. */
typedef struct {
  /** The spec's address (identifies the contraction in the compiled code). */
  const int64_t *spec;
  int64_t calls;
  /** 2 x loop points per call, summed. */
  double flops;
  double seconds;
  /** What ran it last: "SGEMM" (packed operands and oneDNN's SGEMM) or
   *  "oneDNN convolution (forward)" / "(weight gradient)" (a static
   *  string). */
  const char *kernel;
} hwagent_kernel_stat_t;

/** Copies up to `capacity` entries, largest FLOP count first; returns how
 *  many contractions were measured in all. */
HWAGENT_RT_API int64_t hwagent_kernels_stats(hwagent_kernel_stat_t *out,
                                             int64_t capacity);
HWAGENT_RT_API void hwagent_kernels_reset_stats(void);

/** Buffers. hwagent-lower-to-llvm lowers every memref.alloc/dealloc of a
 *  compiled step to MLIR's generic allocation functions, which the runtime
 *  implements with a caching allocator: a buffer freed by one step is handed
 *  to the next allocation of the same size, so a training loop stops
 *  allocating (and page-faulting) after its first step. Buffers a step
 *  returns (the loss, the updated parameters) come from it too: release them
 *  with hwagent_buffer_free, not free(). A second hwagent_buffer_free of
 *  a buffer still in the cache does nothing but leave an error for
 *  hwagent_error_message() (it never reaches the system's free). */
HWAGENT_RT_API void *_mlir_memref_to_llvm_alloc(size_t size);
HWAGENT_RT_API void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                        size_t size);
HWAGENT_RT_API void _mlir_memref_to_llvm_free(void *pointer);
HWAGENT_RT_API void hwagent_buffer_free(void *pointer);

typedef struct {
  /** Bytes in buffers handed out and not freed. */
  int64_t live_bytes;
  /** The most live_bytes reached since the last reset. */
  int64_t peak_bytes;
  /** Bytes held for reuse. */
  int64_t cached_bytes;
} hwagent_buffer_stats_t;

HWAGENT_RT_API void hwagent_buffer_stats(hwagent_buffer_stats_t *stats);
/** Starts a new peak at the current live bytes. */
HWAGENT_RT_API void hwagent_buffer_reset_peak(void);
/** Returns the cached buffers to the system. */
HWAGENT_RT_API void hwagent_buffer_release_cache(void);

#ifdef __cplusplus
}
#endif

#endif /* HWAGENT_RT_HWAGENT_KERNELS_H */
