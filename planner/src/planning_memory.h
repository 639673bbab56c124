// What a plan() call will hold at its peak, estimated from counts alone
// before anything is enumerated, so that a run too large for the memory
// budget (memory_budget.h) is refused up front. Private to the planner.
//
// The estimate is a sum of per-item costs over what the run builds: every
// sharding option and shard of the search space (with the partitioner's and
// proposers' per-option and per-shard state), every proposal the proposers
// can make (the planner caches each one's outcome, and the proposal log
// keeps per-rank storage for each), and the JSON the front ends write from
// the result: the best plan's shards, or every shard for an options listing.
// The per-item costs are the sizes of the structures holding them, rounded
// up; docs/scenario-format.md "Memory" compares the estimate with measured
// peaks.
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
  int64_t output_bytes = 0;        // the result's JSON
  // Saturates: each part may already be held at INT64_MAX.
  int64_t total() const;
  // "12 tables x 18 options, 4,096 shards, 300 proposals".
  std::string describe() const;
};

PlanningMemory estimate_planning_memory(const Scenario& scenario, const Topology& topology,
                                        const std::vector<ModuleInfo>& modules,
                                        const PlannerOptions& options);

}  // namespace shardlab::planner::internal
