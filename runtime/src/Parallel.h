//===- Parallel.h - the process's CPU thread limit --------------*- C++ -*-===//
//
// One limit for every parallel region of a compiled step: the contraction
// kernel's SGEMM and packing loops and the outlined loops
// hwagent_parallel_for runs (Parallel.cpp). hwagent_kernels_set_threads
// sets it; the session lowers it under contention (Session::adaptThreads).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_PARALLEL_H
#define HWAGENT_RT_PARALLEL_H

#include <cstdint>

namespace hwagent_rt {

/// The threads a parallel region may use now (>= 1; every online CPU until
/// set).
int32_t threadLimit();

/// Threads for a region of `work` units over `iterations` slices, each
/// thread getting at least `grain` units: between 1 and min(limit,
/// iterations).
int32_t threadsFor(double work, int64_t iterations, double grain,
                   int32_t limit);

} // namespace hwagent_rt

#endif // HWAGENT_RT_PARALLEL_H
