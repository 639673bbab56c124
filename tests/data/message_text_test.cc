// Escaping for terminals (shardlab/data/message_text.h): every C0 and C1
// control, DEL, the line separators and every bidirectional formatting
// character, in messages (printable) and under every output stream
// (append_output_safe).
#include "shardlab/data/message_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../printable_text.h"

namespace shardlab::data {
namespace {

using testing_support::first_unsafe;

std::string utf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

// Every character that must not reach a terminal raw.
std::vector<char32_t> unsafe_characters() {
  std::vector<char32_t> v;
  for (char32_t c = 0; c < 0x20; ++c) v.push_back(c);
  for (char32_t c = 0x7F; c <= 0x9F; ++c) v.push_back(c);
  for (char32_t c : {0x061C, 0x200E, 0x200F, 0x2028, 0x2029}) v.push_back(c);
  for (char32_t c = 0x202A; c <= 0x202E; ++c) v.push_back(c);
  for (char32_t c = 0x2066; c <= 0x2069; ++c) v.push_back(c);
  return v;
}

TEST(MessageText, PrintableEscapesEveryUnsafeCharacterByteByByte) {
  for (char32_t c : unsafe_characters()) {
    const std::string raw = "a" + utf8(c) + "b";
    const std::string shown = printable(raw);
    EXPECT_EQ(first_unsafe(shown, false), std::string::npos) << static_cast<int>(c);
    std::string want = "a";
    for (char byte : utf8(c)) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(byte));
      want += hex;
    }
    EXPECT_EQ(shown, want + "b") << static_cast<int>(c);
  }
  // Line feeds and tabs stay in multi-line messages; the rest does not.
  EXPECT_EQ(printable_lines("a\nb\tc\rd" + utf8(0x202E)), "a\nb\tc\\x0dd\\xe2\\x80\\xae");
  // Printable text, non-ASCII included, is unchanged.
  const std::string fine = "caf" + utf8(0xE9) + " " + utf8(0x4E2D) + " \xF0\x9F\x98\x80 ~";
  EXPECT_EQ(printable(fine), fine);
  EXPECT_EQ(printable("\xFF"), "\\xff");
}

TEST(MessageText, OutputSafeWritesUnicodeEscapesThatKeepJsonValid) {
  for (char32_t c : unsafe_characters()) {
    std::string out;
    const std::string raw = "x" + utf8(c) + "y";
    EXPECT_EQ(append_output_safe(out, raw, /*final=*/false), raw.size());
    if (c == '\n' || c == '\t') {
      EXPECT_EQ(out, raw);
      continue;
    }
    char want[16];
    std::snprintf(want, sizeof want, "x\\u%04xy", static_cast<unsigned>(c));
    EXPECT_EQ(out, want) << static_cast<int>(c);
    EXPECT_EQ(first_unsafe(out, true), std::string::npos);
  }
  // Invalid bytes as \xNN; good text unchanged.
  std::string out;
  append_output_safe(out, "ok \xC3\xA9 \xFF", /*final=*/true);
  EXPECT_EQ(out, "ok \xC3\xA9 \\xff");
}

TEST(MessageText, OutputSafeKeepsASequenceCutByTheEndForTheNextPiece) {
  const std::string bidi = utf8(0x202E);  // 3 bytes
  std::string out;
  const std::string first = "ab" + bidi.substr(0, 2);
  EXPECT_EQ(append_output_safe(out, first, /*final=*/false), 2u);
  EXPECT_EQ(out, "ab");
  EXPECT_EQ(append_output_safe(out, bidi + "c", /*final=*/false), 4u);
  EXPECT_EQ(out, "ab\\u202ec");
  // At the end of the output a cut sequence is escaped byte by byte.
  out.clear();
  EXPECT_EQ(append_output_safe(out, bidi.substr(0, 2), /*final=*/true), 2u);
  EXPECT_EQ(out, "\\xe2\\x80");
  // A lead byte followed by a non-continuation byte is invalid at once.
  out.clear();
  EXPECT_EQ(append_output_safe(out, "\xE2z", /*final=*/false), 2u);
  EXPECT_EQ(out, "\\xe2z");
}

}  // namespace
}  // namespace shardlab::data
