// Typed, path-aware reading of a parsed JSON tree.
//
// Every reader takes the value and its JsonPath and returns the converted value
// or a kInvalidArgument Status whose message is one line:
//   "<path>: <what is wrong>: got <value>[, expected <what>]"
// (the loader prefixes the file name). Values are rendered as JSON and cut to
// about 60 characters. Nothing here throws: the tree's types are checked before
// any nlohmann accessor that could throw is used.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_document.h"
#include "json_path.h"
#include "problem_collector.h"
#include "shardlab/planner/limits.h"
#include "shardlab/planner/status.h"

namespace shardlab::data::internal {

// `v` as compact JSON, cut to about 60 characters.
std::string describe(const Json& v);

// "<path>: <what>[: got <value>][, expected <expected>]".
Status invalid_at(const JsonPath& path, std::string_view what, const Json* got = nullptr,
                  std::string_view expected = {});
// The same for a path already rendered ("tables[3].embedding_dim").
Status invalid_at(std::string path, std::string_view what, const Json* got = nullptr,
                  std::string_view expected = {});

// The planner's limit violation (shardlab/planner/limits.h) in the readers'
// style, its path rendered as JsonPath renders paths.
// `document`, when given, is the file the scenario was read from: the value
// at the violation's path is quoted from it as written (a double would round
// 99999999999999999).
Status limit_error(const planner::LimitViolation& violation, const Json* document = nullptr);

// ---- Converters: (value, path) -> Result<T>. --------------------------------

// An integer in [min, max]. Integral floats (1e9, 8.0) count as integers, since
// JSON does not tell them apart; 1.5, 1e20 and out-of-range values do not.
struct IntValue {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  Result<int64_t> operator()(const Json& v, const JsonPath& path) const;
};

// A number with a lower bound (inclusive, or exclusive with `min_exclusive`)
// and an inclusive upper bound. JSON has no NaN or infinity, so it is finite;
// subnormal values (closer to 0 than 2.2e-308, such as 1e-320) are refused,
// since quotients by them overflow.
struct NumberValue {
  double min = -std::numeric_limits<double>::max();
  bool min_exclusive = false;
  double max = std::numeric_limits<double>::max();
  Result<double> operator()(const Json& v, const JsonPath& path) const;
};

struct BoolValue {
  Result<bool> operator()(const Json& v, const JsonPath& path) const;
};

struct StringValue {
  bool non_empty = false;
  Result<std::string> operator()(const Json& v, const JsonPath& path) const;
};

// Bytes in [0, max]: an integer, or a unit string such as "32 GiB".
struct SizeValue {
  int64_t max = std::numeric_limits<int64_t>::max();
  Result<int64_t> operator()(const Json& v, const JsonPath& path) const;
};

// Bytes/ms in [planner::kMinBandwidth, planner::kMaxBandwidth]: a number, or
// a unit string such as "897 GiB/s".
struct BandwidthValue {
  Result<double> operator()(const Json& v, const JsonPath& path) const;
};

// One of a fixed set of names. `noun` names the vocabulary in messages
// ("sharding type"); `choices` lists the accepted names.
template <typename E>
struct EnumValue {
  std::string_view noun;
  std::optional<E> (*parse)(std::string_view);
  std::string_view choices;

  Result<E> operator()(const Json& v, const JsonPath& path) const {
    if (!v.is_string()) {
      return invalid_at(path, "must be a " + std::string(noun) + " name", &v,
                        "one of " + std::string(choices));
    }
    if (std::optional<E> e = parse(v.get_ref<const std::string&>())) return *e;
    return invalid_at(path, "unknown " + std::string(noun), &v, "one of " + std::string(choices));
  }
};

// A JSON array whose elements each pass `element`.
template <typename Convert>
struct ListOf {
  Convert element;
  bool non_empty = false;

  auto operator()(const Json& v, const JsonPath& path) const
      -> Result<std::vector<std::decay_t<decltype(*element(v, path))>>> {
    using T = std::decay_t<decltype(*element(v, path))>;
    if (!v.is_array() || (non_empty && v.empty())) {
      return invalid_at(path, non_empty ? "must be a non-empty list" : "must be a list", &v);
    }
    std::vector<T> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      auto r = element(v[i], path.at(i));
      if (!r) return r.status();
      out.push_back(std::move(*r));
    }
    return out;
  }
};
template <typename Convert>
ListOf(Convert, bool) -> ListOf<Convert>;

// ---- Objects. ---------------------------------------------------------------

// What a null value means for an optional key.
enum class Null { kRejected, kMeansAbsent };

// Reads the members of one JSON object.
//
// REQUIRES: `value` and `path` outlive the reader, and the reader outlives the
// paths it hands out.
class ObjectReader {
 public:
  ObjectReader(const Json& value, const JsonPath& path) : value_(value), path_(path) {}

  // Checks that the value is an object and that every key is in `allowed`.
  // `what` describes the object for the type error ("a table object").
  Status check(std::string_view what, std::span<const std::string_view> allowed) const;
  Status check(std::string_view what, std::initializer_list<std::string_view> allowed) const {
    return check(what, std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }

  // The member, or nullptr when absent (or null, under Null::kMeansAbsent).
  // REQUIRES: check() passed.
  const Json* find(std::string_view key, Null null = Null::kRejected) const;

  JsonPath path_of(std::string_view key) const { return path_.child(key); }
  const JsonPath& path() const { return path_; }
  const Json& value() const { return value_; }

  // Converts member `key` into `out` when present; leaves `out` alone when not.
  // Under a ProblemCollector a failed conversion is recorded and `out` left
  // alone too (so are require()'s missing members and check()'s unknown keys).
  template <typename T, typename Convert>
  Status read(std::string_view key, T& out, Convert&& convert, Null null = Null::kRejected) const {
    const Json* v = find(key, null);
    if (v == nullptr) return Status::ok();
    auto r = convert(*v, path_of(key));
    if (!r) return ProblemCollector::note(r.status());  // collected: `out` stays
    out = std::move(*r);
    return Status::ok();
  }

  // Like read(), but an absent key is an error; `expected` says what it should be.
  template <typename T, typename Convert>
  Status require(std::string_view key, T& out, Convert&& convert, std::string_view expected) const {
    if (find(key) == nullptr) return ProblemCollector::note(missing(key, expected));
    return read(key, out, std::forward<Convert>(convert));
  }

  Status missing(std::string_view key, std::string_view expected) const;

 private:
  const Json& value_;
  JsonPath path_;
};

}  // namespace shardlab::data::internal
