// build_workload on bundled scenarios and on scenarios that force each
// sharding type: every shard once on its rank, bags and pooling per sharding
// type from the cost model's batch sums, TorchRec's estimates carried over,
// and the collectives of sim::iteration_traffic.

#include "shardlab/kernels/workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/estimators.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/topology.h"

namespace shardlab::kernels {
namespace {

struct Planned {
  planner::Scenario scenario;
  planner::PlannerResult result;
};

Planned plan_file(const std::string& relative) {
  auto scenario = data::load_scenario_file(std::string(SHARDLAB_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(scenario) << scenario.status().message();
  if (!scenario) return {};
  Planned p{*scenario, planner::plan(*scenario)};
  EXPECT_TRUE(p.result.ok()) << p.result.error.message();
  return p;
}

// Checks a workload against its plan; returns the sharding types seen.
std::set<planner::ShardingType> check_workload(const Planned& p, const ReplayWorkload& w,
                                               int64_t max_rows) {
  const planner::SearchSpace& space = *p.result.search_space;
  const planner::PartitionedPlan& plan = *p.result.best;
  const planner::Topology topo = planner::make_topology(p.scenario);
  const planner::EstimatorContext ctx = planner::estimator_context(p.scenario, topo);
  EXPECT_EQ(w.world_size, topo.world_size);
  EXPECT_EQ(w.local_world_size, topo.local_world_size);
  EXPECT_EQ(static_cast<int>(w.ranks.size()), topo.world_size);

  std::map<std::pair<int, int>, int> seen;  // (option, shard) -> rank
  std::set<planner::ShardingType> types;
  for (const RankWorkload& rw : w.ranks) {
    EXPECT_EQ(rw.rank, &rw - w.ranks.data());
    int last_option_pos = -1;
    for (const ShardWork& s : rw.shards) {
      EXPECT_TRUE(seen.emplace(std::make_pair(s.option, s.shard), rw.rank).second)
          << s.table << " shard " << s.shard;
      // Plan order on each rank: options in proposal order.
      const int pos = static_cast<int>(
          std::find(plan.proposal.begin(), plan.proposal.end(), s.option) - plan.proposal.begin());
      EXPECT_GE(pos, last_option_pos);
      last_option_pos = pos;
      const planner::ShardingOption& o = space.options[s.option];
      types.insert(o.sharding_type);
      EXPECT_EQ(plan.ranks[plan.first_shard[pos] + s.shard], rw.rank);
      EXPECT_EQ(s.table, o.name);
      EXPECT_EQ(s.sharding_type, o.sharding_type);
      EXPECT_EQ(s.rows, o.shards[s.shard].rows);
      EXPECT_EQ(s.rows_used, max_rows > 0 ? std::min(s.rows, max_rows) : s.rows);
      EXPECT_EQ(s.dim, o.shards[s.shard].cols);
      EXPECT_EQ(s.pooling, o.is_pooled ? PoolingMode::kSum : PoolingMode::kNone);
      EXPECT_EQ(s.weighted, o.is_weighted);
      const planner::DataType dt = p.scenario.tables[o.table].data_type;
      EXPECT_EQ(s.precision, dt == planner::DataType::kFp16 ? Precision::kFp16 : Precision::kFp32);

      // Bags and ids per bag as workload.h defines them per sharding type.
      const planner::BatchSums sums = planner::batch_sums(o);
      const double per_bag = sums.inputs / sums.pooled;
      const double W = topo.world_size;
      double bags = sums.pooled * W;
      double pooling = per_bag;
      switch (o.sharding_type) {
        case planner::ShardingType::kDataParallel:
          bags = sums.pooled;
          break;
        case planner::ShardingType::kRowWise:
          pooling = per_bag / W;
          break;
        case planner::ShardingType::kTableRowWise:
          pooling = per_bag / topo.local_world_size;
          break;
        default:
          break;
      }
      EXPECT_EQ(s.bags, std::llround(bags)) << s.table;
      if (s.rows > 0) {
        EXPECT_DOUBLE_EQ(s.pooling_factor, pooling) << s.table;
      }
      // Ids per shard and iteration: the global batch's S_in·W for TW/CW, a
      // W-th of it for RW, an Lw-th for TWRW, the rank's S_in for a replica.
      double ids = sums.inputs * W;
      if (o.sharding_type == planner::ShardingType::kDataParallel ||
          o.sharding_type == planner::ShardingType::kRowWise) {
        ids = sums.inputs;
      } else if (o.sharding_type == planner::ShardingType::kTableRowWise) {
        ids = sums.inputs * W / topo.local_world_size;
      }
      if (s.rows > 0) {
        EXPECT_NEAR(static_cast<double>(s.bags) * s.pooling_factor, ids, 1e-9 * ids) << s.table;
      }

      EXPECT_EQ(s.estimated_fwd_ms, o.shard_perf.fwd_compute);
      EXPECT_EQ(s.estimated_bwd_ms, o.shard_perf.bwd_compute);
      // TorchRec's forward term is these bytes over the kernel's bandwidth, with the block penalty.
      const auto bw = planner::kernel_bandwidth(
          topo.compute_device, o.compute_kernel, topo.hbm_mem_bw, topo.ddr_mem_bw,
          o.cache_load_factor, o.prefetch_pipeline, topo.hbm_to_ddr_mem_bw, p.scenario.behaviour());
      EXPECT_TRUE(bw.has_value());
      if (bw) {
        EXPECT_NEAR(s.model_fwd_bytes * planner::block_penalty(o.sharding_type, s.dim) / *bw,
                    s.estimated_fwd_ms, 1e-9 * s.estimated_fwd_ms)
            << s.table;
      }
      EXPECT_EQ(s.model_fwd_bytes, planner::fwd_compute_bytes(ctx, o));
    }
  }
  int shards = 0;
  for (int opt : plan.proposal) shards += space.options[opt].num_shards();
  EXPECT_EQ(static_cast<int>(seen.size()), shards);

  auto traffic = sim::iteration_traffic(p.scenario, space, plan);
  EXPECT_TRUE(traffic);
  if (traffic) {
    EXPECT_EQ(w.collectives.size(), traffic->collectives.size());
    for (size_t c = 0; c < std::min(w.collectives.size(), traffic->collectives.size()); ++c) {
      const sim::CollectiveSpec& a = w.collectives[c];
      const sim::CollectiveSpec& b = traffic->collectives[c];
      EXPECT_EQ(a.phase, b.phase);
      EXPECT_EQ(a.kind, b.kind);
      EXPECT_EQ(a.members, b.members);
      EXPECT_EQ(a.from_bytes, b.from_bytes);
      EXPECT_EQ(a.to_bytes, b.to_bytes);
      EXPECT_EQ(a.chunks, b.chunks);
      EXPECT_EQ(a.bytes, b.bytes);
    }
  }
  return types;
}

TEST(WorkloadTest, Tiny2GpuHasEveryShardWithItsLookups) {
  const Planned p = plan_file("data/scenarios/tiny_2gpu.json");
  ASSERT_TRUE(p.result.ok());
  auto w = build_workload(p.scenario, *p.result.search_space, *p.result.best,
                          WorkloadOptions{.max_rows = 1000});
  ASSERT_TRUE(w) << w.status().message();
  check_workload(p, *w, 1000);
  EXPECT_EQ(w->optimizer, OptimizerKind::kRowwiseAdagrad);  // sharder.optimizer rowwise_adagrad
  EXPECT_TRUE(w->training);
  bool fp16 = false, weighted = false;
  for (const RankWorkload& r : w->ranks) {
    for (const ShardWork& s : r.shards) {
      if (s.table == "user_history") {
        fp16 = s.precision == Precision::kFp16;
        weighted = s.weighted;
      }
    }
  }
  EXPECT_TRUE(fp16);
  EXPECT_TRUE(weighted);
  EXPECT_FALSE(w->collectives.empty());
}

TEST(WorkloadTest, DlrmCriteoKaggleMatchesItsPlan) {
  const Planned p = plan_file("data/scenarios/dlrm_criteo_kaggle.json");
  ASSERT_TRUE(p.result.ok());
  auto w = build_workload(p.scenario, *p.result.search_space, *p.result.best);
  ASSERT_TRUE(w) << w.status().message();
  check_workload(p, *w, 0);
  EXPECT_EQ(w->optimizer, OptimizerKind::kSgd);
}

TEST(WorkloadTest, EveryShardingTypeGetsItsBagsAndPooling) {
  std::set<planner::ShardingType> types;
  for (const char* name :
       {"constraint_force_table_wise.json", "constraint_force_row_wise_ws8_uneven_and_tiny.json",
        "constraint_force_table_row_wise_16_2x8.json", "constraint_force_data_parallel.json",
        "constraint_force_column_wise_min_partition.json"}) {
    SCOPED_TRACE(name);
    const Planned p = plan_file(std::string("tests/golden/data/") + name);
    if (!p.result.ok()) continue;
    auto w = build_workload(p.scenario, *p.result.search_space, *p.result.best,
                            WorkloadOptions{.max_rows = 64});
    ASSERT_TRUE(w) << w.status().message();
    const auto seen = check_workload(p, *w, 64);
    types.insert(seen.begin(), seen.end());
  }
  for (planner::ShardingType t :
       {planner::ShardingType::kTableWise, planner::ShardingType::kRowWise,
        planner::ShardingType::kTableRowWise, planner::ShardingType::kDataParallel,
        planner::ShardingType::kColumnWise}) {
    EXPECT_TRUE(types.count(t)) << planner::to_string(t);
  }
}

TEST(WorkloadTest, RefusesTablesWithoutAReplayKernelNamingThem) {
  Planned p = plan_file("data/scenarios/tiny_2gpu.json");
  ASSERT_TRUE(p.result.ok());
  const int t = p.scenario.table_index("item_id");
  ASSERT_GE(t, 0);
  p.scenario.tables[t].data_type = planner::DataType::kBf16;
  auto w = build_workload(p.scenario, *p.result.search_space, *p.result.best);
  ASSERT_FALSE(w);
  EXPECT_NE(w.status().message().find("item_id"), std::string::npos) << w.status().message();
  EXPECT_NE(w.status().message().find("bf16"), std::string::npos) << w.status().message();
}

TEST(WorkloadTest, RefusesAnUnplacedShard) {
  Planned p = plan_file("data/scenarios/tiny_2gpu.json");
  ASSERT_TRUE(p.result.ok());
  planner::PartitionedPlan plan = *p.result.best;
  plan.ranks[0] = -1;
  EXPECT_FALSE(build_workload(p.scenario, *p.result.search_space, plan));
}

}  // namespace
}  // namespace shardlab::kernels
