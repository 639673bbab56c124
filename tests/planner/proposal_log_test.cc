// The planner's opt-in proposal log (proposal_log.h): one record per
// evaluated proposal, ratings for every plan that partitions, the same best
// plan as without the log, why-not overflow for proposals that do not fit,
// placing a logged proposal again, and cancellation.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/proposal_log.h"

namespace shardlab::planner {
namespace {

// Four tables on two GPUs of `hbm_cap` bytes, the default proposers.
Scenario small_scenario(int64_t hbm_cap) {
  Scenario s;
  s.name = "small";
  s.topology.world_size = 2;
  s.topology.local_world_size = 2;
  s.topology.hbm_cap = hbm_cap;
  s.planner.proposers = default_proposers();
  const int64_t rows[] = {2000000, 500000, 1000, 300000};
  for (int i = 0; i < 4; ++i) {
    TableSpec t;
    t.name = "t";
    t.name += std::to_string(i);
    t.num_embeddings = rows[i];
    t.embedding_dim = 64;
    t.feature_names = {t.name};
    s.tables.push_back(t);
  }
  s.constraints.resize(4);
  return s;
}

TEST(ProposalLogTest, LogsEveryEvaluatedProposalWithoutChangingThePlan) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  std::vector<ProposalRecord> log;
  const PlannerResult logged = plan(s, PlannerOptions{.proposal_log = &log});
  const PlannerResult plain = plan(s);
  ASSERT_TRUE(logged.ok());
  ASSERT_EQ(static_cast<int>(log.size()), logged.num_proposals);
  EXPECT_EQ(logged.num_proposals, plain.num_proposals);
  EXPECT_EQ(logged.num_plans, plain.num_plans);
  EXPECT_EQ(logged.perf_rating, plain.perf_rating);
  EXPECT_EQ(logged.best->proposal, plain.best->proposal);
  EXPECT_EQ(logged.best->ranks, plain.best->ranks);

  int partitioned = 0;
  double best = INFINITY;
  for (size_t i = 0; i < log.size(); ++i) {
    const ProposalRecord& r = log[i];
    EXPECT_EQ(r.index, static_cast<int>(i));
    EXPECT_GE(r.proposer, 0);
    EXPECT_LT(r.proposer, static_cast<int>(s.planner.proposers.size()));
    EXPECT_EQ(r.proposal.size(), logged.search_space->fqns.size());
    if (!r.partitioned) continue;
    ++partitioned;
    ASSERT_TRUE(std::isfinite(r.rating)) << "proposal " << i;
    EXPECT_TRUE(r.overflow.empty());
    EXPECT_GT(r.peak_hbm, 0);
    best = std::min(best, r.rating);
  }
  EXPECT_EQ(partitioned, logged.num_plans);
  EXPECT_EQ(best, logged.perf_rating);
  // The first record with the best rating is the best plan (strict <).
  const auto first_best =
      std::find_if(log.begin(), log.end(), [&](const ProposalRecord& r) { return r.partitioned && r.rating == best; });
  EXPECT_EQ(first_best->proposal, logged.best->proposal);
}

TEST(ProposalLogTest, PlacingALoggedProposalAgainGivesItsPlanAndRating) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  std::vector<ProposalRecord> log;
  const PlannerResult r = plan(s, PlannerOptions{.proposal_log = &log});
  ASSERT_TRUE(r.ok());
  for (const ProposalRecord& rec : log) {
    if (!rec.partitioned) continue;
    Result<ProposalPlacement> placed = place_proposal(s, r, rec.proposal);
    ASSERT_TRUE(placed.is_ok()) << placed.status().message();
    EXPECT_TRUE(placed->fits);
    EXPECT_TRUE(placed->overflow.empty());
    EXPECT_EQ(placed->torchrec_rating, rec.rating);
    int64_t peak = 0;
    for (const Storage& st : shard_storage_per_rank(*r.search_space, placed->plan, 2)) peak = std::max(peak, st.hbm);
    EXPECT_EQ(peak, rec.peak_hbm);
  }
  Result<ProposalPlacement> best = place_proposal(s, r, r.best->proposal);
  ASSERT_TRUE(best.is_ok());
  EXPECT_EQ(best->plan.ranks, r.best->ranks);
}

TEST(ProposalLogTest, ProposalsThatDoNotFitNameTheOverflowingRanks) {
  // 300 MiB GPUs, and the 512 MB table whole in HBM: it fits nowhere.
  Scenario s = small_scenario(int64_t{300} << 20);
  ConstraintSpec fused_only;
  fused_only.compute_kernels = std::vector<ComputeKernel>{ComputeKernel::kFused};
  fused_only.sharding_types = std::vector<ShardingType>{ShardingType::kTableWise};
  s.constraints[0] = fused_only;
  std::vector<ProposalRecord> log;
  const PlannerResult r = plan(s, PlannerOptions{.proposal_log = &log});
  ASSERT_FALSE(r.ok());
  // All tables together would fit the two GPUs; the constraint is what fails.
  EXPECT_EQ(r.error.planner_error(), PlannerErrorType::kStrictConstraints);
  ASSERT_EQ(static_cast<int>(log.size()), r.num_proposals);
  ASSERT_FALSE(log.empty());
  for (const ProposalRecord& rec : log) {
    EXPECT_FALSE(rec.partitioned);
    EXPECT_TRUE(std::isnan(rec.rating));
    ASSERT_EQ(rec.overflow.size(), size_t{2});
    EXPECT_GT(rec.total_hbm_overflow(), 0);
    // Overflow is use beyond the reserved capacity of the relaxed placement.
    Result<ProposalPlacement> placed = place_proposal(s, r, rec.proposal);
    ASSERT_TRUE(placed.is_ok());
    EXPECT_FALSE(placed->fits);
    EXPECT_EQ(placed->overflow, rec.overflow);
    const std::vector<Storage> used = shard_storage_per_rank(*r.search_space, placed->plan, 2);
    EXPECT_EQ(storage_overflow(used, r.reserved->devices), rec.overflow);
  }
}

TEST(ProposalLogTest, PlaceProposalRefusesAProposalOfAnotherSearchSpace) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  const PlannerResult r = plan(s);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(place_proposal(s, r, Proposal{0}).is_ok());
  Proposal swapped = r.best->proposal;
  std::swap(swapped[0], swapped[1]);  // options of the wrong tables
  EXPECT_FALSE(place_proposal(s, r, swapped).is_ok());
  const PlannerResult enumerated_only = plan(s, PlannerOptions{.enumerate_only = true});
  EXPECT_TRUE(place_proposal(s, enumerated_only, r.best->proposal).is_ok());
}

TEST(ProposalLogTest, StorageOverflowIsUseBeyondCapacity) {
  const std::vector<Storage> over =
      storage_overflow({Storage{10, 5}, Storage{3, 9}}, {Storage{8, 5}, Storage{4, 2}});
  EXPECT_EQ(over, (std::vector<Storage>{Storage{2, 0}, Storage{0, 7}}));
}

TEST(ProposalLogTest, CancelStopsPlanning) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  std::atomic<bool> cancel{true};
  std::vector<ProposalRecord> log;
  const PlannerResult r = plan(s, PlannerOptions{.proposal_log = &log, .cancel = &cancel});
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.best.has_value());
  EXPECT_EQ(r.error.planner_error(), PlannerErrorType::kOther);
  EXPECT_NE(r.error.message().find("cancelled"), std::string::npos);
  EXPECT_TRUE(log.empty());
}

}  // namespace
}  // namespace shardlab::planner
