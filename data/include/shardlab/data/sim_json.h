// Writing simulation results (sim/simulation.h) as JSON: the result document
// of docs/simulation.md "The result file", and a Chrome trace-event file for
// chrome://tracing and Perfetto.
//
// Both are pure functions of the result and return the whole document as one
// string (no trailing newline). They stream their output, so a 1024-rank run
// with every phase recorded builds no JSON tree. Doubles are written in their
// shortest round-trip form; NaN and infinities (which JSON cannot hold) as null.
//
// Thread safety: every function here is reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardlab/sim/collective_model.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::data {

// {"scenario", "iterations", "iteration_ms", "total_ms",
//  "ranks": [{"rank", "busy_ms": {"compute", "comm"},
//             "phases": [{"phase", "stream", "iteration", "start_ms", "end_ms", "bytes",
//             "tables"}]}],
//  "critical_path": [{"rank", "phase", "iteration", "start_ms", "end_ms"}],
//  "links": [{"name", "bytes", "utilization"}],
//  "events", "flows"}
// Ranks, phases, steps and links keep the result's order. Byte counts that are
// whole numbers are written as JSON integers. `compact` writes one line.
std::string simulation_to_json(const sim::SimResult& result, bool compact = false);

// Chrome's trace-event "JSON object format", on one line:
//   {"traceEvents": [...], "displayTimeUnit": "ms"}
// One process per host (pid = host, named "host<h>"), two threads per GPU
// (tid = 2·local_rank for its compute stream, 2·local_rank + 1 for its comm
// stream, named "gpu<rank> compute" / "gpu<rank> comm", sorted by tid), and
// one complete event ("ph": "X") per recorded phase: name = phase, cat =
// stream, ts and dur in microseconds, args {iteration, bytes, tables, rank},
// plus "critical": true for the phases on the critical path.
// local_rank is rank mod result.local_world_size.
std::string chrome_trace_json(const sim::SimResult& result);

// An nccl-tests-style sweep (sim/collective_model.h collective_sweep):
//   {"scenario", "collective", "ranks",
//    "points": [{"bytes", "time_us", "algbw_gbps", "busbw_gbps", "algorithm", "protocol"}]}
// Bandwidths in GB/s (10^9 bytes per second), as nccl-tests prints them;
// "algorithm" as sweep_algorithm_name says.
std::string sweep_to_json(const std::string& scenario, sim::CollectiveKind kind, int ranks,
                          const std::vector<sim::SweepPoint>& points, int indent = 2);

// The algorithm a sweep point of `kind` ran: NCCL runs an all-to-all as
// pairwise point-to-point sends, outside its collective algorithms, so
// all-to-all says "pairwise" (docs/simulation.md "Collectives"); the others
// name `algorithm` ("ring", "tree", "nvls").
std::string_view sweep_algorithm_name(sim::CollectiveKind kind, planner::CollAlgorithm algorithm);

}  // namespace shardlab::data
