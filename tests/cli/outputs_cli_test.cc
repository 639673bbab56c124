// Outputs never destroy anything (docs/outputs.md), through the real binary:
// an output that is an input is refused with nothing written, devices and
// FIFOs are written through, links keep being links, and every write error
// (a full device, a missing directory, stdout on /dev/full) is a non-zero
// exit with a message.

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "../printable_text.h"
#include "cli_fixture.h"

namespace {

using namespace shardlab_cli_test;

constexpr const char* kScenario = R"({
  "name": "outputs",
  "topology": {"world_size": 2, "hbm_cap": "16 GiB"},
  "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 16, "feature_names": ["f0"]}],
  "planner": {"proposers": ["greedy"]}
})";

// The same scenario with a typo: loading fails, and the verbs write an error
// object to -o.
constexpr const char* kTypoScenario = R"({
  "name": "outputs",
  "topology": {"world_size": 2, "hbm_cpa": "16 GiB"},
  "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 16, "feature_names": ["f0"]}]
})";

class OutputsTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    ::setenv("SHARDLAB_NO_RECORD", "1", 1);
  }

  // Expects a refusal naming both files, with `file` left as it was.
  void expect_refused(const CliRun& r, const std::string& file, const std::string& contents,
                      const std::string& input_role) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("is the same file as"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(" + input_role + ")"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Nothing was written"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(file), contents) << file;
    expect_no_temp_files();
  }
};

TEST_F(OutputsTest, AnOutputThatIsTheScenarioIsRefusedWithNothingWritten) {
  // The issue's example: a typo, and -o naming the scenario itself. The error
  // object must not replace the user's scenario.
  const std::string typo = write("s.json", kTypoScenario);
  for (const std::vector<std::string>& verb : {std::vector<std::string>{"plan"},
                                               {"options"},
                                               {"simulate"},
                                               {"compare", "--iterations", "1"}}) {
    std::vector<std::string> args = verb;
    args.insert(args.end(), {typo, "-o", typo});
    expect_refused(run(args), typo, kTypoScenario, "the scenario");
  }
  // The trace of simulate, and a valid scenario.
  const std::string good = write("good.json", kScenario);
  // sweep, over its scenario and through a link to it.
  expect_refused(run({"sweep", good, "-o", good}), good, kScenario, "the scenario");
  fs::create_symlink(good, path("sweep-alias.json"));
  expect_refused(run({"sweep", good, "-o", path("sweep-alias.json")}), good, kScenario,
                 "the scenario");
  expect_refused(run({"simulate", good, "--trace", good, "-q"}), good, kScenario, "the scenario");
  // Another name for the same file: a symbolic link, a hard link, "./".
  fs::create_symlink(good, path("alias.json"));
  fs::create_hard_link(good, path("hard.json"));
  for (const std::string& other :
       {path("alias.json"), path("hard.json"), (dir_ / "." / "good.json").string()}) {
    expect_refused(run({"plan", good, "-o", other}), good, kScenario, "the scenario");
  }
}

TEST_F(OutputsTest, PlanFilesProfilesAndTwoOutputsAreNeverOverwritten) {
  const std::string scenario = write("s.json", kScenario);
  ASSERT_EQ(run({"plan", scenario, "-o", path("plan.json"), "-q"}).exit_code, 0);
  const std::string plan = read_file(path("plan.json"));
  expect_refused(run({"plan", scenario, "--from-plan", path("plan.json"), "-o", path("plan.json")}),
                 path("plan.json"), plan, "the plan file");
  expect_refused(
      run({"simulate", scenario, "--plan", path("plan.json"), "--trace", path("plan.json")}),
      path("plan.json"), plan, "the plan file");
  expect_refused(run({"replay", scenario, path("plan.json"), "-o", path("plan.json")}),
                 path("plan.json"), plan, "the plan file");

  // Two outputs naming one file, even a file that does not exist yet.
  const CliRun twice =
      run({"simulate", scenario, "-o", path("x.json"), "--trace", path("x.json"), "-q"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("two outputs cannot share a file"), std::string::npos) << twice.err;
  EXPECT_FALSE(fs::exists(path("x.json")));
  // Devices are not files to clash: /dev/null twice is fine.
  const std::string null_dev = char_device(/*full=*/false);
  if (!null_dev.empty()) {
    const CliRun nulls = run({"simulate", scenario, "-o", null_dev, "--trace", null_dev, "-q"});
    EXPECT_EQ(nulls.exit_code, 0) << nulls.err;
    EXPECT_TRUE(is_char_device(null_dev));
  }
}

TEST_F(OutputsTest, AnOutputThatIsTheRunStoreIsRefused) {
  ::unsetenv("SHARDLAB_NO_RECORD");
  const std::string scenario = write("s.json", kScenario);
  const std::string db = path("st.db");
  ASSERT_EQ(run({"plan", scenario, "--db", db, "-q", "-o", path("p.json")}).exit_code, 0);
  const std::string store = read_file(db);
  ASSERT_FALSE(store.empty());
  expect_refused(run({"plan", scenario, "--db", db, "-o", db}), db, store, "the run store");
  expect_refused(run({"simulate", scenario, "--db", db, "--trace", db}), db, store,
                 "the run store");
  expect_refused(run({"runs", "export", "1", "--db", db, "-o", db}), db, store, "the run store");
  expect_refused(run({"calibrate", "--db", db, "-o", db}), db, store, "the run store");
  // A store that does not exist yet is still the file it will be.
  const CliRun fresh = run({"plan", scenario, "--db", path("new.db"), "-o", path("new.db")});
  EXPECT_EQ(fresh.exit_code, 2);
  EXPECT_FALSE(fs::exists(path("new.db")));
  // Without recording too: a store the command names is never overwritten.
  expect_refused(run({"plan", scenario, "--db", db, "--no-record", "-q", "-o", db}), db, store,
                 "the run store");
}

TEST_F(OutputsTest, DevicesFifosAndDescriptorsAreWrittenThrough) {
  const std::string scenario = write("s.json", kScenario);
  const std::string null_dev = char_device(/*full=*/false);
  if (!null_dev.empty()) {
    const CliRun r = run({"plan", scenario, "-o", null_dev, "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(is_char_device(null_dev)) << null_dev << " was replaced";
  }
  // A FIFO gets the JSON through it, and stays a FIFO.
  const std::string fifo = path("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  const CliRun r = run({"plan", scenario, "-o", fifo, "-q"});
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(received)["scenario"], "outputs");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  // /dev/stdout is this process's stdout (here a file the shell opened).
  const CliRun out = run({"plan", scenario, "-o", "/dev/stdout", "-q"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(Json::parse(out.out)["scenario"], "outputs");
  expect_no_temp_files();
}

TEST_F(OutputsTest, ASymbolicLinkStaysALinkAndItsTargetIsWritten) {
  const std::string scenario = write("s.json", kScenario);
  write("target.json", "old");
  ::chmod(path("target.json").c_str(), 0640);
  fs::create_symlink("target.json", path("link.json"));
  fs::create_symlink("link.json", path("link2.json"));  // a chain
  const CliRun r = run({"plan", scenario, "-o", path("link2.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_TRUE(fs::is_symlink(path("link2.json")));
  EXPECT_EQ(Json::parse(read_file(path("target.json")))["scenario"], "outputs");
  EXPECT_EQ(fs::status(path("target.json")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // A dangling link: its target is created.
  fs::create_symlink("created.json", path("dangling.json"));
  ASSERT_EQ(run({"plan", scenario, "-o", path("dangling.json"), "-q"}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(path("dangling.json")));
  EXPECT_TRUE(fs::is_regular_file(path("created.json")));
  expect_no_temp_files();
}

TEST_F(OutputsTest, WriteErrorsNameThePathAndNeverExit0) {
  const std::string scenario = write("s.json", kScenario);
  const std::string full = char_device(/*full=*/true);
  if (!full.empty()) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"plan", scenario, "-o", full},
          {"simulate", scenario, "--trace", full},
          {"options", scenario, "-o", full}}) {
      const CliRun r = run(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find(full + ": cannot write: No space left on device"), std::string::npos)
          << r.err;
      EXPECT_TRUE(is_char_device(full)) << full << " was replaced";
    }
  }
  // A missing directory, a directory, a block device are refused by name.
  CliRun r = run({"plan", scenario, "-o", path("no/such/plan.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no/such/plan.json: cannot write: No such file or directory"),
            std::string::npos)
      << r.err;
  r = run({"plan", scenario, "-o", dir_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  // A read-only file is not replaced (root may write anything).
  if (::geteuid() != 0) {
    write("ro.json", "keep");
    ::chmod(path("ro.json").c_str(), 0444);
    r = run({"plan", scenario, "-o", path("ro.json")});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(path("ro.json")), "keep");
  }
  expect_no_temp_files();
}

TEST_F(OutputsTest, StdoutOnAFullDeviceIsAFailure) {
  const std::string full = char_device(/*full=*/true);
  if (full.empty()) GTEST_SKIP() << "no /dev/full";
  const std::string scenario = write("s.json", kScenario);
  ::unsetenv("SHARDLAB_NO_RECORD");  // a store for `runs list` to list
  ASSERT_EQ(run({"plan", scenario, "-o", path("plan.json"), "-q"}).exit_code, 0);
  ::setenv("SHARDLAB_NO_RECORD", "1", 1);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", scenario, "--stats"},
        {"plan", scenario},
        {"simulate", scenario},
        {"validate", scenario},
        {"options", scenario},
        {"compare", scenario, "--iterations", "1"},
        {"runs", "list"},
        {"--help"},
        {"plan", "--help"}}) {
    const CliRun r = run_with_stdout(args, full);
    EXPECT_NE(r.exit_code, 0) << args[0];
    EXPECT_NE(r.err.find("standard output: cannot write"), std::string::npos)
        << args[0] << ": " << r.err;
  }
  EXPECT_TRUE(is_char_device(full));
}

TEST_F(OutputsTest, TheErrorObjectFollowsTheSameRules) {
  // The typo scenario writes its error object through a link, atomically.
  const std::string typo = write("typo.json", kTypoScenario);
  fs::create_symlink("err.json", path("err-link.json"));
  const CliRun r = run({"plan", typo, "-o", path("err-link.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(fs::is_symlink(path("err-link.json")));
  EXPECT_EQ(Json::parse(read_file(path("err.json")))["error"]["type"], "invalid_scenario");
  const std::string full = char_device(/*full=*/true);
  if (!full.empty()) {
    const CliRun f = run({"plan", typo, "-o", full});
    EXPECT_EQ(f.exit_code, 2);
    EXPECT_NE(f.err.find(full + ": cannot write"), std::string::npos) << f.err;
    EXPECT_TRUE(is_char_device(full));
  }
  expect_no_temp_files();
}

// Names carry an escape sequence, a bell, a carriage return, a C1 control
// (U+009B, CSI in 8-bit terminals) and a right-to-left override (U+202E).
// No verb lets one reach the terminal raw, whatever it prints (the plan's
// statistics table, optimize's summary, sweep's header, simulate's summary,
// error messages), and JSON on stdout keeps the names as they are.
TEST_F(OutputsTest, NoControlCharacterReachesTheTerminalRaw) {
  const std::string evil =
      "evil\x1b[31m\x07\r\xc2\x9b"
      "2J\xe2\x80\xae"
      "txt";
  const std::string json_evil =
      "evil\\u001b[31m\\u0007\\r\xc2\x9b"
      "2J\xe2\x80\xae"
      "txt";
  const std::string scenario = write("evil.json", R"({"name": ")" + json_evil + R"(",
    "topology": {"world_size": 2, "hbm_cap": "16 GiB"},
    "tables": [{"name": ")" + json_evil + R"(", "num_embeddings": 1000, "embedding_dim": 16,
                "feature_names": ["f0"]}],
    "planner": {"proposers": ["greedy"]}})");
  const std::vector<std::vector<std::string>> runs = {
      {"validate", scenario},
      {"plan", scenario, "--stats"},
      {"plan", scenario, "--stats", "-o", path("plan.json")},
      {"optimize", scenario, "--time-limit", "0", "--max-evaluations", "2", "-o", path("opt.json")},
      {"simulate", scenario, "--iterations", "2"},
      {"sweep", scenario, "--max-bytes", "1 KiB"},
      {"plan", scenario, "--from-plan", path("missing.json")},
  };
  for (const std::vector<std::string>& args : runs) {
    const CliRun r = run(args);
    const std::string what = args[0] + " " + args.back();
    EXPECT_NE(r.exit_code, 1) << what << ": " << r.err;
    EXPECT_EQ(shardlab::testing_support::first_unsafe(r.out, true), std::string::npos)
        << what << ": " << r.out;
    EXPECT_EQ(shardlab::testing_support::first_unsafe(r.err, true), std::string::npos)
        << what << ": " << r.err;
  }
  // The plan JSON on stdout: the escapes are JSON's, the names unchanged.
  const CliRun plan = run({"plan", scenario});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const Json j = Json::parse(plan.out);
  EXPECT_EQ(j["scenario"], evil);
  ASSERT_EQ(j["tables"].size(), 1u);
  EXPECT_EQ(j["tables"].begin().key(), evil);
}

// A name a megabyte long is echoed cut, in summaries and messages alike:
// no line of the output holds more than a few kilobytes of it.
TEST_F(OutputsTest, LongNamesAreEchoedCut) {
  const std::string name(1 << 20, 'n');
  const std::string scenario = write("long.json", R"({"name": ")" + name + R"(",
    "topology": {"world_size": 2, "hbm_cap": "16 GiB"},
    "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 16,
                "feature_names": ["f0"]}],
    "planner": {"proposers": ["greedy"]}})");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"simulate", scenario, "--iterations", "2"},
        std::vector<std::string>{"optimize", scenario, "--time-limit", "0", "--max-evaluations",
                                 "1", "-o", path("o.json")},
        std::vector<std::string>{"sweep", scenario, "--max-bytes", "1 KiB"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err.substr(0, 300);
    for (const std::string* text : {&r.out, &r.err}) {
      std::size_t longest = 0;
      std::size_t start = 0;
      for (std::size_t nl; (nl = text->find('\n', start)) != std::string::npos; start = nl + 1)
        longest = std::max(longest, nl - start);
      EXPECT_LT(longest, 8192u) << args[0];
    }
    EXPECT_NE((r.out + r.err).find(std::string(4000, 'n') + "..."), std::string::npos) << args[0];
  }
}

}  // namespace
