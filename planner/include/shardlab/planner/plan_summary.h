// A placed plan in numbers, per rank and per table: what the stats table
// prints (stats.h), as values for front ends that chart and sort them (the
// GUI's Plan and Compare views), and the difference between two plans.
//
// Units: bytes, ms, MB (2^20 bytes) for the stats table's input/output
// columns. Thread safety: reentrant.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

struct RankSummary {
  int rank = 0;
  Storage shards;           // the plan's shards on this rank (the plan JSON's hbm_used / ddr_used)
  Storage dense;            // per-rank dense reservation (heuristical, inference), else 0
  Storage kjt;              // per-rank KJT reservation (heuristical, inference), else 0;
                            // 2026-08 fixed percentage: the KJT estimate
  Storage capacity;         // raw device capacity (hbm_cap / ddr_cap)
  Storage available;        // capacity left after the storage reservation
  Perf perf;                // component-wise sum of the rank's shard perfs
  double perf_total = 0.0;  // TorchRec's per-rank total (rate_plan), in plan order
  double input_mb = 0.0;    // stats table "Input (MB)"
  double output_mb = 0.0;   // stats table "Output (MB)"
  std::array<int, kNumShardingTypes> shards_by_type{};  // indexed by ShardingType
  int num_shards = 0;

  // The stats table's HBM / DDR: shards plus dense and KJT reservations.
  Storage used() const { return shards + dense + kjt; }
  // What shards may still take: available minus shards (0 when over).
  Storage free() const;
  // The reservation's safety margin: capacity minus available, dense and
  // KJT (0 when negative). shards + dense + kjt + free + margin = capacity
  // whenever the shards fit.
  Storage margin() const;
  // Shards beyond the available storage (0 when they fit).
  Storage overflow() const;
};

// One row of the stats table's parameter table.
struct TableSummary {
  int table = -1;   // index into Scenario::tables
  int option = -1;  // index into SearchSpace::options
  std::string name;
  std::string fqn;
  ShardingType sharding_type = ShardingType::kTableWise;
  ComputeKernel compute_kernel = ComputeKernel::kFused;
  Perf perf;                                // component-wise sum over the option's shards
  Storage storage;                          // the option's total storage
  std::optional<double> cache_load_factor;  // the option's, else the sharder's fused params
  double pooling_factor = 0.0;              // sum over inputs
  double num_poolings = 0.0;                // sum over inputs (1 each when not given)
  bool pooled = true;
  bool weighted = false;
  std::string sharder;
  int num_inputs = 0;
  int64_t embedding_dim = 0;
  std::optional<int64_t> column_shard_dim;  // column-wise kinds
  int64_t hash_size = 0;
  std::vector<int> ranks;  // rank of each shard, shard order
  ShardList shards;        // offsets, sizes, storage, shard order
};

struct PlanSummary {
  std::vector<RankSummary> ranks;    // rank order
  std::vector<TableSummary> tables;  // plan order (SearchSpace::fqns)
  double torchrec_rating = 0.0;      // max of perf_total
  int64_t peak_shard_hbm = 0;        // max over ranks of shards.hbm
};

// Summarises `plan` (a placement in result.search_space; every rank in
// [0, world_size)) for `scenario`, with the reservation of `result`.
// REQUIRES: result.search_space set.
PlanSummary summarize_plan(const Scenario& scenario, const PlannerResult& result,
                           const PartitionedPlan& plan);

// `base` with `plan` (placed in base.search_space) as its best plan, rated
// as TorchRec rates it: device_perf_total is the summary's per-rank
// perf_total and perf_rating their maximum, what `plan --from-plan` gives
// for that plan under TorchRec's model. Everything else is base's (topology,
// reservation, search space, counters). REQUIRES: base.search_space set.
PlannerResult with_best_plan(const PlannerResult& base, PartitionedPlan plan,
                             const PlanSummary& summary);

struct PlanDiff {
  // Tables (by name, in `a`'s order) whose sharding type, kernel or shard
  // ranks differ between the plans; tables missing from either are listed too.
  std::vector<std::string> moved_tables;
  // Per rank: b minus a (ranks beyond either plan's world count as 0).
  std::vector<int64_t> hbm_delta;  // shard HBM, bytes
  std::vector<double> perf_delta;  // perf_total, ms
};

PlanDiff diff_plans(const PlanSummary& a, const PlanSummary& b);

}  // namespace shardlab::planner
