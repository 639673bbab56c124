// Whether a placement fits its scenario's GPUs: the rule every verb that
// reads a plan applies (docs/outputs.md "Plans over capacity").
#pragma once

#include "shardlab/planner/planner.h"
#include "shardlab/planner/status.h"

namespace shardlab::planner {

// check_storage_fits (placement.h) of `result.best` against the storage the
// reservation leaves each rank: ok when it fits, or when there is no plan,
// search space or reservation to check; otherwise its invalid_scenario error.
Status check_placement_fits(const PlannerResult& result);

}  // namespace shardlab::planner
