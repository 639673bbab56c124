// The host side (docs/host-model.md): hand-computed iterations under a host
// profile whose only costs are the ones each test names.
#include "shardlab/sim/host_model.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {
namespace {

struct Planned {
  planner::Scenario scenario;
  planner::PlannerResult result;
};

// `ranks` ranks; three small table-wise tables (the third fp16), batch 64.
Planned plan(int ranks, const std::string& workload = "") {
  const std::string gpu = workload.empty() ? "" : R"(, "gpu": "a100-sxm4-40gb")";
  const std::string text = R"({"batch_size": 64, "topology": {"world_size": )" +
                           std::to_string(ranks) + gpu + R"(},
    "tables": [{"name": "a", "num_embeddings": 100, "embedding_dim": 8, "feature_names": ["a"]},
               {"name": "b", "num_embeddings": 100, "embedding_dim": 8, "feature_names": ["b"]},
               {"name": "c", "num_embeddings": 100, "embedding_dim": 8, "feature_names": ["c"],
                "data_type": "fp16"}],
    "constraints": {"a": {"sharding_types": ["table_wise"]}, "b": {"sharding_types": ["table_wise"]},
                    "c": {"sharding_types": ["table_wise"]}})" +
                           (workload.empty() ? "" : ", \"workload\": " + workload) + "}";
  auto s = data::parse_scenario(text, "host.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  Planned p{*s, planner::plan(*s)};
  EXPECT_TRUE(p.result.ok()) << p.result.error.message();
  return p;
}

// A profile in which every op the inventory runs costs nothing but `costs`
// (ms before its first launch), with no gaps, launch costs or latency.
planner::HostProfile profile(const Planned& p, const std::map<std::string, double>& costs) {
  planner::HostProfile h;
  h.name = "test";
  auto t = iteration_traffic(p.scenario, *p.result.search_space, *p.result.best);
  EXPECT_TRUE(t.is_ok());
  for (const HostMode mode : {HostMode::kEager, HostMode::kCudaGraphs}) {
    for (const HostStepShape& step : host_program_shape(mode, true)) {
      for (int r = 0; r < static_cast<int>(t->ranks.size()); ++r) {
        for (const HostOpUse& use : host_ops(p.scenario, *t, step, r)) {
          h.ops[std::string(use.op)] = {};
        }
      }
    }
  }
  for (const auto& [op, ms] : costs) h.ops[op].before_ms = ms;
  return h;
}

SimResult run(const Planned& p) {
  auto r = simulate(p.scenario, *p.result.search_space, *p.result.best, {.iterations = 5});
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return *r;
}

TEST(HostModel, AHostSlowerThanItsGpuSetsTheIteration) {
  // One rank, all three tables: the lookup issues two table-batched kernels
  // (fp32, fp16) at 0.5 ms each, the backward two at 0.25 ms: 1.5 ms of host
  // per iteration against microseconds of GPU work, so one iteration follows
  // the next 1.5 ms later.
  Planned p = plan(1);
  p.scenario.workload.host =
      profile(p, {{"LookupFunction", 0.5}, {"LookupFunctionBackward", 0.25}});
  const SimResult r = run(p);
  EXPECT_NEAR(r.iteration_ms, 1.5, 1e-9);
  EXPECT_EQ(r.host.verdict, "host-bound");
  EXPECT_NEAR(r.ranks[0].busy_host_ms, 1.5, 1e-9);
  // The critical path is the host's but for the backward's kernels, which
  // start with its first launch, 0.25 ms into its 0.5 ms step, and carry the
  // path from there: 1.25 of 1.5 ms are the host's.
  EXPECT_NEAR(r.host.host_critical_ms, 1.25, 1e-3);
  EXPECT_NEAR(r.host.share, 1.25 / 1.5, 1e-3);
  EXPECT_EQ(r.host.rank, 0);
}

TEST(HostModel, AGpuSlowerThanItsHostIsNotLengthened) {
  // The same with host costs of a microsecond and a memory 1,000 times
  // slower: the GPU bounds the iteration, with or without the host lane.
  Planned p = plan(1);
  p.scenario.topology.hbm_mem_bw /= 1000.0;
  p.result = planner::plan(p.scenario);
  ASSERT_TRUE(p.result.ok());
  p.scenario.workload.host.reset();
  const SimResult gpu_only = run(p);
  p.scenario.workload.host =
      profile(p, {{"LookupFunction", 0.001}, {"LookupFunctionBackward", 0.001}});
  const SimResult with_host = run(p);
  ASSERT_GT(gpu_only.iteration_ms, 0.02);
  EXPECT_NEAR(with_host.iteration_ms, gpu_only.iteration_ms, 1e-9);
  EXPECT_EQ(with_host.host.verdict, "GPU-bound");
  EXPECT_LT(with_host.host.share, 0.1);
}

TEST(HostModel, CudaGraphsRemoveThePerOpHostCosts) {
  // The host-bound rank of the first test under CUDA graphs: one graph
  // launch (free here) per iteration, so the GPU alone sets the iteration.
  Planned p = plan(1);
  p.scenario.workload.host.reset();
  const SimResult gpu_only = run(p);
  p.scenario.workload.host =
      profile(p, {{"LookupFunction", 0.5}, {"LookupFunctionBackward", 0.25}});
  p.scenario.workload.cuda_graphs = true;
  const SimResult graphs = run(p);
  EXPECT_NEAR(graphs.iteration_ms, gpu_only.iteration_ms, 1e-9);
  EXPECT_LT(graphs.iteration_ms, 0.1);
  EXPECT_EQ(graphs.host.mode, "cuda_graphs");
}

TEST(HostModel, ASyncOnACollectiveWaitsForTheSlowestRank) {
  // Two ranks: rank 0 holds table a (one kernel group), rank 1 tables b and
  // c (fp32 and fp16: two). The lookup costs 1 ms of host per group, so rank
  // 1's host needs 2 ms an iteration and rank 0's 1 ms. The forward's wait
  // reads the input dist, a collective both issue: rank 0 waits there for
  // rank 1, about 1 ms an iteration, and both run at rank 1's pace.
  Planned p = plan(2);
  planner::PartitionedPlan& plan = *p.result.best;
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const int table = p.result.search_space->options[plan.proposal[i]].table;
    plan.ranks[static_cast<size_t>(plan.first_shard[i])] = table == 0 ? 0 : 1;
  }
  p.scenario.workload.host = profile(p, {{"LookupFunction", 1.0}});
  const SimResult r = run(p);
  EXPECT_GE(r.iteration_ms, 2.0);
  EXPECT_LT(r.iteration_ms, 2.05);
  // Rank 0's blocking reads of the last iteration (from its arrival), summed.
  double waited = 0.0;
  for (const PhaseRecord& ph : r.ranks[0].phases) {
    if (ph.stream == Stream::kHost && ph.phase == Phase::kHostSync &&
        ph.iteration == r.iterations - 1) {
      waited += ph.end_ms - ph.start_ms;
    }
  }
  EXPECT_GE(waited, 0.99);
  EXPECT_LT(waited, 1.05);
}

TEST(HostModel, TheInventoryNamesEveryOpTheDefaultProfilePrices) {
  // Every op the program runs on a dense model has a cost in the default
  // profile (a missing one would fail the simulation, naming it).
  Planned p = plan(2, R"({"dense": {"dense_features": 13, "bottom_mlp": [16, 8],
      "interaction": {"kind": "dot"}, "top_mlp": [16, 1]}})");
  ASSERT_TRUE(p.scenario.workload.host.has_value());
  EXPECT_EQ(p.scenario.workload.host->name, planner::kDefaultHostProfile);
  const SimResult r = run(p);
  EXPECT_TRUE(r.host.modelled);
  EXPECT_EQ(r.host.framework, "torchrec");
  EXPECT_EQ(r.host.mode, "eager");
  EXPECT_GT(r.ranks[0].busy_host_ms, 0.0);
  p.scenario.workload.host->ops.erase("aten::relu");
  auto missing = simulate(p.scenario, *p.result.search_space, *p.result.best, {});
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("aten::relu"), std::string::npos);
  // host_cost itself names the op it has no cost for.
  const Result<HostStepCost> cost =
      host_cost(*p.scenario.workload.host, {HostOpUse{.op = "aten::relu"}});
  EXPECT_EQ(cost.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(cost.status().message().find("aten::relu"), std::string::npos);
}

}  // namespace
}  // namespace shardlab::sim
