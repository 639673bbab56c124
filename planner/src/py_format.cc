#include "py_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace shardlab::planner {

std::string py_float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  // Shortest round-trip digits in scientific form, then laid out the way
  // Python's repr does: fixed notation for exponents in [-4, 16).
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  const size_t e_pos = sci.find('e');
  std::string digits = sci.substr(0, e_pos);
  const int exponent = std::atoi(sci.c_str() + e_pos + 1);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  std::string out;
  if (exponent < -4 || exponent >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof(exp_buf), "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    out += exp_buf;
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else {
    const auto int_len = static_cast<size_t>(exponent + 1);
    if (digits.size() <= int_len) {
      out = digits + std::string(int_len - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  }
  return negative ? "-" + out : out;
}

std::string py_round(double x, int k) {
  if (!std::isfinite(x)) return py_float_repr(x);
  // glibc's printf rounds the exact binary value correctly (ties to even),
  // which is what Python's round() does.
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%.*f", k, x);
  return py_float_repr(std::strtod(buf, nullptr));
}

}  // namespace shardlab::planner
