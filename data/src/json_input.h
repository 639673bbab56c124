// Reading a JSON input (a scenario, a calibration profile) from its file, and
// prefixing what is wrong with it by where it came from.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "shardlab/planner/status.h"

namespace shardlab::data::internal {

// Largest scenario or plan file read: a 100k-table scenario is ~20 MB.
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{1} << 30;

// The whole of `path`: a regular file, or a pipe for `<(...)` (a device such
// as /dev/zero would never end). Refused past `max_bytes`. Errors are
// io_error, one printable line: "<path>: cannot read <what>: <why>".
Result<std::string> read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes);

// `status` with "<origin>: " in front, printable on one line; an io_error
// stays one, anything else becomes invalid_scenario.
Status with_origin(const Status& status, const std::string& origin);

}  // namespace shardlab::data::internal
