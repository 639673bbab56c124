// Schema upgrades: a store written at version 1 opens at the current version
// with every run, row, link and id intact, and takes the kinds added since.

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <string>

#include "../../data/src/run_store_internal.h"
#include "run_store_test_helpers.h"
#include "shardlab/data/run_store.h"

namespace shardlab::data {
namespace {

using testing::TempDir;

// A version-1 store as ShardLab 0.1 wrote it: runs 1..3 (3 deleted again, so
// the id high-water mark is above the largest id), an estimate row on run 1,
// and run 2 derived from run 1.
void write_version_one(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA foreign_keys = ON");
  SQLite::Transaction tx(db);
  db.exec(internal::migrations().at(0).sql);
  db.exec("PRAGMA application_id = " + std::to_string(internal::kRunStoreApplicationId));
  db.exec("PRAGMA user_version = 1");
  for (const char* kind : {"plan", "simulate", "calibrate"}) {
    SQLite::Statement insert(db,
                             "INSERT INTO runs (kind, created_at, scenario_name, scenario_hash, "
                             "scenario_json, shardlab_version, host, estimate_count) "
                             "VALUES (?, '2025-01-31T17:04:05.123Z', 's', '0123456789abcdef', "
                             "'{}', '0.1.0', 'h', ?)");
    insert.bind(1, kind);
    insert.bind(2, std::string(kind) == "plan" ? 1 : 0);
    insert.exec();
  }
  db.exec(
      "INSERT INTO estimates VALUES (1, 0, 'ebc.t0', 't0', 0, 3, 'table_wise', 'fused', 10, 4, 0, "
      "0, 0.1, 0.2, 0.3, 0.4, 0.0, 1000, 0)");
  db.exec("INSERT INTO run_inputs VALUES (2, 1)");
  db.exec("DELETE FROM runs WHERE id = 3");
  tx.commit();
}

TEST(RunStoreMigration, VersionOneUpgradesKeepingRunsRowsLinksAndIds) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  write_version_one(path);

  Result<RunStore> store = RunStore::open(path);
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  EXPECT_TRUE(store->check_integrity().is_ok());
  Result<StoredRun> first = store->get_run(1);
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_EQ(first->summary.kind, RunKind::kPlan);
  ASSERT_EQ(first->estimates.size(), 1u);
  EXPECT_EQ(first->estimates[0].rank, 3);
  EXPECT_EQ(first->estimates[0].hbm_bytes, 1000);
  Result<StoredRun> second = store->get_run(2);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second->inputs, (std::vector<int64_t>{1}));

  // Ids are never reused: the deleted run 3 keeps its id.
  Result<int64_t> optimize = store->add_run(testing::sample_run(RunKind::kOptimize, 5));
  ASSERT_TRUE(optimize.is_ok()) << optimize.status().message();
  EXPECT_EQ(*optimize, 4);
  Result<std::vector<RunSummary>> optimizes = store->list_runs({.kind = RunKind::kOptimize});
  ASSERT_TRUE(optimizes.is_ok());
  ASSERT_EQ(optimizes->size(), 1u);
  // Version 5 takes traces, and kept what versions 3 and 4 added.
  Result<int64_t> trace = store->add_run(testing::sample_run(RunKind::kTrace, 0));
  ASSERT_TRUE(trace.is_ok()) << trace.status().message();
  EXPECT_EQ(*trace, 5);
  EXPECT_EQ(first->summary.torchrec_version, "2024-02");
  ASSERT_TRUE(store->set_label(1, "kept").is_ok());
  EXPECT_EQ(store->get_run(1)->summary.label, "kept");

  // Foreign keys are on again: deleting run 1 takes its rows and links.
  ASSERT_TRUE(store->delete_run(1).is_ok());
  second = store->get_run(2);
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(second->inputs.empty());
  EXPECT_TRUE(store->check_integrity().is_ok());
}

}  // namespace
}  // namespace shardlab::data
