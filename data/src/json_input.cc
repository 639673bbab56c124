#include "json_input.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "message_text.h"

namespace shardlab::data::internal {

Result<std::string> read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  namespace fs = std::filesystem;
  const auto io_error = [&](const std::string& why) {
    return Status::io_error(printable(path + ": cannot read " + std::string(what) + ": " + why));
  };
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return io_error(ec ? ec.message() : "no such file");
  if (fs::is_directory(st)) return io_error("is a directory");
  if (!fs::is_regular_file(st) && !fs::is_fifo(st)) return io_error("not a regular file");

  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(std::strerror(errno));
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) return io_error("larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  if (in.bad()) return io_error("read error");
  return text;
}

Status with_origin(const Status& status, const std::string& origin) {
  const std::string msg = printable(origin + ": " + status.message());
  return status.code() == StatusCode::kIo ? Status::io_error(msg) : Status::invalid_scenario(msg);
}

}  // namespace shardlab::data::internal
