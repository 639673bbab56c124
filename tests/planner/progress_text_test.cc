// The progress line and durations every front end prints (progress_text.h).
#include "shardlab/planner/progress_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace shardlab::planner {
namespace {

TEST(ProgressText, NamesTheProposerAndCountsWithGroupedDigits) {
  Scenario s;
  s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kUniform},
                         ProposerSpec{.kind = ProposerKind::kGreedy}};
  const PlannerProgress p{.proposer = 1, .num_proposers = 2, .proposals = 1234567, .plans = 812};
  EXPECT_EQ(progress_text(p, s, 6.25),
            "proposer 2/2 (greedy): 1,234,567 proposals, 812 plans, 6.2 s");
  EXPECT_EQ(progress_text(p, s, 0.04, 1000),
            "proposer 2/2 (greedy): 1,234,567 proposals, 812 plans, 0.0 s; 1,000 simulations");
  // A proposer index the scenario does not have is shown without a name.
  const PlannerProgress odd{.proposer = 5, .num_proposers = 2, .proposals = 0, .plans = 0};
  EXPECT_EQ(progress_text(odd, s, 1.0), "proposer 6/2: 0 proposals, 0 plans, 1.0 s");
}

TEST(ProgressText, SaysTheTimeLeftOnceTheWalkIsUnderWay) {
  Scenario s;
  s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kGreedy}};
  PlannerProgress p{.proposer = 0, .num_proposers = 1, .proposals = 300, .plans = 200};
  p.walked = 0.25;
  p.proposer_seconds = 3.0;  // a quarter in 3 s: 9 s left at that pace
  EXPECT_EQ(progress_text(p, s, 3.5),
            "proposer 1/1 (greedy): 300 proposals, 200 plans, 3.5 s; 25% of its walk, at most "
            "about 9.00 s left of it");
  // Too early to tell, finished, or not known: no estimate.
  for (const auto& [walked, seconds] :
       {std::pair{0.005, 3.0}, std::pair{0.25, 0.2}, std::pair{1.0, 3.0}, std::pair{-1.0, 3.0}}) {
    p.walked = walked;
    p.proposer_seconds = seconds;
    EXPECT_EQ(progress_text(p, s, 3.5), "proposer 1/1 (greedy): 300 proposals, 200 plans, 3.5 s");
  }
}

// The greedy proposer reports its walk: 0 at the start, rising, 1 at its end.
TEST(ProgressText, TheGreedyWalkReportsHowFarItIs) {
  Scenario s;
  s.name = "walk";
  s.topology.world_size = 8;
  s.topology.local_world_size = 8;
  s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kGreedy}};
  for (int i = 0; i < 300; ++i) {
    s.tables.push_back(TableSpec{.name = "t" + std::to_string(i),
                                 .num_embeddings = 1000 * (i + 1),
                                 .embedding_dim = 64,
                                 .feature_names = {"f" + std::to_string(i)}});
  }
  s.constraints.resize(s.tables.size());
  std::vector<double> walked;
  const PlannerResult r = plan(
      s, PlannerOptions{.progress = [&](const PlannerProgress& p) { walked.push_back(p.walked); }});
  ASSERT_TRUE(r.ok()) << r.error.message();
  ASSERT_GE(walked.size(), 3u);  // the start and a report every 256 proposals
  EXPECT_EQ(walked.front(), 0.0);
  EXPECT_GT(walked.back(), 0.0);
  EXPECT_TRUE(std::is_sorted(walked.begin(), walked.end()));
  for (double w : walked) EXPECT_LE(w, 1.0);
}

TEST(ProgressText, DurationsInReadableUnits) {
  EXPECT_EQ(duration_text(0.0004), "0.4 ms");
  EXPECT_EQ(duration_text(0.0123), "12.3 ms");
  EXPECT_EQ(duration_text(2.414), "2.41 s");
  EXPECT_EQ(duration_text(151.3823), "2 min 31 s");
  EXPECT_EQ(duration_text(3725.0), "1 h 02 min");
  EXPECT_EQ(duration_text(-1.0), "0.0 ms");
}

}  // namespace
}  // namespace shardlab::planner
