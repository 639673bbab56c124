// The optimizer as a row of a comparison (sim/compare.h): the workbench's
// Compare view adds it next to the planner's configurations, measured like
// every other row (TorchRec's rating and simulated iteration time of its
// plan, the difference to the winner; docs/gui.md "Compare").
//
// The row plans the scenario as configured (TorchRec's plan, what `shardlab
// plan` gives and the comparison's first row shows) and searches from it as
// `shardlab optimize` does with the simulated objective (optimizer.h); its
// plan is the best plan found. The same scenario, seed and limits give the
// same plan as `shardlab optimize` (see optimizer.h on determinism).
//
// Thread safety: as compare_configurations(); the callbacks run on its thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "shardlab/search/optimizer.h"
#include "shardlab/search/report.h"
#include "shardlab/sim/compare.h"

namespace shardlab::search {

// The row's configuration: the scenario's own proposers and partitioner
// with TorchRec's rating (its start), and the axis "search" with the value
// "optimized (seed S, T s)" (or "..., N evaluations" for a budget).
sim::CompareConfig optimizer_config(const OptimizeOptions& options);
bool is_optimizer_config(const sim::CompareConfig& config);

// What the row's search did, for the front end's summary.
struct OptimizerRun {
  OptimizeResult result;           // start (TorchRec's plan) and best plans, counts, stop reason
  OptimizeSummary summary;         // both plans rated both ways (start is TorchRec's plan)
  std::vector<std::string> moves;  // move_text() of each of result.moved
};

// A RowPlanner (sim::CompareOptions::plan_row) that plans optimizer rows as
// described above and every other row as the comparison does
// (sim::plan_configuration). For an optimizer row, the start plan is found
// with `base` (its cancel drops the row as for any row); the search then
// runs with `options`, whose `cancel` stops it and keeps the best plan so far
// (the row is measured as usual). The objective simulates with
// `sim_options`, which should be the comparison's (CompareOptions::sim) so
// the row's simulated time is the search's value. `on_done` (may be empty)
// receives the run before the row is measured. The row fails with the
// planner's or the search's error.
sim::CompareOptions::RowPlanner optimizer_row_planner(
    OptimizeOptions options, sim::SimOptions sim_options,
    std::function<void(const OptimizerRun&)> on_done);

}  // namespace shardlab::search
