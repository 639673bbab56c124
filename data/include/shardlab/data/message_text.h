// Making text from users and files safe to print: every front end quotes
// names and paths in its messages through these, so a file name or a scenario
// name with control bytes (a terminal escape, a newline) or invalid UTF-8
// cannot rewrite the terminal or break a one-line message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shardlab::data {

// Replaces control characters and bytes that are not valid UTF-8 by `\xNN`, so
// the result is valid UTF-8 on one line. Printable text comes back unchanged.
std::string printable(std::string_view text);

// As printable, but keeps line breaks ('\n') and tabs: for messages that are
// several lines by design (an integrity report, TorchRec's hints).
std::string printable_lines(std::string_view text);

// `text` double-quoted for a message, escaped as printable() does (and `"`,
// `\` as in JSON), cut to about `max_bytes` with "..." when longer.
std::string quoted(std::string_view text, std::size_t max_bytes = 60);

}  // namespace shardlab::data
