#include "json_input.h"

#include "message_text.h"

namespace shardlab::data::internal {

Status with_origin(const Status& status, const std::string& origin) {
  const std::string msg = printable(origin + ": " + status.message());
  return status.code() == StatusCode::kIo ? Status::io_error(msg) : Status::invalid_argument(msg);
}

}  // namespace shardlab::data::internal
