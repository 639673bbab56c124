// The harness of the CLI tests: runs the real shardlab binary in a fresh
// temporary directory per test, with stdout and stderr captured.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#ifndef SHARDLAB_CLI_PATH
#error "SHARDLAB_CLI_PATH must name the shardlab binary"
#endif

namespace shardlab_cli_test {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// The bundled two-GPU scenario most CLI tests run.
inline const std::string kTiny =
    std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json";

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
    return run_with_stdout(args, path("stdout.txt"));
  }

  // As run(), with stdout sent to `stdout_path` (a device such as /dev/full);
  // CliRun::out is then what that file holds when it is stdout.txt, else "".
  CliRun run_with_stdout(const std::vector<std::string>& args,
                         const std::string& stdout_path) const {
    std::string cmd = quote(SHARDLAB_CLI_PATH);
    for (const std::string& a : args) {
      cmd.push_back(' ');
      cmd.append(quote(a));
    }
    cmd.append(" > ");
    cmd.append(quote(stdout_path));
    cmd.append(" 2> ");
    cmd.append(quote(path("stderr.txt")));
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    if (stdout_path == path("stdout.txt")) r.out = read_file(stdout_path);
    r.err = read_file(path("stderr.txt"));
    return r;
  }

  // No FILE.tmp may be left behind by the atomic writes.
  void expect_no_temp_files() const {
    for (const auto& entry : fs::directory_iterator(dir_)) {
      EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    }
  }

  // A character device that behaves as /dev/full (`full` true: every write
  // fails with ENOSPC) or /dev/null. As root, a node made in the test's
  // directory, so that a regression that renamed over it could not replace
  // the system's device; otherwise the system's, which cannot be replaced
  // without root. Empty when neither is usable.
  std::string char_device(bool full) const {
    const std::string system = full ? "/dev/full" : "/dev/null";
    if (::geteuid() != 0) return fs::exists(system) ? system : std::string();
    const std::string node = path(full ? "full.dev" : "null.dev");
    if (!fs::exists(node) && ::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, full ? 7 : 3)) != 0) {
      return std::string();
    }
    return node;
  }

  static bool is_char_device(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
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
