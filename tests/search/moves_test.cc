// Moves and the plan state: over many random moves on a cluster with little
// HBM, every change the search would apply leaves a plan that the planner's
// own checks accept, every change it would refuse really does not fit, and
// the state's storage and the estimator's incremental sums stay true.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "move_helpers.h"
#include "search_test_helpers.h"
#include "shardlab/planner/placement.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/search/move.h"
#include "shardlab/search/plan_state.h"

namespace shardlab::search {
namespace {

// Two hosts of four ranks; HBM small enough that the large tables crowd it.
std::unique_ptr<testing::Planned> crowded() {
  return testing::plan_for_search(testing::mixed_scenario(36, 8, 4, int64_t{3} << 30));
}

std::vector<std::unique_ptr<Move>> every_move() {
  std::vector<std::unique_ptr<Move>> moves;
  for (WeightedMove& m : default_moves()) moves.push_back(std::move(m.move));
  return moves;
}

bool plan_fits(const Problem& problem, const planner::PartitionedPlan& plan) {
  return planner::check_plan_fits(problem.space(), plan, problem.topology(), problem.capacity())
      .is_ok();
}

TEST(Moves, EveryNameIsDistinct) {
  std::vector<std::string> names;
  for (const auto& m : every_move()) names.emplace_back(m->name());
  EXPECT_EQ(names, (std::vector<std::string>{"move_shard", "swap_shards", "change_option",
                                             "change_host", "convert_tables"}));
}

TEST(Moves, NeverProduceAPlanThatBreaksTheRulesOrDoesNotFit) {
  auto p = crowded();
  const Problem& problem = *p->problem;
  ASSERT_TRUE(plan_fits(problem, *p->result.best));
  auto objective = testing::simulated_objective(problem);
  Result<std::unique_ptr<Estimator>> estimator = objective->make_estimator();
  ASSERT_TRUE(estimator.is_ok());
  PlanState state(problem, *p->result.best);
  state.add_all(estimator->get());
  Rng rng(3);
  MoveContext ctx{problem, state, **estimator, rng};
  Change change, undo, redo;
  int applied = 0, refused = 0;
  for (const auto& move : every_move()) {
    SCOPED_TRACE(std::string(move->name()));
    const int rounds = move->name() == "convert_tables" ? 60 : 1500;
    for (int i = 0; i < rounds; ++i) {
      if (!move->propose(ctx, &change)) continue;
      const bool fits = state.fits(change);
      state.apply(change, estimator->get(), &undo);
      const planner::PartitionedPlan plan = state.to_plan();
      // Placement rules always hold; storage exactly when fits() said so.
      for (size_t t = 0; t < plan.proposal.size(); ++t) {
        const planner::ShardingOption& o = problem.option(plan.proposal[t]);
        ASSERT_TRUE(planner::placement_allowed(o, plan.ranks.data() + plan.first_shard[t],
                                               problem.topology()))
            << o.name;
      }
      ASSERT_EQ(plan_fits(problem, plan), fits);
      const std::vector<planner::Storage> used =
          planner::shard_storage_per_rank(problem.space(), plan, 8);
      for (int r = 0; r < 8; ++r) ASSERT_EQ(state.used(r), used[r]) << "rank " << r;
      if (fits && rng.chance(0.7)) {
        ++applied;  // keep it, as the search would
      } else {
        state.apply(undo, estimator->get(), &redo);
        ++refused;
        ASSERT_TRUE(plan_fits(problem, state.to_plan()));
      }
    }
  }
  EXPECT_GT(applied, 500);
  EXPECT_GT(refused, 100);
}

// Through thousands of additions, removals, kept and undone trials the
// estimator agrees with one built from scratch on the same plan.
// A change under construction (detail::Room) leaves each rank's room the
// same whether few ranks changed (a list) or many (a table of every rank,
// past 32): on 64 ranks, changes to 1, then 40, then all ranks, added and
// taken away, against the sums done by hand.
TEST(Moves, RoomIsTheSameForFewOrManyChangedRanks) {
  auto p = testing::plan_for_search(testing::mixed_scenario(20, 64, 8));
  const Problem& problem = *p->problem;
  auto objective = testing::simulated_objective(problem);
  Result<std::unique_ptr<Estimator>> estimator = objective->make_estimator();
  ASSERT_TRUE(estimator.is_ok());
  PlanState state(problem, *p->result.best);
  Rng rng(1);
  const MoveContext ctx{problem, state, **estimator, rng};
  detail::Room room(ctx);
  std::vector<planner::Storage> want(64);
  for (int r = 0; r < 64; ++r) want[r] = problem.capacity()[r] - state.used(r);
  const auto check = [&](const char* when) {
    for (int r = 0; r < 64; ++r) ASSERT_EQ(room.left(r), want[r]) << when << ", rank " << r;
  };
  const planner::Storage some{.hbm = 1000, .ddr = 10, .ssd = 0};
  room.change(5, some, 1);
  want[5] -= some;
  check("one rank");
  for (int r = 10; r < 50; ++r) {
    room.change(r, some, 1);
    want[r] -= some;
  }
  check("41 ranks");
  for (int r = 0; r < 64; ++r) {
    room.change(r, some, -1);
    want[r] += some;
  }
  check("every rank");
  EXPECT_TRUE(room.fits(0, some));
}

TEST(Moves, IncrementalEstimateMatchesAFreshOne) {
  auto p = crowded();
  const Problem& problem = *p->problem;
  auto objective = testing::simulated_objective(problem);
  Result<std::unique_ptr<Estimator>> running = objective->make_estimator();
  ASSERT_TRUE(running.is_ok());
  PlanState state(problem, *p->result.best);
  state.add_all(running->get());
  Rng rng(11);
  MoveContext ctx{problem, state, **running, rng};
  Change change, undo, redo;
  const auto moves = every_move();
  int compared = 0;
  for (int i = 1; i <= 3000; ++i) {
    Move& move = *moves[static_cast<size_t>(rng.below(4))];
    if (move.propose(ctx, &change) && state.fits(change)) {
      (*running)->checkpoint();
      state.apply(change, running->get(), &undo);
      (void)(*running)->value();
      if (rng.chance(0.5)) {
        (*running)->release();
      } else {
        state.apply(undo, running->get(), &redo);
        (*running)->restore();
      }
    }
    if (i % 250 == 0) {
      Result<std::unique_ptr<Estimator>> fresh = objective->make_estimator();
      ASSERT_TRUE(fresh.is_ok());
      state.add_all(fresh->get());
      const double a = (*running)->value();
      const double b = (*fresh)->value();
      ASSERT_NEAR(a, b, 1e-9 * b) << "after " << i << " moves";
      ++compared;
    }
  }
  EXPECT_EQ(compared, 12);
}

}  // namespace
}  // namespace shardlab::search
