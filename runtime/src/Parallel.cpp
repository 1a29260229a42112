//===- Parallel.cpp - compiled loops on the runtime's threads -------------===//
//
// hwagent-outline-parallel-loops turns each large parallel loop of a
// compiled step into a call of hwagent_parallel_for with a function running
// a slice [begin, end) of the loop's outermost dimension. The slices run on
// OpenMP's threads (libgomp, the runtime oneDNN's SGEMM uses, so the
// process keeps one pool) as contiguous chunks taken by whichever thread is
// free; every iteration is computed whole by one thread, the same way at
// any thread count. The threads per call come from the work (a grain per
// thread, so that small loops do not pay for waking a thread) and the
// session's limit.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"

#include "Parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

namespace {

std::atomic<int32_t> limit{0};

struct Counters {
  std::atomic<int64_t> calls{0}, threadedCalls{0}, threads{0}, nanoseconds{0};
} counters;

/// Body ops per thread below which a thread costs more to wake than it
/// saves. Measured on this 2-core VM (docs/cpu-backend.md "Both cores on
/// the mid transformer"): with the mid transformer's GEMMs on one core, 64
/// Ki ops (10-40 us of a vectorized body) made its step slower at two
/// threads (1.60 ms against 1.43 with its loops on one, 1.47 at 256 Ki);
/// with its GEMMs on both (2026-12-08), 64 Ki took it from 1.83-1.85 to
/// 1.67-1.70 ms (its loops from 1.19 to 2.00 threads on average), the mid
/// CNN, the imported zoo and the small steps unchanged within the noise.
constexpr double kGrain = 65536;

/// HWAGENT_PARALLEL_GRAIN overrides the grain (a positive number of body
/// ops): for machines where waking a thread costs more or less, and for
/// tests that need small loops split.
double grainFromEnvironment() {
  const char *text = std::getenv("HWAGENT_PARALLEL_GRAIN");
  if (!text)
    return kGrain;
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(value) || value < 1)
    return kGrain;
  return value;
}
/// Chunks per thread when the work allows: enough for a thread slowed by
/// another process to hand its share to the others.
constexpr int64_t kChunksPerThread = 4;

int32_t onlineCpus() {
  return static_cast<int32_t>(
      std::max(1u, std::thread::hardware_concurrency()));
}

} // namespace

namespace hwagent_rt {

int32_t threadLimit() {
  int32_t n = limit.load(std::memory_order_relaxed);
  return n > 0 ? n : onlineCpus();
}

int32_t threadsFor(double work, int64_t iterations, double grain,
                   int32_t limit) {
  double byWork = grain > 0 ? work / grain : 1.0;
  double most = static_cast<double>(
      std::min<int64_t>(std::max<int32_t>(limit, 1), iterations));
  return static_cast<int32_t>(std::clamp(byWork, 1.0, std::max(most, 1.0)));
}

} // namespace hwagent_rt

extern "C" int32_t hwagent_kernels_set_threads(int32_t threads) {
  if (threads <= 0)
    threads = onlineCpus();
  limit.store(threads);
  return threads;
}

extern "C" void hwagent_parallel_for(void (*body)(void *, int64_t, int64_t),
                                     void *context, int64_t iterations,
                                     int64_t work_per_iteration) {
  if (iterations <= 0)
    return;
  auto start = std::chrono::steady_clock::now();
  double work = static_cast<double>(iterations) *
                static_cast<double>(std::max<int64_t>(work_per_iteration, 1));
  static const double grain = grainFromEnvironment();
  int32_t threads = hwagent_rt::threadsFor(work, iterations, grain,
                                           hwagent_rt::threadLimit());
  // Inside another parallel region (a trainer running sessions on its own
  // OpenMP threads) the slices run on the calling thread.
  int64_t ran = 1;
  if (threads <= 1 || omp_in_parallel()) {
    body(context, 0, iterations);
  } else {
    // A few chunks per thread, each of at least a grain, taken in turn by
    // whichever thread is free: a thread sharing its core with another
    // process does less of the loop instead of holding the others at the
    // barrier. Each iteration still runs whole on one thread, so the
    // results do not depend on which.
    auto byWork = static_cast<int64_t>(
        std::min(work / grain, double(kChunksPerThread * threads)));
    int64_t chunks = std::min(iterations, std::max<int64_t>(threads, byWork));
#pragma omp parallel num_threads(threads)
    {
#pragma omp single nowait
      ran = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1)
      for (int64_t c = 0; c < chunks; ++c)
        body(context, iterations * c / chunks, iterations * (c + 1) / chunks);
    }
  }
  auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  counters.calls.fetch_add(1, std::memory_order_relaxed);
  counters.threadedCalls.fetch_add(ran > 1, std::memory_order_relaxed);
  counters.threads.fetch_add(ran, std::memory_order_relaxed);
  counters.nanoseconds.fetch_add(elapsed, std::memory_order_relaxed);
}

extern "C" void hwagent_parallel_stats(hwagent_parallel_stats_t *stats) {
  if (!stats)
    return;
  stats->calls = counters.calls.load(std::memory_order_relaxed);
  stats->threaded_calls =
      counters.threadedCalls.load(std::memory_order_relaxed);
  stats->threads = counters.threads.load(std::memory_order_relaxed);
  stats->seconds = counters.nanoseconds.load(std::memory_order_relaxed) * 1e-9;
}

extern "C" void hwagent_parallel_reset_stats(void) {
  counters.calls.store(0);
  counters.threadedCalls.store(0);
  counters.threads.store(0);
  counters.nanoseconds.store(0);
}
