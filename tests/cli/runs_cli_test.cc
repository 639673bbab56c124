// shardlab runs and run recording through the real binary: plan and simulate
// record their runs, runs list / show / export / diff / delete read them
// back, and an unusable store is an error only when the user named it.

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace shardlab_cli_test {
namespace {

std::string fmt_4g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

class RunsCliTest : public CliTest {
 protected:
  // Plans and simulates tiny_2gpu into `db`: runs 1 (plan) and 2 (simulate).
  void record_two(const std::string& db) {
    const CliRun planned = run({"plan", kTiny, "-o", path("plan.json"), "--db", db});
    ASSERT_EQ(planned.exit_code, 0) << planned.err;
    EXPECT_NE(planned.err.find("recorded run 1 in " + db), std::string::npos) << planned.err;
    const CliRun simulated = run({"simulate", kTiny, "--plan", path("plan.json"), "--db", db});
    ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
    EXPECT_NE(simulated.err.find("recorded run 2 in " + db), std::string::npos) << simulated.err;
  }
};

TEST_F(RunsCliTest, PlanAndSimulateAreListedShownExportedAndDiffed) {
  const std::string db = path("runs.db");
  record_two(db);
  const Json plan = Json::parse(read_file(path("plan.json")));

  CliRun r = run({"runs", "list", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("plan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("simulate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tiny_2gpu"), std::string::npos) << r.out;

  r = run({"runs", "list", "--db", db, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json list = Json::parse(r.out);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["id"], 2);
  EXPECT_EQ(list[0]["kind"], "simulate");
  EXPECT_GT(list[0]["summary"]["iteration_ms"].get<double>(), 0.0);
  EXPECT_GT(list[0]["sim_phases"].get<int>(), 0);
  EXPECT_EQ(list[1]["id"], 1);
  EXPECT_EQ(list[1]["kind"], "plan");
  EXPECT_EQ(list[1]["summary"]["rating_ms"], plan["perf_rating_ms"]);
  EXPECT_EQ(list[1]["scenario_hash"], list[0]["scenario_hash"]);
  // The TorchRec model each run planned with (the default, 2026-08).
  EXPECT_EQ(list[0]["torchrec_version"], "2026-08");
  EXPECT_EQ(list[1]["torchrec_version"], "2026-08");

  r = run({"runs", "list", "--db", db, "--kind", "plan", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  list = Json::parse(r.out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], 1);

  r = run({"runs", "show", "1", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("run 1 (plan)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  torchrec     2026-08\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("estimates per rank"), std::string::npos) << r.out;

  // The export holds the plan, its per-shard estimates and the scenario.
  r = run({"runs", "export", "1", "--db", db, "-o", path("run1.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_no_temp_files();
  const Json exported = Json::parse(read_file(path("run1.json")));
  EXPECT_EQ(exported["kind"], "plan");
  EXPECT_EQ(exported["scenario"]["name"], "tiny_2gpu");
  EXPECT_EQ(exported["plan"]["perf_rating_ms"], plan["perf_rating_ms"]);
  size_t shards = 0;
  for (const auto& [name, table] : plan["tables"].items()) shards += table["shards"].size();
  ASSERT_EQ(exported["estimates"].size(), shards);
  for (const Json& e : exported["estimates"]) {
    const Json& table = plan["tables"][e["table"].get<std::string>()];
    EXPECT_EQ(e["sharding_type"], table["sharding_type"]);
    EXPECT_EQ(e["rank"], table["shards"][e["shard"].get<size_t>()]["rank"]);
  }

  r = run({"runs", "export", "2", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json sim = Json::parse(r.out);
  EXPECT_FALSE(sim["sim_phases"].empty());
  for (const Json& p : sim["sim_phases"])
    EXPECT_EQ(p["iteration"], sim["summary"]["iterations"].get<int>() - 1);

  // Same plan: the kinds and summaries differ, the placements do not.
  r = run({"runs", "diff", "1", "2", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("runs 1 (a) and 2 (b)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iteration_ms"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("placement differs"), std::string::npos) << r.out;
  r = run({"runs", "diff", "1", "2", "--db", db, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json diff = Json::parse(r.out);
  EXPECT_EQ(diff["fields"][0]["name"], "kind");
  EXPECT_EQ(diff["fields"][0]["a"], "plan");
  EXPECT_EQ(diff["fields"][0]["b"], "simulate");
  EXPECT_TRUE(diff["placements"].empty());
  EXPECT_TRUE(diff["rank_perf_ms"].empty());

  r = run({"runs", "check", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = run({"runs", "delete", "1", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"runs", "show", "1", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(db + ": no run 1"), std::string::npos) << r.err;
  r = run({"runs", "diff", "1", "2", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  r = run({"runs", "delete", "1", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  r = run({"runs", "list", "--db", db, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out).size(), 1u);
}

// --label names a recorded run; runs list shows and filters labels; runs
// label sets or removes one.
TEST_F(RunsCliTest, LabelsNameRuns) {
  const std::string db = path("runs.db");
  CliRun r = run({"simulate", kTiny, "-q", "--db", db, "--label", "baseline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"plan", kTiny, "-q", "--db", db, "-o", path("plan.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"runs", "list", "--db", db});
  EXPECT_NE(r.out.find("label"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("baseline"), std::string::npos) << r.out;
  const auto labelled = [&](const std::string& label) {
    const CliRun l = run({"runs", "list", "--db", db, "--label", label, "--format", "json"});
    EXPECT_EQ(l.exit_code, 0) << l.err;
    std::vector<int64_t> ids;
    for (const Json& x : Json::parse(l.out)) {
      EXPECT_EQ(x["label"], label);
      ids.push_back(x["id"].get<int64_t>());
    }
    return ids;
  };
  EXPECT_EQ(labelled("baseline"), (std::vector<int64_t>{1}));
  r = run({"runs", "label", "2", "after rebalancing", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(labelled("after rebalancing"), (std::vector<int64_t>{2}));
  r = run({"runs", "label", "1", "--remove", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(labelled("baseline").empty());
  r = run({"runs", "label", "1", "--db", db});  // neither a label nor --remove
  EXPECT_EQ(r.exit_code, 2);
  r = run({"runs", "label", "7", "x", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(db + ": no run 7"), std::string::npos) << r.err;
}

// runs delete takes ids and ranges (all or none) and gives the space back;
// runs prune keeps the newest N matching runs, --dry-run only says which go.
TEST_F(RunsCliTest, DeleteRangesAndPrune) {
  const std::string db = path("runs.db");
  for (int i = 0; i < 6; ++i) {
    const CliRun r = run({"simulate", kTiny, "-q", "--db", db});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CliRun r = run({"runs", "delete", "2,4-5", "9", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(db + ": no run 9"), std::string::npos) << r.err;
  const auto ids = [&] {
    const CliRun l = run({"runs", "list", "--db", db, "--format", "json"});
    std::vector<int64_t> out;
    for (const Json& run : Json::parse(l.out)) out.push_back(run["id"].get<int64_t>());
    return out;
  };
  EXPECT_EQ(ids(), (std::vector<int64_t>{6, 5, 4, 3, 2, 1}));  // none deleted
  r = run({"runs", "delete", "2,4-5", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("deleted runs 2,4-5 from " + db + "; the file went from "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ids(), (std::vector<int64_t>{6, 3, 1}));
  r = run({"runs", "prune", "--keep", "1", "--dry-run", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "would delete runs 1,3\n");
  EXPECT_EQ(ids(), (std::vector<int64_t>{6, 3, 1}));
  r = run({"runs", "prune", "--keep", "1", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(), (std::vector<int64_t>{6}));
  r = run({"runs", "prune", "--keep", "1", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nothing to prune"), std::string::npos) << r.err;
  r = run({"runs", "delete", "0", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(RunsCliTest, StoreComesFromDbThenEnvironmentThenTheWorkingDirectory) {
  // The fixture points SHARDLAB_DB at this test's shardlab.db.
  CliRun r = run({"plan", kTiny, "-o", path("plan.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("recorded run 1 in " + path("shardlab.db")), std::string::npos) << r.err;
  r = run({"runs", "list", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out).size(), 1u);

  // --no-record and SHARDLAB_NO_RECORD write nothing.
  r = run({"plan", kTiny, "-o", path("plan.json"), "--no-record", "--db", path("none.db")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(path("none.db")));
  ::setenv("SHARDLAB_NO_RECORD", "1", 1);
  r = run({"simulate", kTiny, "-q", "--db", path("none.db")});
  ::unsetenv("SHARDLAB_NO_RECORD");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(path("none.db")));

  // Without --db or SHARDLAB_DB: shardlab.db in the working directory.
  const fs::path cwd = fs::current_path();
  fs::create_directories(dir_ / "wd");
  ::unsetenv("SHARDLAB_DB");
  fs::current_path(dir_ / "wd");
  r = run({"plan", kTiny, "-o", path("plan.json")});
  const CliRun listed = run({"runs", "list", "--format", "json"});
  fs::current_path(cwd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("recorded run 1 in shardlab.db"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "wd" / "shardlab.db"));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(Json::parse(listed.out).size(), 1u);
}

// Full and read-only disks (issue 28), on a small tmpfs mounted in a private
// user and mount namespace (skipped where the system allows none): readers
// read the store and leave no index files behind; writers and new stores are
// refused before the verb's work, naming the disk, and leave nothing behind.
TEST_F(RunsCliTest, FullAndReadOnlyDisksAreSaidBeforeTheWork) {
  if (std::system("unshare -rm true > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no user and mount namespaces here (unshare -rm)";
  const std::string disk = path("disk");
  fs::create_directories(disk);
  const std::string cli = quote(SHARDLAB_CLI_PATH);
  const std::string db = disk + "/runs.db";
  const std::string fresh = disk + "/new.db";
  // Each step prints "<name> rc=<status>" after its stderr.
  const auto step = [&](const std::string& name, const std::string& args) {
    return cli + " " + args + " 2>&1; echo '" + name + " rc='$?; ";
  };
  std::string script = "set -u; mount -t tmpfs -o size=1m tmpfs " + quote(disk) + " || exit 99; ";
  script += step("record", "simulate " + quote(kTiny) + " -q --db " + quote(db));
  script += "dd if=/dev/zero of=" + quote(disk + "/filler") + " bs=4k > /dev/null 2>&1; ";
  script += step("list-full", "runs list --db " + quote(db));
  script += step("check-full", "runs check --db " + quote(db));
  script += "ls " + quote(disk) + " | sed 's/^/file-full: /'; ";
  script += step("record-full", "simulate " + quote(kTiny) + " -q --db " + quote(db) + " -o " +
                                    quote(path("full.json")));
  script += step("create-full", "simulate " + quote(kTiny) + " -q --db " + quote(fresh));
  script += "ls " + quote(disk) + " | sed 's/^/file-full2: /'; ";
  script += "rm " + quote(disk + "/filler") + "; : > " + quote(db + "-wal") + "; printf abc > " +
            quote(db + "-shm") + "; mount -o remount,ro " + quote(disk) + " || exit 98; ";
  script += step("record-ro", "simulate " + quote(kTiny) + " -q --db " + quote(db));
  script += step("list-ro", "runs list --db " + quote(db));
  script += step("create-ro", "simulate " + quote(kTiny) + " -q --db " + quote(fresh));
  const std::string out_path = path("script.txt");
  const int status = std::system(
      ("unshare -rm sh -c " + quote(script) + " > " + quote(out_path) + " 2>&1").c_str());
  const std::string out = read_file(out_path);
  if (WEXITSTATUS(status) == 99 || WEXITSTATUS(status) == 98)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << out;
  const auto has = [&](const std::string& what) { return out.find(what) != std::string::npos; };
  EXPECT_TRUE(has("record rc=0")) << out;
  // Readers on the full disk: the run is listed, the check passes, and no
  // -shm or -wal file was made.
  EXPECT_TRUE(has("list-full rc=0")) << out;
  EXPECT_TRUE(has("check-full rc=0")) << out;
  EXPECT_TRUE(has("runs.db: ok")) << out;
  EXPECT_FALSE(has("file-full: runs.db-shm")) << out;
  EXPECT_FALSE(has("file-full: runs.db-wal")) << out;
  // Writers: refused before the work, naming the disk.
  EXPECT_TRUE(has("record-full rc=2")) << out;
  EXPECT_TRUE(has(db + ": cannot write to the run store: 0 KiB free on its file system")) << out;
  EXPECT_EQ(Json::parse(read_file(path("full.json"))).contains("error"), true);
  EXPECT_TRUE(has("create-full rc=2")) << out;
  EXPECT_TRUE(has(fresh + ": cannot create the run store: 0 KiB free")) << out;
  EXPECT_FALSE(has("file-full2: new.db")) << out;
  // A read-only disk with leftover index files: the writer is refused up
  // front (SQLite would open the store read-only without a word), the reader
  // reads, a new store is refused.
  EXPECT_TRUE(has("record-ro rc=2")) << out;
  EXPECT_TRUE(has(db + ": cannot record runs: the run store cannot be written")) << out;
  EXPECT_FALSE(has("run not recorded")) << out;
  EXPECT_TRUE(has("list-ro rc=0")) << out;
  EXPECT_TRUE(has("create-ro rc=2")) << out;
  EXPECT_TRUE(has(fresh + ": cannot create the run store: " + disk + " cannot be written")) << out;
}

TEST_F(RunsCliTest, UnusableStoreFailsOnlyWhenNamed) {
  // A directory where the file should be: the store cannot be opened. A named
  // store is checked before the work: exit 2, and -o gets the error object.
  fs::create_directories(dir_ / "blocked.db");
  const std::string blocked = path("blocked.db");
  CliRun r = run({"plan", kTiny, "-o", path("plan.json"), "--db", blocked});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("shardlab: error: cannot record the run: " + blocked +
                       ": not a run store: is a directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Json::parse(read_file(path("plan.json")))["error"]["type"], "invalid_scenario");

  ::setenv("SHARDLAB_DB", blocked.c_str(), 1);
  r = run({"simulate", kTiny, "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(blocked), std::string::npos) << r.err;

  // The default shardlab.db: a warning, and the verb's status and output.
  const fs::path cwd = fs::current_path();
  fs::create_directories(dir_ / "wd" / "shardlab.db");
  ::unsetenv("SHARDLAB_DB");
  fs::current_path(dir_ / "wd");
  r = run({"plan", kTiny, "-o", path("plan2.json")});
  fs::current_path(cwd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("shardlab: warning: shardlab.db: not a run store: is a directory; the run "
                       "is not recorded"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(Json::parse(read_file(path("plan2.json"))).contains("tables"));

  // A file of random bytes is an error naming it, for the runs verbs and for
  // a recording verb that names it (2 both: the input is at fault).
  const std::string junk = write("junk.db", std::string(8192, '\x5a'));
  r = run({"runs", "list", "--db", junk});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(junk + ": "), std::string::npos) << r.err;
  r = run({"plan", kTiny, "-q", "-o", path("plan3.json"), "--db", junk});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(junk), std::string::npos) << r.err;
  EXPECT_EQ(read_file(junk), std::string(8192, '\x5a'));

  // Reading a store that does not exist does not create one.
  r = run({"runs", "list", "--db", path("missing.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no run store here"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("missing.db")));
}

// Every verb that takes --db, on another program's SQLite database.
std::vector<std::vector<std::string>> every_store_verb(const std::string& db,
                                                       const std::string& out) {
  return {{"runs", "list", "--db", db},
          {"runs", "show", "1", "--db", db},
          {"runs", "export", "1", "--db", db, "-o", out},
          {"runs", "diff", "1", "2", "--db", db},
          {"runs", "delete", "1", "--db", db},
          {"runs", "check", "--db", db},
          {"plan", kTiny, "--db", db, "-o", out},
          {"simulate", kTiny, "--db", db, "-q"},
          {"compare", kTiny, "--db", db, "--iterations", "1", "-q"},
          {"calibrate", "--db", db},
          {"replay", kTiny, out, "--db", db, "-q"}};
}

TEST_F(RunsCliTest, AnotherProgramsDatabaseIsNeverModified) {
  ASSERT_EQ(run({"plan", kTiny, "-o", path("plan.json"), "--no-record"}).exit_code, 0);
  const std::string db = path("app.db");
  {
    SQLite::Database app(db, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    app.exec(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES "
        "('ada');");
  }
  const std::string before = read_file(db);
  for (const std::vector<std::string>& args : every_store_verb(db, path("plan.json"))) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(db + ": not a ShardLab run store: an SQLite database of another program"),
              std::string::npos)
        << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_EQ(read_file(db), before) << args[0] << " " << args[1] << " changed the file";
    EXPECT_FALSE(fs::exists(db + "-wal")) << args[0] << " " << args[1];
    EXPECT_FALSE(fs::exists(db + "-shm")) << args[0] << " " << args[1];
  }
}

TEST_F(RunsCliTest, AOneByteFileIsRefusedNotReinitialised) {
  ASSERT_EQ(run({"plan", kTiny, "-o", path("plan.json"), "--no-record"}).exit_code, 0);
  const std::string db = write("one.db", "x");
  for (const std::vector<std::string>& args : every_store_verb(db, path("plan.json"))) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_NE(
        r.err.find(
            db +
            ": the file is not a ShardLab run store or is damaged: not an SQLite database (1 byte"),
        std::string::npos)
        << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_EQ(read_file(db), "x") << args[0] << " " << args[1];
  }
  // An empty file is a new store for a verb that records.
  const std::string empty = write("empty.db", "");
  const CliRun planned = run({"plan", kTiny, "-o", path("p.json"), "--db", empty});
  EXPECT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_NE(planned.err.find("recorded run 1 in " + empty), std::string::npos) << planned.err;
}

TEST_F(RunsCliTest, StoreProblemsAreTheInputsFaultExit2) {
  // --db in a missing directory.
  CliRun r = run({"plan", kTiny, "-o", path("plan.json"), "--db", path("no/dir/runs.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no directory " + path("no/dir")), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("no")));

  // A store written by a newer ShardLab: refused by every verb, untouched.
  const std::string db = path("newer.db");
  record_two(db);
  {
    SQLite::Database store(db, SQLite::OPEN_READWRITE);
    store.exec("PRAGMA user_version = 7");
  }
  const std::string before = read_file(db);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", kTiny, "--db", db, "-q", "-o", path("p.json")},
        {"simulate", kTiny, "--db", db, "-q"},
        {"runs", "list", "--db", db},
        {"runs", "delete", "1", "--db", db}}) {
    r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("run store schema version 7 is newer"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--db file"), std::string::npos)
        << "library messages name no flag: " << r.err;
  }
  EXPECT_EQ(read_file(db), before);
}

TEST_F(RunsCliTest, ADamagedStoreTakesNoNewRuns) {
  const std::string db = path("damaged.db");
  ASSERT_EQ(run({"plan", kTiny, "-o", path("plan.json"), "--db", db, "-q"}).exit_code, 0);
  for (int i = 0; i < 30; ++i) {
    ASSERT_EQ(run({"simulate", kTiny, "--plan", path("plan.json"), "--db", db, "-q"}).exit_code, 0);
  }
  ASSERT_FALSE(fs::exists(db + "-wal"));
  const auto size = fs::file_size(db);
  ASSERT_GT(size, 16u * 4096u);
  {
    // Noise over the pages after the first few: the header page stays whole.
    std::fstream f(db, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(4 * 4096));
    for (uint64_t i = 4 * 4096; i < size; ++i) f.put(static_cast<char>((i * 2654435761u) >> 13));
  }
  const std::string before = read_file(db);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", kTiny, "--db", db, "-q", "-o", path("p.json")},
        {"simulate", kTiny, "--db", db, "-q"},
        {"runs", "delete", "1", "--db", db}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(db + ": the run store is damaged (SQLite's quick check: "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("`shardlab runs check` shows what is wrong"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_file(db), before);
  // The error object plan's -o received names the store's problem, not the scenario's.
  EXPECT_EQ(Json::parse(read_file(path("p.json")))["error"]["type"], "corrupt");
  const CliRun check = run({"runs", "check", "--db", db});
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_NE(check.err.find(db + ": "), std::string::npos) << check.err;
}

TEST_F(RunsCliTest, CompareRecordsEachConfigurationAndTakesNoRecord) {
  const std::string db = path("cmp.db");
  CliRun r = run({"compare", kTiny, "--db", db, "--iterations", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("recorded runs 1-"), std::string::npos) << r.err;
  const CliRun listed = run({"runs", "list", "--db", db, "--format", "json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const Json runs = Json::parse(listed.out);
  ASSERT_GE(runs.size(), 2u);
  for (const Json& run : runs) {
    EXPECT_EQ(run["kind"], "simulate");
    EXPECT_TRUE(run["summary"].contains("compare")) << run.dump();
  }
  // Two configurations' plans compare with runs diff.
  EXPECT_EQ(run({"runs", "diff", "1", "2", "--db", db}).exit_code, 0);
  // --no-record: nothing added.
  r = run({"compare", kTiny, "--db", db, "--iterations", "1", "--no-record", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(run({"runs", "list", "--db", db, "--format", "json"}).out).size(),
            runs.size());
}

// The list and the diff are for people: headline numbers to a few digits
// with their unit, compare rows told apart by their configuration; the JSON
// keeps every digit.
TEST_F(RunsCliTest, ListAndDiffPrintNumbersForPeople) {
  const std::string db = path("cmp.db");
  ASSERT_EQ(run({"compare", kTiny, "--db", db, "--iterations", "1", "-q"}).exit_code, 0);
  const CliRun listed = run({"runs", "list", "--db", db, "--limit", "2"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find("{\""), std::string::npos) << "no raw JSON: " << listed.out;
  EXPECT_NE(listed.out.find("iteration "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find(" ms, iterations 1, rating "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find(", compare "), std::string::npos) << listed.out;
  const Json runs = Json::parse(run({"runs", "list", "--db", db, "--format", "json"}).out);
  ASSERT_GE(runs.size(), 2u);
  // 4 significant digits of the stored rating, in the row of its run.
  const double rating = runs[0]["summary"]["rating_ms"].get<double>();
  EXPECT_NE(listed.out.find(fmt_4g(rating) + " ms"), std::string::npos) << listed.out;

  // Fractional numbers to 6 significant digits in the text diff, all in the JSON.
  const CliRun diff = run({"runs", "diff", "1", "2", "--db", db});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  const Json both =
      Json::parse(run({"runs", "diff", "1", "2", "--db", db, "--format", "json"}).out);
  for (const Json& f : both["fields"]) {
    if (f["name"] != "wall_ms") continue;
    const std::string full = f["a"].dump();
    if (full.size() > 9) {
      EXPECT_EQ(diff.out.find(full), std::string::npos) << diff.out;
    }
  }
  bool wall = false;
  for (size_t line = 0; line < diff.out.size();) {
    const size_t end = diff.out.find('\n', line);
    const std::string text = diff.out.substr(line, end - line);
    if (text.find("  wall_ms ") == 0) {
      wall = true;
      // No number in the row has more than 6 significant digits.
      int digits = 0, most = 0;
      for (char c : text) {
        digits = std::isdigit(static_cast<unsigned char>(c)) ? digits + 1 : 0;
        most = std::max(most, digits);
      }
      EXPECT_LE(most, 7) << text;  // "0.154109": 6 digits after a leading 0
    }
    if (end == std::string::npos) break;
    line = end + 1;
  }
  EXPECT_TRUE(wall) << diff.out;

  // --limit 0 is every run, as the help says.
  const CliRun help = run({"runs", "list", "--help"});
  EXPECT_NE(help.out.find("0 shows all"), std::string::npos) << help.out;
  const CliRun all = run({"runs", "list", "--db", db, "--limit", "0", "--format", "json"});
  EXPECT_EQ(Json::parse(all.out).size(), runs.size());
}

TEST_F(RunsCliTest, HelpTeachesWithExamples) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"runs", "--help"},
                                               {"runs", "list", "--help"},
                                               {"runs", "show", "--help"},
                                               {"runs", "export", "--help"},
                                               {"runs", "diff", "--help"},
                                               {"runs", "delete", "--help"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args[1];
    EXPECT_NE(r.out.find("Example"), std::string::npos) << args[1] << ":\n" << r.out;
    EXPECT_NE(r.out.find("--db"), std::string::npos) << args[1] << ":\n" << r.out;
  }
  const CliRun plan_help = run({"plan", "--help"});
  EXPECT_NE(plan_help.out.find("--no-record"), std::string::npos) << plan_help.out;
  const CliRun usage = run({"runs", "show"});
  EXPECT_EQ(usage.exit_code, 2);
}

}  // namespace
}  // namespace shardlab_cli_test
