// Unit strings of docs/scenario-format.md: "32 GiB" (a size in bytes) and "897 GiB/s" (a
// bandwidth, converted to bytes per millisecond).
//
// Both conversions are exact. A size is number x unit and must come out a whole
// number of bytes; a bandwidth is number x unit / 1000 rounded once to the
// nearest double. Doing `x * unit / 1000` in doubles rounds up to three times
// and can miss TorchRec's defaults by a bit, so the digits are kept as a big
// integer M with a power of ten E (value = M * 10^E), the unit is applied to
// them exactly, and a single correctly rounded string-to-double conversion of
// "<digits>e<exponent>" gives the bandwidth. The constructed string has no
// decimal point, so the C locale's radix character cannot interfere.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/data/scenario_loader.h"

namespace shardlab::data {
namespace {

// Longer strings are refused outright: no real quantity needs them, and it
// bounds the big-integer work below.
constexpr std::size_t kMaxUnitStringChars = 256;
// Exponents are clamped here while parsed; anything this large overflows or
// underflows every conversion anyway.
constexpr int64_t kExponentClamp = 1'000'000'000;

// A non-negative integer of any size: base 10^9 limbs, least significant first.
// Only the operations exact unit conversion needs.
class BigUint {
 public:
  // REQUIRES: `digits` is non-empty and all '0'..'9'.
  static BigUint from_digits(std::string_view digits) {
    BigUint n;
    for (std::size_t end = digits.size(); end > 0;) {
      const std::size_t begin = end >= kLimbDigits ? end - kLimbDigits : 0;
      uint32_t limb = 0;
      for (std::size_t i = begin; i < end; ++i)
        limb = limb * 10 + static_cast<uint32_t>(digits[i] - '0');
      n.limbs_.push_back(limb);
      end = begin;
    }
    n.trim();
    return n;
  }

  bool is_zero() const { return limbs_.empty(); }

  // REQUIRES: 0 < factor <= 2^32 - 1 (limb * factor + carry fits 64 bits).
  void multiply(uint32_t factor) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      const uint64_t v = uint64_t{limb} * factor + carry;
      limb = static_cast<uint32_t>(v % kBase);
      carry = v / kBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }

  // Divides in place and returns the remainder. REQUIRES: divisor > 0.
  uint32_t divide(uint32_t divisor) {
    uint64_t rem = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      const uint64_t v = rem * kBase + limbs_[i];
      limbs_[i] = static_cast<uint32_t>(v / divisor);
      rem = v % divisor;
    }
    trim();
    return static_cast<uint32_t>(rem);
  }

  std::optional<int64_t> to_int64() const {
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    uint64_t v = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      if (v > (kMax - limbs_[i]) / kBase) return std::nullopt;  // v * kBase + limb > kMax
      v = v * kBase + limbs_[i];
    }
    return static_cast<int64_t>(v);
  }

  std::string to_string() const {
    if (limbs_.empty()) return "0";
    std::string out = std::to_string(limbs_.back());
    for (std::size_t i = limbs_.size() - 1; i-- > 0;) {
      const std::string part = std::to_string(limbs_[i]);
      out.append(kLimbDigits - part.size(), '0');
      out += part;
    }
    return out;
  }

 private:
  static constexpr uint64_t kBase = 1'000'000'000;
  static constexpr std::size_t kLimbDigits = 9;

  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  std::vector<uint32_t> limbs_;
};

// A unit: 10^decimal_exponent or 2^binary_exponent bytes (one of them is 0).
struct Unit {
  std::string_view name;
  int decimal_exponent;
  int binary_exponent;
};

constexpr Unit kUnits[] = {
    {"B", 0, 0},    {"KB", 3, 0},   {"MB", 6, 0},   {"GB", 9, 0},   {"TB", 12, 0},
    {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40},
};
constexpr std::string_view kUnitList = "B, KB, MB, GB, TB, KiB, MiB, GiB or TiB";

// "<digits>[.<digits>][e[+-]<digits>] <unit>[/s]" split into exact parts.
struct Quantity {
  std::string digits;    // mantissa digits, decimal point removed
  int64_t exponent = 0;  // value = digits * 10^exponent
  Unit unit;
  bool per_second = false;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Result<Quantity> parse_quantity(std::string_view text) {
  if (text.size() > kMaxUnitStringChars) {
    return Status::invalid_argument("longer than " + std::to_string(kMaxUnitStringChars) +
                                    " characters");
  }
  std::string_view s = trim_spaces(text);
  if (s.empty()) return Status::invalid_argument("empty, expected a number and a unit");

  Quantity q;
  std::size_t i = 0;
  while (i < s.size() && is_digit(s[i])) q.digits += s[i++];
  if (q.digits.empty()) {
    return Status::invalid_argument("must start with an unsigned decimal number");
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t fraction_start = i;
    while (i < s.size() && is_digit(s[i])) q.digits += s[i++];
    if (i == fraction_start) return Status::invalid_argument("expected digits after '.'");
    q.exponent = -static_cast<int64_t>(i - fraction_start);
  }
  // An exponent is 'e' or 'E', an optional sign and at least one digit; an 'E'
  // not followed by those starts the unit instead (and "EB" is then unknown).
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    bool negative = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
    if (j < s.size() && is_digit(s[j])) {
      int64_t e = 0;
      while (j < s.size() && is_digit(s[j])) {
        e = std::min<int64_t>(e * 10 + (s[j] - '0'), kExponentClamp);
        ++j;
      }
      q.exponent += negative ? -e : e;
      i = j;
    }
  }
  while (i < s.size() && s[i] == ' ') ++i;

  std::string_view unit = s.substr(i);
  if (unit.ends_with("/s")) {
    q.per_second = true;
    unit.remove_suffix(2);
  }
  if (unit.empty()) {
    return Status::invalid_argument(std::string("missing unit, expected one of ") +
                                    std::string(kUnitList));
  }
  for (const Unit& u : kUnits) {
    if (u.name == unit) {
      q.unit = u;
      return q;
    }
  }
  return Status::invalid_argument("unknown unit \"" + std::string(unit) + "\", expected one of " +
                                  std::string(kUnitList) + (q.per_second ? " before /s" : ""));
}

// digits * 2^binary_exponent as a big integer.
BigUint scaled_mantissa(const Quantity& q) {
  BigUint n = BigUint::from_digits(q.digits);
  for (int b = 0; b < q.unit.binary_exponent; b += 10) n.multiply(1024);
  return n;
}

}  // namespace

Result<int64_t> parse_size_string(const std::string& text) {
  auto parsed = parse_quantity(text);
  if (!parsed) return parsed.status();
  const Quantity& q = *parsed;
  if (q.per_second) return Status::invalid_argument("a size takes no /s (that is a bandwidth)");

  BigUint n = scaled_mantissa(q);
  if (n.is_zero()) return int64_t{0};
  const int64_t exponent = q.exponent + q.unit.decimal_exponent;
  if (exponent > 0) {
    // n >= 1, so 10^19 or more cannot fit in int64.
    if (exponent > 19) return Status::invalid_argument("too large for a 64-bit byte count");
    for (int64_t k = 0; k < exponent; ++k) n.multiply(10);
  } else {
    // Each division must be exact. n is non-zero, so a non-zero remainder comes
    // within its digit count: the loop is short whatever the exponent.
    for (int64_t k = 0; k < -exponent; ++k) {
      if (n.divide(10) != 0) return Status::invalid_argument("not a whole number of bytes");
    }
  }
  const std::optional<int64_t> bytes = n.to_int64();
  if (!bytes) return Status::invalid_argument("too large for a 64-bit byte count");
  return *bytes;
}

Result<double> parse_bandwidth_string(const std::string& text) {
  auto parsed = parse_quantity(text);
  if (!parsed) return parsed.status();
  const Quantity& q = *parsed;
  if (!q.per_second) return Status::invalid_argument("a bandwidth needs /s right after the unit");

  const BigUint n = scaled_mantissa(q);
  if (n.is_zero()) return 0.0;
  // bytes/s -> bytes/ms is the "- 3".
  const int64_t exponent = q.exponent + q.unit.decimal_exponent - 3;
  const std::string exact = n.to_string() + "e" + std::to_string(exponent);
  errno = 0;
  const double value = std::strtod(exact.c_str(), nullptr);
  if (value == std::numeric_limits<double>::infinity() ||
      value > std::numeric_limits<double>::max()) {
    return Status::invalid_argument("too large for a double");
  }
  if (value == 0.0) return Status::invalid_argument("too small: rounds to 0 bytes/ms");
  return value;
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!std::isfinite(bytes)) return "-";
  if (!(std::fabs(bytes) >= 1024.0)) return fmt::format("{:.0f} B", bytes);
  size_t unit = 0;
  while (std::fabs(bytes) >= 1024.0 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", bytes, kUnits[unit]);
}

}  // namespace shardlab::data
