// data/file_io.h: outputs are replaced atomically, links keep being links,
// devices, FIFOs and descriptors are written through, every failure names the
// path and the reason and leaves no temporary file; an output that is an input
// (by any name) is refused; inputs have the scenario loader's limits.

#include "shardlab/data/file_io.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "run_store_test_helpers.h"

namespace shardlab::data {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Nothing but `expected` names in the directory: no temporary file left.
void expect_entries(const std::string& dir, std::size_t expected) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_NE(e.path().extension(), ".tmp") << e.path();
    ++n;
  }
  EXPECT_EQ(n, expected);
}

// A /dev/null or /dev/full of this test's own: as root a node in `dir` (a
// regression could then only replace that), else the system's.
std::string device(const TempDir& dir, bool full) {
  if (::geteuid() != 0) return full ? "/dev/full" : "/dev/null";
  const std::string node = dir.file(full ? "full.dev" : "null.dev");
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, full ? 7 : 3)) != 0) return std::string();
  return node;
}

bool is_char_device(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

TEST(WriteOutputFile, CreatesAndReplacesAtomicallyKeepingPermissions) {
  TempDir dir;
  const std::string out = dir.file("out.json");
  ASSERT_TRUE(write_output_file(out, "first\n").is_ok());
  EXPECT_EQ(read(out), "first\n");
  ::chmod(out.c_str(), 0640);
  struct stat before {};
  ASSERT_EQ(::stat(out.c_str(), &before), 0);
  ASSERT_TRUE(write_output_file(out, "second\n").is_ok());
  EXPECT_EQ(read(out), "second\n");
  struct stat after {};
  ASSERT_EQ(::stat(out.c_str(), &after), 0);
  EXPECT_EQ(after.st_mode & 07777, 0640u);
  EXPECT_NE(after.st_ino, before.st_ino) << "replaced by a rename, not rewritten in place";
  expect_entries(dir.file(""), 1);
}

TEST(WriteOutputFile, FollowsLinksAndKeepsThem) {
  TempDir dir;
  put(dir.file("target.json"), "old");
  fs::create_symlink("target.json", dir.file("link"));
  fs::create_symlink(dir.file("link"), dir.file("link2"));  // absolute, and a chain
  ASSERT_TRUE(write_output_file(dir.file("link2"), "new").is_ok());
  EXPECT_TRUE(fs::is_symlink(dir.file("link")));
  EXPECT_TRUE(fs::is_symlink(dir.file("link2")));
  EXPECT_EQ(read(dir.file("target.json")), "new");
  // A dangling link gets its target created.
  fs::create_symlink("made.json", dir.file("dangling"));
  ASSERT_TRUE(write_output_file(dir.file("dangling"), "made").is_ok());
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling")));
  EXPECT_EQ(read(dir.file("made.json")), "made");
  // A loop is an error, not a hang.
  fs::create_symlink("loop_b", dir.file("loop_a"));
  fs::create_symlink("loop_a", dir.file("loop_b"));
  const Status loop = write_output_file(dir.file("loop_a"), "x");
  ASSERT_FALSE(loop.is_ok());
  EXPECT_NE(loop.message().find("loop_a: cannot write"), std::string::npos) << loop.message();
  expect_entries(dir.file(""), 7);
}

TEST(WriteOutputFile, WritesThroughDevicesFifosAndDescriptors) {
  TempDir dir;
  const std::string null_dev = device(dir, /*full=*/false);
  if (!null_dev.empty()) {
    ASSERT_TRUE(write_output_file(null_dev, "gone").is_ok());
    EXPECT_TRUE(is_char_device(null_dev));
  }
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read(fifo); });
  const Status st = write_output_file(fifo, "through the pipe");
  reader.join();
  ASSERT_TRUE(st.is_ok()) << st.message();
  EXPECT_EQ(got, "through the pipe");
  struct stat fst {};
  ASSERT_EQ(::lstat(fifo.c_str(), &fst), 0);
  EXPECT_TRUE(S_ISFIFO(fst.st_mode));

  // /dev/fd/N and /proc/self/fd/N are this process's descriptor N.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ASSERT_TRUE(write_output_file("/dev/fd/" + std::to_string(pipe_fds[1]), "one ").is_ok());
  ASSERT_TRUE(write_output_file("/proc/self/fd/" + std::to_string(pipe_fds[1]), "two").is_ok());
  ::close(pipe_fds[1]);
  char buf[16] = {};
  const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
  ::close(pipe_fds[0]);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "one two");
}

TEST(WriteOutputFile, FailuresNameThePathAndTheReasonAndLeaveNothing) {
  TempDir dir;
  const std::string full = device(dir, /*full=*/true);
  if (!full.empty()) {
    const Status st = write_output_file(full, "data");
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), StatusCode::kIo);
    EXPECT_EQ(st.message(), full + ": cannot write: No space left on device");
    EXPECT_TRUE(is_char_device(full));
  }
  Status st = write_output_file(dir.file("missing/out.json"), "x");
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), dir.file("missing/out.json") +
                              ": cannot write: No such file or directory (no directory " +
                              dir.file("missing") + ")");
  st = write_output_file(dir.file(""), "x");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("is a directory"), std::string::npos) << st.message();
  st = write_output_file("", "x");
  EXPECT_FALSE(st.is_ok());
  if (::geteuid() != 0) {  // root may write anywhere
    put(dir.file("ro.json"), "keep");
    ::chmod(dir.file("ro.json").c_str(), 0444);
    st = write_output_file(dir.file("ro.json"), "x");
    ASSERT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("Permission denied"), std::string::npos) << st.message();
    EXPECT_EQ(read(dir.file("ro.json")), "keep");
    fs::create_directories(dir.file("locked"));
    ::chmod(dir.file("locked").c_str(), 0555);
    st = write_output_file(dir.file("locked/out.json"), "x");
    EXPECT_FALSE(st.is_ok());
    ::chmod(dir.file("locked").c_str(), 0755);
  }
  // Control bytes of a path are escaped in the message.
  st = write_output_file(dir.file("no\x1b[2Jdir/out.json"), "x");
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message().find('\x1b'), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("no\\x1b[2Jdir"), std::string::npos) << st.message();
  for (const auto& e : fs::directory_iterator(dir.file("")))
    EXPECT_NE(e.path().extension(), ".tmp") << e.path();
}

TEST(CheckDistinctFiles, AnOutputThatIsAnInputByAnyNameIsRefused) {
  TempDir dir;
  const std::string scenario = dir.file("s.json");
  put(scenario, "{}");
  fs::create_symlink(scenario, dir.file("alias.json"));
  fs::create_hard_link(scenario, dir.file("hard.json"));
  const std::vector<FileRole> inputs = {{scenario, "the scenario"},
                                        {dir.file("runs.db"), "the run store"}};
  for (const std::string& out : {scenario, dir.file("alias.json"), dir.file("hard.json"),
                                 (fs::path(dir.file("")) / "." / "s.json").string()}) {
    const Status st = check_distinct_files(inputs, {{out, "the plan output"}});
    ASSERT_FALSE(st.is_ok()) << out;
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(st.message(),
              out + " (the plan output) is the same file as " + scenario +
                  " (the scenario); writing it would destroy the input. Nothing was written: "
                  "choose another output");
  }
  // A store not created yet is still the file it will be.
  EXPECT_FALSE(check_distinct_files(inputs, {{dir.file("runs.db"), "the plan output"}}).is_ok());
  // Two outputs, one file not created yet.
  const Status two = check_distinct_files(
      inputs, {{dir.file("x.json"), "the result output"}, {dir.file("x.json"), "the trace"}});
  ASSERT_FALSE(two.is_ok());
  EXPECT_NE(two.message().find("two outputs cannot share a file"), std::string::npos)
      << two.message();
  // Different files, and devices, are fine.
  EXPECT_TRUE(
      check_distinct_files(inputs, {{dir.file("plan.json"), "a"}, {dir.file("trace.json"), "b"}})
          .is_ok());
  const std::string null_dev = device(dir, /*full=*/false);
  if (!null_dev.empty()) {
    EXPECT_TRUE(check_distinct_files(inputs, {{null_dev, "a"}, {null_dev, "b"}}).is_ok());
  }
}

TEST(ReadInputFile, TheLoadersLimitsForEveryInput) {
  TempDir dir;
  Result<std::string> r = read_input_file("/dev/zero", "plan file");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().message(), "/dev/zero: cannot read plan file: not a regular file");
  r = read_input_file(dir.file(""), "plan file");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("is a directory"), std::string::npos);
  put(dir.file("big.json"), std::string(3 << 20, ' '));
  r = read_input_file(dir.file("big.json"), "plan file", std::size_t{2} << 20);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("larger than 2 MiB"), std::string::npos)
      << r.status().message();
  // A pipe is read to its end, and stopped at the limit like a file. The
  // writer then meets a closed pipe: EPIPE, not a signal, while this runs.
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto old_handler = ::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] { put(fifo, std::string(3 << 20, 'x')); });
  r = read_input_file(fifo, "plan file", std::size_t{2} << 20);
  writer.join();
  ::signal(SIGPIPE, old_handler);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("larger than 2 MiB"), std::string::npos);
  put(dir.file("ok.json"), "{}");
  r = read_input_file(dir.file("ok.json"), "plan file");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r, "{}");
}

}  // namespace
}  // namespace shardlab::data
