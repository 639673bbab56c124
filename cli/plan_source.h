// Where the verbs' plans come from: the planner, or a plan file placed in the
// scenario's search space and re-rated. Shared by plan --plan, simulate
// and compare, so all three read and rate plans the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/types.h"

namespace shardlab::cli {

// Reads the plan file at `path` (either format of data/plan_json.h) into the
// search space of `scenario` and rates it as plan() rates its best plan
// (TorchRec's model), or with `perf_model` when it is not null. Shards are
// estimated with `calibration`'s parameters when it is not null
// (planner/cost_calibration.h).
// Where the file's settings differ from the scenario's, the reader's warnings
// go to stderr. The result has num_proposals = num_plans = 0. On failure `error` is set: the
// enumeration's error (search_space then absent), or a kInvalidArgument
// naming the file when it does not fit the scenario.
// A plan over the GPUs' capacity (planner::check_placement_fits) is refused
// the same way, with no plan, unless `allow_over_capacity`: then it is
// rated, and the verb warns on stderr (docs/outputs.md "Plans over capacity").
planner::PlannerResult read_and_rate_plan(const planner::Scenario& scenario,
                                          const std::string& path,
                                          planner::PerfModel* perf_model = nullptr,
                                          const planner::CostCalibration* calibration = nullptr,
                                          bool allow_over_capacity = false);

// --allow-over-capacity, for the verbs that read a plan file.
CLI::Option* add_allow_over_capacity_flag(CLI::App* cmd, bool* allow);

// Refuses a topology.fabric that does not fit the topology, or simulations
// that would not fit in memory, as simulate() would. Verbs that plan with the
// simulated perf model check this first: the perf model cannot report an
// error, only rate a plan as unusable.
Status check_fabric(const planner::Scenario& scenario);

}  // namespace shardlab::cli
