#include "json_reader.h"

#include <cmath>

#include "message_text.h"
#include "shardlab/data/scenario_loader.h"

namespace shardlab::data::internal {
namespace {

// Appends a compact rendering of `v`, giving up once `out` is longer than
// `limit`, so a huge list costs no more than its first elements. Recursion is
// bounded by the parser's depth limit.
void append_bounded(std::string& out, const Json& v, std::size_t limit) {
  if (out.size() > limit) return;
  switch (v.type()) {
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const Json& e : v) {
        if (out.size() > limit) return;
        if (!first) out += ',';
        first = false;
        append_bounded(out, e, limit);
      }
      out += ']';
      return;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, e] : v.get_ref<const Json::object_t&>()) {
        if (out.size() > limit) return;
        if (!first) out += ',';
        first = false;
        out += quote_truncated(k, limit);
        out += ':';
        append_bounded(out, e, limit);
      }
      out += '}';
      return;
    }
    case Json::value_t::string:
      out += quote_truncated(v.get_ref<const std::string&>(), limit);
      return;
    default:
      // Scalars: dump() cannot throw for them (no strings involved).
      out += v.dump();
      return;
  }
}

// Converts an integral JSON number to int64_t, or nullopt when it is not an
// integer or does not fit. Doubles are compared against 2^63 exactly.
std::optional<int64_t> integral_value(const Json& v) {
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<int64_t>();
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    constexpr double kTwo63 = 9223372036854775808.0;
    if (!std::isfinite(d) || std::trunc(d) != d || d < -kTwo63 || d >= kTwo63) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::string int_range_text(int64_t min, int64_t max) {
  constexpr int64_t kLowest = std::numeric_limits<int64_t>::min();
  constexpr int64_t kHighest = std::numeric_limits<int64_t>::max();
  if (min == kLowest && max == kHighest) return "an integer";
  if (max == kHighest) return "an integer >= " + std::to_string(min);
  if (min == kLowest) return "an integer <= " + std::to_string(max);
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

// Shortest decimal that reads back as `d`, without a ".0" on whole numbers
// ("0.15", "1"), for range texts.
std::string number_text(double d) {
  if (std::trunc(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
  return Json(d).dump();
}

std::string number_range_text(const NumberValue& r) {
  const bool has_min = r.min > -std::numeric_limits<double>::max();
  const bool has_max = r.max < std::numeric_limits<double>::max();
  if (has_min && has_max) {
    return std::string("a number in ") + (r.min_exclusive ? "(" : "[") + number_text(r.min) + ", " +
           number_text(r.max) + "]";
  }
  if (has_min)
    return std::string("a number ") + (r.min_exclusive ? "> " : ">= ") + number_text(r.min);
  if (has_max) return "a number <= " + number_text(r.max);
  return "a number";
}

// "64 TiB" for exact binary multiples, else the byte count.
std::string bytes_text(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (unit + 1 < 7 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + (unit == 0 ? " bytes" : std::string(" ") + kUnits[unit]);
}

Status too_large(int64_t bytes, int64_t max, const Json& v, const JsonPath& path) {
  return invalid_at(path, "size too large (" + std::to_string(bytes) + " bytes)", &v,
                    "at most " + bytes_text(max));
}

}  // namespace

Status limit_error(const planner::LimitViolation& violation, const Json* document) {
  std::string path;
  const Json* at = document;  // the value at `path` in the document, while found
  for (const auto& part : violation.path) {
    if (const auto* index = std::get_if<std::size_t>(&part)) {
      append_path_index(path, *index);
      at = at != nullptr && at->is_array() && *index < at->size() ? &(*at)[*index] : nullptr;
    } else {
      const std::string& key = std::get<std::string>(part);
      append_path_key(path, key);
      if (at != nullptr && at->is_object()) {
        const auto it = at->find(key);
        at = it != at->end() ? &*it : nullptr;
      } else {
        at = nullptr;
      }
    }
  }
  if (path.empty()) path = "<root>";
  if (!violation.has_got)
    return invalid_at(std::move(path), violation.what, nullptr, violation.expected);
  if (at != nullptr && at->is_number())
    return invalid_at(std::move(path), violation.what, at, violation.expected);
  const Json got = violation.integral && std::fabs(violation.got) < 9.2e18
                       ? Json(static_cast<int64_t>(violation.got))
                       : Json(violation.got);
  return invalid_at(std::move(path), violation.what, &got, violation.expected);
}

std::string describe(const Json& v) {
  std::string out;
  append_bounded(out, v, kMaxValueChars);
  return truncate_utf8(out, kMaxValueChars);
}

Status invalid_at(const JsonPath& path, std::string_view what, const Json* got,
                  std::string_view expected) {
  return invalid_at(path.to_string(), what, got, expected);
}

Status invalid_at(std::string path, std::string_view what, const Json* got,
                  std::string_view expected) {
  std::string msg = std::move(path);
  msg += ": ";
  msg += what;
  if (got != nullptr) {
    msg += ": got ";
    msg += describe(*got);
  }
  if (!expected.empty()) {
    msg += ", expected ";
    msg += expected;
  }
  return Status::invalid_argument(std::move(msg));
}

Result<int64_t> IntValue::operator()(const Json& v, const JsonPath& path) const {
  const std::optional<int64_t> i = integral_value(v);
  if (!i || *i < min || *i > max)
    return invalid_at(path, "must be " + int_range_text(min, max), &v);
  return *i;
}

Result<double> NumberValue::operator()(const Json& v, const JsonPath& path) const {
  if (v.is_number()) {
    const double d = v.get<double>();
    const bool above_min = min_exclusive ? d > min : d >= min;
    if (std::fpclassify(d) == FP_SUBNORMAL) {
      return invalid_at(path, "is subnormal (closer to 0 than 2.2e-308)", &v,
                        "0 or " + number_range_text(*this));
    }
    if (std::isfinite(d) && above_min && d <= max) return d;
  }
  return invalid_at(path, "must be " + number_range_text(*this), &v);
}

Result<bool> BoolValue::operator()(const Json& v, const JsonPath& path) const {
  if (!v.is_boolean()) return invalid_at(path, "must be true or false", &v);
  return v.get<bool>();
}

Result<std::string> StringValue::operator()(const Json& v, const JsonPath& path) const {
  if (!v.is_string() || (non_empty && v.get_ref<const std::string&>().empty())) {
    return invalid_at(path, non_empty ? "must be a non-empty string" : "must be a string", &v);
  }
  return v.get<std::string>();
}

Result<int64_t> SizeValue::operator()(const Json& v, const JsonPath& path) const {
  constexpr std::string_view kExpected =
      "a whole number of bytes >= 0 or a string such as \"32 GiB\"";
  if (v.is_string()) {
    auto bytes = parse_size_string(v.get_ref<const std::string&>());
    if (!bytes) return invalid_at(path, "invalid size: " + bytes.status().message(), &v, kExpected);
    if (*bytes > max) return too_large(*bytes, max, v, path);
    return *bytes;
  }
  const std::optional<int64_t> i = integral_value(v);
  if (!i || *i < 0) return invalid_at(path, "must be a size", &v, kExpected);
  if (*i > max) return too_large(*i, max, v, path);
  return *i;
}

Result<double> BandwidthValue::operator()(const Json& v, const JsonPath& path) const {
  // Bounded below so that bytes / bandwidth stays finite for every byte count
  // the limits allow, and above so that sums of link rates do.
  static const std::string kExpected = "bytes/ms in [" + number_text(planner::kMinBandwidth) +
                                       ", " + number_text(planner::kMaxBandwidth) +
                                       "] (1 B/s to 1 EB/s) or a string such as \"897 GiB/s\"";
  const auto check = [&](double d, std::string_view unit_note) -> Result<double> {
    if (d >= planner::kMinBandwidth && d <= planner::kMaxBandwidth) return d;
    const std::string what = !(d > 0.0)                   ? "bandwidth must be > 0"
                             : d < planner::kMinBandwidth ? "bandwidth too small"
                                                          : "bandwidth too large";
    return invalid_at(path, d > 0.0 ? what + std::string(unit_note) : what, &v, kExpected);
  };
  if (v.is_string()) {
    auto bw = parse_bandwidth_string(v.get_ref<const std::string&>());
    if (!bw) return invalid_at(path, "invalid bandwidth: " + bw.status().message(), &v, kExpected);
    return check(*bw, " (" + number_text(*bw) + " bytes/ms)");
  }
  if (v.is_number()) return check(v.get<double>(), "");
  return invalid_at(path, "must be a bandwidth", &v, kExpected);
}

Status ObjectReader::check(std::string_view what, std::span<const std::string_view> allowed) const {
  if (!value_.is_object()) return invalid_at(path_, "must be " + std::string(what), &value_);
  for (const auto& [key, member] : value_.get_ref<const Json::object_t&>()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (known) continue;
    std::string choices;
    for (std::string_view a : allowed) {
      if (!choices.empty()) choices += ", ";
      choices += a;
    }
    const Json key_json(key);
    Status unknown =
        ProblemCollector::note(invalid_at(path_, "unknown key", &key_json, "one of " + choices));
    if (!unknown.is_ok()) return unknown;
  }
  return Status::ok();
}

const Json* ObjectReader::find(std::string_view key, Null null) const {
  const auto it = value_.find(key);
  if (it == value_.end()) return nullptr;
  if (null == Null::kMeansAbsent && it->is_null()) return nullptr;
  return &*it;
}

Status ObjectReader::missing(std::string_view key, std::string_view expected) const {
  return invalid_at(path_of(key), "missing required key", nullptr, expected);
}

}  // namespace shardlab::data::internal
