//===- Utf8.h - whether text is well-formed UTF-8 ---------------*- C++ -*-===//
//
// Names the runtime writes into JSON (log keys, safetensors names and
// metadata) must be UTF-8: nlohmann::json throws on anything else, and no
// exception may cross the C ABI. Checked where the name enters.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_UTF8_H
#define HWAGENT_RT_UTF8_H

#include "absl/strings/string_view.h"

#include <cstddef>
#include <cstdint>

namespace hwagent_rt {

/// Whether `text` is well-formed UTF-8 (no overlong forms, no surrogates,
/// nothing above U+10FFFF).
inline bool isUtf8(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    int more = c < 0x80             ? 0
               : (c & 0xe0) == 0xc0 ? 1
               : (c & 0xf0) == 0xe0 ? 2
               : (c & 0xf8) == 0xf0 ? 3
                                    : -1;
    if (more < 0 || text.size() - i <= size_t(more))
      return false;
    uint32_t code = more ? c & (0x3f >> more) : c;
    for (int k = 1; k <= more; ++k) {
      unsigned char next = text[i + k];
      if ((next & 0xc0) != 0x80)
        return false;
      code = (code << 6) | (next & 0x3f);
    }
    static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (code < least[more] || code > 0x10ffff ||
        (code >= 0xd800 && code <= 0xdfff))
      return false;
    i += size_t(more) + 1;
  }
  return true;
}

} // namespace hwagent_rt

#endif // HWAGENT_RT_UTF8_H
