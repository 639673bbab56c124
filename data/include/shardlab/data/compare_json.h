// Writing the comparison of `shardlab compare` (sim/compare.h) as JSON: one
// row per planner configuration, every row measured the same way (TorchRec's
// rating of its plan, its simulated iteration time), the winner and each
// row's difference to it.
//
// Thread safety: every function here is reentrant.
#pragma once

#include <string>

#include "shardlab/data/plan_json.h"
#include "shardlab/planner/status.h"
#include "shardlab/sim/compare.h"

namespace shardlab::data {

// {"scenario", "iterations", "stopped": null | "time_limit" | "cancelled" (rows
//  left out), "winner": row index | null,
//  "rows": [{"label", "proposer", "partitioner", "perf_model", "torchrec_version",
//            "axes": {name: value},
//            "ok", "applies", "error": null | {"type", "message"},
//            "perf_rating_ms", "iteration_ms", "peak_hbm_bytes", "imbalance",
//            "num_proposals", "num_plans", "simulations", "plan_seconds",
//            "winner", "iteration_vs_winner", "rating_vs_winner", "moved_vs_winner": [table],
//            "ranks": [{"rank", "perf_ms", "shard_hbm_bytes",
//                       "busy_compute_ms", "busy_comm_ms"}]}]}
// "perf_rating_ms" is TorchRec's rating of the row's plan, whatever model chose
// it; "perf_model" is the model that chose it. The "_vs_winner" values are
// relative ((row - winner) / winner). "applies" is false for a combination
// that cannot apply to the scenario (sim::CompareRow::applies); its error
// says why. Unset values are null. The error type is
// the one of plan_json.h's error_to_json ("insufficient_storage", ...,
// "invalid_scenario", "internal"). `scenario` gives the partitioner of rows
// that keep the scenario's own.
std::string comparison_to_json(const planner::Scenario& scenario, const sim::Comparison& comparison,
                               bool compact = false);

}  // namespace shardlab::data
