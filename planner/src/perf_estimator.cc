// TorchRec's per-shard wall-time model (planner-model.md §4).
//
// Every expression is evaluated left to right exactly as TorchRec writes it:
// the goldens compare to a relative 1e-9 and last-bit differences compound in
// the planner's sums, so the operation order is part of the contract.
#include <algorithm>
#include <cmath>
#include <string>

#include "shardlab/planner/estimators.h"

namespace shardlab::planner {
namespace {

constexpr double kBatchedCopyPerfFactor = 2.455;
constexpr double kWeightedKernelMultiplier = 1.1;
constexpr double kDpElementwiseKernelsPerfFactor = 9.22;
constexpr double kHalfBlockPenalty = 1.15;
constexpr double kQuarterBlockPenalty = 1.75;
constexpr int64_t kFullBlockEmbDim = 128;

}  // namespace

CommElementSizes comm_element_sizes(const EstimatorContext& ctx, const ShardingOption& o) {
  const double table = o.element_size;
  CommElementSizes s{table, table, table, table};
  if (!ctx.qcomm_forward || !ctx.qcomm_backward) return s;  // no codec registry
  // The registry fills all-to-all (pooled and sequence) with the configured
  // precisions; reduce-scatter cannot carry fp8 and falls back to fp16 / bf16.
  s.fwd_a2a = comm_element_size(*ctx.qcomm_forward);
  s.bwd_a2a = comm_element_size(*ctx.qcomm_backward);
  if (o.is_pooled) {
    auto rs = [](CommPrecision p) { return p == CommPrecision::kFp8 ? 2 : comm_element_size(p); };
    s.fwd_rs = rs(*ctx.qcomm_forward);
    s.bwd_rs = rs(*ctx.qcomm_backward);
  }
  return s;
}

namespace {

double block_penalty(int64_t d) {
  if (d >= kFullBlockEmbDim) return 1.0;
  if (d >= kFullBlockEmbDim / 2) return kHalfBlockPenalty;
  return kQuarterBlockPenalty;
}

double backward_compute(const Topology& t, double fwd_compute, bool weighted) {
  return fwd_compute * t.bwd_compute_multiplier + (weighted ? fwd_compute * kWeightedKernelMultiplier : 0.0);
}

// TW, CW, TWCW (§4.3).
Perf table_wise_perf(const EstimatorContext& ctx, const ShardingOption& o, int64_t d, double bw_dev,
                     double fetches) {
  const Topology& t = *ctx.topology;
  const BatchSums b = batch_sums(o);
  const CommElementSizes c = comm_element_sizes(ctx, o);
  const double w = t.world_size;
  const double outputs = o.is_pooled ? b.pooled : b.inputs;
  const double comms_bw = t.world_size > t.local_world_size ? t.inter_host_bw : t.intra_host_bw;

  double input_read = std::ceil(b.inputs * w * kIndexBytes);
  if (o.is_weighted) input_read *= 2;
  const double lookup = b.inputs * w * static_cast<double>(std::max<int64_t>(d, 32)) * o.element_size;
  const double fwd_out = outputs * w * static_cast<double>(d) * c.fwd_a2a;
  const double bwd_out = outputs * w * static_cast<double>(d) * c.bwd_a2a;

  Perf p;
  p.fwd_compute = (input_read + lookup + fwd_out) * block_penalty(d) / bw_dev;
  p.fwd_comms = fwd_out / comms_bw;
  if (ctx.is_inference) return p;
  p.bwd_comms = bwd_out / comms_bw;
  p.bwd_compute = backward_compute(t, p.fwd_compute, o.is_weighted);
  p.prefetch_compute = (fetches * static_cast<double>(d) * o.element_size) / t.ddr_mem_bw;
  return p;
}

// RW (§4.4). No inference branch and no block penalty, as in TorchRec.
Perf row_wise_perf(const EstimatorContext& ctx, const ShardingOption& o, int64_t d, double bw_dev,
                   double fetches) {
  const Topology& t = *ctx.topology;
  const BatchSums b = batch_sums(o);
  const CommElementSizes c = comm_element_sizes(ctx, o);
  const double w = t.world_size;
  const double inputs = b.inputs / w;
  const double outputs = o.is_pooled ? b.pooled : inputs;
  const double comms_bw = t.world_size > t.local_world_size ? t.inter_host_bw : t.intra_host_bw;

  double input_read = std::ceil(inputs * w * kIndexBytes);
  if (o.is_weighted) input_read *= 2;
  const double lookup = inputs * w * static_cast<double>(d) * o.element_size;
  const double fwd_out = outputs * w * static_cast<double>(d) * (o.is_pooled ? c.fwd_rs : c.fwd_a2a);
  const double bwd_out = outputs * w * static_cast<double>(d) * (o.is_pooled ? c.bwd_rs : c.bwd_a2a);

  Perf p;
  p.fwd_compute = (input_read + lookup + fwd_out) / bw_dev;
  p.fwd_comms = fwd_out / comms_bw;
  p.bwd_comms = bwd_out / comms_bw + bwd_out * kBatchedCopyPerfFactor / bw_dev;
  p.bwd_compute = backward_compute(t, p.fwd_compute, o.is_weighted);
  p.prefetch_compute = ((fetches / w) * static_cast<double>(d) * o.element_size) / t.ddr_mem_bw;
  return p;
}

// TWRW (§4.5): reduce-scatter inside the host, all-to-all across hosts in the
// forward pass only (TorchRec does not model backward inter-host traffic).
Perf table_row_wise_perf(const EstimatorContext& ctx, const ShardingOption& o, int64_t d,
                         double bw_dev, double fetches) {
  const Topology& t = *ctx.topology;
  const BatchSums b = batch_sums(o);
  const CommElementSizes c = comm_element_sizes(ctx, o);
  const double w = t.world_size;
  const double lw = t.local_world_size;
  const double inputs = b.inputs / lw;
  const double outputs = o.is_pooled ? b.pooled : inputs;

  double input_read = std::ceil(inputs * w * kIndexBytes);
  if (o.is_weighted) input_read *= 2;
  const double lookup = inputs * w * static_cast<double>(d) * o.element_size;
  const double fwd_out = outputs * w * static_cast<double>(d) * c.fwd_rs;
  const double bwd_out = outputs * w * static_cast<double>(d) * c.bwd_rs;

  Perf p;
  p.fwd_comms = fwd_out / t.intra_host_bw;
  if (t.world_size > t.local_world_size) {
    p.fwd_comms = p.fwd_comms + ((outputs * w * static_cast<double>(d) * c.fwd_a2a) * (lw / w)) / t.inter_host_bw;
  }
  p.fwd_compute = (input_read + lookup + fwd_out) / bw_dev;
  p.bwd_comms = bwd_out / t.intra_host_bw + bwd_out * kBatchedCopyPerfFactor / bw_dev;
  p.bwd_compute = backward_compute(t, p.fwd_compute, o.is_weighted);
  p.prefetch_compute = ((fetches / lw) * static_cast<double>(d) * o.element_size) / t.ddr_mem_bw;
  return p;
}

// DP (§4.6): every replica reads the whole table; backward all-reduces it.
Perf data_parallel_perf(const EstimatorContext& ctx, const ShardingOption& o, double bw_dev) {
  const Topology& t = *ctx.topology;
  const BatchSums b = batch_sums(o);
  const double outputs = o.is_pooled ? b.pooled : b.inputs;
  const auto d = static_cast<double>(o.tensor_cols);

  double input_read = std::ceil(b.inputs * kIndexBytes);
  if (o.is_weighted) input_read *= 2;
  const double lookup = b.inputs * d * o.element_size;
  const double output_write = outputs * d * o.element_size;
  const auto table_bytes = static_cast<double>(o.tensor_rows * o.tensor_cols * o.element_size);

  // TorchRec divides world size by local world size as floats here.
  const double num_nodes = std::min(static_cast<double>(t.world_size) / t.local_world_size, 2.0);
  double all_reduce = table_bytes * (2 * num_nodes - 1) / num_nodes / (t.inter_host_bw * t.local_world_size);
  if (t.world_size > 2 * t.local_world_size) all_reduce *= 2;
  const double optimizer_kernels = table_bytes * kDpElementwiseKernelsPerfFactor / bw_dev;

  Perf p;
  p.fwd_compute = (input_read + lookup + output_write) / bw_dev;
  p.fwd_comms = 0.0;
  p.bwd_comms = all_reduce + optimizer_kernels;
  p.bwd_compute = backward_compute(t, p.fwd_compute, o.is_weighted);
  return p;
}

}  // namespace

BatchSums batch_sums(const ShardingOption& o) {
  BatchSums s;
  for (size_t i = 0; i < o.input_lengths.size(); ++i) {
    const auto b = static_cast<double>(o.batch_sizes[i]);
    s.inputs += (o.input_lengths[i] * o.num_poolings[i]) * b;
    s.pooled += o.num_poolings[i] * b;
  }
  return s;
}

std::optional<double> kernel_bandwidth(ComputeDevice device, ComputeKernel kernel, double hbm_bw,
                                       double ddr_bw, std::optional<double> cache_load_factor,
                                       bool prefetch_pipeline) {
  const double c = cache_load_factor.value_or(0.0) != 0.0 ? *cache_load_factor : kDefaultCacheLoadFactor;
  if (device == ComputeDevice::kCpu || device == ComputeDevice::kMtia) {
    switch (kernel) {
      case ComputeKernel::kDense: return 0.5 * ddr_bw;
      case ComputeKernel::kFused: return 1 * ddr_bw;
      case ComputeKernel::kQuant: return 1 * ddr_bw;
      default: return std::nullopt;
    }
  }
  // The prefetch pipeline hides UVM latency, so TorchRec rates a prefetched
  // caching kernel at plain HBM speed (fused_uvm_caching only).
  if (prefetch_pipeline && kernel == ComputeKernel::kFusedUvmCaching) return 1 * hbm_bw;
  switch (kernel) {
    case ComputeKernel::kDense: return 0.5 * hbm_bw;
    case ComputeKernel::kFused:
    case ComputeKernel::kQuant: return 1 * hbm_bw;
    case ComputeKernel::kFusedUvm:
    case ComputeKernel::kQuantUvm: return ddr_bw / 10;
    case ComputeKernel::kFusedUvmCaching:
    case ComputeKernel::kQuantUvmCaching: return (c * hbm_bw + (1 - c) * ddr_bw) / 10;
  }
  return std::nullopt;
}

Status estimate_perf(const EstimatorContext& ctx, ShardingOption* option) {
  const Topology& t = *ctx.topology;
  const auto bw = kernel_bandwidth(t.compute_device, option->compute_kernel, t.hbm_mem_bw, t.ddr_mem_bw,
                                   option->cache_load_factor, option->prefetch_pipeline);
  if (!bw) {
    return Status::planner(PlannerErrorType::kOther,
                           "No kernel bandwidth exists for this combo of compute device: " +
                               std::string(to_string(t.compute_device)) +
                               ", compute kernel: " + std::string(to_string(option->compute_kernel)));
  }
  // Expected cache fetches need cache statistics, which a scenario cannot carry.
  const double fetches = 0.0;
  const int64_t d = option->shards.empty() ? option->tensor_cols : option->shards.front().cols;
  Perf p;
  switch (option->sharding_type) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise: p = table_wise_perf(ctx, *option, d, *bw, fetches); break;
    case ShardingType::kRowWise: p = row_wise_perf(ctx, *option, d, *bw, fetches); break;
    case ShardingType::kTableRowWise: p = table_row_wise_perf(ctx, *option, d, *bw, fetches); break;
    case ShardingType::kDataParallel: p = data_parallel_perf(ctx, *option, *bw); break;
  }
  option->shard_perf = p;
  double total = 0.0;
  const double shard_total = p.total();
  for (int j = 0; j < option->num_shards(); ++j) total += shard_total;
  option->total_perf = total;
  return Status::ok();
}

}  // namespace shardlab::planner
