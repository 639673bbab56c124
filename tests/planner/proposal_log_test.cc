// The planner's opt-in proposal log (proposal_log.h): one record per
// evaluated proposal, the same loop with and without the log, compact
// proposals rebuilt exactly, why-not overflow for proposals that do not fit,
// placing a logged proposal again, progress reports, and cancellation.

#include "shardlab/planner/proposal_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "shardlab/planner/planner.h"

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
  ProposalLog log;
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
    EXPECT_EQ(log.proposal(i).size(), logged.search_space->fqns.size());
    if (!r.partitioned) {
      EXPECT_TRUE(std::isnan(r.rating));
      EXPECT_FALSE(r.rating_skipped);
      continue;
    }
    ++partitioned;
    if (r.rating_skipped) {
      EXPECT_TRUE(std::isnan(r.rating));
      continue;
    }
    ASSERT_TRUE(std::isfinite(r.rating)) << "proposal " << i;
    best = std::min(best, r.rating);
  }
  EXPECT_EQ(partitioned, logged.num_plans);
  EXPECT_EQ(best, logged.perf_rating);
  // The first record with the best rating is the best plan (strict <).
  const auto first_best =
      std::find_if(log.records().begin(), log.records().end(),
                   [&](const ProposalRecord& r) { return r.rated() && r.rating == best; });
  EXPECT_EQ(log.proposal(static_cast<size_t>(first_best - log.records().begin())),
            logged.best->proposal);
}

// Records whose rating was skipped could not have beaten the best plan: their
// exact rating, computed again, is no lower than the planner's best.
TEST(ProposalLogTest, SkippedRatingsAreNoBetterThanTheBest) {
  Scenario s = small_scenario(int64_t{16} << 30);
  // Many similar proposals: more tables, so the greedy proposer iterates.
  for (int i = 4; i < 24; ++i) {
    TableSpec t = s.tables[static_cast<size_t>(i % 4)];
    t.name = "t" + std::to_string(i);
    t.feature_names = {t.name};
    s.tables.push_back(t);
  }
  s.constraints.resize(s.tables.size());
  ProposalLog log;
  const PlannerResult r = plan(s, PlannerOptions{.proposal_log = &log});
  ASSERT_TRUE(r.ok());
  int skipped = 0;
  for (size_t i = 0; i < log.size(); ++i) {
    if (!log[i].rating_skipped) continue;
    ++skipped;
    Result<ProposalPlacement> placed = place_proposal(s, r, log.proposal(i));
    ASSERT_TRUE(placed.is_ok());
    EXPECT_TRUE(placed->fits);
    EXPECT_GE(placed->torchrec_rating, r.perf_rating) << "proposal " << i;
  }
  EXPECT_GT(skipped, 0);
}

// The compact log rebuilds every proposal exactly, across checkpoints.
TEST(ProposalLogTest, RebuildsEveryProposal) {
  ProposalLog log;
  std::vector<Proposal> appended;
  Proposal p = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int i = 0; i < 3 * static_cast<int>(ProposalLog::kCheckpointEvery) + 5; ++i) {
    p[static_cast<size_t>(i % 8)] += 8;                 // one change
    if (i % 7 == 0) p[(i / 7) % 8] += 16;               // sometimes two
    if (i % 50 == 0) std::reverse(p.begin(), p.end());  // sometimes all
    log.append(i % 3, p, i % 2 == 0, i % 4 == 0 ? std::optional<double>(i * 0.5) : std::nullopt);
    appended.push_back(p);
  }
  ASSERT_EQ(log.size(), appended.size());
  for (size_t i = 0; i < appended.size(); ++i) {
    EXPECT_EQ(log.proposal(i), appended[i]) << i;
    EXPECT_EQ(log[i].index, static_cast<int>(i));
    EXPECT_EQ(log[i].proposer, static_cast<int>(i % 3));
    EXPECT_EQ(log[i].partitioned, i % 2 == 0);
    EXPECT_EQ(log[i].rating_skipped, i % 2 == 0 && i % 4 != 0);
    if (i % 4 == 0) {
      EXPECT_EQ(log[i].rating, static_cast<double>(i) * 0.5);
    }
  }
  log.clear();
  EXPECT_TRUE(log.empty());
  log.append(0, Proposal{9, 9}, false, std::nullopt);
  EXPECT_EQ(log.proposal(0), (Proposal{9, 9}));
}

TEST(ProposalLogTest, ReportsProgressWithoutChangingThePlan) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  std::vector<PlannerProgress> reports;
  const PlannerResult reported =
      plan(s, PlannerOptions{.progress = [&](const PlannerProgress& p) { reports.push_back(p); }});
  const PlannerResult plain = plan(s);
  ASSERT_TRUE(reported.ok());
  EXPECT_EQ(reported.best->proposal, plain.best->proposal);
  EXPECT_EQ(reported.perf_rating, plain.perf_rating);
  // One report as each proposer starts (and more every kProgressEvery proposals).
  ASSERT_GE(reports.size(), s.planner.proposers.size());
  int next_proposer = 0;
  int last_count = 0;
  for (const PlannerProgress& p : reports) {
    EXPECT_EQ(p.num_proposers, static_cast<int>(s.planner.proposers.size()));
    EXPECT_GE(p.proposals, last_count);
    EXPECT_LE(p.plans, p.proposals);
    last_count = p.proposals;
    if (p.proposer == next_proposer) ++next_proposer;
  }
  EXPECT_EQ(next_proposer, static_cast<int>(s.planner.proposers.size()));
  EXPECT_LE(last_count, reported.num_proposals);
}

// A rating slower than kProgressInterval brings a report of its own, so the
// counts a front end shows stay current when each proposal takes long (a
// simulated rating): one more report than the proposers' starts here, since
// the scenario's proposals are fewer than kProgressEvery.
class OneSlowRating final : public PerfModel {
 public:
  std::string_view name() const override { return "one slow rating"; }
  double rate(const SearchSpace&, const PartitionedPlan&, const Topology&,
              const std::vector<double>& device_perf_total) override {
    if (calls_++ == 0) std::this_thread::sleep_for(PlannerOptions::kProgressInterval + kMargin);
    return *std::max_element(device_perf_total.begin(), device_perf_total.end());
  }

 private:
  static constexpr std::chrono::milliseconds kMargin{100};
  int calls_ = 0;
};

TEST(ProposalLogTest, ASlowRatingReportsProgress) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  OneSlowRating model;
  std::vector<PlannerProgress> reports;
  const PlannerResult r =
      plan(s, PlannerOptions{.perf_model = &model,
                             .progress = [&](const PlannerProgress& p) { reports.push_back(p); }});
  ASSERT_TRUE(r.ok());
  ASSERT_LT(r.num_proposals, PlannerOptions::kProgressEvery);
  EXPECT_EQ(reports.size(), s.planner.proposers.size() + 1);
  // The extra report is a proposer's second, with more proposals than its first.
  int extra = 0;
  for (size_t i = 1; i < reports.size(); ++i) {
    if (reports[i].proposer != reports[i - 1].proposer) continue;
    ++extra;
    EXPECT_GT(reports[i].proposals, reports[i - 1].proposals);
  }
  EXPECT_EQ(extra, 1);
}

TEST(ProposalLogTest, PlacingALoggedProposalAgainGivesItsPlanAndRating) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  ProposalLog log;
  const PlannerResult r = plan(s, PlannerOptions{.proposal_log = &log});
  ASSERT_TRUE(r.ok());
  for (size_t i = 0; i < log.size(); ++i) {
    const ProposalRecord& rec = log[i];
    if (!rec.partitioned) continue;
    Result<ProposalPlacement> placed = place_proposal(s, r, log.proposal(i));
    ASSERT_TRUE(placed.is_ok()) << placed.status().message();
    EXPECT_TRUE(placed->fits);
    EXPECT_TRUE(placed->overflow.empty());
    if (rec.rated()) {
      EXPECT_EQ(placed->torchrec_rating, rec.rating);
    }
    int64_t peak = 0;
    for (const Storage& st : shard_storage_per_rank(*r.search_space, placed->plan, 2))
      peak = std::max(peak, st.hbm);
    EXPECT_EQ(peak, placed->peak_hbm);
    EXPECT_GT(placed->peak_hbm, 0);
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
  ProposalLog log;
  const PlannerResult r = plan(s, PlannerOptions{.proposal_log = &log});
  ASSERT_FALSE(r.ok());
  // All tables together would fit the two GPUs; the constraint is what fails.
  EXPECT_EQ(r.error.planner_error(), PlannerErrorType::kStrictConstraints);
  ASSERT_EQ(static_cast<int>(log.size()), r.num_proposals);
  ASSERT_FALSE(log.empty());
  for (size_t i = 0; i < log.size(); ++i) {
    const ProposalRecord& rec = log[i];
    EXPECT_FALSE(rec.partitioned);
    EXPECT_TRUE(std::isnan(rec.rating));
    // Overflow is use beyond the reserved capacity of the relaxed placement.
    Result<ProposalPlacement> placed = place_proposal(s, r, log.proposal(i));
    ASSERT_TRUE(placed.is_ok());
    EXPECT_FALSE(placed->fits);
    ASSERT_EQ(placed->overflow.size(), size_t{2});
    EXPECT_GT(placed->total_hbm_overflow(), 0);
    const std::vector<Storage> used = shard_storage_per_rank(*r.search_space, placed->plan, 2);
    EXPECT_EQ(storage_overflow(used, r.reserved->devices), placed->overflow);
    int64_t peak = 0;
    for (const Storage& st : used) peak = std::max(peak, st.hbm);
    EXPECT_EQ(placed->peak_hbm, peak);
  }
}

TEST(ProposalLogTest, PlaceProposalRefusesAProposalOfAnotherSearchSpace) {
  const Scenario s = small_scenario(int64_t{16} << 30);
  const PlannerResult r = plan(s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(place_proposal(s, r, Proposal{0}).status().code(), StatusCode::kInvalidArgument);
  PlannerResult no_space = r;
  no_space.search_space.reset();
  EXPECT_EQ(place_proposal(s, no_space, r.best->proposal).status().code(),
            StatusCode::kInvalidArgument);
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
  ProposalLog log;
  const PlannerResult r = plan(s, PlannerOptions{.proposal_log = &log, .cancel = &cancel});
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.best.has_value());
  EXPECT_EQ(r.error.planner_error(), PlannerErrorType::kOther);
  EXPECT_NE(r.error.message().find("cancelled"), std::string::npos);
  EXPECT_TRUE(log.empty());
}

}  // namespace
}  // namespace shardlab::planner
