// Whether a placement fits its scenario's GPUs: the rule every verb that
// reads a plan applies (docs/outputs.md "Plans over capacity").
#pragma once

#include <string_view>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/status.h"

namespace shardlab::planner {

// check_storage_fits (placement.h) of `result.best` against the storage the
// reservation leaves each rank: ok when it fits, or when there is no plan,
// search space or reservation to check; otherwise its kInvalidArgument error.
Status check_placement_fits(const PlannerResult& result);

// The rule every reader of a plan file applies (docs/outputs.md "Plans over
// capacity"): when `result`'s plan does not fit, unless `allow`, the plan is
// refused: `result.error` becomes kInvalidArgument "<source>: <why>; <remedy>"
// and `result.best` is cleared. Returns check_placement_fits's status (ok:
// it fits), so a caller that allows it can warn.
Status refuse_over_capacity(PlannerResult& result, std::string_view source, bool allow,
                            std::string_view remedy);

}  // namespace shardlab::planner
