// JSON documents of `shardlab replay` and `shardlab bench-kernels`
// (docs/replay.md lists every field). Measurement fields use the run store
// export's names, so a replay JSON and `shardlab runs export` agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shardlab/kernels/backend.h"
#include "shardlab/kernels/measurement.h"
#include "shardlab/kernels/phase_report.h"
#include "shardlab/kernels/workload.h"

namespace shardlab::data {

// What a replay was asked to do, echoed in its JSON.
struct ReplaySettings {
  std::string scenario;    // scenario name
  std::string plan_path;   // the plan file as given
  std::vector<int> ranks;  // replayed ranks (ascending)
  int64_t max_rows = 0;    // rows per shard cap (0: none)
  kernels::OptimizerKind optimizer = kernels::OptimizerKind::kSgd;
  kernels::ReplayOptions options;
};

// {"scenario", "plan", "backend", "device", "world_size", "devices_used",
//  "ranks", "warmup", "iterations", "settings": {...}, "summary": {...},
//  "phases": [...], "measurements": [...]}. indent as plan_json.h's.
std::string replay_to_json(const ReplaySettings& settings, const kernels::ReplayResult& result,
                           const std::vector<kernels::PhaseComparison>& phases, int indent);

// The headline numbers of a replay: median iteration time (sum over phases of
// the slowest rank's median per phase), and per phase kind the slowest
// rank's median. Used by the JSON's "summary" and the run store's summary.
struct ReplaySummary {
  double median_iteration_ms = 0.0;
  double estimated_iteration_ms = 0.0;  // the same over TorchRec's estimates
  double simulated_iteration_ms = 0.0;  // the same over the simulated phases (0 without)
  int64_t lookups = 0;                  // lookup records
  int64_t collectives = 0;              // collective records
};
ReplaySummary summarize_replay(const kernels::ReplayResult& result,
                               const std::vector<kernels::PhaseComparison>& phases);

// {"backend", "device", "copy_bytes_per_s", "rows": [{"rows", "dim",
//  "pooling_factor", "bags", "precision", "forward": {median_ms, p90_ms,
//  min_ms, samples}, "backward": {...}, "forward_bytes", "backward_bytes",
//  "forward_bytes_per_s", "backward_bytes_per_s", "forward_copy_fraction",
//  "backward_copy_fraction"}]}.
std::string kernel_bench_to_json(const kernels::KernelBenchResult& result, int indent);

}  // namespace shardlab::data
