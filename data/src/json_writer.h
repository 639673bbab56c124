// A streaming JSON writer: appends to one string as values are written, so
// large documents (an options list of 10^5 shards) need no tree in memory.
//
// Layout matches nlohmann-json's dump(): with indent N >= 0 each member or
// element goes on its own line indented N spaces per level, "key": value, and
// empty containers stay "{}" / "[]"; with indent < 0 the document is one line
// without spaces.
//
// Numbers:
//  - doubles are written in their shortest round-trip form, laid out as
//    Python's repr() lays them out (fixed for 1e-4 <= |x| < 1e16 with at least
//    one digit after the point, "1e-05" / "1.5e+16" otherwise), so parsing the
//    text gives back the same double and numbers read like TorchRec's goldens;
//  - NaN and infinities, which JSON cannot express, are written as null.
// Strings are escaped as JSON requires; bytes that are not valid UTF-8 become
// U+FFFD so the output is always valid JSON.
//
// The caller keeps the structure well formed (REQUIRES noted per method);
// violations are asserted in debug builds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardlab::data::internal {

class JsonWriter {
 public:
  explicit JsonWriter(int indent) : indent_(indent) {}

  // Capacity hint for the document, in bytes.
  void reserve(size_t bytes) { out_.reserve(bytes); }

  void begin_object();
  void end_object();  // REQUIRES: innermost open container is an object, no pending key
  void begin_array();
  void end_array();  // REQUIRES: innermost open container is an array

  // REQUIRES: innermost open container is an object and no key is pending.
  void key(std::string_view k);

  // Each value goes after a key (in an object) or as an array element.
  void value(double v);
  void value(int64_t v);
  void value(int v) { value(static_cast<int64_t>(v)); }
  void value(bool v);
  void value(std::string_view v);
  void value(const char* v) { value(std::string_view(v)); }
  void value(const std::string& v) { value(std::string_view(v)); }
  void null();

  // key(k) then value(v).
  template <typename T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  void null_member(std::string_view k) {
    key(k);
    null();
  }

  // The document. REQUIRES: every container closed.
  std::string take() &&;

 private:
  struct Level {
    bool is_object;
    bool empty;
  };
  void before_value();
  void newline();
  void write_string(std::string_view s);

  int indent_;
  bool key_pending_ = false;
  std::vector<Level> stack_;
  std::string out_;
};

// Appends the shortest round-trip form of `v` in Python repr() layout
// (finite `v` only).
void append_double(std::string* out, double v);

// Writes `key` with the value, or null when there is none.
template <typename T>
void write_optional(JsonWriter& w, std::string_view key, const std::optional<T>& v) {
  w.key(key);
  if (v.has_value()) {
    w.value(*v);
  } else {
    w.null();
  }
}

}  // namespace shardlab::data::internal
