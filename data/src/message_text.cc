#include "message_text.h"

#include <algorithm>
#include <cstdint>

namespace shardlab::data::internal {
namespace {

// Length of the valid UTF-8 sequence starting at `s[i]`, or 0 when the bytes
// there are not one (overlong forms and surrogates included).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t len = 0;
  uint32_t min_cp = 0;
  uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    min_cp = 0x80;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    min_cp = 0x800;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    min_cp = 0x10000;
    cp = b0 & 0x07;
  } else
    return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// The code point of the valid UTF-8 sequence of `len` bytes at `s[i]`.
uint32_t code_point(std::string_view s, std::size_t i, std::size_t len) {
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = static_cast<unsigned char>(s[i]) & kLeadMask[len];
  for (std::size_t k = 1; k < len; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

void append_hex_escape(std::string& out, unsigned char b) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xF];
}

}  // namespace

bool is_unsafe_code_point(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string truncate_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = 0;
  while (cut < text.size()) {
    std::size_t len = utf8_sequence_length(text, cut);
    if (len == 0) len = 1;
    if (cut + len > max_bytes) break;
    cut += len;
  }
  std::string out(text.substr(0, cut));
  out += "...";
  return out;
}

std::string quote_truncated(std::string_view text, std::size_t max_bytes) {
  const std::string cut = truncate_utf8(text, max_bytes);
  std::string out = "\"";
  for (char c : cut) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (b < 0x20 || b == 0x7F) {
      append_hex_escape(out, b);
    } else {
      out += c;
    }
  }
  out += '"';
  return printable(out);
}

}  // namespace shardlab::data::internal

namespace shardlab::data {
namespace {

std::string escaped(std::string_view text, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = internal::utf8_sequence_length(text, i);
    const bool kept_control = keep_lines && (b == '\n' || b == '\t');
    if (len == 0 ||
        (!kept_control && internal::is_unsafe_code_point(internal::code_point(text, i, len)))) {
      // Every byte of the character: a C1 control or a bidirectional override
      // is several bytes of UTF-8.
      for (std::size_t k = 0; k < std::max<std::size_t>(len, 1); ++k)
        internal::append_hex_escape(out, static_cast<unsigned char>(text[i + k]));
      i += std::max<std::size_t>(len, 1);
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) { return escaped(text, /*keep_lines=*/false); }

std::string printable(std::string_view text, std::size_t max_bytes) {
  return escaped(internal::truncate_utf8(text, max_bytes), /*keep_lines=*/false);
}

std::string printable_lines(std::string_view text) { return escaped(text, /*keep_lines=*/true); }

std::size_t append_output_safe(std::string& out, std::string_view text, bool final) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = internal::utf8_sequence_length(text, i);
    if (len == 0) {
      // A sequence cut by the end of this piece may complete in the next.
      const std::size_t want = (b & 0xE0) == 0xC0   ? 2
                               : (b & 0xF0) == 0xE0 ? 3
                               : (b & 0xF8) == 0xF0 ? 4
                                                    : 0;
      if (!final && want > 0 && i + want > text.size()) {
        bool prefix = true;
        for (std::size_t k = i + 1; k < text.size(); ++k)
          prefix = prefix && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80;
        if (prefix) return i;
      }
      internal::append_hex_escape(out, b);
      ++i;
      continue;
    }
    const uint32_t cp = internal::code_point(text, i, len);
    if (cp != '\n' && cp != '\t' && internal::is_unsafe_code_point(cp)) {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return i;
}

std::string quoted(std::string_view text, std::size_t max_bytes) {
  return internal::quote_truncated(text, max_bytes);
}

std::string shown(std::string_view text) { return printable(text, kMaxShownBytes); }

std::string format_id_list(const std::vector<int64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace shardlab::data
