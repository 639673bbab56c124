// The comparison of planner configurations (compare.h): the grid, rows
// measured the same way whatever chose the plan, the winner and each row's
// difference to it, progress per row, extra rows through a RowPlanner, and
// cancellation.

#include "shardlab/sim/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/planner.h"

namespace shardlab::sim {
namespace {

planner::Scenario bundled(const std::string& name) {
  auto scenario =
      data::load_scenario_file(std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/" + name);
  EXPECT_TRUE(scenario) << scenario.status().message();
  return *scenario;
}

TEST(Compare, DefaultGridIsTheScenarioThenEveryProposerPartitionerAndModel) {
  const std::vector<CompareConfig> grid = default_compare_grid();
  ASSERT_EQ(grid.size(), 17u);
  EXPECT_EQ(grid[0], CompareConfig{});
  const planner::Scenario s = bundled("tiny_2gpu.json");
  EXPECT_EQ(label(grid[0], s), "scenario + greedy_perf + torchrec");
  EXPECT_EQ(label(grid[1], s), "greedy + greedy_perf + torchrec");
  EXPECT_EQ(label(grid[16], s), "embedding_offload_scaleup + memory_balanced + simulated");
  std::vector<std::string> labels;
  for (const CompareConfig& c : grid) labels.push_back(label(c, s));
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(std::unique(labels.begin(), labels.end()), labels.end());
  // Configuring sets one proposer and the partitioner; the first row keeps the file's.
  EXPECT_EQ(configure(s, grid[0]).planner.proposers.size(), s.planner.proposers.size());
  const planner::Scenario g = configure(s, grid[4]);
  ASSERT_EQ(g.planner.proposers.size(), 1u);
  EXPECT_EQ(g.planner.proposers[0].kind, planner::ProposerKind::kGreedy);
  EXPECT_EQ(g.planner.partitioner.kind, planner::PartitionerKind::kMemoryBalanced);
}

// select_rows keeps the rows whose names are listed, axis by axis, in grid
// order; unknown names and an empty selection are errors naming the option.
TEST(Compare, SelectRowsByProposerPartitionerAndPerfModel) {
  const planner::Scenario s = bundled("tiny_2gpu.json");
  const std::vector<CompareConfig> grid = default_compare_grid();
  auto rows = select_rows(grid, s, {"greedy", "uniform"}, {}, {"torchrec"});
  ASSERT_TRUE(rows.is_ok()) << rows.status().message();
  std::vector<std::string> labels;
  for (const CompareConfig& c : *rows) labels.push_back(label(c, s));
  EXPECT_EQ(labels,
            (std::vector<std::string>{
                "greedy + greedy_perf + torchrec", "greedy + memory_balanced + torchrec",
                "uniform + greedy_perf + torchrec", "uniform + memory_balanced + torchrec"}));
  // Nothing listed: every row; the scenario's own row answers to "scenario".
  rows = select_rows(grid, s, {}, {}, {});
  ASSERT_TRUE(rows.is_ok());
  EXPECT_EQ(rows->size(), grid.size());
  rows = select_rows(grid, s, {"scenario"}, {}, {});
  ASSERT_TRUE(rows.is_ok());
  EXPECT_EQ(rows->size(), 1u);

  rows = select_rows(grid, s, {}, {"greedy"}, {});
  ASSERT_FALSE(rows.is_ok());
  EXPECT_EQ(rows.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(rows.status().message(),
            "--partitioners: no row has \"greedy\"; the rows have greedy_perf, memory_balanced");
  rows = select_rows(grid, s, {"scenario"}, {"memory_balanced"}, {});
  ASSERT_FALSE(rows.is_ok());
  EXPECT_NE(rows.status().message().find("leave no row"), std::string::npos);
}

TEST(Compare, RowsAreMeasuredAlikeAndTheWinnerIsTheFastestSimulation) {
  const planner::Scenario s = bundled("tiny_2gpu.json");
  std::vector<CompareProgress> reports;
  std::vector<int> done;
  CompareOptions options{.sim = SimOptions{.iterations = 2}};
  options.progress = [&](const CompareProgress& p) { reports.push_back(p); };
  options.row_done = [&](int row, const CompareRow&) { done.push_back(row); };
  const std::vector<CompareConfig> grid = default_compare_grid();
  const Comparison c = compare_configurations(s, grid, options);
  ASSERT_EQ(c.rows.size(), grid.size());
  EXPECT_FALSE(c.cancelled);
  EXPECT_EQ(c.iterations, 2);
  ASSERT_GE(c.winner, 0);
  const CompareRow& w = c.rows[static_cast<size_t>(c.winner)];
  // The first row is what the planner gives the scenario as configured.
  const planner::PlannerResult plain = planner::plan(s);
  ASSERT_TRUE(c.rows[0].plan.has_value());
  EXPECT_EQ(c.rows[0].plan->ranks, plain.best->ranks);
  EXPECT_EQ(*c.rows[0].torchrec_rating_ms, plain.perf_rating);
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    SCOPED_TRACE(r.label);
    EXPECT_EQ(r.config, grid[i]);
    if (!r.iteration_ms) continue;
    // Every row: TorchRec's rating of its plan, whatever model chose it.
    const planner::PlannerResult space =
        planner::plan(configure(s, r.config), {.enumerate_only = true});
    std::vector<double> perf;
    double rating = 0.0;
    planner::rate_plan(*space.search_space, *r.plan, 2, &perf, &rating);
    EXPECT_EQ(*r.torchrec_rating_ms, rating);
    ASSERT_EQ(r.ranks.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(r.ranks[k].torchrec_perf_ms, perf[k]);
      EXPECT_GT(r.ranks[k].busy_compute_ms, 0.0);
    }
    // Its simulated time is the simulator's for its plan.
    auto simulated = simulate(configure(s, r.config), *space.search_space, *r.plan,
                              SimOptions{.iterations = 2, .record_phases = false});
    ASSERT_TRUE(simulated.is_ok());
    EXPECT_EQ(*r.iteration_ms, simulated->iteration_ms);
    // No row beats the winner; each states its difference.
    EXPECT_GE(*r.iteration_ms, *w.iteration_ms);
    EXPECT_EQ(*r.iteration_vs_winner, (*r.iteration_ms - *w.iteration_ms) / *w.iteration_ms);
    EXPECT_EQ(*r.rating_vs_winner,
              (*r.torchrec_rating_ms - *w.torchrec_rating_ms) / *w.torchrec_rating_ms);
    if (*r.iteration_ms == *w.iteration_ms) {
      EXPECT_GE(*r.torchrec_rating_ms, *w.torchrec_rating_ms);
    }
  }
  EXPECT_EQ(*w.iteration_vs_winner, 0.0);
  EXPECT_TRUE(w.moved_vs_winner.empty());
  // A row that moved tables names them; they differ from the winner's.
  for (const CompareRow& r : c.rows) {
    if (!r.iteration_ms || r.moved_vs_winner.empty()) continue;
    EXPECT_NE(r.plan->ranks, w.plan->ranks);
  }
  // Rows done in order, each reported as it starts and ends.
  ASSERT_EQ(done.size(), grid.size());
  for (size_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i], static_cast<int>(i));
  int starts = 0;
  int ends = 0;
  for (const CompareProgress& p : reports) {
    EXPECT_EQ(p.rows, 17);
    starts += p.stage == CompareProgress::Stage::kPlanning && p.planner.num_proposers == 0;
    ends += p.stage == CompareProgress::Stage::kDone;
  }
  EXPECT_EQ(starts, 17);
  EXPECT_EQ(ends, 17);
}

TEST(Compare, ExtraRowsComeFromARowPlannerAndCancellingStopsBetweenRows) {
  const planner::Scenario s = bundled("tiny_2gpu.json");
  // A row on an extra axis: the RowPlanner reads it and plans as it likes.
  std::vector<CompareConfig> grid = {CompareConfig{},
                                     CompareConfig{.extra_axes = {{"method", "fixed"}}}};
  EXPECT_EQ(label(grid[1], s), "scenario + greedy_perf + torchrec + fixed");
  int extra_rows = 0;
  CompareOptions options;
  options.plan_row = [&](const planner::Scenario& configured, const CompareConfig& config,
                         const planner::PlannerOptions& base, int* simulations) {
    *simulations = 0;
    if (!config.extra_axes.empty()) ++extra_rows;
    return planner::plan(configured, base);
  };
  Comparison c = compare_configurations(s, grid, options);
  EXPECT_EQ(extra_rows, 1);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[1].label, "scenario + greedy_perf + torchrec + fixed");
  EXPECT_EQ(c.winner, 0);  // a tie goes to the earlier row
  EXPECT_EQ(*c.rows[1].iteration_vs_winner, 0.0);

  std::atomic<bool> cancel{false};
  CompareOptions cancelling{.cancel = &cancel};
  cancelling.row_done = [&](int, const CompareRow&) { cancel = true; };
  c = compare_configurations(s, default_compare_grid(), cancelling);
  EXPECT_TRUE(c.cancelled);
  EXPECT_FALSE(c.timed_out);
  EXPECT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.winner, 0);  // the rows done keep their winner

  // A time limit stops it the same way (and says so): one that has passed at once.
  CompareOptions limited{.time_limit_s = 1e-9};
  c = compare_configurations(s, default_compare_grid(), limited);
  EXPECT_TRUE(c.cancelled);
  EXPECT_TRUE(c.timed_out);
  EXPECT_LT(c.rows.size(), default_compare_grid().size());
}

// Rows of two comparisons put together and ranked again are the rows of
// one comparison of both grids: same winner, same differences to it.
TEST(Compare, RankingRowsOfTwoRunsEqualsOneRun) {
  const planner::Scenario s = bundled("tiny_2gpu.json");
  const CompareOptions options{.sim = SimOptions{.iterations = 2}};
  const std::vector<CompareConfig> grid = default_compare_grid();
  const Comparison whole = compare_configurations(s, grid, options);
  const size_t half = grid.size() / 2;
  Comparison joined = compare_configurations(s, {grid.begin(), grid.begin() + half}, options);
  const Comparison rest = compare_configurations(s, {grid.begin() + half, grid.end()}, options);
  joined.rows.insert(joined.rows.end(), rest.rows.begin(), rest.rows.end());
  rank_rows(joined);
  ASSERT_EQ(joined.rows.size(), whole.rows.size());
  ASSERT_GE(whole.winner, 0);
  EXPECT_EQ(joined.winner, whole.winner);
  bool some_moved = false;
  for (size_t i = 0; i < whole.rows.size(); ++i) {
    EXPECT_EQ(joined.rows[i].iteration_vs_winner, whole.rows[i].iteration_vs_winner) << i;
    EXPECT_EQ(joined.rows[i].rating_vs_winner, whole.rows[i].rating_vs_winner) << i;
    EXPECT_EQ(joined.rows[i].moved_vs_winner, whole.rows[i].moved_vs_winner) << i;
    some_moved = some_moved || !whole.rows[i].moved_vs_winner.empty();
  }
  EXPECT_TRUE(some_moved);
  // A row without a simulated time is never the winner and has no difference.
  joined.rows[static_cast<size_t>(whole.winner)].iteration_ms.reset();
  rank_rows(joined);
  EXPECT_NE(joined.winner, whole.winner);
  EXPECT_FALSE(joined.rows[static_cast<size_t>(whole.winner)].iteration_vs_winner.has_value());
}

// A row whose planning evaluated no proposal while another row did cannot
// apply to the scenario; when no row evaluated any, the scenario failed,
// and every row stays (its error says why).
TEST(Compare, RowsThatCannotApply) {
  Comparison c;
  c.rows.resize(3);
  c.rows[0].num_proposals = 5;
  c.rows[0].iteration_ms = 1.0;
  c.rows[0].torchrec_rating_ms = 1.0;
  c.rows[1].status = Status::planner(PlannerErrorType::kInsufficientStorage, "x");
  c.rows[1].config.proposer = planner::ProposerKind::kGridSearch;
  c.rows[2].status = Status::planner(PlannerErrorType::kOther, "refused here.\nmore");
  c.rows[2].num_proposals = 0;
  rank_rows(c);
  EXPECT_TRUE(c.rows[0].applies);
  EXPECT_FALSE(c.rows[1].applies);
  EXPECT_NE(c.rows[1].not_applicable.find("TorchRec's grid search proposes nothing"),
            std::string::npos)
      << c.rows[1].not_applicable;
  EXPECT_FALSE(c.rows[2].applies);
  EXPECT_EQ(c.rows[2].not_applicable, "refused here");
  EXPECT_EQ(c.winner, 0);
  c.rows[0] = c.rows[2];  // no row evaluated a proposal
  rank_rows(c);
  for (const CompareRow& r : c.rows) EXPECT_TRUE(r.applies);
}

TEST(Compare, RelativeChange) {
  EXPECT_EQ(relative_change(2.0, 3.0), 0.5);
  EXPECT_EQ(relative_change(4.0, 3.0), -0.25);
  EXPECT_EQ(relative_change(0.0, 0.0), 0.0);
  EXPECT_TRUE(std::isinf(relative_change(0.0, 1.0)));
}

}  // namespace
}  // namespace shardlab::sim
