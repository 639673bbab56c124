// DDP's gradient all-reduce in the simulated iteration: buckets are reduced
// on the comm stream while the dense backward runs, the optimizer step waits
// for the last one, so an all-reduce that fits under the backward costs
// nothing and one that does not ends the iteration.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {
namespace {

// Two H100s; one table looked up `pooling` times per sample; a bottom MLP of
// `layers` x `width`, then `top_mlp`.
planner::Scenario scenario(double pooling, int width, int layers, const std::string& extra = "",
                           const std::string& top_mlp = "64, 1") {
  std::string mlp;
  for (int i = 0; i < layers; ++i) mlp += (i ? ", " : "") + std::to_string(width);
  const std::string text =
      R"({"name": "ddp", "batch_size": 4096,
    "topology": {"world_size": 2, "gpu": "h100-sxm"},
    "tables": [{"name": "t", "num_embeddings": 4000000, "embedding_dim": 128, "feature_names": ["f"]}],
    "constraints": {"t": {"pooling_factors": [)" +
      std::to_string(pooling) +
      R"(], "sharding_types": ["table_wise"]}},
    "sharder": {"optimizer": "adam"},
    "workload": {"dense": {"dense_features": 16, "bottom_mlp": [)" +
      mlp + R"(, 128], "interaction": {"kind": "cat"}, "top_mlp": [)" + top_mlp +
      R"(], "precision": "bf16"})" + extra + "}}";
  auto s = data::parse_scenario(text, "ddp.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  // The GPU's side alone: these times are hand-computed without a host.
  s->workload.host.reset();
  return *s;
}

struct Phases {
  PhaseRecord dense_bwd, bwd_compute, ddp, optimizer;
  double iteration_end = 0.0;
};

// Three iterations of the default planner's plan.
SimResult simulate_plan(const planner::Scenario& s) {
  planner::PlannerResult p = planner::plan(s);
  EXPECT_TRUE(p.ok()) << p.error.message();
  if (!p.ok()) return SimResult{};
  SimOptions o;
  o.iterations = 3;
  auto r = simulate(s, *p.search_space, *p.best, o);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? std::move(r).value() : SimResult{};
}

// The last iteration's phases on the rank whose embedding backward ends last.
Phases run(const planner::Scenario& s, int* buckets = nullptr) {
  const SimResult r = simulate_plan(s);
  const int last = r.iterations - 1;
  Phases best;
  for (const RankResult& rr : r.ranks) {
    Phases mine;
    for (const PhaseRecord& ph : rr.phases) {
      if (ph.iteration != last) continue;
      mine.iteration_end = std::max(mine.iteration_end, ph.end_ms);
      if (ph.phase == Phase::kBwdCompute) mine.bwd_compute = ph;
      if (ph.phase == Phase::kDenseBwd) mine.dense_bwd = ph;
      // The buckets run in two tasks (before and after the embedding
      // gradients' all-to-all): one record from the first's start to the last's end.
      if (ph.phase == Phase::kDdpAllreduce) {
        if (mine.ddp.end_ms == 0.0) mine.ddp = ph;
        mine.ddp.start_ms = std::min(mine.ddp.start_ms, ph.start_ms);
        mine.ddp.end_ms = std::max(mine.ddp.end_ms, ph.end_ms);
      }
      if (ph.phase == Phase::kDenseOptimizer) mine.optimizer = ph;
    }
    if (mine.bwd_compute.end_ms >= best.bwd_compute.end_ms) best = mine;
  }
  for (const RankResult& rr : r.ranks) {
    for (const PhaseRecord& ph : rr.phases) {
      if (ph.iteration == last) best.iteration_end = std::max(best.iteration_end, ph.end_ms);
    }
  }
  if (buckets != nullptr) *buckets = r.ddp_buckets;
  return best;
}

TEST(Ddp, AllReduceUnderTheBackwardCostsNothing) {
  // Heavy lookups (pooling 400, Adam): the embedding backward outlasts the
  // small dense model's all-reduce.
  const Phases p = run(scenario(400, 256, 2));
  ASSERT_GT(p.ddp.end_ms, 0.0);
  EXPECT_LT(p.ddp.end_ms, p.bwd_compute.end_ms);
  // The optimizer step starts when the backward ends, and ends the iteration.
  EXPECT_DOUBLE_EQ(p.optimizer.start_ms, p.bwd_compute.end_ms);
  EXPECT_DOUBLE_EQ(p.iteration_end, p.optimizer.end_ms);
}

TEST(Ddp, AllReduceLongerThanTheBackwardEndsTheIteration) {
  // A wide MLP (8 x 4096 x 4096 weights, ~0.5 GB of fp32 gradients) and a
  // light table: the last bucket's all-reduce ends after the backward.
  int buckets = 0;
  const Phases p = run(scenario(1, 4096, 8), &buckets);
  // A parameter never straddles buckets: each 64 MiB weight closes its own.
  EXPECT_GE(buckets, 8);
  // The first buckets are reduced while the dense backward still runs.
  EXPECT_LT(p.ddp.start_ms, p.dense_bwd.end_ms);
  EXPECT_GT(p.ddp.end_ms, p.bwd_compute.end_ms);
  EXPECT_DOUBLE_EQ(p.optimizer.start_ms, p.ddp.end_ms);
  EXPECT_DOUBLE_EQ(p.iteration_end, p.optimizer.end_ms);
}

TEST(Ddp, OneBucketWaitsForTheWholeBackward) {
  // Caps above the gradients' size: one bucket, ready when the backward ends.
  int buckets = 0;
  const Phases p =
      run(scenario(1, 4096, 8, R"(, "ddp_bucket_cap": "4 GiB", "ddp_first_bucket_cap": "4 GiB")"),
          &buckets);
  EXPECT_EQ(buckets, 1);
  EXPECT_DOUBLE_EQ(p.ddp.start_ms, p.dense_bwd.end_ms);
}

// A wide top MLP: its buckets, reduced before the embedding gradients' all-to-all on
// the same stream, hold that all-to-all back past the point in the dense backward
// where its gradients were ready. The critical path goes through the all-reduce:
// the dense backward up to where the last such bucket was ready, the all-reduce,
// then the all-to-all as soon as it ends.
TEST(Ddp, AllReduceThatHoldsBackTheEmbeddingGradientsIsOnTheCriticalPath) {
  const SimResult r = simulate_plan(scenario(1, 256, 1, "", "4096, 4096, 4096, 1"));
  const std::vector<CriticalStep>& path = r.critical_path;
  const auto bwd_out = std::find_if(path.begin(), path.end(), [](const CriticalStep& c) {
    return c.phase == Phase::kBwdOutputDist;
  });
  ASSERT_NE(bwd_out, path.end());
  ASSERT_GE(bwd_out - path.begin(), 2);
  const CriticalStep& ddp = *(bwd_out - 1);
  const CriticalStep& dense_bwd = *(bwd_out - 2);
  EXPECT_EQ(ddp.phase, Phase::kDdpAllreduce);
  EXPECT_EQ(ddp.rank, bwd_out->rank);
  EXPECT_EQ(ddp.end_ms, bwd_out->start_ms);
  EXPECT_EQ(dense_bwd.phase, Phase::kDenseBwd);
  EXPECT_EQ(dense_bwd.end_ms, ddp.start_ms);
  // The step is the part of the dense backward that made the bucket ready.
  for (const PhaseRecord& ph : r.ranks[static_cast<size_t>(dense_bwd.rank)].phases) {
    if (ph.phase != Phase::kDenseBwd || ph.iteration != dense_bwd.iteration) continue;
    EXPECT_EQ(dense_bwd.start_ms, ph.start_ms);
    EXPECT_LT(dense_bwd.end_ms, ph.end_ms);
  }
}

// The marks the trace and the timeline draw (critical_phase_marks): a phase
// is marked exactly when a step of the path lies in it, so of DDP's two
// all-reduce phases in an iteration only one can be marked, and nothing
// before the last iteration is.
TEST(Ddp, CriticalMarksFollowTheStepsNotThePhaseName) {
  bool one_of_two = false;  // a rank with one all-reduce marked, the other not
  for (const planner::Scenario& s :
       {scenario(1, 256, 1, "", "4096, 4096, 4096, 1"), scenario(400, 256, 2), scenario(1, 4096, 8),
        scenario(1, 256, 1, "", "4096, 1")}) {
    const SimResult r = simulate_plan(s);
    const std::vector<std::vector<bool>> marks = critical_phase_marks(r);
    ASSERT_EQ(marks.size(), r.ranks.size());
    for (size_t i = 0; i < r.ranks.size(); ++i) {
      ASSERT_EQ(marks[i].size(), r.ranks[i].phases.size());
      int ddp_marked = 0, ddp_unmarked = 0;
      for (size_t k = 0; k < marks[i].size(); ++k) {
        const PhaseRecord& ph = r.ranks[i].phases[k];
        const bool on =
            std::any_of(r.critical_path.begin(), r.critical_path.end(), [&](const CriticalStep& c) {
              return c.rank == r.ranks[i].rank && c.phase == ph.phase &&
                     c.iteration == ph.iteration && c.start_ms < ph.end_ms &&
                     c.end_ms > ph.start_ms;
            });
        EXPECT_EQ(marks[i][k], on) << to_string(ph.phase) << " at " << ph.start_ms;
        if (marks[i][k]) {
          EXPECT_EQ(ph.iteration, r.iterations - 1);
        }
        if (ph.phase == Phase::kDdpAllreduce && ph.iteration == r.iterations - 1)
          ++(marks[i][k] ? ddp_marked : ddp_unmarked);
      }
      one_of_two = one_of_two || (ddp_marked == 1 && ddp_unmarked == 1);
    }
  }
  EXPECT_TRUE(one_of_two) << "no case shows one DDP all-reduce on the path and the other off";
}

}  // namespace
}  // namespace shardlab::sim
