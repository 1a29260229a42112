//===- ParallelTest.cpp - hwagent_parallel_for ----------------------------===//
//
// The runtime side of hwagent-outline-parallel-loops: every iteration runs
// exactly once, in contiguous slices; small loops stay on the calling
// thread; the thread limit bounds the team.
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"
#include "hwagent_rt/hwagent_kernels.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace {

struct Recorder {
  std::vector<std::atomic<int>> hits;
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> slices;
  std::vector<std::thread::id> threads;

  explicit Recorder(int64_t n) : hits(n) {}

  static void body(void *context, int64_t begin, int64_t end) {
    auto *self = static_cast<Recorder *>(context);
    for (int64_t i = begin; i < end; ++i)
      self->hits[i].fetch_add(1);
    std::lock_guard<std::mutex> lock(self->mutex);
    self->slices.push_back({begin, end});
    self->threads.push_back(std::this_thread::get_id());
  }
};

/// Restores the process's thread limit after each test.
class ParallelFor : public ::testing::Test {
protected:
  void TearDown() override { hwagent_kernels_set_threads(0); }
};

TEST_F(ParallelFor, EveryIterationOnceAtAnyThreadCount) {
  for (int32_t limit : {1, 2, 3, 7}) {
    hwagent_kernels_set_threads(limit);
    for (int64_t n : {1, 2, 5, 1000, 100003}) {
      Recorder r(n);
      // Work far above the grain: as many threads as the limit allows.
      hwagent_parallel_for(&Recorder::body, &r, n, int64_t{1} << 20);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(r.hits[i].load(), 1)
            << "iteration " << i << " of " << n << " at " << limit;
      // Contiguous slices covering [0, n), at most four per thread.
      std::sort(r.slices.begin(), r.slices.end());
      EXPECT_LE(r.slices.size(), size_t(std::min<int64_t>(4 * limit, n)));
      int64_t next = 0;
      for (auto [begin, end] : r.slices) {
        EXPECT_EQ(begin, next);
        EXPECT_LT(begin, end);
        next = end;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST_F(ParallelFor, SmallLoopsStayOnTheCallingThread) {
  hwagent_kernels_set_threads(4);
  Recorder r(100);
  hwagent_parallel_for(&Recorder::body, &r, 100, 8); // 800 ops: below a grain
  ASSERT_EQ(r.slices.size(), 1u);
  EXPECT_EQ(r.slices[0], std::make_pair(int64_t{0}, int64_t{100}));
  EXPECT_EQ(r.threads[0], std::this_thread::get_id());

  Recorder none(1);
  hwagent_parallel_for(&Recorder::body, &none, 0, 1 << 20);
  hwagent_parallel_for(&Recorder::body, &none, -5, 1 << 20);
  EXPECT_TRUE(none.slices.empty());
}

TEST_F(ParallelFor, InsideAnotherParallelRegionRunsOnTheCaller) {
  hwagent_kernels_set_threads(4);
  std::atomic<int> wrong{0};
#pragma omp parallel num_threads(2)
  {
    Recorder r(64);
    hwagent_parallel_for(&Recorder::body, &r, 64, int64_t{1} << 20);
    if (r.slices.size() != 1 || r.threads[0] != std::this_thread::get_id())
      wrong.fetch_add(1);
  }
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(ParallelFor, StatsCountCallsAndTeams) {
  hwagent_kernels_set_threads(2);
  hwagent_parallel_reset_stats();
  Recorder big(1000), small(10);
  hwagent_parallel_for(&Recorder::body, &big, 1000, int64_t{1} << 20);
  hwagent_parallel_for(&Recorder::body, &small, 10, 1);
  hwagent_parallel_stats_t stats;
  hwagent_parallel_stats(&stats);
  EXPECT_EQ(stats.calls, 2);
  EXPECT_EQ(stats.threaded_calls, 1);
  EXPECT_EQ(stats.threads, 3);
  EXPECT_GE(stats.seconds, 0.0);
  hwagent_parallel_stats(nullptr); // Tolerated.
  hwagent_parallel_reset_stats();
  hwagent_parallel_stats(&stats);
  EXPECT_EQ(stats.calls, 0);
}

TEST(ParallelRule, ThreadsForTheWork) {
  using hwagent_rt::threadsFor;
  // One thread per grain of work, at most the limit and the iterations.
  EXPECT_EQ(threadsFor(1000, 100, 65536, 8), 1);
  EXPECT_EQ(threadsFor(65536 * 3.5, 100, 65536, 8), 3);
  EXPECT_EQ(threadsFor(1e12, 100, 65536, 8), 8);
  EXPECT_EQ(threadsFor(1e12, 5, 65536, 8), 5);
  EXPECT_EQ(threadsFor(1e12, 100, 65536, 0), 1);
  EXPECT_EQ(threadsFor(1e12, 0, 65536, 8), 1);
  EXPECT_EQ(threadsFor(1e12, 100, 0, 8), 1);
}

TEST(ParallelRule, TheLimitIsTheKernels) {
  EXPECT_EQ(hwagent_kernels_set_threads(3), 3);
  EXPECT_EQ(hwagent_rt::threadLimit(), 3);
  EXPECT_GE(hwagent_kernels_set_threads(0), 1);
  EXPECT_EQ(hwagent_rt::threadLimit(),
            int32_t(std::max(1u, std::thread::hardware_concurrency())));
}

} // namespace
