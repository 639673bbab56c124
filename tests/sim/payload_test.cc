// Bytes the simulator moves: qcomm payload sizes and fp16 tables in the
// collectives, and the iteration overhead as its own phase.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {
namespace {

struct Planned {
  planner::Scenario scenario;
  planner::PlannerResult result;
};

// Two ranks, batch 512; a 64-wide table forced table-wise and a 64-wide fp16
// table forced data-parallel.
Planned plan(const std::string& extra) {
  const std::string text = R"({"batch_size": 512, "topology": {"world_size": 2},
    "tables": [{"name": "tw", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["a"]},
               {"name": "dp", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["b"],
                "data_type": "fp16"}],
    "constraints": {"tw": {"sharding_types": ["table_wise"]}, "dp": {"sharding_types": ["data_parallel"]}})" +
                           extra + "}";
  auto s = data::parse_scenario(text, "payload.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  s->workload.host.reset();  // the GPU's side alone: iteration_overhead on the compute stream
  Planned p{*s, planner::plan(*s)};
  EXPECT_TRUE(p.result.ok()) << p.result.error.message();
  return p;
}

// What the table's owner sends in its output dist, and any rank in the
// data-parallel all-reduce.
std::pair<double, double> sent(const Planned& p) {
  auto t = iteration_traffic(p.scenario, *p.result.search_space, *p.result.best);
  EXPECT_TRUE(t.is_ok());
  double output = 0.0;
  double all_reduce = 0.0;
  for (const CollectiveSpec& c : t->collectives) {
    for (int m = 0; m < static_cast<int>(c.members.size()); ++m) {
      if (c.phase == Phase::kOutputDist) output = std::max(output, c.bytes_sent(m));
      if (c.phase == Phase::kDpAllreduce) all_reduce = std::max(all_reduce, c.bytes_sent(m));
    }
  }
  return {output, all_reduce};
}

TEST(Payload, QcommAndFp16TablesSetTheBytesMoved) {
  // The owner sends the other rank its 512 pooled rows of 64 elements:
  // 4 bytes each in fp32, 2 with qcomm fp16. The fp16 replica's all-reduce
  // moves 1000 x 64 x 2 bytes, each of 2 ranks sending 2·(2-1)/2 of it.
  const auto [fp32_out, fp16_table] = sent(plan(""));
  EXPECT_DOUBLE_EQ(fp32_out, 512.0 * 64 * 4);
  EXPECT_DOUBLE_EQ(fp16_table, 1000.0 * 64 * 2);
  const auto [fp16_out, same_table] =
      sent(plan(R"(, "sharder": {"qcomm": {"forward": "fp16", "backward": "bf16"}})"));
  EXPECT_DOUBLE_EQ(fp16_out, 512.0 * 64 * 2);
  EXPECT_DOUBLE_EQ(same_table, fp16_table);
}

TEST(Payload, IterationOverheadIsItsOwnPhase) {
  const Planned without = plan("");
  const Planned with = plan(R"(, "workload": {"iteration_overhead_ms": 0.5})");
  SimOptions o;
  o.iterations = 3;
  o.overlap = false;  // one stream: the overhead adds to the iteration
  auto a = simulate(without.scenario, *without.result.search_space, *without.result.best, o);
  auto b = simulate(with.scenario, *with.result.search_space, *with.result.best, o);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_NEAR(b->iteration_ms, a->iteration_ms + 0.5, 1e-9);
  int overheads = 0;
  for (const PhaseRecord& p : b->ranks[0].phases) {
    if (p.phase != Phase::kIterationOverhead) continue;
    ++overheads;
    EXPECT_NEAR(p.end_ms - p.start_ms, 0.5, 1e-12);
  }
  EXPECT_EQ(overheads, 3);
  for (const PhaseRecord& p : a->ranks[0].phases) EXPECT_NE(p.phase, Phase::kIterationOverhead);
}

}  // namespace
}  // namespace shardlab::sim
