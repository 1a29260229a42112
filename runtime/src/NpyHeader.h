//===- NpyHeader.h - NumPy .npy headers, parsed as NumPy parses them ------===//
//
// The .npy header is a Python dict literal that NumPy reads with
// ast.literal_eval and then checks (numpy/lib/format.py). This parser
// accepts what that accepts for the dtypes hwagent has and refuses, with a
// message, what NumPy refuses: a header that is not exactly one dict of the
// keys 'descr', 'fortran_order' and 'shape' (a repeated key: the last wins,
// as in Python), a shape that is not a tuple of integers, a header longer
// than NumPy's 10,000-byte limit.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_NPYHEADER_H
#define HWAGENT_RT_NPYHEADER_H

#include "absl/status/statusor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hwagent_rt {

/// NumPy's default `max_header_size`: a longer header is refused.
inline constexpr size_t kNpyMaxHeaderBytes = 10000;
/// Bytes that always hold a whole (accepted) .npy header.
inline constexpr size_t kNpyMaxPrefixBytes = 12 + kNpyMaxHeaderBytes;

struct NpyHeader {
  int32_t dtype = -1;
  std::vector<int64_t> shape;
  /// Offset of the data from the start of the image.
  size_t dataStart = 0;
  /// Bytes of data the shape and dtype promise.
  uint64_t dataBytes = 0;
};

/// Parses the header at the start of the `size` bytes at `bytes` (which may
/// be only a prefix of the image); `where` names it in errors.
absl::StatusOr<NpyHeader> parseNpyHeader(const char *bytes, size_t size,
                                         const std::string &where);

} // namespace hwagent_rt

#endif // HWAGENT_RT_NPYHEADER_H
