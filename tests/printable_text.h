// Test helper shared by the data and hostile-input suites: whether a message
// is one printable line of valid UTF-8 (no control characters, no newline),
// as every error message ShardLab prints must be.
#pragma once

#include <cstddef>
#include <string_view>

namespace shardlab::testing_support {

inline bool is_printable_utf8_line(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7F) return false;
    const std::size_t len = b < 0x80             ? 1
                            : (b & 0xE0) == 0xC0 ? 2
                            : (b & 0xF0) == 0xE0 ? 3
                            : (b & 0xF8) == 0xF0 ? 4
                                                 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

}  // namespace shardlab::testing_support
