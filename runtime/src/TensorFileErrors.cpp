//===- TensorFileErrors.cpp - libhwagent_tensorfile's messages ------------===//
//
// The shared tensor-file library reports its errors where the C API reads
// them: the runtime's message of the thread (hwagent_set_error), so that
// hwagent_error_message() after a failed tensor-file call says why. The
// static library links the runtime's own hwagent_rt::fail instead.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

hwagent_status_t hwagent_rt::fail(hwagent_status_t code, std::string message) {
  return hwagent_set_error(code, message.c_str());
}
