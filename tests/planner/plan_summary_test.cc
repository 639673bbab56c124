// plan_summary.h: per-rank and per-table numbers of a plan agree with the
// planner's own (storage per rank, device perf totals, reservations), the
// memory stack adds up to capacity, and diff_plans finds moved tables.

#include "shardlab/planner/plan_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/proposal_log.h"

namespace shardlab::planner {
namespace {

Scenario scenario() {
  Scenario s;
  s.name = "summary";
  s.topology.world_size = 4;
  s.topology.local_world_size = 2;
  s.topology.hbm_cap = int64_t{16} << 30;
  s.planner.proposers = default_proposers();
  const int64_t rows[] = {4000000, 250000, 1000, 60000, 900000};
  for (int i = 0; i < 5; ++i) {
    TableSpec t;
    t.name = "t";
    t.name += std::to_string(i);
    t.num_embeddings = rows[i];
    t.embedding_dim = i == 2 ? 16 : 128;
    t.feature_names = {t.name};
    s.tables.push_back(t);
  }
  s.constraints.resize(5);
  return s;
}

TEST(PlanSummaryTest, NumbersAgreeWithThePlanner) {
  const Scenario s = scenario();
  const PlannerResult r = plan(s);
  ASSERT_TRUE(r.ok());
  const PlanSummary sum = summarize_plan(s, r, *r.best);
  ASSERT_EQ(sum.ranks.size(), size_t{4});
  ASSERT_EQ(sum.tables.size(), size_t{5});
  EXPECT_EQ(sum.torchrec_rating, r.perf_rating);
  const std::vector<Storage> used = shard_storage_per_rank(*r.search_space, *r.best, 4);
  int shards = 0;
  for (size_t i = 0; i < 4; ++i) {
    const RankSummary& rs = sum.ranks[i];
    EXPECT_EQ(rs.rank, static_cast<int>(i));
    EXPECT_EQ(rs.shards, used[i]);
    EXPECT_EQ(rs.perf_total, r.device_perf_total[i]);
    EXPECT_EQ(rs.available, r.reserved->devices[i]);
    EXPECT_EQ(rs.capacity, r.topology.devices[i].storage);
    EXPECT_EQ(rs.dense, r.reserved->dense.value_or(Storage{}));
    EXPECT_EQ(rs.overflow(), Storage{});
    // The HBM stack of the Plan view adds up to the raw capacity.
    EXPECT_EQ(rs.shards.hbm + rs.dense.hbm + rs.kjt.hbm + rs.free().hbm + rs.margin().hbm,
              rs.capacity.hbm);
    shards += rs.num_shards;
  }
  EXPECT_EQ(shards, static_cast<int>(r.best->ranks.size()));
  for (size_t t = 0; t < sum.tables.size(); ++t) {
    const TableSummary& ts = sum.tables[t];
    const ShardingOption& o = r.search_space->options[static_cast<size_t>(r.best->proposal[t])];
    EXPECT_EQ(ts.fqn, o.fqn);
    EXPECT_EQ(ts.storage, o.total_storage);
    EXPECT_EQ(ts.ranks.size(), o.shards.size());
    EXPECT_EQ(ts.hash_size, o.tensor_rows);
    EXPECT_DOUBLE_EQ(ts.pooling_factor, 1.0);  // the default single input of factor 1
  }
}

TEST(PlanSummaryTest, DiffFindsMovedTablesAndRankDeltas) {
  const Scenario s = scenario();
  const PlannerResult r = plan(s);
  ASSERT_TRUE(r.ok());
  const PlanSummary a = summarize_plan(s, r, *r.best);
  const PlanDiff same = diff_plans(a, a);
  EXPECT_TRUE(same.moved_tables.empty());
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(same.hbm_delta[i], 0);
    EXPECT_EQ(same.perf_delta[i], 0.0);
  }
  // Move the first shard of the first table to the next rank.
  PartitionedPlan moved = *r.best;
  const size_t table = 0;
  int& rank = moved.ranks[static_cast<size_t>(moved.first_shard[table])];
  const int from = rank;
  rank = (rank + 1) % 4;
  const int64_t shard_hbm = a.tables[table].shards.storage(0).hbm;
  const PlanSummary b = summarize_plan(s, r, moved);
  const PlanDiff d = diff_plans(a, b);
  ASSERT_EQ(d.moved_tables.size(), size_t{1});
  EXPECT_EQ(d.moved_tables[0], a.tables[table].name);
  EXPECT_EQ(d.hbm_delta[static_cast<size_t>(from)], -shard_hbm);
  EXPECT_EQ(d.hbm_delta[static_cast<size_t>(rank)], shard_hbm);
}

}  // namespace
}  // namespace shardlab::planner
