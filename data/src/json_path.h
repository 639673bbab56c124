// Where a value sits inside a JSON document, for error messages
// (`tables[3].embedding_dim`, `constraints.t0.pooling_factors[2]`).
//
// A JsonPath is a chain of stack frames: each one points to its parent and
// holds one key or index. Building a child costs nothing (no allocation), so
// the readers can carry a path for every value they visit and render it only
// when something is wrong, which keeps 100k-table files fast.
//
// Lifetime: a JsonPath refers to its parent and to its key's characters.
// REQUIRES: both outlive it. In practice a child is created in the frame that
// reads the value and dies with it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shardlab::data::internal {

// Appends `.key` (or `["odd key"]` when the key is not a plain identifier, so
// that a table named "a.b" cannot be misread) to `out`. `out` empty means the
// key is at the top level, which takes no leading dot.
void append_path_key(std::string& out, std::string_view key);
// Appends `[index]`.
void append_path_index(std::string& out, std::size_t index);

class JsonPath {
 public:
  // The document's root.
  JsonPath() = default;

  JsonPath child(std::string_view key) const { return JsonPath(this, key, 0, Kind::kKey); }
  JsonPath at(std::size_t index) const { return JsonPath(this, {}, index, Kind::kIndex); }

  // "tables[3].embedding_dim"; the root renders as "<root>".
  std::string to_string() const;

 private:
  enum class Kind { kRoot, kKey, kIndex };
  JsonPath(const JsonPath* parent, std::string_view key, std::size_t index, Kind kind)
      : parent_(parent), key_(key), index_(index), kind_(kind) {}
  void append_to(std::string& out) const;

  const JsonPath* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  Kind kind_ = Kind::kRoot;
};

}  // namespace shardlab::data::internal
