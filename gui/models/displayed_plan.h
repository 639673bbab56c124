// The plan a workbench shows (the Plan, Timeline and Topology views'): the
// best plan of a planning outcome, one of its proposals, a plan file, a
// comparison row or a stored run's plan; what its title says, and what can
// be kept of it (the plan file `shardlab plan -o` writes, the run it
// records). Values, no session: the Workbench (workbench.h) holds the one
// on screen.
#pragma once

#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "models/planning_worker.h"
#include "shardlab/data/run_records.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/status.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::gui {

// The plan the Plan, Timeline and Topology views show.
struct DisplayedPlan {
  PlanOutcomePtr base;  // the planning run (or plan file, comparison row) it belongs to
  int proposal = -1;    // index into base->proposals, or -1 for base's best plan
  planner::PartitionedPlan plan;
  planner::PlanSummary summary;
  bool fits = true;                        // false: a relaxed placement (proposal_log.h)
  std::vector<planner::Storage> overflow;  // per rank, when !fits
  std::optional<double> torchrec_rating;   // of a placed proposal
};
using DisplayedPlanPtr = std::shared_ptr<const DisplayedPlan>;

// Which plan `shown` is, for view headers: "best plan (proposal #12 of 744)",
// "proposal #40 (grid_search)", "plan file plan.json", "comparison row #3
// greedy + memory_balanced + simulated".
QString plan_title(const DisplayedPlan& shown);

// The plan shown as a planner result: the outcome's own for its best plan
// (shared, not copied), else planner::with_best_plan (TorchRec's rating of
// the shown proposal). Errors (kInvalidArgument): no plan is shown (null),
// or the shown proposal does not fit.
Result<std::shared_ptr<const planner::PlannerResult>> planner_result(const DisplayedPlanPtr& shown);

// Writes the plan shown to `path` as `shardlab plan -o` writes it, atomically
// (docs/outputs.md): ShardLab's plan JSON, or TorchRec's ShardingPlan when
// `torchrec_format`. Either format opens again with Workbench::open_plan().
// Errors: planner_result's; TorchRec cannot build the plan (kInvalidArgument);
// the file's (kIo).
Status save_plan(const DisplayedPlanPtr& shown, const QString& path, bool torchrec_format);

// The run that records what is shown, as the command line records it
// (data/run_records.h): kind simulate, with its phases, when `simulation`
// (of the plan shown; may be null) is given; else kind plan. The scenario's
// text is the plan's scenario written out (scenario_writer.h), as Save
// scenario writes it. Errors: planner_result's.
Result<data::NewRun> run_record(const DisplayedPlanPtr& shown, const sim::SimResult* simulation);

}  // namespace shardlab::gui
