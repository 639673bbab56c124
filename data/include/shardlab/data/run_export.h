// A stored run as one JSON document (`shardlab runs export`), and the
// difference between two runs (`shardlab runs diff`) as text or JSON.
//
// Thread safety: every function here is reentrant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shardlab/data/run_store.h"

namespace shardlab::data {

// {"id", "kind", "created_at", "scenario_name", "scenario_hash",
//  "shardlab_version", "host", "device", "backend", "torchrec_version", "inputs": [ids],
//  "summary": {...}, "scenario": {...}, "plan": {...} | null,
//  "estimates": [{"fqn", "table", "shard", "rank", "sharding_type",
//                 "compute_kernel", "rows", "cols", "row_offset", "col_offset",
//                 "fwd_compute_ms", "fwd_comms_ms", "bwd_compute_ms",
//                 "bwd_comms_ms", "prefetch_ms", "hbm_bytes", "ddr_bytes"}],
//  "sim_phases": [{"rank", "phase", "stream", "iteration", "start_ms",
//                  "end_ms", "bytes", "tables"}],
//  "measurements": [{"rank", "phase", "option", "shard", "table",
//                    "sharding_type", "compute_kernel", "dim", "precision",
//                    "bags", "pooling_factor", "collective", "collective_kind",
//                    "members", "inter_host", "bytes", "model_bytes",
//                    "estimated_ms", "median_ms", "p90_ms", "min_ms",
//                    "samples", "wrong_elements"}],
//  "calibration": {"name", "mape_before", "mape_after", "fit_count",
//                  "held_out_count", "profile": {...}} | null}
// The scenario, plan, summary and profile are embedded as JSON; a stored text
// that does not parse is embedded as a string instead.
std::string run_to_json(const StoredRun& run, int indent = 1);

// `shardlab runs list --format json`: [{"id", "kind", "created_at",
// "scenario_name", "scenario_hash", "shardlab_version", "host", "device",
// "backend", "torchrec_version", "summary": {...}, "estimates", "sim_phases", "measurements"
// (row counts), "calibration" (bool)}], in the given order.
std::string run_summaries_to_json(const std::vector<RunSummary>& runs, int indent = 1);

// One summary number (or text) of two runs side by side.
struct FieldDiff {
  std::string name;
  std::optional<std::string> a;  // the value as JSON text ("26", "\"flows\""); nullopt: absent
  std::optional<std::string> b;
  std::optional<double> delta;  // b - a when both are numbers
};

// A table whose placement differs; sides the table is absent from are empty.
struct PlacementDiff {
  std::string fqn;
  std::string a;  // "table_wise/fused on ranks 0,1"
  std::string b;
};

// A per-rank or per-phase number of both runs; b - a in delta.
struct NumberDiff {
  std::string name;  // "rank 3", "fwd_compute"
  double a = 0.0;
  double b = 0.0;
  double delta = 0.0;
};

struct RunDiff {
  int64_t a_id = 0;
  int64_t b_id = 0;
  // Metadata that differs (kind, scenario_name, scenario_hash, device,
  // backend, host, shardlab_version, torchrec_version), then every key of either run's summary
  // JSON, equal or not: a's keys in a's order, then the keys only b has.
  std::vector<FieldDiff> fields;
  // Tables whose sharding type, compute kernel or ranks differ, fqn order of
  // run a, then tables only b has. Empty when either run has no estimates.
  std::vector<PlacementDiff> placements;
  // Per-rank sums of the estimates' perf (ms) where they differ by more than
  // 1e-9 relative; ranks ascending. Empty when either run has no estimates.
  std::vector<NumberDiff> rank_perf_ms;
  // Per-rank HBM bytes of the estimates where they differ.
  std::vector<NumberDiff> rank_hbm_bytes;
  // Per phase that both runs have times for: the median over ranks of the
  // rank's time in that phase. A rank's time is, for simulated phases, the
  // summed duration of its stored phase rows; for measurements, the summed
  // median_ms of its records of that phase (lookups of all its shards,
  // collectives it took part in). A run with measurements is compared by
  // its measurements, else by its simulated phases. Phases in sim::Phase order.
  std::vector<NumberDiff> phase_median_ms;
  std::string a_phase_source;  // "measured", "simulated" or "" (neither)
  std::string b_phase_source;
};

RunDiff diff_runs(const StoredRun& a, const StoredRun& b);

// A few aligned sections for people; "runs A and B: no differences" when
// every list is empty.
std::string diff_to_text(const RunDiff& diff);
// {"a", "b", "fields": [{"name", "a", "b", "delta"}], "placements": [...],
//  "rank_perf_ms": [{"name", "a", "b", "delta"}], "rank_hbm_bytes": [...],
//  "phase_median_ms": [...], "phase_source": {"a", "b"}}
std::string diff_to_json(const RunDiff& diff, int indent = 1);

}  // namespace shardlab::data
