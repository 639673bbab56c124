// Test helpers shared by the data, CLI and hostile-input suites: whether a
// message is one printable line of valid UTF-8 (no control characters, no
// newline), as every error message ShardLab prints must be, and whether an
// output holds a character that may not reach a terminal raw.
#pragma once

#include <cstddef>
#include <string_view>

namespace shardlab::testing_support {

// Written independently of the code under test: C0 controls, DEL, C1
// controls, the line and paragraph separators, and the bidirectional
// formatting characters (Unicode's Bidi_Control property).
inline bool is_unsafe_for_terminals(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// The first offset of `s` that is invalid UTF-8 or a character unsafe for
// terminals (line feeds and tabs allowed when `lines`), or npos.
inline std::size_t first_unsafe(std::string_view s, bool lines) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t len = b < 0x80             ? 1
                            : (b & 0xE0) == 0xC0 ? 2
                            : (b & 0xF0) == 0xE0 ? 3
                            : (b & 0xF8) == 0xF0 ? 4
                                                 : 0;
    if (len == 0 || i + len > s.size()) return i;
    char32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (is_unsafe_for_terminals(cp) && !(lines && (cp == '\n' || cp == '\t'))) return i;
    i += len;
  }
  return std::string_view::npos;
}

inline bool is_printable_utf8_line(std::string_view s) {
  return first_unsafe(s, /*lines=*/false) == std::string_view::npos;
}

}  // namespace shardlab::testing_support
