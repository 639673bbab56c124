// Per-shard perf and storage estimators (docs/cost-model.md §4 and §5).
#pragma once

#include <cstdint>
#include <optional>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

// What the estimators read off the sharder and planner settings.
struct EstimatorContext {
  const Topology* topology = nullptr;
  // The TorchRec version's rules (torchrec_version.h). Not owned; never null.
  const TorchRecBehaviour* behaviour = &torchrec_behaviour(kLatestTorchRecVersion);
  bool is_inference = false;  // perf: no backward terms (which sharding types: see behaviour)
  // Comm element sizes from the qcomm codec registry; nullopt when there is no
  // registry (both directions fp32, or a quant sharder): sizes are then the
  // table's element size.
  std::optional<CommPrecision> qcomm_forward;
  std::optional<CommPrecision> qcomm_backward;
  OptimizerKind optimizer = OptimizerKind::kNone;
  bool quant_sharder = false;  // storage adds 4 bytes per row
  // The share of a key-value table its L1 cache may hold: the sharder's
  // fused cache_load_factor (0 kept), else KV_CACHING_RATIO.
  double kv_cache_load_factor = kDefaultKvCacheLoadFactor;
  // Fitted parameters that replace TorchRec's constants in the perf terms
  // (cost_calibration.h); null: TorchRec's model, untouched. Not owned.
  const CostCalibration* calibration = nullptr;
};

// The estimator settings TorchRec's planner derives from the scenario's
// sharder and planner sections (codec registry, optimizer, inference).
EstimatorContext estimator_context(const Scenario& scenario, const Topology& topology);

inline constexpr double kIndexBytes = 8;  // BIGINT_DTYPE: bytes per input id

// S_in = Σ (L_i · P_i) · B_i and S_pb = Σ P_i · B_i over the option's inputs
// (docs/cost-model.md §4.2), running sums from 0 in input order, and TorchRec
// 2026-08's pooled output count Σ (min(1, L_i) · P_i) · B_i.
struct BatchSums {
  double inputs = 0.0;
  double pooled = 0.0;
  double pooled_capped = 0.0;

  // Output rows of the option: pooled ones as `behaviour` counts them, or one
  // per input id for sequence outputs.
  double outputs(bool is_pooled, const TorchRecBehaviour& behaviour) const {
    if (!is_pooled) return inputs;
    return behaviour.pooled_output_capped_by_pooling_factor ? pooled_capped : pooled;
  }
};
BatchSums batch_sums(const ShardingOption& option);

// Bytes per element of the four communication payloads of docs/cost-model.md
// §4.8: forward/backward all-to-all and forward/backward reduce-scatter.
struct CommElementSizes {
  double fwd_a2a, bwd_a2a, fwd_rs, bwd_rs;
};
CommElementSizes comm_element_sizes(const EstimatorContext& ctx, const ShardingOption& option);

// The byte counts of one shard's perf formulas (docs/cost-model.md §4.3-§4.6),
// each computed as TorchRec writes it. Shared by TorchRec's estimator, the
// calibrated one, replay (Measurement::model_bytes) and calibration.
struct ShardBytes {
  double input_read = 0.0;  // I: index bytes read (doubled for weighted tables)
  double lookup = 0.0;      // K: embedding rows read
  double fwd_out = 0.0;     // Of (DP: O, the pooled output write)
  double bwd_out = 0.0;     // Ob (DP: 0)
  // TWRW: whether the hosts exchange outputs (2024-02: W > Lw; 2026-08: more
  // than one host), and the inter-host all-to-all bytes: forward
  // (So·W·d·s_fa)·(Lw/W) in 2024-02, S_out·hosts·d·s_fa in 2026-08; backward
  // S_out·hosts·d·s_ba in 2026-08 only. 0 otherwise.
  bool inter_host = false;
  double fwd_inter = 0.0;
  double bwd_inter = 0.0;
  double table = 0.0;  // DP: T, the whole table; else 0

  // TorchRec's forward compute numerator, (I + K) + Of.
  double fwd_compute_bytes() const { return input_read + lookup + fwd_out; }
};
ShardBytes shard_bytes(const EstimatorContext& ctx, const ShardingOption& option);
// shard_bytes(ctx, option).fwd_compute_bytes(): the bytes the forward compute
// term charges one shard of `option` (before the block penalty).
double fwd_compute_bytes(const EstimatorContext& ctx, const ShardingOption& option);

// TorchRec's block penalty for a shard `dim` columns wide: 1, 1.15 or 1.75 for
// TW, CW and TWCW by dim class (docs/cost-model.md §4.3); 1 for RW, TWRW and DP.
double block_penalty(ShardingType type, int64_t dim);

// Device bandwidth of TorchRec's kernel_bw_lookup (docs/cost-model.md §1.3) under
// `behaviour`'s rules, or nullopt for an unknown pair. `hbm_to_ddr_bw` is the
// device-host link the 2026-08 model charges UVM kernels with, and the
// virtual-table kernels (not divided by 10); `ssd_bw` the key_value kernel's
// (Topology::ssd_mem_bw). The guarded kernels have a bandwidth on cuda only.
std::optional<double> kernel_bandwidth(
    ComputeDevice device, ComputeKernel kernel, double hbm_bw, double ddr_bw,
    std::optional<double> cache_load_factor, bool prefetch_pipeline,
    double hbm_to_ddr_bw = kDefaultHbmToDdrMemBw,
    const TorchRecBehaviour& behaviour = torchrec_behaviour(kLatestTorchRecVersion),
    double ssd_bw = kDefaultSsdMemBw);

// Fills option.shard_perf and option.total_perf. Fails when the kernel has no
// bandwidth on this device.
Status estimate_perf(const EstimatorContext& ctx, ShardingOption* option);

// Optimizer state per weight byte (docs/cost-model.md §5.5): none for SGD
// (and inference), 2 for Adam, 1 for Adagrad and other optimizers, one value
// per row for row-wise Adagrad (1 / cols).
double optimizer_state_multiplier(OptimizerKind optimizer, int64_t cols);

// The HBM L1 cache every shard of a key-value or virtual-table option holds
// (TorchRec 2026-08's calculate_shard_storages, docs/cost-model.md §5.7):
// min(max_l1_cache_size MiB, ceil(rows x kv_cache_load_factor x element
// size x dim)) of the whole table; 0 without key_value_params.
int64_t key_value_l1_bytes(const EstimatorContext& ctx, const ShardingOption& option);

// Fills every shard's storage and option.total_storage.
void estimate_storage(const EstimatorContext& ctx, ShardingOption* option);

// Input and output buffer bytes of shard `shard` (docs/cost-model.md §5.1), with
// pooled outputs counted as `behaviour` counts them. `group_size` is
// Topology::intra_group_size (table-row-wise divides its inputs by it).
struct IoSizes {
  int64_t input = 0;
  int64_t output = 0;
};
IoSizes shard_io_sizes(const ShardingOption& option, const Shard& shard, int world_size,
                       int group_size, const TorchRecBehaviour& behaviour);
// Same, with the option's batch sums computed once by the caller.
IoSizes shard_io_sizes(const ShardingOption& option, const BatchSums& sums, const Shard& shard,
                       int world_size, int group_size, const TorchRecBehaviour& behaviour);

}  // namespace shardlab::planner
