//===- Errors.h - status codes and the thread's last message ----*- C++ -*-===//
//
// The C ABI's error convention (hwagent_rt.h): a failing call returns a
// status and leaves its message for hwagent_error_message(); the library
// never prints. Every C entry point reports through these two.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_ERRORS_H
#define HWAGENT_RT_ERRORS_H

#include "hwagent_rt/hwagent_types.h"

#include "absl/status/status.h"

#include <cstddef>
#include <string>

namespace hwagent_rt {

/// Sets the thread's message; returns `code` (Errors.cpp; in the shared
/// tensor-file library TensorFileErrors.cpp).
hwagent_status_t fail(hwagent_status_t code, std::string message);
/// HWAGENT_OK, or the status code and message of `status`.
hwagent_status_t report(const absl::Status &status);

/// Memory for a compiled step (its buffers, the kernels' packing) could not
/// be had: generated code cannot take a null buffer, so the process stops
/// here with the reason on stderr and exit status 1 (the one place the
/// library prints).
[[noreturn]] void outOfMemory(size_t bytes, const char *what);

} // namespace hwagent_rt

#endif // HWAGENT_RT_ERRORS_H
