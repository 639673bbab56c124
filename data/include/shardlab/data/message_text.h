// Making text from users and files safe to print: every front end quotes
// names and paths in its messages through these, so a file name or a scenario
// name with control bytes (a terminal escape, a newline) or invalid UTF-8
// cannot rewrite the terminal or break a one-line message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardlab::data {

// Replaces control characters (C0, DEL and C1), the line and paragraph
// separators, the bidirectional formatting characters (U+202E and the like:
// they reorder what a terminal shows) and bytes that are not valid UTF-8 by
// `\xNN`, byte by byte, so the result is valid UTF-8 on one line that shows
// what it holds. Printable text comes back unchanged.
std::string printable(std::string_view text);
// As printable, cut to about `max_bytes` (on a character boundary) with
// "..." when longer: for a value echoed in a message, which a user may have
// made megabytes long.
std::string printable(std::string_view text, std::size_t max_bytes);

// How much of a name or path a message or table echoes (a name may be
// megabytes long; a path is at most 4,096 bytes).
inline constexpr std::size_t kMaxShownBytes = 4096;
// printable(text, kMaxShownBytes).
std::string shown(std::string_view text);

// Ids or ranks for people: "3,5-7" (`ids` ascending, runs of consecutive
// ids joined); "" for none.
std::string format_id_list(const std::vector<int64_t>& ids);

// As printable, but keeps line breaks ('\n') and tabs: for messages that are
// several lines by design (an integrity report, TorchRec's hints).
std::string printable_lines(std::string_view text);

// The safety net under every output stream (docs/outputs.md "Names in
// outputs"): appends `text` to `out` with each character printable() escapes,
// but line feeds and tabs, written as `\uXXXX` (a valid escape inside a JSON
// string, so JSON keeps its meaning) and each invalid UTF-8 byte as `\xNN`.
// Returns the bytes of `text` consumed: all of them when `final`, else all
// but a UTF-8 sequence cut by the end of `text`, which the caller passes
// again in front of what follows.
std::size_t append_output_safe(std::string& out, std::string_view text, bool final);

// `text` double-quoted for a message, escaped as printable() does (and `"`,
// `\` as in JSON), cut to about `max_bytes` with "..." when longer.
std::string quoted(std::string_view text, std::size_t max_bytes = 60);

}  // namespace shardlab::data
