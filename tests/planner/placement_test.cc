// placement.h: the planner's own plans follow the placement rules and fit;
// each rule refuses what it should; a rank over its capacity is named.

#include "shardlab/planner/placement.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shardlab/planner/placement_fit.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {
namespace {

// Four ranks on two hosts; one table with every sharding type.
Scenario scenario() {
  Scenario s;
  s.name = "placement";
  s.topology.world_size = 4;
  s.topology.local_world_size = 2;
  s.planner.proposers = default_proposers();
  TableSpec t;
  t.name = "t0";
  t.num_embeddings = 100000;
  t.embedding_dim = 256;  // two column shards
  t.feature_names = {"t0"};
  s.tables.push_back(t);
  s.constraints.resize(1);
  return s;
}

const ShardingOption& first_of(const SearchSpace& space, ShardingType type) {
  for (const ShardingOption& o : space.options) {
    if (o.sharding_type == type) return o;
  }
  ADD_FAILURE() << "no option of type " << to_string(type);
  return space.options.front();
}

TEST(Placement, PlannerPlansFollowTheRulesAndFit) {
  const Scenario s = scenario();
  const PlannerResult r = plan(s);
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_TRUE(check_plan_fits(*r.search_space, *r.best, r.topology, r.reserved->devices).is_ok());
}

TEST(Placement, EachShardingTypeHasItsRule) {
  const Scenario s = scenario();
  const PlannerResult r = plan(s, PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(r.search_space.has_value());
  const SearchSpace& space = *r.search_space;
  const Topology& t = r.topology;
  auto allowed = [&](ShardingType type, std::vector<int> ranks) {
    return placement_allowed(first_of(space, type), ranks.data(), t);
  };
  // Uniform: shard i on rank i.
  EXPECT_TRUE(allowed(ShardingType::kRowWise, {0, 1, 2, 3}));
  EXPECT_FALSE(allowed(ShardingType::kRowWise, {1, 0, 2, 3}));
  EXPECT_TRUE(allowed(ShardingType::kDataParallel, {0, 1, 2, 3}));
  // Device: anywhere, even both column shards on one rank; never off the topology.
  EXPECT_TRUE(allowed(ShardingType::kTableWise, {3}));
  EXPECT_TRUE(allowed(ShardingType::kColumnWise, {2, 2}));
  EXPECT_FALSE(allowed(ShardingType::kTableWise, {4}));
  EXPECT_FALSE(allowed(ShardingType::kTableWise, {-1}));
  // Host: table-row-wise in order on one host; table-column-wise anywhere in one host.
  EXPECT_TRUE(allowed(ShardingType::kTableRowWise, {2, 3}));
  EXPECT_FALSE(allowed(ShardingType::kTableRowWise, {3, 2}));
  EXPECT_FALSE(allowed(ShardingType::kTableRowWise, {1, 2}));
  EXPECT_TRUE(allowed(ShardingType::kTableColumnWise, {1, 0}));
  EXPECT_FALSE(allowed(ShardingType::kTableColumnWise, {1, 2}));
}

// Grid (multi-host): each column block's row shards in order on one group;
// blocks may share a group. Here groups are pods of two hosts (4 ranks).
TEST(Placement, GridBlocksEachTakeOneGroupInOrder) {
  Scenario s = scenario();
  s.topology.world_size = 8;
  s.topology.pod_size = 2;
  s.constraints[0].emplace();
  s.constraints[0]->sharding_types = std::vector<ShardingType>{ShardingType::kGridShard};
  const PlannerResult r = plan(s, PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(r.search_space.has_value()) << r.error.message();
  const ShardingOption& grid = first_of(*r.search_space, ShardingType::kGridShard);
  ASSERT_EQ(grid.num_shards(), 8);  // two column blocks of 128, four row shards each
  EXPECT_EQ(grid.partition_by, PartitionBy::kMultiHost);
  auto allowed = [&](std::vector<int> ranks) {
    return placement_allowed(grid, ranks.data(), r.topology);
  };
  EXPECT_TRUE(allowed({4, 5, 6, 7, 0, 1, 2, 3}));
  EXPECT_TRUE(allowed({0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_FALSE(allowed({0, 1, 3, 2, 4, 5, 6, 7}));
  EXPECT_FALSE(allowed({2, 3, 4, 5, 4, 5, 6, 7}));
  // The planner's own placement follows the rule.
  const PlannerResult planned = plan(s);
  ASSERT_TRUE(planned.ok()) << planned.error.message();
  EXPECT_TRUE(check_plan_fits(*planned.search_space, *planned.best, planned.topology,
                              planned.reserved->devices)
                  .is_ok());
}

// A failed partition keeps TorchRec's words and adds what they leave out:
// the table, what it needs and the most a group (or rank) has left.
TEST(Placement, PartitionFailuresNameTheTable) {
  Scenario s = scenario();
  s.topology.hbm_cap = int64_t{1} << 30;
  s.tables[0].num_embeddings = 20'000'000;  // 19 GiB of weights: no host holds it
  s.constraints[0].emplace();
  s.constraints[0]->sharding_types = std::vector<ShardingType>{ShardingType::kTableRowWise};
  s.constraints[0]->compute_kernels = std::vector<ComputeKernel>{ComputeKernel::kFused};
  PlannerResult r = plan(s);
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error.message();
  EXPECT_NE(m.find("can't find a host for sharding option group ShardingOptionGroup("),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("[table t0 needs "), std::string::npos) << m;
  EXPECT_NE(m.find("; the group with the most free HBM, ranks 0-1, has "), std::string::npos) << m;
  s.constraints[0]->sharding_types = std::vector<ShardingType>{ShardingType::kRowWise};
  r = plan(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.message().find("bytes does not fit on any rank. Device memory cap: "),
            std::string::npos)
      << r.error.message();
  EXPECT_NE(r.error.message().find("[table t0, its row_wise shard for rank 0]"), std::string::npos)
      << r.error.message();
}

TEST(Placement, NamesTheTableOrTheRankThatBreaksAPlan) {
  const Scenario s = scenario();
  const PlannerResult r = plan(s);
  ASSERT_TRUE(r.ok()) << r.error.message();
  const SearchSpace& space = *r.search_space;

  PartitionedPlan rw;
  const int option =
      static_cast<int>(&first_of(space, ShardingType::kRowWise) - space.options.data());
  init_partitioned_plan(space, Proposal{option}, &rw);
  rw.ranks = {3, 2, 1, 0};
  Status st = check_plan_fits(space, rw, r.topology, r.reserved->devices);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("table t0: row_wise shards on ranks [3,2,1,0]"), std::string::npos)
      << st.message();

  std::vector<Storage> tiny = r.reserved->devices;
  tiny[1].hbm = 0;
  rw.ranks = {0, 1, 2, 3};
  st = check_plan_fits(space, rw, r.topology, tiny);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("the plan does not fit this scenario's GPUs: rank 1 needs "),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find(" B of HBM (tables t0) but has "), std::string::npos) << st.message();
}

// check_placement_fits: ok for the planner's own plan and for a result
// without a plan; kInvalidArgument, naming each rank over capacity with its
// bytes and tables, once the capacity shrinks under the plan.
TEST(Placement, APlannerResultFitsOrSaysWhichRanksDoNot) {
  const Scenario s = scenario();
  PlannerResult r = plan(s);
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_TRUE(check_placement_fits(r).is_ok());
  PlannerResult none;
  EXPECT_TRUE(check_placement_fits(none).is_ok());
  for (Storage& d : r.reserved->devices) d.hbm = 1;
  const Status st = check_placement_fits(r);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message().rfind("the plan does not fit this scenario's GPUs: rank ", 0), 0u)
      << st.message();
  EXPECT_NE(st.message().find("(tables t0) but has 1 B after the storage reservation"),
            std::string::npos)
      << st.message();

  // refuse_over_capacity: allowed, the plan stays; refused, it goes, with the
  // source and the remedy around the reason.
  PlannerResult allowed = r;
  EXPECT_FALSE(refuse_over_capacity(allowed, "p.json", /*allow=*/true, "fix it").is_ok());
  EXPECT_TRUE(allowed.ok());
  PlannerResult refused = r;
  EXPECT_FALSE(refuse_over_capacity(refused, "p.json", /*allow=*/false, "fix it").is_ok());
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(refused.error.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.error.message(), "p.json: " + st.message() + "; fix it");
  PlannerResult fits = plan(s);
  EXPECT_TRUE(refuse_over_capacity(fits, "p.json", /*allow=*/false, "fix it").is_ok());
  EXPECT_TRUE(fits.ok());
}

}  // namespace
}  // namespace shardlab::planner
