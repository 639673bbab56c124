// The optimizer as a comparison row (compare_row.h) and the run's summary
// (report.h): the row holds the search's own best plan and value, the other
// rows plan as the comparison does, a stop keeps the best plan so far, and
// the summary's texts say what moved.

#include "shardlab/search/compare_row.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "search_test_helpers.h"
#include "shardlab/planner/placement.h"
#include "shardlab/search/report.h"
#include "shardlab/sim/compare.h"

namespace shardlab::search {
namespace {

TEST(CompareRow, TheRowIsTheSearchFromTorchRecsPlan) {
  auto p = testing::plan_for_search(testing::mixed_scenario(30, 8, 8));
  ASSERT_TRUE(p->problem.has_value());
  const OptimizeOptions search{.seed = 3, .time_limit_s = 0, .max_evaluations = 40};
  const sim::SimOptions sim_options{.iterations = 3, .record_phases = false};
  // The core's search, as `shardlab optimize` runs it.
  Result<std::unique_ptr<Objective>> objective = make_simulated_objective(*p->problem, sim_options);
  ASSERT_TRUE(objective.is_ok());
  Result<OptimizeResult> direct = optimize(*p->problem, **objective, *p->result.best, search);
  ASSERT_TRUE(direct.is_ok());
  ASSERT_FALSE(direct->moved.empty());

  const sim::CompareConfig config = optimizer_config(search);
  EXPECT_TRUE(is_optimizer_config(config));
  EXPECT_FALSE(is_optimizer_config(sim::default_compare_grid().front()));
  EXPECT_NE(sim::label(config, p->scenario).find("optimized (seed 3, 40 evaluations)"),
            std::string::npos);
  std::vector<OptimizerRun> runs;
  sim::CompareOptions options{.sim = sim_options};
  options.plan_row =
      optimizer_row_planner(search, sim_options, [&](const OptimizerRun& r) { runs.push_back(r); });
  const sim::Comparison c = sim::compare_configurations(
      p->scenario, {sim::default_compare_grid().front(), config}, options);
  ASSERT_EQ(c.rows.size(), 2u);
  ASSERT_EQ(runs.size(), 1u);
  const sim::CompareRow& start = c.rows[0];
  const sim::CompareRow& row = c.rows[1];
  ASSERT_TRUE(row.status.is_ok()) << row.status.message();
  EXPECT_EQ(row.plan->proposal, direct->best.proposal);
  EXPECT_EQ(row.plan->ranks, direct->best.ranks);
  EXPECT_EQ(*row.iteration_ms, direct->best_value);
  EXPECT_EQ(*start.iteration_ms, direct->start_value);
  EXPECT_EQ(row.simulations, direct->evaluations);
  EXPECT_EQ(row.num_proposals, p->result.num_proposals);
  EXPECT_LT(*row.iteration_ms, *start.iteration_ms);
  EXPECT_EQ(c.winner, 1);
  EXPECT_EQ(start.moved_vs_winner.size(), direct->moved.size());

  // The summary: TorchRec's plan (the start) against the best, both ways.
  const OptimizerRun& run = runs.front();
  EXPECT_EQ(run.result.best.ranks, direct->best.ranks);
  EXPECT_EQ(run.summary.best.simulated_ms, direct->best_value);
  EXPECT_EQ(run.summary.best.torchrec_ms, *row.torchrec_rating_ms);
  ASSERT_TRUE(run.summary.torchrec.has_value());
  EXPECT_EQ(run.summary.torchrec->simulated_ms, *start.iteration_ms);
  EXPECT_EQ(run.summary.torchrec->torchrec_ms, *start.torchrec_rating_ms);
  EXPECT_DOUBLE_EQ(run.summary.simulated_change(),
                   sim::relative_change(*start.iteration_ms, *row.iteration_ms));
  EXPECT_GT(run.summary.gain_pct(), 0.0);
  ASSERT_EQ(run.moves.size(), direct->moved.size());
  for (size_t i = 0; i < run.moves.size(); ++i) {
    EXPECT_EQ(run.moves[i].rfind(direct->moved[i].name + ": ", 0), 0u) << run.moves[i];
    EXPECT_NE(run.moves[i].find(" -> "), std::string::npos) << run.moves[i];
  }
}

TEST(CompareRow, AStopKeepsTheBestPlanSoFar) {
  auto p = testing::plan_for_search(testing::mixed_scenario(30, 8, 8));
  ASSERT_TRUE(p->problem.has_value());
  std::atomic<bool> stop{false};
  OptimizeOptions search{.seed = 1, .time_limit_s = 0, .cancel = &stop};
  // Stop at the first report of a better plan.
  search.on_progress = [&](const Progress& progress) {
    if (progress.improved) stop.store(true);
  };
  search.progress_interval_s = 0.0;
  std::vector<OptimizerRun> runs;
  sim::CompareOptions options;
  options.plan_row = optimizer_row_planner(search, sim::SimOptions{},
                                           [&](const OptimizerRun& r) { runs.push_back(r); });
  const sim::Comparison c =
      sim::compare_configurations(p->scenario, {optimizer_config(search)}, options);
  ASSERT_EQ(c.rows.size(), 1u);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(c.cancelled);
  EXPECT_EQ(runs.front().result.stop, StopReason::kCancelled);
  ASSERT_TRUE(c.rows[0].plan.has_value());
  EXPECT_EQ(*c.rows[0].iteration_ms, runs.front().result.best_value);
  EXPECT_TRUE(planner::check_plan_fits(p->problem->space(), *c.rows[0].plan, p->problem->topology(),
                                       p->problem->capacity())
                  .is_ok());
}

TEST(Report, Texts) {
  planner::ShardingOption tw;
  tw.sharding_type = planner::ShardingType::kTableWise;
  tw.compute_kernel = planner::ComputeKernel::kFused;
  EXPECT_EQ(placement_text(tw, {3}), "table_wise/fused on rank 3");
  EXPECT_EQ(placement_text(tw, {2, 5}), "table_wise/fused on ranks 2,5");
  EXPECT_EQ(placement_text(tw, {0, 1, 2, 3}), "table_wise/fused on ranks 0-3");
  EXPECT_EQ(count_text(1234), "1234");
  EXPECT_EQ(count_text(56789), "57k");
  EXPECT_EQ(count_text(1.5e6), "1.50M");
  EXPECT_EQ(percent_text(2.0, 1.5), "-25.0%");
  EXPECT_EQ(percent_text(0.0, 1.5), "n/a");
  const Progress progress{
      .elapsed_s = 2.0, .moves = 20000, .evaluations = 7, .start_value = 4.0, .best_value = 3.0};
  EXPECT_EQ(progress_text(progress),
            "   2.0 s  20k moves (10k/s)  7 evaluations  best 3 ms (-25.0% vs start)");
  OptimizeResult ended;
  ended.stop = StopReason::kTimeLimit;
  ended.wall_seconds = 30.0;
  ended.moves = 412000;
  ended.evaluations = 412;
  EXPECT_EQ(search_text(ended),
            "stopped on time limit after 30.0 s, 412k moves (14k/s), 412 evaluations");
}

}  // namespace
}  // namespace shardlab::search
