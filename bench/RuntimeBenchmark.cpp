//===- RuntimeBenchmark.cpp - runtime overhead per program execution
//-------===//
//
// select + begin + end for one program, as generated code calls them (logging
// and tracing off), with the adaptive model's update per execution or
// without. Target (issue 6): <= 100 ns median.
//
//   build/bin/hwagent-bench-runtime --benchmark_repetitions=10
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"
#include "hwagent_rt/hwagent_rt.h"

#include <benchmark/benchmark.h>

namespace {

void programOverhead(benchmark::State &state) {
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.force_backend = static_cast<int32_t>(state.range(0));
  options.adaptive = static_cast<int32_t>(state.range(1));
  hwagent_test::ModelBuilder model("bench");
  model.program(HWAGENT_BACKEND_CPU, {1e-3, 2e-4, 0});
  hwagent_model_info_t info = model.info();
  hwagent_session_t *session = nullptr;
  if (hwagent_session_create(&info, &options, &session) != HWAGENT_OK) {
    state.SkipWithError("session");
    return;
  }
  hwagent_session_make_current(session);
  for (auto _ : state) {
    int32_t backend = hwagent_rt_select(0);
    hwagent_rt_begin(0, backend);
    benchmark::DoNotOptimize(hwagent_rt_end(0, backend, 0));
  }
  hwagent_session_destroy(session);
}

} // namespace

BENCHMARK(programOverhead)
    ->ArgsProduct({{HWAGENT_BACKEND_CPU, HWAGENT_BACKEND_ANE}, {0, 1}})
    ->ArgNames({"backend", "adaptive"});

BENCHMARK_MAIN();
