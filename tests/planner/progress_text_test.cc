// The progress line and durations every front end prints (progress_text.h).
#include "shardlab/planner/progress_text.h"

#include <gtest/gtest.h>

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
