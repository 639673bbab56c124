// TrafficBuilder: the traffic of a plan equals iteration_traffic()'s, for
// whole plans and for plans of a single table, and a bad fabric fails as
// iteration_traffic() does.

#include "shardlab/sim/traffic_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/iteration_traffic.h"

namespace shardlab::sim {
namespace {

void expect_same(const IterationTraffic& a, const IterationTraffic& b) {
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].shards, b.ranks[r].shards);
    EXPECT_EQ(a.ranks[r].fwd_ms, b.ranks[r].fwd_ms);
    EXPECT_EQ(a.ranks[r].bwd_ms, b.ranks[r].bwd_ms);
  }
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (size_t c = 0; c < a.collectives.size(); ++c) {
    EXPECT_EQ(a.collectives[c].phase, b.collectives[c].phase);
    EXPECT_EQ(a.collectives[c].kind, b.collectives[c].kind);
    EXPECT_EQ(a.collectives[c].members, b.collectives[c].members);
    EXPECT_EQ(a.collectives[c].from_bytes, b.collectives[c].from_bytes);
    EXPECT_EQ(a.collectives[c].to_bytes, b.collectives[c].to_bytes);
    EXPECT_EQ(a.collectives[c].chunks, b.collectives[c].chunks);
    EXPECT_EQ(a.collectives[c].bytes, b.collectives[c].bytes);
  }
}

TEST(TrafficBuilder, SameTrafficAsIterationTraffic) {
  auto scenario = data::load_scenario_file(std::string(SHARDLAB_SOURCE_DIR) +
                                           "/data/scenarios/two_host_criteo_kaggle.json");
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  const planner::PlannerResult r = planner::plan(*scenario);
  ASSERT_TRUE(r.ok()) << r.error.message();
  Result<TrafficBuilder> builder = TrafficBuilder::create(*scenario);
  ASSERT_TRUE(builder.is_ok()) << builder.status().message();
  EXPECT_EQ(builder->graph().num_hosts(), 2);

  Result<IterationTraffic> whole = builder->build(*r.search_space, *r.best);
  Result<IterationTraffic> reference = iteration_traffic(*scenario, *r.search_space, *r.best);
  ASSERT_TRUE(whole.is_ok() && reference.is_ok());
  expect_same(*whole, *reference);

  // One table alone, as the plan search probes options.
  planner::PartitionedPlan one;
  one.proposal = {r.best->proposal[3]};
  one.first_shard = {0, r.best->first_shard[4] - r.best->first_shard[3]};
  one.ranks.assign(r.best->ranks.begin() + r.best->first_shard[3],
                   r.best->ranks.begin() + r.best->first_shard[4]);
  Result<IterationTraffic> part = builder->build(*r.search_space, one);
  Result<IterationTraffic> part_reference = iteration_traffic(*scenario, *r.search_space, one);
  ASSERT_TRUE(part.is_ok() && part_reference.is_ok());
  expect_same(*part, *part_reference);
  EXPECT_FALSE(part->collectives.empty());
}

TEST(TrafficBuilder, RefusesAFabricThatDoesNotFit) {
  planner::Scenario s;
  s.topology.world_size = 4;
  s.topology.local_world_size = 2;
  s.fabric.hosts.resize(3);  // two hosts
  Result<TrafficBuilder> builder = TrafficBuilder::create(s);
  ASSERT_FALSE(builder.is_ok());
  EXPECT_EQ(builder.status().code(), StatusCode::kInvalidArgument);
}

// Table-row-wise traffic follows the planner's groups: with pods of two
// hosts, the output reduce-scatter runs over the pod's 8 ranks, and the
// all-to-all between groups over the ranks of one index in each pod.
TEST(TrafficBuilder, TableRowWiseGroupsArePods) {
  auto scenario = data::parse_scenario(R"({
    "topology": {"world_size": 16, "local_world_size": 4, "pod_size": 2},
    "tables": [{"name": "t0", "num_embeddings": 100000, "embedding_dim": 64,
                "feature_names": ["f0"]}],
    "constraints": {"t0": {"sharding_types": ["table_row_wise"]}}})",
                                       "pods.json");
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  const planner::PlannerResult r = planner::plan(*scenario);
  ASSERT_TRUE(r.ok()) << r.error.message();
  Result<IterationTraffic> t = iteration_traffic(*scenario, *r.search_space, *r.best);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  const int first = r.best->ranks[0];
  ASSERT_EQ(first % 8, 0);
  std::vector<int> pod(8);
  for (int k = 0; k < 8; ++k) pod[k] = first + k;
  bool reduce_scatter = false;
  bool across = false;
  for (const CollectiveSpec& c : t->collectives) {
    if (c.phase != Phase::kOutputDist) continue;
    if (c.kind == CollectiveKind::kReduceScatter) {
      EXPECT_EQ(c.members, pod);
      reduce_scatter = true;
    }
    if (c.kind == CollectiveKind::kAllToAll) {
      ASSERT_EQ(c.members.size(), 2u);
      EXPECT_EQ(c.members[1] - c.members[0], 8);
      across = true;
    }
  }
  EXPECT_TRUE(reduce_scatter);
  EXPECT_TRUE(across);
  Result<TrafficBuilder> builder = TrafficBuilder::create(*scenario);
  ASSERT_TRUE(builder.is_ok()) << builder.status().message();
  EXPECT_EQ(builder->graph().domain_size(), 8);
}

// A grid table is a table-row-wise table per column block: with one host,
// both blocks reduce-scatter over its 4 ranks, together the bytes of the
// whole width.
TEST(TrafficBuilder, GridBlocksAreTableRowWiseTablesOfTheirWidth) {
  auto traffic_of = [](const std::string& types, int64_t dim) {
    auto scenario = data::parse_scenario(
        R"({"topology": {"world_size": 4, "local_world_size": 4},
            "tables": [{"name": "t0", "num_embeddings": 100000, "embedding_dim": )" +
            std::to_string(dim) + R"(, "feature_names": ["f0"]}],
            "constraints": {"t0": {"sharding_types": [)" +
            types + "]}}}",
        "grid.json");
    EXPECT_TRUE(scenario.is_ok()) << scenario.status().message();
    const planner::PlannerResult r = planner::plan(*scenario);
    EXPECT_TRUE(r.ok()) << r.error.message();
    double chunks = 0.0;
    int rings = 0;
    Result<IterationTraffic> t = iteration_traffic(*scenario, *r.search_space, *r.best);
    EXPECT_TRUE(t.is_ok());
    for (const CollectiveSpec& c : t->collectives) {
      if (c.phase != Phase::kOutputDist || c.kind != CollectiveKind::kReduceScatter) continue;
      EXPECT_EQ(c.members, (std::vector<int>{0, 1, 2, 3}));
      for (double b : c.chunks) chunks += b;
      ++rings;
    }
    return std::make_pair(rings, chunks);
  };
  const auto [grid_rings, grid_bytes] = traffic_of(R"("grid_shard")", 256);
  const auto [twrw_rings, twrw_bytes] = traffic_of(R"("table_row_wise")", 256);
  EXPECT_EQ(twrw_rings, 1);
  EXPECT_GE(grid_rings, 1);
  EXPECT_DOUBLE_EQ(grid_bytes, twrw_bytes);
}

// A key-value table's lookups: the share its L1 cache holds (here half the
// table: rows x 0.5 x 4 x 64 bytes, under the 1 GiB cap) runs at HBM
// bandwidth, the rest at the SSD's, where TorchRec's estimate charges all at
// the SSD's; a table without a cache is the estimate.
TEST(TrafficBuilder, KeyValueLookupsHitTheirCacheInHbm) {
  auto lookup_ms = [](const std::string& kv_params) {
    auto scenario = data::parse_scenario(
        R"({"topology": {"world_size": 2, "local_world_size": 2, "ssd_mem_bw": "2 GB/s"},
            "tables": [{"name": "t0", "num_embeddings": 1000000, "embedding_dim": 64,
                        "feature_names": ["f0"]}],
            "constraints": {"t0": {"sharding_types": ["table_wise"], "compute_kernels": ["key_value"])" +
            kv_params + R"(}},
            "sharder": {"fused_params": {"cache_load_factor": 0.5}}})",
        "kv.json");
    EXPECT_TRUE(scenario.is_ok()) << scenario.status().message();
    const planner::PlannerResult r = planner::plan(*scenario);
    EXPECT_TRUE(r.ok()) << r.error.message();
    Result<IterationTraffic> t = iteration_traffic(*scenario, *r.search_space, *r.best);
    EXPECT_TRUE(t.is_ok());
    const planner::ShardingOption& o = r.search_space->options[r.best->proposal[0]];
    double fwd = 0.0;
    for (const RankWork& w : t->ranks) fwd += w.fwd_ms;
    return std::make_pair(fwd, o.shard_perf.fwd_compute);
  };
  const auto [uncached, uncached_estimate] = lookup_ms("");
  EXPECT_DOUBLE_EQ(uncached, uncached_estimate);
  const auto [cached, estimate] = lookup_ms(R"(, "key_value_params": {"max_l1_cache_size": 1024})");
  const double ssd = 2e9 / 1000;
  const double hbm = planner::kDefaultHbmMemBw;
  EXPECT_DOUBLE_EQ(cached, estimate * ssd * (0.5 / hbm + 0.5 / ssd));
  EXPECT_LT(cached, 0.51 * estimate);
}

}  // namespace
}  // namespace shardlab::sim
