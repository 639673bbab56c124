// The harness of the CLI tests: runs the real shardlab binary in a fresh
// temporary directory per test, with stdout and stderr captured.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#ifndef SHARDLAB_CLI_PATH
#error "SHARDLAB_CLI_PATH must name the shardlab binary"
#endif

namespace shardlab_cli_test {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("shardlab_cli_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Runs the verbs record go to this test's directory, never the build tree.
    ::setenv("SHARDLAB_DB", path("shardlab.db").c_str(), 1);
    ::unsetenv("SHARDLAB_NO_RECORD");
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  // Runs `shardlab ARGS` (each argument quoted) with stdout and stderr captured.
  CliRun run(const std::vector<std::string>& args) const {
    std::string cmd = quote(SHARDLAB_CLI_PATH);
    for (const std::string& a : args) {
      cmd.push_back(' ');
      cmd.append(quote(a));
    }
    cmd.append(" > ");
    cmd.append(quote(path("stdout.txt")));
    cmd.append(" 2> ");
    cmd.append(quote(path("stderr.txt")));
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    r.out = read_file(path("stdout.txt"));
    r.err = read_file(path("stderr.txt"));
    return r;
  }

  // No FILE.tmp may be left behind by the atomic writes.
  void expect_no_temp_files() const {
    for (const auto& entry : fs::directory_iterator(dir_)) {
      EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    }
  }

  fs::path dir_;
};

inline std::vector<std::string> keys(const Json& j) {
  std::vector<std::string> out;
  for (const auto& [k, v] : j.items()) out.push_back(k);
  return out;
}
using Keys = std::vector<std::string>;

}  // namespace shardlab_cli_test
