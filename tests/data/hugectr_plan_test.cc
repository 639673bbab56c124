// Plans of HugeCTR's layout (planner/hugectr_layout.h): a table split by rows
// over any ranks ("layout": "hugectr"), read, rated, written back, refused in
// TorchRec's format, and the traffic the simulator builds for it.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/estimators.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/collective_model.h"
#include "shardlab/sim/event_queue.h"
#include "shardlab/sim/flow_network.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::data {
namespace {

using planner::PlannerResult;
using planner::ShardingOption;
using planner::ShardingType;

// 8 ranks on two hosts of 4; t0 of 1,000 rows and 8 ids per sample.
planner::Scenario scenario() {
  auto s = parse_scenario(R"({"name": "h", "topology": {"world_size": 8, "local_world_size": 4},
      "batch_size": 64,
      "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["f0"]},
                 {"name": "t1", "num_embeddings": 100, "embedding_dim": 64, "feature_names": ["f1"]}],
      "constraints": {"t0": {"pooling_factors": [8.0]}}})",
                          "h.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return *s;
}

std::string plan_text(const std::string& t0) {
  return R"({"tables": {"t0": )" + t0 +
         R"(, "t1": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [0]}}})";
}

PlannerResult rate(const planner::Scenario& s, const std::string& text) {
  return planner::rate_placement(
      s, [&](planner::SearchSpace& space) { return parse_plan(text, "p.json", s, space); });
}

const ShardingOption& t0_option(const PlannerResult& r) {
  for (size_t f = 0; f < r.best->proposal.size(); ++f) {
    const ShardingOption& o = r.search_space->options[static_cast<size_t>(r.best->proposal[f])];
    if (o.name == "t0") return o;
  }
  return r.search_space->options.front();
}

TEST(HugectrPlan, RowWiseOverAnyRanks) {
  const planner::Scenario s = scenario();
  const PlannerResult r = rate(
      s, plan_text(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "layout": "hugectr",
                       "ranks": [1, 2, 5]})"));
  ASSERT_TRUE(r.ok()) << r.error.message();
  const ShardingOption& o = t0_option(r);
  EXPECT_TRUE(o.hugectr_rows);
  ASSERT_EQ(o.num_shards(), 3);
  EXPECT_EQ(o.shards[0].rows, 334);
  EXPECT_EQ(o.shards[2].row_offset, 668);
  EXPECT_EQ(o.shards[2].rows, 332);
  // Perf: TorchRec's table-wise terms with a third of the ids.
  ShardingOption view = o;
  view.sharding_type = ShardingType::kTableWise;
  view.hugectr_rows = false;
  view.shards = planner::ShardList{planner::Shard{.rows = 1000, .cols = 64}};
  view.input_lengths = {8.0 / 3.0};
  const planner::EstimatorContext ctx = planner::estimator_context(s, r.topology);
  ASSERT_TRUE(planner::estimate_perf(ctx, &view).is_ok());
  EXPECT_DOUBLE_EQ(o.shard_perf.fwd_compute, view.shard_perf.fwd_compute);
  EXPECT_DOUBLE_EQ(o.shard_perf.fwd_comms, view.shard_perf.fwd_comms);
  EXPECT_GT(o.shards.storage(0).hbm, 0);

  // Written back with its layout, read back the same; TorchRec's format refuses it.
  const std::string written = plan_to_json(s, r);
  const nlohmann::json doc = nlohmann::json::parse(written);
  EXPECT_EQ(doc["tables"]["t0"]["layout"], "hugectr");
  const PlannerResult again = rate(s, written);
  ASSERT_TRUE(again.ok()) << again.error.message();
  EXPECT_EQ(again.best->ranks, r.best->ranks);
  const nlohmann::json torchrec = nlohmann::json::parse(plan_to_torchrec_json(s, r));
  ASSERT_TRUE(torchrec.contains("error"));
  EXPECT_NE(torchrec["error"]["message"].get<std::string>().find("TorchRec cannot build"),
            std::string::npos);

  // The traffic: ids to the three shards by their rows, partial sums of every
  // rank's batch from each shard to every rank (an all-to-all, no reduce-scatter).
  auto t = sim::iteration_traffic(s, *r.search_space, *r.best);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  bool partials = false;
  for (const sim::CollectiveSpec& c : t->collectives) {
    EXPECT_NE(c.kind, sim::CollectiveKind::kReduceScatter);
    if (c.phase != sim::Phase::kOutputDist || c.kind != sim::CollectiveKind::kAllToAll) continue;
    // t0's shards on 1, 2, 5 send 64 bags x 64 columns x 4 bytes each; t1's owner too.
    if (c.from_bytes[1] > 0.0 && c.from_bytes[5] > 0.0) {
      partials = true;
      EXPECT_DOUBLE_EQ(c.from_bytes[1], 64.0 * 64 * 4);
      EXPECT_DOUBLE_EQ(c.from_bytes[3], 0.0);
    }
  }
  EXPECT_TRUE(partials);
}

TEST(HugectrPlan, TableRowWiseOverWholeHosts) {
  const planner::Scenario s = scenario();
  const PlannerResult r =
      rate(s, plan_text(R"({"sharding_type": "table_row_wise", "compute_kernel": "fused",
                            "layout": "hugectr", "ranks": [4, 5, 6, 7, 0, 1, 2, 3]})"));
  ASSERT_TRUE(r.ok()) << r.error.message();
  const ShardingOption& o = t0_option(r);
  EXPECT_EQ(o.num_shards(), 8);
  EXPECT_EQ(o.shards[0].rows, 125);
  // Each host reduce-scatters its partial sums, then the two hosts exchange
  // them among the ranks of one local index.
  auto t = sim::iteration_traffic(s, *r.search_space, *r.best);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  int host_reductions = 0;
  int cross_host = 0;
  for (const sim::CollectiveSpec& c : t->collectives) {
    if (c.phase != sim::Phase::kOutputDist) continue;
    if (c.kind == sim::CollectiveKind::kReduceScatter && c.members.size() == 4) ++host_reductions;
    if (c.kind == sim::CollectiveKind::kAllToAll && c.members.size() == 2) ++cross_host;
  }
  EXPECT_EQ(host_reductions, 2);
  EXPECT_EQ(cross_host, 4);
}

// Runs each collective alone on the scenario's cluster; the bytes each link
// carried.
std::vector<double> link_bytes(const planner::Scenario& s,
                               const std::vector<sim::CollectiveSpec>& specs) {
  auto graph = sim::TopologyGraph::build(s.topology, s.fabric);
  EXPECT_TRUE(graph.is_ok());
  struct Join : sim::CollectiveListener, sim::EventHandler {
    std::unique_ptr<sim::Collective> c;
    void on_member_done(int64_t, int) override {}
    void on_event(int64_t member, int64_t) override { c->join(static_cast<int>(member)); }
  };
  std::vector<double> total(graph->links().size(), 0.0);
  for (const sim::CollectiveSpec& spec : specs) {
    sim::EventQueue queue;
    sim::FlowNetwork net(queue, *graph);
    Join join;
    join.c = sim::make_collective(net, spec, nullptr, &join, 0);
    for (int m = 0; m < join.c->size(); ++m) queue.schedule(0.0, &join, m);
    queue.run();
    for (size_t l = 0; l < total.size(); ++l) total[l] += net.link_bytes()[l];
  }
  return total;
}

// The hierarchical exchange of a table split over both hosts (HugeCTR's
// Hierarchical communication), link by link: each host reduce-scatters the
// partial sums of every rank's 64 bags (64 columns, fp32) inside, so each of
// its 4 ranks sends 3 chunks of its host's ranks with its local index (2
// ranks x 64 bags x 256 bytes) through its NVLink uplink; then each rank
// sends its host's rows for its partner's batch (64 x 256 bytes) through its
// NIC, and each host's 4 such messages share its uplink to the core.
TEST(HugectrPlan, HierarchicalExchangeLinkByLink) {
  const planner::Scenario s = scenario();
  const PlannerResult r =
      rate(s, plan_text(R"({"sharding_type": "table_row_wise", "compute_kernel": "fused",
                            "layout": "hugectr", "ranks": [0, 1, 2, 3, 4, 5, 6, 7]})"));
  ASSERT_TRUE(r.ok()) << r.error.message();
  auto t = sim::iteration_traffic(s, *r.search_space, *r.best);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  std::vector<sim::CollectiveSpec> output;
  for (const sim::CollectiveSpec& c : t->collectives) {
    // t0's exchange: the reduce-scatters inside a host and the pairs across;
    // t1 (table-wise) has an all-to-all over all 8 ranks.
    if (c.phase == sim::Phase::kOutputDist && c.members.size() < 8) output.push_back(c);
  }
  ASSERT_EQ(output.size(), 2u + 4u);
  auto graph = sim::TopologyGraph::build(s.topology, s.fabric);
  ASSERT_TRUE(graph.is_ok());
  const std::vector<double> bytes = link_bytes(s, output);
  const double row = 64.0 * 4;  // one bag's pooled row
  for (size_t l = 0; l < bytes.size(); ++l) {
    const sim::Link& link = graph->links()[l];
    switch (link.kind) {
      case sim::LinkKind::kGpuFabric:
      case sim::LinkKind::kFabricGpu:
        EXPECT_DOUBLE_EQ(bytes[l], 3 * 2 * 64 * row) << link.name;
        break;
      case sim::LinkKind::kGpuNic:
      case sim::LinkKind::kNicGpu:
      case sim::LinkKind::kNicLeaf:
      case sim::LinkKind::kLeafNic:
        EXPECT_DOUBLE_EQ(bytes[l], 64 * row) << link.name;
        break;
      case sim::LinkKind::kLeafCore:
      case sim::LinkKind::kCoreLeaf:
        EXPECT_DOUBLE_EQ(bytes[l], 4 * 64 * row) << link.name;
        break;
    }
  }
}

TEST(HugectrPlan, Refusals) {
  const planner::Scenario s = scenario();
  const auto error = [&](const std::string& t0) {
    const PlannerResult r = rate(s, plan_text(t0));
    EXPECT_FALSE(r.ok()) << t0;
    return r.error.message();
  };
  EXPECT_NE(error(R"({"sharding_type": "table_row_wise", "compute_kernel": "fused",
                      "layout": "hugectr", "ranks": [0, 1, 3, 2]})")
                .find("p.json: tables.t0.ranks[2]: a HugeCTR table_row_wise split covers whole "
                      "hosts, each host's ranks in local order: got 3, expected rank 2"),
            std::string::npos);
  EXPECT_NE(error(R"({"sharding_type": "table_row_wise", "compute_kernel": "fused",
                      "layout": "hugectr", "ranks": [0, 1, 2, 3, 4, 5]})")
                .find("covers whole hosts of 4 ranks, not 6"),
            std::string::npos);
  EXPECT_NE(error(R"({"sharding_type": "row_wise", "compute_kernel": "fused",
                      "layout": "hugectr", "ranks": [1, 1]})")
                .find("tables.t0.ranks[1]: rank listed twice in one table: got 1"),
            std::string::npos);
  EXPECT_NE(error(R"({"sharding_type": "table_wise", "compute_kernel": "fused",
                      "layout": "hugectr", "ranks": [1]})")
                .find("tables.t0.sharding_type: a HugeCTR layout splits by rows"),
            std::string::npos);
  EXPECT_NE(error(R"({"sharding_type": "row_wise", "compute_kernel": "fused",
                      "layout": "megatron", "ranks": [1]})")
                .find("tables.t0.layout: unknown layout: got \"megatron\""),
            std::string::npos);
  EXPECT_NE(error(R"({"sharding_type": "row_wise", "compute_kernel": "fused",
                      "layout": "hugectr", "ranks": []})")
                .find("table t0: no ranks to split its 1000 rows over"),
            std::string::npos);
}

}  // namespace
}  // namespace shardlab::data
