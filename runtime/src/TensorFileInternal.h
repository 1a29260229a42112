//===- TensorFileInternal.h - safetensors parsing and naming rules -*- C++ -*-//
//
// Shared by the tensor-file reader (TensorFile.cpp) and the safetensors
// reader and writer (Safetensors.cpp), so that a name or a header the writer
// accepts is one the reader reads back, and the other way round.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_TENSORFILEINTERNAL_H
#define HWAGENT_RT_TENSORFILEINTERNAL_H

#include "hwagent_rt/hwagent_tensor_file.h"

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hwagent_rt {

/// The reference implementation's cap on a safetensors header.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

/// Why `name` cannot name a tensor (empty, `__metadata__`, not UTF-8), or
/// an empty string if it can.
std::string badTensorName(absl::string_view name);

struct SafetensorsEntry {
  std::string name;
  hwagent_tensor_t tensor = {};
};

/// Parses the safetensors image of `size` bytes at `bytes`: its tensors,
/// pointing into the image, in the header's order, and its `__metadata__`.
absl::Status parseSafetensors(const char *bytes, size_t size,
                              const std::string &path,
                              std::vector<SafetensorsEntry> &entries,
                              std::map<std::string, std::string> &metadata);

} // namespace hwagent_rt

#endif // HWAGENT_RT_TENSORFILEINTERNAL_H
