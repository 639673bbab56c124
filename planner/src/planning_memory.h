// What a plan() call will hold at its peak, estimated from counts alone
// before anything is enumerated, so that a run too large for the memory
// budget (memory_budget.h) is refused up front. Private to the planner.
//
// The estimate is a sum of per-item costs over what the run builds: every
// sharding option and shard of the search space (with the partitioner's and
// proposers' per-option and per-shard state), every proposal the proposers
// can make (the planner caches each one's outcome, and the proposal log
// keeps per-rank storage for each), and, for an options listing
// (PlannerOptions::lists_options), the JSON of every shard. The best plan's
// JSON is counted once the plan is known (plan_json_bytes), not from the
// worst case before planning: a plan of few shards is not refused for the
// option of most shards it did not choose. The per-item costs are the sizes
// of the structures holding them, rounded up; docs/scenario-format.md
// "Memory" compares the estimates with measured peaks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "enumerator.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner::internal {

struct PlanningMemory {
  EnumerationSize size;
  int64_t proposals = 0;           // proposals the proposers can make, at most
  int64_t search_space_bytes = 0;  // options and shards, with per-option and per-shard state
  int64_t proposal_bytes = 0;      // outcome cache (and proposal log)
  int64_t output_bytes = 0;        // an options listing's JSON
  // Saturates: each part may already be held at INT64_MAX.
  int64_t total() const;
  // "12 tables x 18 options, 4,096 shards, 300 proposals".
  std::string describe() const;
};

// The JSON the front ends write for a plan of `shards` shards: indented for
// the output and compact again for the run store. Saturates.
int64_t plan_json_bytes(int64_t shards);

PlanningMemory estimate_planning_memory(const Scenario& scenario, const Topology& topology,
                                        const std::vector<ModuleInfo>& modules,
                                        const PlannerOptions& options);

}  // namespace shardlab::planner::internal
