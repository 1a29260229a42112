//===- ErrorReport.cpp - an absl::Status as a status code -----------------===//
//
// Shared by libhwagent_rt and libhwagent_tensorfile: each reports through
// its own hwagent_rt::fail (Errors.cpp; TensorFileErrors.cpp forwards to
// the runtime's message).
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

hwagent_status_t hwagent_rt::report(const absl::Status &status) {
  if (status.ok())
    return HWAGENT_OK;
  hwagent_status_t code = HWAGENT_INVALID_ARGUMENT;
  switch (status.code()) {
  case absl::StatusCode::kFailedPrecondition:
    code = HWAGENT_VERSION_MISMATCH;
    break;
  case absl::StatusCode::kNotFound:
    code = HWAGENT_NOT_FOUND;
    break;
  case absl::StatusCode::kUnavailable:
    code = HWAGENT_IO_ERROR;
    break;
  default:
    break;
  }
  return fail(code, std::string(status.message()));
}
