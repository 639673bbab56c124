#include "json_writer.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "shardlab/data/plan_json.h"

namespace shardlab::data::internal {

void append_double(std::string* out, double v) {
  assert(std::isfinite(v));
  if (v == 0.0) {
    out->append(std::signbit(v) ? "-0.0" : "0.0");
    return;
  }
  // Shortest round-trip digits, as [-]d[.ddd]e±XX.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  assert(res.ec == std::errc());
  const char* p = buf;
  const char* end = res.ptr;
  if (*p == '-') {
    out->push_back('-');
    ++p;
  }
  char digits[24];
  int n = 0;
  for (; p < end && *p != 'e'; ++p) {
    if (*p != '.') digits[n++] = *p;
  }
  ++p;  // 'e'
  const bool negative_exp = *p == '-';
  ++p;  // sign
  int exp10 = 0;
  for (; p < end; ++p) exp10 = exp10 * 10 + (*p - '0');
  if (negative_exp) exp10 = -exp10;

  if (exp10 >= -4 && exp10 < 16) {
    // Fixed notation; the decimal point goes after `point` digits.
    const int point = exp10 + 1;
    if (point <= 0) {
      out->append("0.");
      out->append(static_cast<size_t>(-point), '0');
      out->append(digits, static_cast<size_t>(n));
    } else if (point < n) {
      out->append(digits, static_cast<size_t>(point));
      out->push_back('.');
      out->append(digits + point, static_cast<size_t>(n - point));
    } else {
      out->append(digits, static_cast<size_t>(n));
      out->append(static_cast<size_t>(point - n), '0');
      out->append(".0");
    }
    return;
  }
  out->push_back(digits[0]);
  if (n > 1) {
    out->push_back('.');
    out->append(digits + 1, static_cast<size_t>(n - 1));
  }
  out->push_back('e');
  out->push_back(exp10 < 0 ? '-' : '+');
  const int mag = exp10 < 0 ? -exp10 : exp10;
  if (mag < 10) out->push_back('0');
  char mag_buf[8];
  const auto mres = std::to_chars(mag_buf, mag_buf + sizeof mag_buf, mag);
  out->append(mag_buf, mres.ptr);
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is invalid.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlongs
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // no overlongs
    if (c == 0xF4) hi = 0x8F;  // <= U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  }
  return len;
}

}  // namespace

void JsonWriter::write_string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out_.push_back('"');
  for (size_t i = 0; i < s.size();) {
    // Copy the run of plain ASCII in one go; keys and names are all plain.
    size_t run = i;
    while (run < s.size()) {
      const auto r = static_cast<unsigned char>(s[run]);
      if (r < 0x20 || r >= 0x80 || r == '"' || r == '\\') break;
      ++run;
    }
    out_.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = utf8_sequence_length(s, i);
      if (len == 0) {
        out_.append("\xEF\xBF\xBD");  // U+FFFD
        ++i;
      } else {
        out_.append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out_.append("\\\"");
        break;
      case '\\':
        out_.append("\\\\");
        break;
      case '\b':
        out_.append("\\b");
        break;
      case '\f':
        out_.append("\\f");
        break;
      case '\n':
        out_.append("\\n");
        break;
      case '\r':
        out_.append("\\r");
        break;
      case '\t':
        out_.append("\\t");
        break;
      default:
        if (c < 0x20) {
          out_.append("\\u00");
          out_.push_back(kHex[c >> 4]);
          out_.push_back(kHex[c & 0xF]);
        } else {
          out_.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out_.push_back('"');
}

void JsonWriter::newline() {
  if (indent_ < 0) return;
  out_.push_back('\n');
  out_.append(stack_.size() * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
  if (key_pending_) {
    key_pending_ = false;
    return;
  }
  if (stack_.empty()) {
    assert(out_.empty() && "one top-level value");
    return;
  }
  Level& top = stack_.back();
  assert(!top.is_object && "a value in an object needs a key");
  if (!top.empty) out_.push_back(',');
  top.empty = false;
  newline();
}

void JsonWriter::key(std::string_view k) {
  assert(!stack_.empty() && stack_.back().is_object && !key_pending_);
  Level& top = stack_.back();
  if (!top.empty) out_.push_back(',');
  top.empty = false;
  newline();
  write_string(k);
  out_.push_back(':');
  if (indent_ >= 0) out_.push_back(' ');
  key_pending_ = true;
}

void JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  stack_.push_back({true, true});
}

void JsonWriter::end_object() {
  assert(!stack_.empty() && stack_.back().is_object && !key_pending_);
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_.push_back('}');
}

void JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  stack_.push_back({false, true});
}

void JsonWriter::end_array() {
  assert(!stack_.empty() && !stack_.back().is_object);
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_.push_back(']');
}

void JsonWriter::value(double v) {
  before_value();
  if (std::isfinite(v)) {
    append_double(&out_, v);
  } else {
    out_.append("null");
  }
}

void JsonWriter::value(int64_t v) {
  before_value();
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, res.ptr);
}

void JsonWriter::value(bool v) {
  before_value();
  out_.append(v ? "true" : "false");
}

void JsonWriter::value(std::string_view v) {
  before_value();
  write_string(v);
}

void JsonWriter::null() {
  before_value();
  out_.append("null");
}

std::string JsonWriter::take() && {
  assert(stack_.empty() && !key_pending_);
  return std::move(out_);
}

}  // namespace shardlab::data::internal

namespace shardlab::data {

std::string indent_json(std::string_view compact, int indent) {
  if (indent < 0) return std::string(compact);
  std::string out;
  out.reserve(compact.size() + compact.size() / 2);
  size_t depth = 0;
  const auto newline = [&] {
    out.push_back('\n');
    out.append(depth * static_cast<size_t>(indent), ' ');
  };
  // The characters that end a run copied as is: structure and strings.
  static constexpr auto kSpecial = [] {
    std::array<bool, 256> t{};
    for (unsigned char c : std::string_view("\"{}[],:")) t[c] = true;
    return t;
  }();
  const size_t n = compact.size();
  for (size_t i = 0; i < n;) {
    // Numbers, literals: copied up to the next structural character or string.
    size_t end = i;
    while (end < n && !kSpecial[static_cast<unsigned char>(compact[end])]) ++end;
    if (end != i) {
      out.append(compact.substr(i, end - i));
      i = end;
      continue;
    }
    const char c = compact[i];
    switch (c) {
      case '"': {  // a string, escapes included, as written
        size_t j = i + 1;
        while (j < n && compact[j] != '"') j += compact[j] == '\\' ? 2 : 1;
        const size_t end = std::min(j + 1, n);
        out.append(compact.substr(i, end - i));
        i = end;
        continue;
      }
      case '{':
      case '[':
        out.push_back(c);
        if (i + 1 < n && (compact[i + 1] == '}' || compact[i + 1] == ']')) {  // empty: "{}", "[]"
          out.push_back(compact[i + 1]);
          i += 2;
          continue;
        }
        ++depth;
        newline();
        break;
      case '}':
      case ']':
        --depth;
        newline();
        out.push_back(c);
        break;
      case ',':
        out.push_back(',');
        newline();
        break;
      default:  // ':'
        out.append(": ");
        break;
    }
    ++i;
  }
  return out;
}

}  // namespace shardlab::data
