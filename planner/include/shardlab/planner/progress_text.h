// One line of a long planning run's progress, for every front end (the CLI's
// stderr, the workbench's status bar): which proposer runs, how many
// proposals were evaluated and partitioned, and for how long.
#pragma once

#include <string>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::planner {

// "proposer 2/3 (greedy): 1,024 proposals, 812 plans, 6.2 s", with
// "; 240 simulations" when `simulations` >= 0 (the simulated perf model's
// count), and "; 31% of its walk, at most about 14.2 s left of it" when the
// proposer says how far its walk is (PlannerProgress::walked, past 1% and
// half a second). `progress` comes from PlannerOptions::progress for
// `scenario`.
std::string progress_text(const PlannerProgress& progress, const Scenario& scenario,
                          double elapsed_s, int simulations = -1);

// A wall time for people: "0.4 ms", "12.3 ms", "2.41 s", "2 min 31 s",
// "1 h 02 min".
std::string duration_text(double seconds);

}  // namespace shardlab::planner
