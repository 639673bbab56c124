// TorchRec's perf-model constants (docs/cost-model.md §1.1) and the pieces of
// the per-shard formulas that TorchRec's estimator (perf_estimator.cc) and the
// calibrated one (cost_calibration_perf.cc) share. Private to the planner.
#pragma once

#include <cstdint>

#include "shardlab/planner/estimators.h"

namespace shardlab::planner::internal {

inline constexpr double kBatchedCopyPerfFactor = 2.455;
inline constexpr double kWeightedKernelMultiplier = 1.1;
inline constexpr double kDpElementwiseKernelsPerfFactor = 9.22;
inline constexpr double kHalfBlockPenalty = 1.15;
inline constexpr double kQuarterBlockPenalty = 1.75;
inline constexpr int64_t kFullBlockEmbDim = 128;

// fwd_compute · m_bwd (+ fwd_compute · 1.1 for weighted tables).
inline double backward_compute(double fwd_compute, double bwd_multiplier, bool weighted) {
  return fwd_compute * bwd_multiplier + (weighted ? fwd_compute * kWeightedKernelMultiplier : 0.0);
}

// Whether the perf estimator charges backward terms to `type`: not in
// inference, for table-wise, column-wise and table-column-wise in 2024-02,
// for every sharding type in 2026-08 (TorchRecBehaviour::no_backward_in_inference).
inline bool has_backward(const EstimatorContext& ctx, ShardingType type) {
  if (!ctx.is_inference) return true;
  if (ctx.behaviour->no_backward_in_inference) return false;
  return !(type == ShardingType::kTableWise || type == ShardingType::kColumnWise ||
           type == ShardingType::kTableColumnWise);
}

// What cache fetches (prefetch_compute) are charged at: DDR bandwidth in
// 2024-02, the device-host link in 2026-08. Fetches need cache statistics a
// scenario cannot express, so the term is 0 either way.
inline double prefetch_bw(const EstimatorContext& ctx) {
  return ctx.behaviour->uvm_over_hbm_to_ddr_link ? ctx.topology->hbm_to_ddr_mem_bw
                                                 : ctx.topology->ddr_mem_bw;
}

// The column count the formulas use: the first shard's (all shards of an
// option are equally wide), or the table's when there are no shards.
inline int64_t shard_dim(const ShardingOption& o) {
  return o.shards.empty() ? o.tensor_cols : o.shards.front().cols;
}

// Per-shard perf with a calibration (cost_calibration.h).
// REQUIRES: ctx.calibration != nullptr; `bytes` = shard_bytes(ctx, o);
// `bw_dev` TorchRec's device bandwidth for the option's kernel.
Perf calibrated_perf(const EstimatorContext& ctx, const ShardingOption& o, const ShardBytes& bytes,
                     double bw_dev, double fetches);

}  // namespace shardlab::planner::internal
