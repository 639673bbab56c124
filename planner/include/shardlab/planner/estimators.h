// Per-shard perf and storage estimators (planner-model.md §4 and §5).
#pragma once

#include <optional>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

// What the estimators read off the sharder and planner settings.
struct EstimatorContext {
  const Topology* topology = nullptr;
  bool is_inference = false;  // perf: no backward terms for TW/CW/TWCW
  // Comm element sizes from the qcomm codec registry; nullopt when there is no
  // registry (both directions fp32, or a quant sharder): sizes are then the
  // table's element size.
  std::optional<CommPrecision> qcomm_forward;
  std::optional<CommPrecision> qcomm_backward;
  OptimizerKind optimizer = OptimizerKind::kNone;
  bool quant_sharder = false;           // storage adds 4 bytes per row
};

// The estimator settings TorchRec's planner derives from the scenario's
// sharder and planner sections (codec registry, optimizer, inference).
EstimatorContext estimator_context(const Scenario& scenario, const Topology& topology);

inline constexpr double kIndexBytes = 8;  // BIGINT_DTYPE: bytes per input id

// S_in = Σ (L_i · P_i) · B_i and S_pb = Σ P_i · B_i over the option's inputs
// (planner-model.md §4.2), running sums from 0 in input order.
struct BatchSums {
  double inputs = 0.0;
  double pooled = 0.0;
};
BatchSums batch_sums(const ShardingOption& option);

// Bytes per element of the four communication payloads of planner-model.md
// §4.8: forward/backward all-to-all and forward/backward reduce-scatter.
struct CommElementSizes {
  double fwd_a2a, bwd_a2a, fwd_rs, bwd_rs;
};
CommElementSizes comm_element_sizes(const EstimatorContext& ctx, const ShardingOption& option);

// Device bandwidth of planner-model.md §1.3, or nullopt for an unknown pair.
std::optional<double> kernel_bandwidth(ComputeDevice device, ComputeKernel kernel, double hbm_bw,
                                       double ddr_bw, std::optional<double> cache_load_factor,
                                       bool prefetch_pipeline);

// Fills option.shard_perf and option.total_perf. Fails when the kernel has no
// bandwidth on this device.
Status estimate_perf(const EstimatorContext& ctx, ShardingOption* option);

// Fills every shard's storage and option.total_storage.
void estimate_storage(const EstimatorContext& ctx, ShardingOption* option);

// Input and output buffer bytes of shard `shard` (planner-model.md §5.1).
struct IoSizes {
  int64_t input = 0;
  int64_t output = 0;
};
IoSizes shard_io_sizes(const ShardingOption& option, const Shard& shard, int world_size,
                       int local_world_size);
// Same, with the option's batch sums computed once by the caller.
IoSizes shard_io_sizes(const ShardingOption& option, const BatchSums& sums, const Shard& shard,
                       int world_size, int local_world_size);

}  // namespace shardlab::planner
