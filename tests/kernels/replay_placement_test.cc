// Where the CUDA backend replays each rank (replay_placement.h), and the one
// order of an iteration's steps both backends walk (backend_common.h).

#include "replay_placement.h"

#include <gtest/gtest.h>

#include "backend_common.h"
#include "replay_test_helpers.h"
#include "shardlab/kernels/backend.h"

namespace shardlab::kernels {
namespace {

std::vector<int> ranks_of(const std::vector<RankPlacement>& local) {
  std::vector<int> out;
  for (const RankPlacement& p : local) out.push_back(p.rank);
  return out;
}

TEST(ReplayPlacementTest, FewerGpusThanRanksReplayInWaves) {
  const std::vector<int> ranks = {0, 2, 3, 5, 6, 9, 11};
  auto waves = place_waves(ranks, ProcessLaunch{}, {4, 5, 6});
  ASSERT_TRUE(waves) << waves.status().message();
  ASSERT_EQ(waves->size(), 3u);
  EXPECT_EQ((*waves)[0].ranks, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ((*waves)[1].ranks, (std::vector<int>{5, 6, 9}));
  EXPECT_EQ((*waves)[2].ranks, (std::vector<int>{11}));
  for (const ReplayWave& wave : *waves) {
    EXPECT_EQ(ranks_of(wave.local), wave.ranks);  // one process drives every rank of its waves
    for (size_t k = 0; k < wave.local.size(); ++k)
      EXPECT_EQ(wave.local[k].device, 4 + static_cast<int>(k));
  }
}

TEST(ReplayPlacementTest, EnoughGpusReplayEveryRankAtOnce) {
  auto waves = place_waves({0, 1}, ProcessLaunch{}, {0, 1, 2, 3});
  ASSERT_TRUE(waves);
  ASSERT_EQ(waves->size(), 1u);
  EXPECT_EQ((*waves)[0].ranks, (std::vector<int>{0, 1}));
  ASSERT_EQ((*waves)[0].local.size(), 2u);
  EXPECT_EQ((*waves)[0].local[1].device, 1);
}

TEST(ReplayPlacementTest, UnderMpirunEachProcessDrivesItsRank) {
  const std::vector<int> ranks = {1, 4, 6, 7};
  for (int p = 0; p < 4; ++p) {
    auto waves =
        place_waves(ranks, ProcessLaunch{.rank = p, .size = 4, .local_rank = p % 2}, {p % 2});
    ASSERT_TRUE(waves) << waves.status().message();
    ASSERT_EQ(waves->size(), 1u);
    EXPECT_EQ((*waves)[0].ranks, ranks);
    ASSERT_EQ((*waves)[0].local.size(), 1u);
    EXPECT_EQ((*waves)[0].local[0].rank, ranks[static_cast<size_t>(p)]);
    EXPECT_EQ((*waves)[0].local[0].device, p % 2);
  }
  auto wrong = place_waves(ranks, ProcessLaunch{.rank = 0, .size = 8}, {0});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("mpirun started 8 processes"), std::string::npos)
      << wrong.status().message();
}

TEST(ReplayPlacementTest, MembersMapToProcessesAndHosts) {
  const std::vector<int> wave = {1, 4, 6, 7};
  EXPECT_EQ(wave_indices(wave, {4, 7}), (std::vector<int>{1, 3}));
  const std::vector<uint64_t> hosts = {10, 10, 20, 20};
  EXPECT_FALSE(spans_hosts({0, 1}, hosts));
  EXPECT_FALSE(spans_hosts({2, 3}, hosts));
  EXPECT_TRUE(spans_hosts({1, 2}, hosts));
}

TEST(ReplayStepsTest, AnIterationRunsInOneOrder) {
  // Communication and compute alternate: input dist, forward, output dist, then (training)
  // backward output dist, backward with the optimizer, data-parallel all-reduce.
  const sim::Phase expected[] = {sim::Phase::kInputDist,  sim::Phase::kFwdCompute,
                                 sim::Phase::kOutputDist, sim::Phase::kBwdOutputDist,
                                 sim::Phase::kBwdCompute, sim::Phase::kDpAllreduce};
  ASSERT_EQ(kNumReplayPhases, 6);
  for (int i = 0; i < kNumReplayPhases; ++i) {
    EXPECT_EQ(kReplaySteps[i].phase, expected[i]) << i;
    EXPECT_EQ(kReplayPhases[static_cast<size_t>(i)], expected[i]) << i;
    EXPECT_EQ(replay_phase_index(expected[i]), i);
    EXPECT_EQ(kReplaySteps[i].lookups, i == 1 || i == 4) << i;
    EXPECT_EQ(kReplaySteps[i].training_only, i >= 3) << i;
    EXPECT_EQ(runs_step(kReplaySteps[i], false), i < 3) << i;
    EXPECT_TRUE(runs_step(kReplaySteps[i], true));
  }
  EXPECT_TRUE(kReplaySteps[1].forward());
  EXPECT_FALSE(kReplaySteps[4].forward());
}

TEST(ReplayStepsTest, CollectivesRunOnlyInTheirSteps) {
  sim::CollectiveSpec spec;
  spec.kind = sim::CollectiveKind::kAllToAll;
  spec.phase = sim::Phase::kOutputDist;
  EXPECT_TRUE(replays_collective(spec, false));
  spec.phase = sim::Phase::kBwdOutputDist;
  EXPECT_TRUE(replays_collective(spec, true));
  EXPECT_FALSE(replays_collective(spec, false));  // inference: no backward
  spec.kind = sim::CollectiveKind::kEstimate;
  EXPECT_FALSE(replays_collective(spec, true));  // an estimate is not run
}

TEST(ReplayStepsTest, ReplayedCollectivesAreRestrictedToTheReplayedRanks) {
  auto spec = [](sim::CollectiveKind kind, sim::Phase phase, std::vector<int> members) {
    sim::CollectiveSpec s;
    s.kind = kind;
    s.phase = phase;
    s.members = std::move(members);
    s.chunks.assign(s.members.size(), 8.0);
    return s;
  };
  const std::vector<sim::CollectiveSpec> all = {
      spec(sim::CollectiveKind::kAllToAll, sim::Phase::kOutputDist, {0, 1, 2, 3}),
      // An estimate is never run.
      spec(sim::CollectiveKind::kEstimate, sim::Phase::kOutputDist, {0, 1, 2, 3}),
      // Backward: not in inference; in training, one member among ranks 0, 1, 3.
      spec(sim::CollectiveKind::kAllGather, sim::Phase::kBwdOutputDist, {0, 2}),
      // In training, one member among ranks 0, 1, 3; in inference, both among 0..3.
      spec(sim::CollectiveKind::kReduceScatter, sim::Phase::kInputDist, {1, 2}),
      spec(sim::CollectiveKind::kAllReduce, sim::Phase::kBwdOutputDist, {0, 1, 3}),
  };
  const std::vector<ReplayedCollective> training = replayed_collectives(all, true, {0, 1, 3});
  ASSERT_EQ(training.size(), 2u);
  EXPECT_EQ(training[0].index, 0);
  EXPECT_EQ(training[0].spec.members, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(training[0].spec.chunks.size(), 3u);
  EXPECT_EQ(training[1].index, 4);
  EXPECT_EQ(training[1].spec.kind, sim::CollectiveKind::kAllReduce);
  const std::vector<ReplayedCollective> inference = replayed_collectives(all, false, {0, 1, 2, 3});
  ASSERT_EQ(inference.size(), 2u);
  EXPECT_EQ(inference[0].index, 0);
  EXPECT_EQ(inference[1].index, 3);
  EXPECT_EQ(inference[1].spec.members, (std::vector<int>{1, 2}));
}

TEST(ReplayStepsTest, TheCpuBackendMeasuresThePhasesInStepOrder) {
  const ReplayWorkload w = testing::tiny_workload(2000);
  ASSERT_TRUE(w.training);
  auto backend = make_backend("cpu");
  ASSERT_TRUE(backend);
  ReplayOptions options;
  options.warmup = 0;
  options.iterations = 1;
  auto r = (*backend)->replay(w, options, nullptr);
  ASSERT_TRUE(r) << r.status().message();
  int last_rank = -1;
  int last_index = -1;
  for (const PhaseTiming& t : r->phase_timings) {
    const int index = replay_phase_index(t.phase);
    ASSERT_GE(index, 0);
    if (t.rank == last_rank) {
      EXPECT_GT(index, last_index);
    }
    last_rank = t.rank;
    last_index = index;
  }
  // Both compute steps ran on every rank.
  for (int rank = 0; rank < w.world_size; ++rank) {
    for (sim::Phase p : {sim::Phase::kFwdCompute, sim::Phase::kBwdCompute}) {
      EXPECT_TRUE(
          std::any_of(r->phase_timings.begin(), r->phase_timings.end(),
                      [&](const PhaseTiming& t) { return t.rank == rank && t.phase == p; }));
    }
  }
}

}  // namespace
}  // namespace shardlab::kernels
