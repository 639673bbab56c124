// Every plan of a small problem, for the exact search: each table's options in
// search-space order, each option's allowed placements in lexicographic rank
// order (planner/placement.h), plans that do not fit skipped.
#pragma once

#include <cstdint>
#include <functional>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/search/problem.h"

namespace shardlab::search::detail {

// The number of plans (fitting or not), or limit + 1 when there are more.
int64_t count_plans(const Problem& problem, int64_t limit);

// Calls visit(plan) for every plan that fits, in a fixed order, until it
// returns false or an error (which enumerate_plans returns).
Status enumerate_plans(const Problem& problem,
                       const std::function<Result<bool>(const planner::PartitionedPlan&)>& visit);

}  // namespace shardlab::search::detail
