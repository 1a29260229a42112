//===- CApi.cpp - the C ABI of libhwagent_rt ------------------------------===//
//
// Thin shims from hwagent_rt.h onto hwagent_rt::Session. Failures return a
// status code and leave their message for hwagent_error_message()
// (Errors.cpp); the library never prints.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_rt.h"

#include "Errors.h"
#include "Session.h"
#include "Utf8.h"
#include "Vocabulary.h"

#include "absl/strings/str_cat.h"

#include <atomic>
#include <chrono>
#include <string>

struct hwagent_session {
  std::unique_ptr<hwagent_rt::Session> impl;
};

using hwagent_rt::fail;
using hwagent_rt::report;

namespace {

std::atomic<hwagent_session *> currentSession{nullptr};

/// The execution a thread has open between begin and end.
struct OpenExecution {
  int64_t program = -1;
  int64_t start = 0;
};
thread_local OpenExecution openExecution;

int64_t nowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

hwagent_rt::Session *implOf(const hwagent_session_t *session) {
  return session ? session->impl.get() : nullptr;
}

} // namespace

/// The C ABI's list convention: writes at most `capacity` entries of
/// `all` to `out`, returns how many there are.
template <typename T>
static uint32_t copyOut(const std::vector<T> &all, T *out, uint32_t capacity) {
  for (uint32_t i = 0; i < capacity && i < all.size(); ++i)
    out[i] = all[i];
  return static_cast<uint32_t>(all.size());
}

extern "C" {

uint32_t hwagent_rt_api_version(void) { return HWAGENT_RT_API_VERSION; }

const char *hwagent_backend_name(int32_t backend) {
  if (backend < 0 || backend >= HWAGENT_NUM_BACKENDS)
    return "unknown";
  return hwcore::backendName(static_cast<hwcore::BackendKind>(backend));
}

const char *hwagent_weight_update_name(int32_t mode) {
  if (mode < 0 || mode >= HWAGENT_NUM_WEIGHT_UPDATES)
    return "unknown";
  return hwcore::weightUpdateName(static_cast<hwcore::WeightUpdate>(mode));
}

const char *hwagent_objective_name(int32_t objective) {
  if (objective < 0 || objective >= HWAGENT_NUM_OBJECTIVES)
    return "unknown";
  return hwcore::objectiveName(static_cast<hwcore::Objective>(objective));
}

void hwagent_options_init(hwagent_options_t *options) {
  *options = hwagent_options_t{};
  options->struct_size = sizeof(hwagent_options_t);
  options->use_telemetry = 1;
  options->explore_every = 10;
  options->seed = 1;
  options->force_backend = -1;
  options->fault_program = -1;
  options->fault_step = -1;
  options->objective = -1;
  options->power_cap = -1;
}

hwagent_status_t hwagent_session_create(const hwagent_model_info_t *model,
                                        const hwagent_options_t *options,
                                        hwagent_session_t **session) {
  if (!session)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session to write");
  *session = nullptr;
  absl::StatusOr<std::unique_ptr<hwagent_rt::Session>> created =
      hwagent_rt::Session::create(model, options);
  if (!created.ok())
    return report(created.status());
  // The CPU kernels (matmuls, convolutions) use the threads the options
  // allow.
  hwagent_kernels_set_threads(options ? options->cpu_threads : 0);
  *session = new hwagent_session{std::move(*created)};
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_destroy(hwagent_session_t *session) {
  if (!session)
    return HWAGENT_OK;
  hwagent_session_t *expected = session;
  currentSession.compare_exchange_strong(expected, nullptr);
  absl::Status status = session->impl->finish();
  delete session;
  return report(status);
}

void hwagent_session_make_current(hwagent_session_t *session) {
  currentSession.store(session);
}

hwagent_status_t hwagent_session_pin(hwagent_session_t *session,
                                     int64_t program, int32_t backend) {
  if (!session)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session");
  return report(session->impl->pin(program, backend));
}

hwagent_status_t hwagent_session_set_objective(hwagent_session_t *session,
                                               int32_t objective,
                                               double power_cap) {
  if (!session)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session");
  return report(session->impl->setObjective(objective, power_cap));
}

const char *hwagent_session_energy_counter(const hwagent_session_t *session) {
  if (!session || session->impl->energyCounterName().empty())
    return nullptr;
  return session->impl->energyCounterName().c_str();
}

hwagent_status_t hwagent_session_end_step(hwagent_session_t *session,
                                          double loss) {
  if (!session)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session");
  return report(session->impl->endStep(loss));
}

hwagent_status_t hwagent_session_log_metrics(hwagent_session_t *session,
                                             const char *type,
                                             const char *const *keys,
                                             const double *values,
                                             uint32_t count) {
  if (!session || !type || (count && (!keys || !values)))
    return fail(HWAGENT_INVALID_ARGUMENT, "hwagent_session_log_metrics: bad "
                                          "arguments");
  if (!hwagent_rt::isUtf8(type))
    return fail(HWAGENT_INVALID_ARGUMENT,
                "hwagent_session_log_metrics: the type is not UTF-8");
  std::vector<std::pair<std::string, double>> metrics;
  for (uint32_t i = 0; i < count; ++i) {
    if (!keys[i] || !*keys[i])
      return fail(HWAGENT_INVALID_ARGUMENT, "a metric without a name");
    absl::string_view key = keys[i];
    // The record's own fields are not the caller's to overwrite.
    if (key == "type" || key == "step" || !hwagent_rt::isUtf8(key))
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat("metric ", i,
                               ": a name must be UTF-8 and neither 'type' "
                               "nor 'step' (the record's own fields)"));
    metrics.emplace_back(keys[i], values[i]);
  }
  return report(session->impl->logMetrics(type, metrics));
}

hwagent_status_t hwagent_session_discard_step(hwagent_session_t *session) {
  if (!session)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session");
  session->impl->discardStep();
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_flush(hwagent_session_t *session) {
  if (!session)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session");
  return report(session->impl->flush());
}

int32_t hwagent_rt_select(int64_t program) {
  hwagent_rt::Session *s =
      implOf(currentSession.load(std::memory_order_acquire));
  return s ? s->select(program) : HWAGENT_BACKEND_CPU;
}

void hwagent_rt_begin(int64_t program, int32_t) {
  openExecution.program = program;
  openExecution.start = nowNanos();
}

int32_t hwagent_rt_end(int64_t program, int32_t backend, int32_t nonfinite) {
  int64_t end = nowNanos();
  hwagent_rt::Session *s =
      implOf(currentSession.load(std::memory_order_acquire));
  int64_t wall =
      openExecution.program == program ? end - openExecution.start : 0;
  openExecution.program = -1;
  return s ? s->end(program, backend, nonfinite, wall) : 0;
}

hwagent_status_t hwagent_telemetry_read(hwagent_telemetry_t *telemetry) {
  if (!telemetry)
    return fail(HWAGENT_INVALID_ARGUMENT, "no telemetry to write");
  static hwagent_rt::Mutex mutex;
  static hwagent_rt::CpuUtilization cpu;
  hwagent_rt::MutexLock lock(&mutex);
  *telemetry = hwagent_rt::readHostTelemetry(cpu);
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_telemetry(hwagent_session_t *session,
                                           hwagent_telemetry_t *telemetry) {
  if (!session || !telemetry)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session or telemetry");
  *telemetry = session->impl->telemetry();
  return HWAGENT_OK;
}

uint32_t hwagent_session_scenario_events(const hwagent_session_t *session,
                                         hwagent_scenario_event_t *events,
                                         uint32_t capacity) {
  if (!session)
    return 0;
  const auto &scenario = session->impl->getScenario();
  for (uint32_t i = 0; i < capacity && i < scenario.size(); ++i)
    events[i] = {scenario[i].step,      scenario[i].backend,
                 scenario[i].thermal,   scenario[i].slowdown,
                 scenario[i].objective, 0,
                 scenario[i].powerCap};
  return static_cast<uint32_t>(scenario.size());
}

hwagent_status_t hwagent_session_regret(const hwagent_session_t *session,
                                        hwagent_regret_t *regret) {
  if (!session || !regret)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session or regret");
  *regret = session->impl->regret();
  return HWAGENT_OK;
}

uint32_t hwagent_session_switch_steps(const hwagent_session_t *session,
                                      int64_t *steps, uint32_t capacity) {
  return session ? copyOut(session->impl->switchSteps(), steps, capacity) : 0;
}

uint32_t hwagent_session_event_outcomes(const hwagent_session_t *session,
                                        hwagent_event_outcome_t *outcomes,
                                        uint32_t capacity) {
  return session ? copyOut(session->impl->eventOutcomes(), outcomes, capacity)
                 : 0;
}

uint32_t hwagent_session_num_programs(const hwagent_session_t *session) {
  return session ? uint32_t(session->impl->getModel().programs.size()) : 0;
}

hwagent_status_t hwagent_session_program_stats(const hwagent_session_t *session,
                                               uint32_t index,
                                               hwagent_program_stats_t *stats) {
  if (!session || !stats)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session or stats");
  if (index >= session->impl->getModel().programs.size())
    return fail(HWAGENT_NOT_FOUND, "no program " + std::to_string(index));
  *stats = session->impl->programStats(index);
  return HWAGENT_OK;
}

hwagent_status_t hwagent_session_step_stats(const hwagent_session_t *session,
                                            hwagent_step_stats_t *stats) {
  if (!session || !stats)
    return fail(HWAGENT_INVALID_ARGUMENT, "no session or stats");
  *stats = session->impl->stepStats();
  return HWAGENT_OK;
}

} // extern "C"
