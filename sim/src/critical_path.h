// The chain of tasks that bounds the last iteration: from the task that ends
// last, back through what gated each start (the lane's previous task or a
// dependency) and, for a collective, the peer that arrived last.
#pragma once

#include <vector>

#include "executor.h"
#include "schedule.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim::detail {

// Steps in time order; stops at tasks that ended by `window_start` (the end
// of the previous iteration). Zero-length tasks are walked through, not listed.
std::vector<CriticalStep> critical_path(const Schedule& schedule, const Executor& executor,
                                        int ranks, int last_iteration, double window_start);

}  // namespace shardlab::sim::detail
