// A fresh folder per test for trace files written by the tests, plain or
// gzip-compressed (tests/trace only).
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace shardlab::trace::testing {

class TraceFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("shardlab_trace_test_" +
         std::string(::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string write_gz(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = dir_ / name;
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    return p.string();
  }

  std::filesystem::path dir_;
};

// A trace file's whole text (plain or gzip: zlib reads both), for the tests
// that read the real traces independently of the library's stream.
inline std::string read_trace_text(const std::filesystem::path& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  std::string out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

}  // namespace shardlab::trace::testing
