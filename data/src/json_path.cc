#include "json_path.h"

#include "message_text.h"

namespace shardlab::data::internal {
namespace {

// Keys longer than this are cut in paths; the full key is rarely useful in a
// one-line message and an adversarial file could make it megabytes long.
constexpr std::size_t kMaxKeyChars = 60;

bool is_plain_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void append_path_key(std::string& out, std::string_view key) {
  if (is_plain_key(key) && key.size() <= kMaxKeyChars) {
    if (!out.empty()) out += '.';
    out += key;
    return;
  }
  out += '[';
  out += quote_truncated(key, kMaxKeyChars);
  out += ']';
}

void append_path_index(std::string& out, std::size_t index) {
  out += '[';
  out += std::to_string(index);
  out += ']';
}

void JsonPath::append_to(std::string& out) const {
  if (parent_ != nullptr) parent_->append_to(out);
  switch (kind_) {
    case Kind::kRoot:
      break;
    case Kind::kKey:
      append_path_key(out, key_);
      break;
    case Kind::kIndex:
      append_path_index(out, index_);
      break;
  }
}

std::string JsonPath::to_string() const {
  std::string out;
  append_to(out);
  return out.empty() ? std::string("<root>") : out;
}

}  // namespace shardlab::data::internal
