//===- ContentionTest.cpp - kernel threads under CPU contention -----------===//

#include "Telemetry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

using namespace hwagent_rt;

namespace {

TEST(Contention, OneThreadFewerPerCoreOthersTake) {
  EXPECT_EQ(threadsUnderContention(2, 0.0), 2);
  EXPECT_EQ(threadsUnderContention(2, 0.2), 2); // background noise
  EXPECT_EQ(threadsUnderContention(2, 0.3), 1);
  EXPECT_EQ(threadsUnderContention(2, 1.0), 1);
  EXPECT_EQ(threadsUnderContention(8, 2.9), 5);
  EXPECT_EQ(threadsUnderContention(8, 3.2), 5); // a fifth of a core: noise
  EXPECT_EQ(threadsUnderContention(8, 3.3), 4);
  EXPECT_EQ(threadsUnderContention(1, 5.0), 1); // never below one
  EXPECT_EQ(threadsUnderContention(4, NAN), 4);
  EXPECT_EQ(threadsUnderContention(4, -1.0), 4);
  EXPECT_EQ(threadsUnderContention(0, 0.0), 1);
}

TEST(Contention, AConfiguredCountIsACap) {
  // Two threads asked for on 16 CPUs, one core busy: 15 free, keep 2.
  EXPECT_EQ(threadsUnderContention(2, 16, 1.0), 2);
  // On 2 CPUs: one is free.
  EXPECT_EQ(threadsUnderContention(2, 2, 1.0), 1);
  // More threads than CPUs, asked for on purpose, kept while quiet.
  EXPECT_EQ(threadsUnderContention(4, 2, 0.0), 4);
  EXPECT_EQ(threadsUnderContention(4, 2, 0.2), 4);
  EXPECT_EQ(threadsUnderContention(4, 2, 1.0), 1);
  EXPECT_EQ(threadsUnderContention(6, 8, 3.3), 4);
  EXPECT_EQ(threadsUnderContention(1, 8, 7.9), 1);
}

TEST(Contention, OwnWorkIsNotOthers) {
  // Two cores busy over a second, one of them this process: one other.
  EXPECT_DOUBLE_EQ(othersBusyCores(2.0, 1.0, 1.0), 1.0);
  // This process's threads alone (ticks round down): nobody else.
  EXPECT_DOUBLE_EQ(othersBusyCores(1.9, 2.0, 1.0), 0.0);
  EXPECT_LT(othersBusyCores(1.0, 0.0, 0.0), 0);
}

TEST(Contention, ReadsTheMachine) {
  Contention meter;
  EXPECT_LT(meter.sample(0), 0); // the first sample starts the count
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  double others = meter.sample(0.2);
  // Whatever else the machine runs: a count of cores, finite.
  EXPECT_TRUE(std::isfinite(others));
  EXPECT_GE(others, 0);
  EXPECT_LE(others, std::thread::hardware_concurrency() + 0.5);
  // Too soon after a sample: no reading.
  EXPECT_LT(meter.sample(10.0), 0);
}

} // namespace
