// TorchRec's EmbeddingStats printout (docs/cost-model.md §10): the table TorchRec
// users know, line for line.
#pragma once

#include <string>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::planner {

struct StatsOptions {
  bool debug = true;  // TorchRec's planner default: parameter table and extra sections
};

// Lines of the stats table for `result` (successful or failed), without
// trailing newlines. `result.wall_seconds` gives "ran for T.TTs".
std::vector<std::string> format_stats(const Scenario& scenario, const PlannerResult& result,
                                      const StatsOptions& options = {});

}  // namespace shardlab::planner
