// The run store under abuse from other processes: a writer killed with
// SIGKILL in the middle of its runs leaves every committed run whole, and two
// processes writing at once both succeed.
//
// Children are forked and use only the store, then _exit: no gtest assertion
// runs in a child.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "run_store_test_helpers.h"
#include "shardlab/data/run_store.h"

namespace shardlab::data {
namespace {

using testing::sample_run;
using testing::TempDir;

constexpr int kRowsPerRun = 200;

// Child body: writes runs until killed (or `max_runs` written). Exit status
// 0 when every write succeeded, else 1 (after printing why).
[[noreturn]] void write_runs(const std::string& path, int first_seed, int max_runs) {
  Result<RunStore> store = RunStore::open(path);
  if (!store.is_ok()) {
    fprintf(stderr, "child open: %s\n", store.status().message().c_str());
    _exit(1);
  }
  for (int i = 0; i < max_runs; ++i) {
    Result<int64_t> id = store->add_run(sample_run(RunKind::kPlan, first_seed + i, kRowsPerRun));
    if (!id.is_ok()) {
      fprintf(stderr, "child write: %s\n", id.status().message().c_str());
      _exit(1);
    }
  }
  _exit(0);
}

int64_t count_runs(const std::string& path) {
  Result<RunStore> store = RunStore::open(path);
  if (!store.is_ok()) return -1;
  Result<std::vector<RunSummary>> runs = store->list_runs();
  return runs.is_ok() ? static_cast<int64_t>(runs->size()) : -1;
}

// Every run has exactly the estimate rows its summary says it wrote.
void expect_every_run_whole(RunStore& store, int64_t* runs_seen) {
  Result<std::vector<RunSummary>> runs = store.list_runs();
  ASSERT_TRUE(runs.is_ok()) << runs.status().message();
  *runs_seen = static_cast<int64_t>(runs->size());
  for (const RunSummary& s : *runs) {
    const nlohmann::json summary = nlohmann::json::parse(s.summary_json);
    const int64_t rows = summary.at("rows").get<int64_t>();
    EXPECT_EQ(rows, kRowsPerRun);
    Result<StoredRun> run = store.get_run(s.id);
    ASSERT_TRUE(run.is_ok()) << run.status().message();
    EXPECT_EQ(static_cast<int64_t>(run->estimates.size()), rows) << "run " << s.id;
    EXPECT_EQ(run->summary.estimate_count, rows) << "run " << s.id;
    // The last row is the one written last in the transaction.
    ASSERT_FALSE(run->estimates.empty());
    EXPECT_EQ(run->estimates.back().rows, 1000 + kRowsPerRun - 1);
  }
}

TEST(RunStoreProcesses, WriterKilledMidRunLeavesEveryCommittedRunWhole) {
  TempDir dir;
  const std::string path = dir.file("killed.db");
  // Create the schema first so the poll below never races the child's migration.
  ASSERT_TRUE(RunStore::open(path).is_ok());

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) write_runs(path, 0, 1000000);

  // Wait for a few commits, then kill the writer wherever it is.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int64_t seen = 0;
  while ((seen = count_runs(path)) < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Let it get well into the next transactions.
  std::this_thread::sleep_for(std::chrono::milliseconds(7));
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended before it was killed, status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  ASSERT_GE(seen, 5) << "the writer committed too few runs before the deadline";

  Result<RunStore> store = RunStore::open(path);
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  Status check = store->check_integrity();
  EXPECT_TRUE(check.is_ok()) << check.message();
  int64_t runs = 0;
  expect_every_run_whole(*store, &runs);
  EXPECT_GE(runs, seen);
  // The store still takes writes.
  Result<int64_t> more = store->add_run(sample_run(RunKind::kPlan, 99, kRowsPerRun));
  EXPECT_TRUE(more.is_ok()) << more.status().message();
}

TEST(RunStoreProcesses, TwoProcessesWritingAtOnceBothSucceed) {
  TempDir dir;
  // A new file: both children also race to create the schema.
  const std::string path = dir.file("shared.db");
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) write_runs(path, 1000 * c, 50);
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "a writer failed (its stderr says why)";
  }
  Result<RunStore> store = RunStore::open(path);
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  EXPECT_TRUE(store->check_integrity().is_ok());
  int64_t runs = 0;
  expect_every_run_whole(*store, &runs);
  EXPECT_EQ(runs, 100);
  // Both writers' runs are there: seeds 0..49 and 1000..1049.
  Result<std::vector<RunSummary>> all = store->list_runs();
  ASSERT_TRUE(all.is_ok());
  int first = 0, second = 0;
  for (const RunSummary& s : *all) {
    const int64_t seed = nlohmann::json::parse(s.summary_json).at("seed").get<int64_t>();
    (seed < 1000 ? first : second)++;
  }
  EXPECT_EQ(first, 50);
  EXPECT_EQ(second, 50);
}

}  // namespace
}  // namespace shardlab::data
