// What an optimize run achieved, stated once for both front ends
// (`shardlab optimize` and the workbench's Compare and Plan views;
// docs/optimize.md, docs/gui.md): the start, the best plan and TorchRec's
// plan rated both ways (simulated iteration time and TorchRec's rating), the
// gains, the tables moved in words, progress in one line, and the optimized
// plan as a planner result for the plan writers and the comparison.
//
// Thread safety: reentrant; nothing here keeps state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/search/optimizer.h"
#include "shardlab/search/problem.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::search {

// A plan measured both ways, in ms.
struct PlanRating {
  double simulated_ms = 0.0;  // steady-state iteration time (sim::simulate)
  double torchrec_ms = 0.0;   // TorchRec's rating (planner::rate_plan)
};

// `plan` (placed in `space`) rated both ways; the simulation runs with
// `sim_options` (phases are not recorded). Fails with the simulator's error.
Result<PlanRating> rate_both(const planner::Scenario& scenario, const planner::SearchSpace& space,
                             const planner::PartitionedPlan& plan, int world_size,
                             sim::SimOptions sim_options = {});

struct OptimizeSummary {
  PlanRating start;                    // the plan the search started from
  PlanRating best;                     // the plan it found
  std::optional<PlanRating> torchrec;  // TorchRec's plan, when the planner found one

  // What the gains are stated against: TorchRec's plan when known, else the start.
  const PlanRating& reference() const { return torchrec ? *torchrec : start; }
  // best against reference(), relative (sim::relative_change): -0.12 is 12% faster.
  double simulated_change() const;
  double rating_change() const;
  // best against the start by simulation, in percent, positive when faster.
  double gain_pct() const;
};

// The summary of `result` (a search over `problem`); `torchrec` is TorchRec's
// planning result for the scenario (null or failed: none). Simulates with
// `sim_options`. Fails with the simulator's error.
Result<OptimizeSummary> summarize(const Problem& problem, const OptimizeResult& result,
                                  const planner::PlannerResult* torchrec,
                                  sim::SimOptions sim_options = {});

// A move's cumulative share of the gain, for people: "( 34.2%)"
// (TableMove::cumulative_share).
std::string move_share_text(const TableMove& move);

// "table_wise/fused on rank 3", "row_wise/fused on ranks 0-15",
// "column_wise/fused on ranks 2,5".
std::string placement_text(const planner::ShardingOption& option, const std::vector<int>& ranks);

// "t_12: table_wise/fused on rank 3 -> column_wise/fused on ranks 0,1".
std::string move_text(const Problem& problem, const TableMove& move);

// How a search ended, for people, as every front end says it: "stopped on
// time limit after 30.0 s, 412k moves (13k/s), 412 evaluations" (the stop
// reason with spaces; moves per second of the whole run).
std::string search_text(const OptimizeResult& result);

// 1234 -> "1234", 56789 -> "57k", 1.5e6 -> "1.50M".
std::string count_text(double n);

// (to - from) / from as "+4.2%" / "-12.0%"; "n/a" when `from` is not positive.
std::string percent_text(double from, double to);

// A progress report in one line: "12.5 s  1.20M moves (96k/s)  340
// evaluations  best 4.21 ms (-8.3% vs start)".
std::string progress_text(const Progress& progress);

// The optimized plan as a result of planning `start`'s scenario: `start`
// with result.best as its best plan, perf_rating the objective's value of it
// and device_perf_total its TorchRec per-rank totals; the proposal counts
// are 0 (no proposal chose it) and wall_seconds the search's.
planner::PlannerResult as_planner_result(const planner::PlannerResult& start,
                                         const OptimizeResult& result);

}  // namespace shardlab::search
