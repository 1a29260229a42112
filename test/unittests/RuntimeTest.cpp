//===- RuntimeTest.cpp - libhwagent_rt through its C ABI ------------------===//

#include "RegionTable.h"
#include "hwagent_rt/hwagent_rt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <string>
#include <thread>
#include <vector>

namespace {

const char *kTable = "hwagent-region-table 1\n"
                     "target test\n"
                     "region 0 00000000000000a0 1 3 1e-3 2e-4 0 1000 100\n"
                     "region 1 00000000000000a1 0 1 5e-4 0 0 10 100\n"
                     "edge -1 0 400\n"
                     "edge 0 1 400\n";

struct Session {
  explicit Session(const char *table = kTable, int32_t force = -1,
                   int64_t faultRegion = -1) {
    hwagent_options_t options;
    hwagent_options_init(&options);
    options.force_backend = force;
    options.fault_region = faultRegion;
    status = hwagent_session_create(table, &options, &session);
    if (session)
      hwagent_session_make_current(session);
  }
  ~Session() { hwagent_session_destroy(session); }
  hwagent_session_t *session = nullptr;
  hwagent_status_t status;
};

TEST(Runtime, VersionAndTableErrors) {
  EXPECT_EQ(hwagent_rt_api_version(), HWAGENT_RT_API_VERSION);
  EXPECT_EQ(Session("").status, HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(Session("hwagent-region-table 2\n").status, HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(Session("hwagent-region-table 1\nregion 0 k 0 1 x 0 0 0 0\n").status,
            HWAGENT_INVALID_ARGUMENT);
  // Assigned to the ANE but only CPU-legal; and no CPU variant.
  EXPECT_EQ(Session("hwagent-region-table 1\nregion 0 k 1 1 0 0 0 0 0\n").status,
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(Session("hwagent-region-table 1\nregion 0 k 1 2 0 0 0 0 0\n").status,
            HWAGENT_INVALID_ARGUMENT);
  // A region listed twice; an edge naming a region the table lacks (edges
  // may precede their regions). The message names the line.
  const char *twice = "hwagent-region-table 1\nregion 0 k 0 1 0 0 0 0 0\n"
                      "region 0 k 0 1 0 0 0 0 0\n";
  Session duplicate(twice);
  EXPECT_EQ(duplicate.status, HWAGENT_INVALID_ARGUMENT);
  absl::StatusOr<hwagent_rt::RegionTable> parsed = hwagent_rt::parseRegionTable(twice);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "region table line 3: region 0 is listed twice");
  parsed = hwagent_rt::parseRegionTable(
      "hwagent-region-table 1\nedge 0 7 4\nregion 0 k 0 1 0 0 0 0 0\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "region table line 2: edge names unknown region 7");
  parsed = hwagent_rt::parseRegionTable(
      "hwagent-region-table 1\nedge -1 0 4\nregion 0 k 0 1 0 0 0 0 0\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->edges[0].fromIndex, -1);
  EXPECT_EQ(parsed->edges[0].toIndex, 0);
  EXPECT_EQ(parsed->incident[0], std::vector<uint32_t>{0});
  // Numeric options out of range are refused.
  for (int field = 0; field < 4; ++field) {
    hwagent_options_t options;
    hwagent_options_init(&options);
    if (field == 0)
      options.sim_noise = -0.1;
    else if (field == 1)
      options.explore_every = -1;
    else if (field == 2)
      options.explore_budget = 1.5;
    else
      options.horizon = std::nan("");
    hwagent_session_t *refused = nullptr;
    EXPECT_EQ(hwagent_session_create(kTable, &options, &refused),
              HWAGENT_INVALID_ARGUMENT) << field;
    EXPECT_EQ(refused, nullptr);
  }
  hwagent_options_t wrong;
  hwagent_options_init(&wrong);
  wrong.struct_size = 8;
  hwagent_session_t *session = nullptr;
  EXPECT_EQ(hwagent_session_create(kTable, &wrong, &session),
            HWAGENT_VERSION_MISMATCH);
  EXPECT_EQ(session, nullptr);
}

TEST(Runtime, SelectFollowsTableForceAndPins) {
  {
    Session s;
    ASSERT_EQ(s.status, HWAGENT_OK);
    EXPECT_EQ(hwagent_session_num_regions(s.session), 2u);
    EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_ANE);
    EXPECT_EQ(hwagent_rt_select(1), HWAGENT_BACKEND_CPU);
    EXPECT_EQ(hwagent_rt_select(42), HWAGENT_BACKEND_CPU); // unknown: CPU
    EXPECT_EQ(hwagent_session_pin(s.session, 0, HWAGENT_BACKEND_CPU), HWAGENT_OK);
    EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_CPU);
    EXPECT_EQ(hwagent_session_pin(s.session, 1, HWAGENT_BACKEND_ANE),
              HWAGENT_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(hwagent_session_last_error(s.session)),
              "region 1 cannot run on backend ane");
    EXPECT_EQ(hwagent_session_pin(s.session, 7, HWAGENT_BACKEND_CPU),
              HWAGENT_NOT_FOUND);
  }
  Session cpu(kTable, HWAGENT_BACKEND_CPU);
  EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_CPU);
  Session ane(kTable, HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_select(1), HWAGENT_BACKEND_CPU); // not legal there
}

TEST(Runtime, SimulatedTimesAndFaults) {
  Session s(kTable, -1, /*faultRegion=*/0);
  ASSERT_EQ(s.status, HWAGENT_OK);
  hwagent_rt_begin(0, HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_end(0, HWAGENT_BACKEND_ANE, 0), 1); // injected
  hwagent_rt_begin(0, HWAGENT_BACKEND_CPU);
  EXPECT_EQ(hwagent_rt_end(0, HWAGENT_BACKEND_CPU, 0), 0);
  hwagent_rt_begin(1, HWAGENT_BACKEND_CPU);
  EXPECT_EQ(hwagent_rt_end(1, HWAGENT_BACKEND_CPU, 1), 0); // CPU never faults
  ASSERT_EQ(hwagent_session_end_step(s.session, 1.5), HWAGENT_OK);

  hwagent_region_stats_t r;
  ASSERT_EQ(hwagent_session_region_stats(s.session, 0, &r), HWAGENT_OK);
  EXPECT_EQ(r.region_id, 0);
  EXPECT_EQ(r.executions[HWAGENT_BACKEND_ANE], 1);
  EXPECT_EQ(r.executions[HWAGENT_BACKEND_CPU], 1);
  EXPECT_EQ(r.faults, 1);
  // The ANE is charged the table's prediction (no noise), not its wall time.
  EXPECT_DOUBLE_EQ(r.seconds[HWAGENT_BACKEND_ANE], 2e-4);
  EXPECT_EQ(hwagent_session_region_stats(s.session, 2, &r), HWAGENT_NOT_FOUND);

  hwagent_step_stats_t step;
  ASSERT_EQ(hwagent_session_step_stats(s.session, &step), HWAGENT_OK);
  EXPECT_EQ(step.steps, 1);
  EXPECT_EQ(step.faults, 1);
  EXPECT_NEAR(step.share[0] + step.share[1] + step.share[2], 1.0, 1e-9);
  EXPECT_GE(step.last_step_seconds, 2e-4);
}

TEST(Runtime, NonFiniteAneResultsFault) {
  Session s;
  hwagent_rt_begin(0, HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_end(0, HWAGENT_BACKEND_ANE, 1), 1);
  hwagent_rt_begin(0, HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_end(0, HWAGENT_BACKEND_ANE, 0), 0);
}

TEST(Runtime, ConcurrentExecutionsAreCounted) {
  Session s;
  const int threads = 4, iterations = 2000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int i = 0; i < iterations; ++i) {
        int32_t b = hwagent_rt_select(1);
        hwagent_rt_begin(1, b);
        hwagent_rt_end(1, b, 0);
      }
    });
  for (std::thread &t : pool)
    t.join();
  hwagent_region_stats_t r;
  ASSERT_EQ(hwagent_session_region_stats(s.session, 1, &r), HWAGENT_OK);
  EXPECT_EQ(r.executions[HWAGENT_BACKEND_CPU], threads * iterations);
}

} // namespace

namespace {

std::string writeFile(const std::string &name, const std::string &text) {
  std::string path = testing::TempDir() + name;
  FILE *f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

TEST(Runtime, ScenarioSlowsSimulatedBackends) {
  std::string path = writeFile("scenario.txt", "hwagent-scenario 1\n"
                                               "# another app takes the ANE\n"
                                               "at 1 ane slowdown 3\n"
                                               "at 2 thermal serious\n");
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.scenario_path = path.c_str();
  hwagent_session_t *s = nullptr;
  ASSERT_EQ(hwagent_session_create(kTable, &options, &s), HWAGENT_OK);
  hwagent_session_make_current(s);
  double expected[] = {2e-4, 6e-4, 9e-4}; // x1, x3, x3 * 1.5 (serious)
  for (double seconds : expected) {
    hwagent_rt_begin(0, HWAGENT_BACKEND_ANE);
    hwagent_rt_end(0, HWAGENT_BACKEND_ANE, 0);
    hwagent_session_end_step(s, 0);
    hwagent_step_stats_t step;
    hwagent_session_step_stats(s, &step);
    EXPECT_NEAR(step.last_step_seconds, seconds, 1e-9);
  }
  hwagent_telemetry_t t;
  ASSERT_EQ(hwagent_session_telemetry(s, &t), HWAGENT_OK);
  EXPECT_NEAR(t.utilization[HWAGENT_BACKEND_ANE], 2.0 / 3.0, 1e-12);
  EXPECT_EQ(t.thermal_state, HWAGENT_THERMAL_SERIOUS);
  EXPECT_GT(t.free_memory_bytes, 0);
  hwagent_session_destroy(s);
}

TEST(Runtime, BadScenariosAreRejected) {
  for (const char *text : {"", "hwagent-scenario 2\n", "hwagent-scenario 1\nat x ane slowdown 2\n",
                           "hwagent-scenario 1\nat 3 ane slowdown 0.5\n",
                           "hwagent-scenario 1\nat 3 tpu slowdown 2\n",
                           "hwagent-scenario 1\nat 3 thermal hot\n"}) {
    std::string path = writeFile("bad.txt", text);
    hwagent_options_t options;
    hwagent_options_init(&options);
    options.scenario_path = path.c_str();
    hwagent_session_t *s = nullptr;
    EXPECT_EQ(hwagent_session_create(kTable, &options, &s),
              HWAGENT_INVALID_ARGUMENT)
        << text;
  }
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.scenario_path = "/nonexistent/scenario";
  hwagent_session_t *s = nullptr;
  EXPECT_EQ(hwagent_session_create(kTable, &options, &s), HWAGENT_IO_ERROR);
}

} // namespace
