#include "json_input.h"

#include "message_text.h"

namespace shardlab::data::internal {

Status with_origin(const Status& status, const std::string& origin) {
  const std::string msg = printable(origin + ": " + status.message());
  switch (status.code()) {
    case StatusCode::kIo:
      return Status::io_error(msg);
    case StatusCode::kNotFound:
      return Status::not_found(msg);
    default:
      return Status::invalid_argument(msg);
  }
}

}  // namespace shardlab::data::internal
