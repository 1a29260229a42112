//===- RuntimeTest.cpp - libhwagent_rt through its C ABI ------------------===//

#include "ModelBuilder.h"
#include "hwagent_rt/hwagent_rt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using hwagent_test::ModelBuilder;

namespace {

/// Program 0: on the ANE (CPU 1 ms, ANE 200 us); program 1: CPU only.
ModelBuilder twoPrograms() {
  ModelBuilder m;
  m.program(HWAGENT_BACKEND_ANE, {1e-3, 2e-4, 0})
      .program(HWAGENT_BACKEND_CPU, {5e-4, 0, 0})
      .edge(-1, 0, 400)
      .edge(0, 1, 400);
  return m;
}

struct Session {
  explicit Session(const ModelBuilder &model = twoPrograms(),
                   int32_t force = -1, int64_t faultProgram = -1)
      : info(model.info()) {
    hwagent_options_t options;
    hwagent_options_init(&options);
    options.force_backend = force;
    options.fault_program = faultProgram;
    status = hwagent_session_create(&info, &options, &session);
    if (session)
      hwagent_session_make_current(session);
  }
  ~Session() { hwagent_session_destroy(session); }
  hwagent_model_info_t info;
  hwagent_session_t *session = nullptr;
  hwagent_status_t status;
};

hwagent_status_t create(const hwagent_model_info_t &info,
                        const hwagent_options_t *options = nullptr) {
  hwagent_session_t *session = nullptr;
  hwagent_status_t status = hwagent_session_create(&info, options, &session);
  EXPECT_EQ(status == HWAGENT_OK, session != nullptr);
  hwagent_session_destroy(session);
  return status;
}

TEST(Runtime, VersionAndModelErrors) {
  EXPECT_EQ(hwagent_rt_api_version(), HWAGENT_RT_API_VERSION);
  EXPECT_EQ(std::string(hwagent_backend_name(HWAGENT_BACKEND_ANE)), "ane");
  EXPECT_EQ(std::string(hwagent_backend_name(7)), "unknown");
  hwagent_session_t *none = nullptr;
  EXPECT_EQ(hwagent_session_create(nullptr, nullptr, &none),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()), "no model");

  ModelBuilder model = twoPrograms();
  hwagent_model_info_t info = model.info();
  info.version = 99;
  EXPECT_EQ(create(info), HWAGENT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hwagent_error_message()).find("version 99"),
            std::string::npos);

  // Assigned to a backend without a variant; no CPU variant.
  ModelBuilder bad = twoPrograms();
  bad.model.programs[1].assigned = HWAGENT_BACKEND_ANE;
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()),
            "program 1: is assigned to a backend it has no variant for");
  bad = twoPrograms();
  bad.model.programs[0].legal_mask = 2;
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()),
            "program 0: has no CPU variant to fall back to");
  // Edges naming programs the model lacks; a non-finite prediction; a
  // region naming a program the model lacks.
  bad = twoPrograms();
  bad.edge(0, 7, 4);
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()),
            "edge 2: names unknown program 7");
  bad = twoPrograms();
  bad.model.programs[0].predicted[1] = std::nan("");
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  bad = twoPrograms();
  bad.model.programs[0].predicted[1] = INFINITY;
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  bad = twoPrograms();
  bad.model.regions[1].program = 5;
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  // Region times are checked like programs' (a profile written from them
  // once held null seconds the compiler's own reader rejects).
  for (double v : {std::nan(""), double(INFINITY), -1e-3}) {
    bad = twoPrograms();
    bad.model.regions[1].predicted[0] = v;
    EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT) << v;
    EXPECT_NE(std::string(hwagent_error_message())
                  .find("region 1: predicted time on cpu must be finite"),
              std::string::npos)
        << hwagent_error_message();
  }
  bad = twoPrograms();
  bad.link(0, 1, 0, 0, 0);
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);

  // Switching prices (model info v3): finite, non-negative, named.
  bad = twoPrograms();
  bad.compile(HWAGENT_BACKEND_ANE, 0.011, std::nan(""));
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()),
            "compile time of backend ane must be finite and >= 0");
  bad = twoPrograms();
  bad.compile(HWAGENT_BACKEND_ANE, 0.011, 1e-8, -1);
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()),
            "compile limit of backend ane must be >= 0 (0: none), got -1");
  bad = twoPrograms();
  bad.weights(-4);
  EXPECT_EQ(create(bad.info()), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()),
            "program 1: weight bytes must be >= 0");

  // Numeric options out of range are refused, with the option named.
  info = model.info();
  for (int field = 0; field < 8; ++field) {
    hwagent_options_t options;
    hwagent_options_init(&options);
    if (field == 0)
      options.sim_noise = -0.1;
    else if (field == 1)
      options.explore_every = -1;
    else if (field == 2)
      options.explore_budget = 1.5;
    else if (field == 3)
      options.horizon = std::nan("");
    else if (field == 4)
      options.cpu_threads = -2;
    else if (field == 5) // issue 38: 2^31-1 threads per loop
      options.cpu_threads = 2147483647;
    else if (field == 6)
      options.fault_program = -5;
    else
      options.fault_step = -7;
    EXPECT_EQ(create(info, &options), HWAGENT_INVALID_ARGUMENT) << field;
    EXPECT_NE(std::string(hwagent_error_message()).find("option "),
              std::string::npos);
  }
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.fault_program = 99999;
  EXPECT_EQ(create(info, &options), HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(hwagent_error_message()),
            "fault_program 99999: the model has 2 programs");
  hwagent_options_t wrong;
  hwagent_options_init(&wrong);
  wrong.struct_size = 8;
  EXPECT_EQ(create(info, &wrong), HWAGENT_VERSION_MISMATCH);
}

TEST(Runtime, SelectFollowsModelForceAndPins) {
  {
    Session s;
    ASSERT_EQ(s.status, HWAGENT_OK);
    EXPECT_EQ(hwagent_session_num_programs(s.session), 2u);
    EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_ANE);
    EXPECT_EQ(hwagent_rt_select(1), HWAGENT_BACKEND_CPU);
    EXPECT_EQ(hwagent_rt_select(42), HWAGENT_BACKEND_CPU); // unknown: CPU
    EXPECT_EQ(hwagent_session_pin(s.session, 0, HWAGENT_BACKEND_CPU),
              HWAGENT_OK);
    EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_CPU);
    EXPECT_EQ(hwagent_session_pin(s.session, 1, HWAGENT_BACKEND_ANE),
              HWAGENT_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(hwagent_error_message()),
              "program 1 has no variant on backend ane");
    EXPECT_EQ(hwagent_session_pin(s.session, 7, HWAGENT_BACKEND_CPU),
              HWAGENT_NOT_FOUND);
  }
  Session cpu(twoPrograms(), HWAGENT_BACKEND_CPU);
  EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_CPU);
  Session ane(twoPrograms(), HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_select(0), HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_select(1), HWAGENT_BACKEND_CPU); // no variant there
}

TEST(Runtime, SimulatedTimesFaultsAndPerStepCounts) {
  Session s(twoPrograms(), -1, /*faultProgram=*/0);
  ASSERT_EQ(s.status, HWAGENT_OK);
  hwagent_rt_begin(0, HWAGENT_BACKEND_ANE);
  EXPECT_EQ(hwagent_rt_end(0, HWAGENT_BACKEND_ANE, 0), 1); // injected
  hwagent_rt_begin(0, HWAGENT_BACKEND_CPU);
  EXPECT_EQ(hwagent_rt_end(0, HWAGENT_BACKEND_CPU, 0), 0);
  hwagent_rt_begin(1, HWAGENT_BACKEND_CPU);
  EXPECT_EQ(hwagent_rt_end(1, HWAGENT_BACKEND_CPU, 1), 0); // CPU never faults
  ASSERT_EQ(hwagent_session_end_step(s.session, 1.5), HWAGENT_OK);

  hwagent_program_stats_t p;
  ASSERT_EQ(hwagent_session_program_stats(s.session, 0, &p), HWAGENT_OK);
  EXPECT_EQ(p.program, 0);
  EXPECT_EQ(p.executions[HWAGENT_BACKEND_ANE], 1);
  EXPECT_EQ(p.executions[HWAGENT_BACKEND_CPU], 1);
  EXPECT_EQ(p.faults, 1);
  // The ANE is charged the model's prediction (no noise), not its wall time.
  EXPECT_DOUBLE_EQ(p.seconds[HWAGENT_BACKEND_ANE], 2e-4);
  EXPECT_EQ(hwagent_session_program_stats(s.session, 2, &p), HWAGENT_NOT_FOUND);

  hwagent_step_stats_t step;
  ASSERT_EQ(hwagent_session_step_stats(s.session, &step), HWAGENT_OK);
  EXPECT_EQ(step.steps, 1);
  EXPECT_EQ(step.faults, 1);
  EXPECT_EQ(step.launches, 3);
  EXPECT_EQ(step.cpu_measured, 1);
  EXPECT_NEAR(step.share[0] + step.share[1] + step.share[2], 1.0, 1e-9);
  EXPECT_GE(step.last_step_seconds, 2e-4);
  // The next step counts its own faults, not the total.
  hwagent_rt_begin(1, HWAGENT_BACKEND_CPU);
  hwagent_rt_end(1, HWAGENT_BACKEND_CPU, 0);
  ASSERT_EQ(hwagent_session_end_step(s.session, 1.0), HWAGENT_OK);
  ASSERT_EQ(hwagent_session_step_stats(s.session, &step), HWAGENT_OK);
  EXPECT_EQ(step.faults, 0);
  EXPECT_EQ(step.launches, 1);
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
  hwagent_program_stats_t p;
  ASSERT_EQ(hwagent_session_program_stats(s.session, 1, &p), HWAGENT_OK);
  EXPECT_EQ(p.executions[HWAGENT_BACKEND_CPU], threads * iterations);
}

TEST(Runtime, TelemetryWithoutASession) {
  hwagent_telemetry_t t;
  ASSERT_EQ(hwagent_telemetry_read(&t), HWAGENT_OK);
  EXPECT_GT(t.free_memory_bytes, 0);
  EXPECT_GE(t.utilization[HWAGENT_BACKEND_CPU], 0.0);
  EXPECT_LE(t.utilization[HWAGENT_BACKEND_CPU], 1.0);
  EXPECT_EQ(hwagent_telemetry_read(nullptr), HWAGENT_INVALID_ARGUMENT);
}

std::string writeFile(const std::string &name, const std::string &text) {
  std::string path = testing::TempDir() + name;
  FILE *f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

std::string readFile(const std::string &path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(Runtime, ScenarioSlowsSimulatedBackends) {
  std::string path = writeFile("scenario.txt", "hwagent-scenario 1\n"
                                               "# another app takes the ANE\n"
                                               "at 1 ane slowdown 3\n"
                                               "at 2 thermal serious\n");
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.scenario_path = path.c_str();
  ModelBuilder model = twoPrograms();
  hwagent_model_info_t info = model.info();
  hwagent_session_t *s = nullptr;
  ASSERT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
  hwagent_session_make_current(s);
  // The events, as the runtime parsed them.
  ASSERT_EQ(hwagent_session_scenario_events(s, nullptr, 0), 2u);
  hwagent_scenario_event_t events[2];
  ASSERT_EQ(hwagent_session_scenario_events(s, events, 2), 2u);
  EXPECT_EQ(events[0].step, 1);
  EXPECT_EQ(events[0].backend, HWAGENT_BACKEND_ANE);
  EXPECT_DOUBLE_EQ(events[0].slowdown, 3.0);
  EXPECT_EQ(events[1].backend, -1);
  EXPECT_EQ(events[1].thermal_state, HWAGENT_THERMAL_SERIOUS);
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
  ModelBuilder model = twoPrograms();
  hwagent_model_info_t info = model.info();
  for (const char *text :
       {"", "hwagent-scenario 2\n", "hwagent-scenario 1\nat x ane slowdown 2\n",
        "hwagent-scenario 1\nat 3 ane slowdown 0.5\n",
        "hwagent-scenario 1\nat 3 ane slowdown inf\n",
        "hwagent-scenario 1\nat 3 ane slowdown nan\n",
        "hwagent-scenario 1\nat -3 ane slowdown 2\n",
        "hwagent-scenario 1\nat 3 tpu slowdown 2\n",
        "hwagent-scenario 1\nat 3 thermal hot\n"}) {
    std::string path = writeFile("bad.txt", text);
    hwagent_options_t options;
    hwagent_options_init(&options);
    options.scenario_path = path.c_str();
    EXPECT_EQ(create(info, &options), HWAGENT_INVALID_ARGUMENT) << text;
    if (*text) {
      EXPECT_NE(std::string(hwagent_error_message()).find("line"),
                std::string::npos)
          << text;
    }
  }
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.scenario_path = "/nonexistent/scenario";
  EXPECT_EQ(create(info, &options), HWAGENT_IO_ERROR);
  EXPECT_NE(std::string(hwagent_error_message()).find("/nonexistent/scenario"),
            std::string::npos);
}

TEST(Runtime, OutputsThatCannotBeWrittenAreErrors) {
  ModelBuilder model = twoPrograms();
  hwagent_model_info_t info = model.info();
  for (int output = 0; output < 2; ++output) {
    hwagent_options_t options;
    hwagent_options_init(&options);
    const char *missing = "/nonexistent/dir/out.json";
    (output == 0 ? options.log_path : options.trace_path) = missing;
    EXPECT_EQ(create(info, &options), HWAGENT_IO_ERROR);
    EXPECT_NE(std::string(hwagent_error_message()).find(missing),
              std::string::npos);
  }
  // The profile is written at destroy, but a path that cannot be written
  // fails the session's creation, before any step ran.
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.profile_out = "/nonexistent/dir/profile.json";
  hwagent_session_t *s = nullptr;
  EXPECT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_IO_ERROR);
  EXPECT_NE(std::string(hwagent_error_message()).find("profile.json"),
            std::string::npos);
  // A full device: only writing finds out, and destroy says so.
  options.profile_out = "/dev/full";
  ASSERT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
  EXPECT_EQ(hwagent_session_destroy(s), HWAGENT_IO_ERROR);
}

TEST(Runtime, LogTraceAndProfileAreValidAndComplete) {
  std::string log = testing::TempDir() + "run.jsonl";
  std::string trace = testing::TempDir() + "trace.json";
  std::string profile = testing::TempDir() + "profile.json";
  std::remove(trace.c_str());
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.log_path = log.c_str();
  options.trace_path = trace.c_str();
  options.profile_out = profile.c_str();
  ModelBuilder model = twoPrograms();
  hwagent_model_info_t info = model.info();
  hwagent_session_t *s = nullptr;
  ASSERT_EQ(hwagent_session_create(&info, &options, &s), HWAGENT_OK);
  hwagent_session_make_current(s);
  for (int step = 0; step < 3; ++step) {
    hwagent_rt_begin(0, HWAGENT_BACKEND_ANE);
    hwagent_rt_end(0, HWAGENT_BACKEND_ANE, 0);
    // A non-finite loss is logged as null, never as a bare inf/nan.
    hwagent_session_end_step(s, step == 2 ? INFINITY : 1.0);
  }
  // Metric names that would overwrite the record's fields or break its
  // JSON (issue 38) are refused, and nothing is thrown through the C ABI.
  double value = 1;
  for (const char *key : {"type", "step", "w1\xFF", ""}) {
    EXPECT_EQ(hwagent_session_log_metrics(s, "eval", &key, &value, 1),
              HWAGENT_INVALID_ARGUMENT)
        << key;
  }
  const char *accuracy = "accuracy";
  EXPECT_EQ(hwagent_session_log_metrics(s, "eval\xC0", &accuracy, &value, 1),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(hwagent_session_log_metrics(s, "eval", &accuracy, &value, 1),
            HWAGENT_OK);
  // The trace is streamed to a temporary file and appears complete.
  EXPECT_FALSE(std::ifstream(trace).good());
  ASSERT_EQ(hwagent_session_destroy(s), HWAGENT_OK);
  std::string text = readFile(log);
  EXPECT_NE(text.find("\"loss\":null"), std::string::npos);
  EXPECT_EQ(text.find("inf"), std::string::npos);
  std::string traced = readFile(trace);
  EXPECT_NE(traced.find("\"traceEvents\""), std::string::npos);
  EXPECT_EQ(traced.substr(traced.size() - 4), "\n]}\n");
  EXPECT_FALSE(std::ifstream(trace + ".tmp").good());
  std::string measured = readFile(profile);
  EXPECT_NE(measured.find("\"hwagent.profile-db\""), std::string::npos);
  EXPECT_NE(measured.find("\"00000000000000a0\""), std::string::npos);
}

} // namespace

// Found by scripts/fuzz: a valid but enormous predicted time (here 1e300 s
// on the simulated ANE) overflowed the int64 nanosecond counters (undefined
// behaviour). The charge saturates; the step still closes.
TEST(Runtime, EnormousPredictedTimesSaturate) {
  ModelBuilder model;
  model.program(HWAGENT_BACKEND_ANE, {1e-3, 1e300, 0});
  Session s(model);
  ASSERT_EQ(s.status, HWAGENT_OK) << hwagent_error_message();
  int32_t backend = hwagent_rt_select(0);
  EXPECT_EQ(backend, HWAGENT_BACKEND_ANE);
  hwagent_rt_begin(0, backend);
  EXPECT_EQ(hwagent_rt_end(0, backend, 0), 0);
  EXPECT_EQ(hwagent_session_end_step(s.session, 1.0), HWAGENT_OK);
  hwagent_step_stats_t stats = {};
  ASSERT_EQ(hwagent_session_step_stats(s.session, &stats), HWAGENT_OK);
  EXPECT_TRUE(std::isfinite(stats.last_step_seconds));
  EXPECT_DOUBLE_EQ(stats.last_step_seconds, 1e6); // the per-execution cap
}
