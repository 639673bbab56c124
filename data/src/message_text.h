// Text helpers for one-line error messages: quoting, truncation, and making
// arbitrary bytes (a binary file's contents, a non-UTF-8 path) safe to print
// and to write back into a JSON error object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "shardlab/data/message_text.h"

namespace shardlab::data::internal {

// Whether code point `cp` may not reach a terminal raw: C0 controls, DEL, C1
// controls (U+0080..U+009F), the line and paragraph separators and the
// bidirectional formatting characters (U+061C, U+200E, U+200F,
// U+202A..U+202E, U+2066..U+2069).
bool is_unsafe_code_point(uint32_t cp);

// Longest rendering of a user value in a message, in bytes (before "...").
inline constexpr std::size_t kMaxValueChars = 60;

// Shortens `text` to at most `max_bytes` without splitting a UTF-8 sequence,
// appending "..." when it cut something.
std::string truncate_utf8(std::string_view text, std::size_t max_bytes);

// `text` as a double-quoted JSON-style string, cut to about `max_bytes`.
std::string quote_truncated(std::string_view text, std::size_t max_bytes = kMaxValueChars);

// printable() and printable_lines() (shardlab/data/message_text.h), for the
// loader's code in this namespace.
using shardlab::data::printable;
using shardlab::data::printable_lines;

}  // namespace shardlab::data::internal
