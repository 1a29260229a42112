//===- Errors.cpp - the thread's last message -----------------------------===//
//
// The C API's error convention (Errors.h) for libhwagent_rt: one message
// per thread, set by every failing call and by the libraries beside the
// runtime through hwagent_set_error (hwagent_types.h).
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

#include <string>

namespace {
thread_local std::string lastError;
} // namespace

hwagent_status_t hwagent_rt::fail(hwagent_status_t code, std::string message) {
  lastError = std::move(message);
  return code;
}

extern "C" {

const char *hwagent_error_message(void) { return lastError.c_str(); }

hwagent_status_t hwagent_set_error(hwagent_status_t status,
                                   const char *message) {
  return hwagent_rt::fail(status, message ? message : "");
}

} // extern "C"
