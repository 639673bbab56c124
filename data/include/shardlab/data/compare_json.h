// Writing the table of `shardlab compare` as JSON: one row per planner
// configuration (proposer x partitioner x perf model), with the plan's TorchRec
// rating and its simulated iteration time side by side.
//
// Thread safety: every function here is reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/planner/status.h"

namespace shardlab::data {

struct ComparisonRow {
  std::string proposer;     // "greedy", "uniform", "grid_search", "embedding_offload_scaleup"
  std::string partitioner;  // "greedy_perf", "memory_balanced"
  std::string perf_model;   // "torchrec", "simulated"
  std::string torchrec_version;  // the TorchRec planner model: "2024-02", "2026-08"
  // Ok, or why this configuration has no plan (planning failed) or no
  // simulated time (the simulation failed).
  Status status;
  // Unset when planning failed.
  std::optional<double> perf_rating_ms;    // TorchRec's rating of the chosen plan, whatever the perf model
  std::optional<int64_t> peak_hbm_bytes;   // max over ranks of the plan's shards' HBM
  std::optional<double> imbalance;         // max / mean of per-rank TorchRec perf
  std::optional<double> iteration_ms;      // simulated steady-state iteration time
  int num_proposals = 0;
  int num_plans = 0;
  int simulations = 0;                     // simulations the perf model ran while planning
  double plan_seconds = 0.0;               // wall time of planning
};

// {"scenario", "iterations",
//  "rows": [{"proposer", "partitioner", "perf_model", "torchrec_version", "ok",
//            "error": null | {"type", "message"},
//            "perf_rating_ms", "iteration_ms", "peak_hbm_bytes", "imbalance",
//            "num_proposals", "num_plans", "simulations", "plan_seconds"}]}
// Unset values are null. The error type is the one of plan_json.h's error_to_json
// ("insufficient_storage", ..., "invalid_scenario", "internal").
std::string comparison_to_json(const std::string& scenario, int iterations, const std::vector<ComparisonRow>& rows,
                               bool compact = false);

// The error type name a failed Status is reported under.
// REQUIRES: !status.is_ok()
std::string error_type_name(const Status& status);

}  // namespace shardlab::data
