// The ranges inside which the planner's arithmetic is exact and its times are
// finite (docs/scenario-format.md "Limits").
//
// TorchRec computes byte counts with Python integers, which never overflow;
// ShardLab computes them in int64. Rather than check every addition in the
// planner's loop, a scenario is checked once before planning:
//   - every single value is in its range (the constants below);
//   - each table's footprint, the most storage any of its options can put on
//     one rank (the whole table with optimizer state and cache, plus the
//     input and output buffers of all its column shards), is at most
//     kMaxRankBytes, and so is their sum over tables;
//   - the dense and KJT storage reservations are at most kMaxReservationBytes.
// Then every per-shard and per-rank byte count fits in int64 with room to
// spare; sums across ranks (an option's total over its shards, a proposal's
// total) saturate at INT64_MAX instead (planner/src/saturating.h), which is
// more than any device holds, so "does not fit" stays exact.
// Times are quotients of those byte counts by bandwidths of at least
// kMinBandwidth, times factors of at most kMaxFactor, plus latencies of at
// most kMaxTimeMs: always finite.
//
// The scenario loader applies the same limits to each field as it reads it
// (so the first message names the field as the file spells it), then calls
// find_limit_violation for the products. plan() and sim::simulate() call
// check_limits too, for scenarios built in code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::planner {

// Ranks in a topology; also bounds fabric.nics_per_host and hosts[].nics.
inline constexpr int kMaxWorldSize = 65536;
// Rows of a table: row counts TorchRec divides as floats stay exact (2^53).
inline constexpr int64_t kMaxRows = int64_t{1} << 53;
// Columns of a table: shards keep them in 32 bits (sharding_option.h).
inline constexpr int64_t kMaxEmbeddingDim = int64_t{1} << 30;
// hbm_cap, ddr_cap and ssd_cap per device: 64 TiB. 65,536 of them still sum inside int64.
inline constexpr int64_t kMaxDeviceBytes = int64_t{1} << 46;
// Each of the dense and KJT reservations, dense_param_bytes and
// dense_tensor_estimate: 1 EiB.
inline constexpr int64_t kMaxReservationBytes = int64_t{1} << 60;
// A table's footprint on one rank, and the sum of all tables' footprints: 2 EiB.
inline constexpr int64_t kMaxRankBytes = int64_t{1} << 61;
// Bandwidths, bytes/ms: 1 B/s to 10^18 B/s.
inline constexpr double kMinBandwidth = 1e-3;
inline constexpr double kMaxBandwidth = 1e15;
// Latencies and given durations, ms (about 11.6 days).
inline constexpr double kMaxTimeMs = 1e9;
// Multipliers of times and bandwidths (bwd_compute_multiplier,
// oversubscription, fitted backward multipliers).
inline constexpr double kMaxFactor = 1e6;

// A field of the scenario file that breaks a limit.
struct LimitViolation {
  // The field's JSON path from the root: keys and list indices, e.g.
  // {"constraints", "t0", "pooling_factors", 0}.
  std::vector<std::variant<std::string, size_t>> path;
  std::string what;       // what is wrong, one line
  bool has_got = false;   // false when the path names a whole object or list
  double got = 0.0;       // the field's value
  bool integral = false;  // `got` is an integer (print without exponent)
  std::string expected;   // the range that would be accepted
};

// The first violation in file order (topology, batch_size, module, tables,
// constraints, sharder, planner, workload; then the products, table by
// table), or nullopt when the scenario is inside every limit.
std::optional<LimitViolation> find_limit_violation(const Scenario& scenario);

// The path as the scenario format writes it: "constraints.t0.pooling_factors[0]",
// with keys that are not plain identifiers quoted (constraints["a.b"]).
std::string limit_path(const LimitViolation& violation);

// kInvalidArgument "<path>: <what>: got <value>, expected <expected>" for the
// first violation; ok when there is none.
Status check_limits(const Scenario& scenario);

}  // namespace shardlab::planner
