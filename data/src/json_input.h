// Prefixing what is wrong with a JSON input (a scenario, a calibration
// profile) by where it came from. Reading the file is data/file_io.h's.
#pragma once

#include <string>

#include "shardlab/planner/status.h"

namespace shardlab::data::internal {

// `status` with "<origin>: " in front, printable on one line; an io_error
// stays one, anything else becomes kInvalidArgument.
Status with_origin(const Status& status, const std::string& origin);

}  // namespace shardlab::data::internal
