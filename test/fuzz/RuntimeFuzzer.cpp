//===- RuntimeFuzzer.cpp - libFuzzer harness for the runtime's inputs -----===//
//
// Byte 0 picks the input: a scenario file's text (parseScenario), or a model
// info struct built from the bytes and handed to the C ABI as a compiler or
// another tool would (hwagent_session_create), then a few steps of
// select/begin/end. Bad input must come back as a status with a message,
// never a crash. Built and run by scripts/fuzz (docs/building.md).
//
//===----------------------------------------------------------------------===//

#include "Telemetry.h"
#include "hwagent_rt/hwagent_rt.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static void fuzzModel(FuzzedDataProvider &in) {
  hwagent_model_info_t model = {};
  model.version = in.ConsumeBool() ? HWAGENT_MODEL_INFO_VERSION
                                   : in.ConsumeIntegral<uint32_t>();
  model.num_backends =
      in.ConsumeBool() ? HWAGENT_NUM_BACKENDS : in.ConsumeIntegral<uint32_t>();
  uint32_t regions = in.ConsumeIntegralInRange<uint32_t>(0, 12);
  uint32_t programs = in.ConsumeIntegralInRange<uint32_t>(0, 6);
  uint32_t edges = in.ConsumeIntegralInRange<uint32_t>(0, 12);
  std::vector<hwagent_region_info_t> r(regions);
  std::vector<hwagent_program_info_t> p(programs);
  std::vector<hwagent_edge_info_t> e(edges);
  auto real = [&] {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return in.ConsumeFloatingPoint<double>();
    case 1:
      return in.ConsumeFloatingPointInRange<double>(0, 1e-3);
    default:
      return double(in.ConsumeIntegralInRange<int>(0, 100)) * 1e-6;
    }
  };
  for (auto &x : r) {
    x.key = in.ConsumeIntegral<uint64_t>();
    x.flops = in.ConsumeIntegral<int64_t>();
    x.bytes = in.ConsumeIntegral<int64_t>();
    x.id = in.ConsumeIntegral<int32_t>();
    x.program = in.ConsumeIntegralInRange<int32_t>(-1, int32_t(programs));
    for (double &t : x.predicted)
      t = real();
    x.legal_mask = in.ConsumeIntegral<uint32_t>();
  }
  for (auto &x : p) {
    x.assigned = in.ConsumeIntegralInRange<int32_t>(-1, 3);
    x.legal_mask = in.ConsumeIntegral<uint32_t>();
    x.first_region = in.ConsumeIntegralInRange<uint32_t>(0, regions + 1);
    x.num_regions = in.ConsumeIntegralInRange<uint32_t>(0, regions + 1);
    for (double &t : x.predicted)
      t = real();
    x.flops = in.ConsumeIntegral<int64_t>();
    x.weight_bytes = in.ConsumeIntegral<int64_t>();
    for (int32_t &w : x.weight_update)
      w = in.ConsumeIntegralInRange<int32_t>(-1, 4);
    for (double &j : x.fixed_joules)
      j = real();
    // Compute-bound seconds: a share of the prediction, or anything.
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
      x.clocked[b] =
          in.ConsumeBool()
              ? x.predicted[b] * in.ConsumeFloatingPointInRange<double>(0, 1)
              : real();
  }
  for (auto &x : e) {
    x.from = in.ConsumeIntegralInRange<int32_t>(-2, int32_t(programs));
    x.to = in.ConsumeIntegralInRange<int32_t>(-2, int32_t(programs));
    x.bytes = in.ConsumeIntegral<int64_t>();
    x.convert_bytes = in.ConsumeIntegral<int64_t>();
  }
  for (auto &row : model.links)
    for (hwagent_link_info_t &link : row) {
      link.bandwidth = real();
      link.convert_bandwidth = real();
      link.sync = real();
    }
  for (double &c : model.compile)
    c = real();
  for (double &c : model.compile_per_byte)
    c = real();
  for (int64_t &c : model.max_compiles)
    c = in.ConsumeIntegralInRange<int64_t>(-1, 4);
  // The power model, what the step was partitioned for, and watts and
  // joules anywhere in [0, 1e6] as well as outside it.
  auto watts = [&] {
    return in.ConsumeBool() ? in.ConsumeFloatingPointInRange<double>(0, 1e6)
                            : real();
  };
  for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
    model.power.idle[b] = watts();
    model.power.running[b] = watts();
  }
  model.power.boundary = watts();
  model.power.boundary_per_byte = real();
  model.power.static_power = watts();
  // The clock model: the compiler's ranges, or anything.
  for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
    bool valid = in.ConsumeBool();
    model.clock.dvfs_exponent[b] =
        valid ? in.ConsumeFloatingPointInRange<double>(1, 6) : real();
    model.clock.min_clock[b] =
        valid ? in.ConsumeFloatingPointInRange<double>(0.05, 1) : real();
    model.clock.active[b] =
        valid ? model.power.running[b] *
                    in.ConsumeFloatingPointInRange<double>(0, 1)
              : real();
    model.clock.per_flop[b] = valid ? real() * 1e-12 : real();
  }
  model.objective = in.ConsumeIntegralInRange<int32_t>(-1, 3);
  model.power_cap = watts();
  std::string target = in.ConsumeRandomLengthString(16);
  model.target = in.ConsumeBool() ? target.c_str() : nullptr;
  model.num_regions =
      in.ConsumeBool() ? regions : in.ConsumeIntegral<uint32_t>() % 64;
  model.num_programs = programs;
  model.num_edges = edges;
  model.regions = regions ? r.data() : nullptr;
  model.programs = programs ? p.data() : nullptr;
  model.edges = edges ? e.data() : nullptr;
  if (model.num_regions > regions)
    model.num_regions = regions; // the struct's arrays are what they are

  hwagent_options_t options;
  hwagent_options_init(&options);
  options.adaptive = in.ConsumeBool();
  options.simulate_cpu = in.ConsumeBool();
  options.sim_noise = in.ConsumeFloatingPointInRange<double>(0, 1);
  options.objective = in.ConsumeIntegralInRange<int32_t>(-1, 2);
  options.power_cap = in.ConsumeBool() ? -1.0 : watts();
  hwagent_session_t *session = nullptr;
  if (hwagent_session_create(&model, &options, &session) != HWAGENT_OK) {
    if (session || !hwagent_error_message() || !*hwagent_error_message())
      std::abort(); // a refusal leaves no session and says why
    return;
  }
  hwagent_session_make_current(session);
  for (int step = 0; step < 3; ++step) {
    for (uint32_t program = 0; program < programs; ++program) {
      int32_t backend = hwagent_rt_select(program);
      hwagent_rt_begin(program, backend);
      hwagent_rt_end(program, backend, in.ConsumeBool());
    }
    hwagent_session_end_step(session, real());
    // The OS says: on battery, a low-power mode (refused out of range).
    if (in.ConsumeBool())
      hwagent_session_set_objective(
          session, in.ConsumeIntegralInRange<int32_t>(-1, 3), watts());
  }
  // The oracle's dynamic program and the per-change outcomes.
  hwagent_regret_t regret;
  hwagent_session_regret(session, &regret);
  hwagent_event_outcome_t outcomes[4];
  hwagent_session_event_outcomes(session, outcomes, 4);
  hwagent_session_destroy(session);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  if (data[0] % 2 == 0) {
    std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
    auto scenario = hwagent_rt::parseScenario(text);
    if (!scenario.ok() && scenario.status().message().empty())
      std::abort();
    return 0;
  }
  FuzzedDataProvider in(data + 1, size - 1);
  fuzzModel(in);
  return 0;
}
