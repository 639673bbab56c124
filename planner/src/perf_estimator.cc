// TorchRec's per-shard wall-time model (docs/cost-model.md §4).
//
// Every expression is evaluated left to right exactly as TorchRec writes it:
// the goldens compare to a relative 1e-9 and last-bit differences compound in
// the planner's sums, so the operation order is part of the contract. The
// byte counts (shard_bytes) are shared with the calibrated model
// (cost_calibration_perf.cc), which runs instead when the context carries a
// calibration.
#include <algorithm>
#include <cmath>
#include <string>

#include "perf_terms.h"
#include "shardlab/planner/estimators.h"

namespace shardlab::planner {

using internal::backward_compute;
using internal::kBatchedCopyPerfFactor;
using internal::kDpElementwiseKernelsPerfFactor;

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

double block_penalty(ShardingType type, int64_t d) {
  switch (type) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      break;
    default:
      return 1.0;
  }
  if (d >= internal::kFullBlockEmbDim) return 1.0;
  if (d >= internal::kFullBlockEmbDim / 2) return internal::kHalfBlockPenalty;
  return internal::kQuarterBlockPenalty;
}

namespace {

// TW, CW, TWCW (§4.3): the max(d, 32) lookup floor.
ShardBytes table_wise_bytes(const EstimatorContext& ctx, const ShardingOption& o, int64_t d) {
  const Topology& t = *ctx.topology;
  const BatchSums b = batch_sums(o);
  const CommElementSizes c = comm_element_sizes(ctx, o);
  const double w = t.world_size;
  const double outputs = b.outputs(o.is_pooled, *ctx.behaviour);

  ShardBytes x;
  x.input_read = std::ceil(b.inputs * w * kIndexBytes);
  if (o.is_weighted) x.input_read *= 2;
  x.lookup = b.inputs * w * static_cast<double>(std::max<int64_t>(d, 32)) * o.element_size;
  x.fwd_out = outputs * w * static_cast<double>(d) * c.fwd_a2a;
  x.bwd_out = outputs * w * static_cast<double>(d) * c.bwd_a2a;
  return x;
}

// RW (§4.4): each shard sees L/W ids per bag; pooled outputs are reduce-scattered.
ShardBytes row_wise_bytes(const EstimatorContext& ctx, const ShardingOption& o, int64_t d) {
  const Topology& t = *ctx.topology;
  const BatchSums b = batch_sums(o);
  const CommElementSizes c = comm_element_sizes(ctx, o);
  const double w = t.world_size;
  const double inputs = b.inputs / w;
  const double outputs = o.is_pooled ? b.outputs(true, *ctx.behaviour) : inputs;

  ShardBytes x;
  x.input_read = std::ceil(inputs * w * kIndexBytes);
  if (o.is_weighted) x.input_read *= 2;
  x.lookup = inputs * w * static_cast<double>(d) * o.element_size;
  x.fwd_out = outputs * w * static_cast<double>(d) * (o.is_pooled ? c.fwd_rs : c.fwd_a2a);
  x.bwd_out = outputs * w * static_cast<double>(d) * (o.is_pooled ? c.bwd_rs : c.bwd_a2a);
  return x;
}

// TWRW (§4.5): L/G ids per bag, G the group size (the host, or the pod);
// reduce-scatter sizes even when not pooled.
ShardBytes table_row_wise_bytes(const EstimatorContext& ctx, const ShardingOption& o, int64_t d) {
  const Topology& t = *ctx.topology;
  const BatchSums b = batch_sums(o);
  const CommElementSizes c = comm_element_sizes(ctx, o);
  const double w = t.world_size;
  const double group = t.intra_group_size;
  const double inputs = b.inputs / group;
  const double outputs = o.is_pooled ? b.outputs(true, *ctx.behaviour) : inputs;

  ShardBytes x;
  x.input_read = std::ceil(inputs * w * kIndexBytes);
  if (o.is_weighted) x.input_read *= 2;
  x.lookup = inputs * w * static_cast<double>(d) * o.element_size;
  x.fwd_out = outputs * w * static_cast<double>(d) * c.fwd_rs;
  x.bwd_out = outputs * w * static_cast<double>(d) * c.bwd_rs;
  if (ctx.behaviour->twrw_two_level_comms) {
    // 2026-08: each group all-to-alls the whole output batch with every
    // other group, both ways (TableRowWiseEvaluator).
    const int hosts = std::max(1, t.world_size / t.intra_group_size);
    const double all = b.outputs(o.is_pooled, *ctx.behaviour);
    x.inter_host = hosts > 1;
    if (x.inter_host) {
      x.fwd_inter = all * hosts * static_cast<double>(d) * c.fwd_a2a;
      x.bwd_inter = all * hosts * static_cast<double>(d) * c.bwd_a2a;
    }
  } else {
    x.inter_host = t.world_size > t.local_world_size;
    x.fwd_inter = (outputs * w * static_cast<double>(d) * c.fwd_a2a) * (group / w);
  }
  return x;
}

// DP (§4.6): a replica pools its own rank's batch over the whole table.
ShardBytes data_parallel_bytes(const EstimatorContext& ctx, const ShardingOption& o) {
  const BatchSums b = batch_sums(o);
  const double outputs = b.outputs(o.is_pooled, *ctx.behaviour);
  const auto d = static_cast<double>(o.tensor_cols);

  ShardBytes x;
  x.input_read = std::ceil(b.inputs * kIndexBytes);
  if (o.is_weighted) x.input_read *= 2;
  x.lookup = b.inputs * d * o.element_size;
  x.fwd_out = outputs * d * o.element_size;
  x.table = static_cast<double>(o.tensor_rows * o.tensor_cols * o.element_size);
  return x;
}

// TW, CW, TWCW (§4.3).
Perf table_wise_perf(const EstimatorContext& ctx, const ShardingOption& o, const ShardBytes& x,
                     int64_t d, double bw_dev, double fetches) {
  const Topology& t = *ctx.topology;
  const double comms_bw = t.world_size > t.local_world_size ? t.inter_host_bw : t.intra_host_bw;
  Perf p;
  p.fwd_compute = x.fwd_compute_bytes() * block_penalty(o.sharding_type, d) / bw_dev;
  p.fwd_comms = x.fwd_out / comms_bw;
  if (!internal::has_backward(ctx, o.sharding_type)) return p;
  p.bwd_comms = x.bwd_out / comms_bw;
  p.bwd_compute = backward_compute(p.fwd_compute, t.bwd_compute_multiplier, o.is_weighted);
  p.prefetch_compute =
      (fetches * static_cast<double>(d) * o.element_size) / internal::prefetch_bw(ctx);
  return p;
}

// RW (§4.4). No block penalty, as in TorchRec.
Perf row_wise_perf(const EstimatorContext& ctx, const ShardingOption& o, const ShardBytes& x,
                   int64_t d, double bw_dev, double fetches) {
  const Topology& t = *ctx.topology;
  const double w = t.world_size;
  const double comms_bw = t.world_size > t.local_world_size ? t.inter_host_bw : t.intra_host_bw;
  Perf p;
  p.fwd_compute = x.fwd_compute_bytes() / bw_dev;
  p.fwd_comms = x.fwd_out / comms_bw;
  if (internal::has_backward(ctx, o.sharding_type)) {
    p.bwd_comms = x.bwd_out / comms_bw + x.bwd_out * kBatchedCopyPerfFactor / bw_dev;
    p.bwd_compute = backward_compute(p.fwd_compute, t.bwd_compute_multiplier, o.is_weighted);
  }
  p.prefetch_compute =
      ((fetches / w) * static_cast<double>(d) * o.element_size) / internal::prefetch_bw(ctx);
  return p;
}

// TWRW (§4.5): reduce-scatter inside the group, all-to-all across groups
// (x.inter_host; which traffic crosses groups depends on the version). A
// group of several hosts (a pod) reduces at the inter-host bandwidth:
// TorchRec asks get_bw(igs, min(igs, lws)), which is inter_host_bw once the
// group spans hosts, so a pod's NVLink bandwidth is not in its estimate.
Perf table_row_wise_perf(const EstimatorContext& ctx, const ShardingOption& o, const ShardBytes& x,
                         int64_t d, double bw_dev, double fetches) {
  const Topology& t = *ctx.topology;
  const double group = t.intra_group_size;
  const double group_bw =
      t.intra_group_size > t.local_world_size ? t.inter_host_bw : t.intra_host_bw;
  Perf p;
  p.fwd_comms = x.fwd_out / group_bw;
  if (x.inter_host) p.fwd_comms = p.fwd_comms + x.fwd_inter / t.inter_host_bw;
  p.fwd_compute = x.fwd_compute_bytes() / bw_dev;
  if (internal::has_backward(ctx, o.sharding_type)) {
    // (inter-group all-to-all + intra-group all-gather) + batched copy; the
    // first term is 0 without inter-group backward traffic.
    const double inter = x.inter_host ? x.bwd_inter / t.inter_host_bw : 0.0;
    p.bwd_comms = (inter + x.bwd_out / group_bw) + x.bwd_out * kBatchedCopyPerfFactor / bw_dev;
    p.bwd_compute = backward_compute(p.fwd_compute, t.bwd_compute_multiplier, o.is_weighted);
  }
  p.prefetch_compute =
      ((fetches / group) * static_cast<double>(d) * o.element_size) / internal::prefetch_bw(ctx);
  return p;
}

// DP (§4.6): every replica reads the whole table; backward all-reduces it.
Perf data_parallel_perf(const EstimatorContext& ctx, const ShardingOption& o, const ShardBytes& x,
                        double bw_dev) {
  const Topology& t = *ctx.topology;
  // TorchRec divides world size by local world size as floats here.
  const double num_nodes = std::min(static_cast<double>(t.world_size) / t.local_world_size, 2.0);
  double all_reduce =
      x.table * (2 * num_nodes - 1) / num_nodes / (t.inter_host_bw * t.local_world_size);
  if (t.world_size > 2 * t.local_world_size) all_reduce *= 2;
  const double optimizer_kernels = x.table * kDpElementwiseKernelsPerfFactor / bw_dev;

  Perf p;
  p.fwd_compute = x.fwd_compute_bytes() / bw_dev;
  p.fwd_comms = 0.0;
  if (!internal::has_backward(ctx, o.sharding_type)) return p;
  p.bwd_comms = all_reduce + optimizer_kernels;
  p.bwd_compute = backward_compute(p.fwd_compute, t.bwd_compute_multiplier, o.is_weighted);
  return p;
}

}  // namespace

ShardBytes shard_bytes(const EstimatorContext& ctx, const ShardingOption& o) {
  const int64_t d = internal::shard_dim(o);
  switch (o.sharding_type) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      return table_wise_bytes(ctx, o, d);
    case ShardingType::kRowWise:
      return row_wise_bytes(ctx, o, d);
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard:  // GridShardEvaluator is a TableRowWiseEvaluator
      return table_row_wise_bytes(ctx, o, d);
    case ShardingType::kDataParallel:
      return data_parallel_bytes(ctx, o);
  }
  return ShardBytes{};
}

double fwd_compute_bytes(const EstimatorContext& ctx, const ShardingOption& o) {
  return shard_bytes(ctx, o).fwd_compute_bytes();
}

BatchSums batch_sums(const ShardingOption& o) {
  BatchSums s;
  for (size_t i = 0; i < o.input_lengths.size(); ++i) {
    const auto b = static_cast<double>(o.batch_sizes[i]);
    s.inputs += (o.input_lengths[i] * o.num_poolings[i]) * b;
    s.pooled += o.num_poolings[i] * b;
    s.pooled_capped += (std::min(1.0, o.input_lengths[i]) * o.num_poolings[i]) * b;
  }
  return s;
}

std::optional<double> kernel_bandwidth(ComputeDevice device, ComputeKernel kernel, double hbm_bw,
                                       double ddr_bw, std::optional<double> cache_load_factor,
                                       bool prefetch_pipeline, double hbm_to_ddr_bw,
                                       const TorchRecBehaviour& behaviour, double ssd_bw) {
  // A missing load factor is 0.2; 2024-02 also replaced 0 (falsy rule).
  double c = cache_load_factor.value_or(kDefaultCacheLoadFactor);
  if (c == 0.0 && !behaviour.zero_load_factor_kept_in_perf) c = kDefaultCacheLoadFactor;
  // What UVM kernels read host memory at.
  const double host_bw = behaviour.uvm_over_hbm_to_ddr_link ? hbm_to_ddr_bw : ddr_bw;
  if (device == ComputeDevice::kCpu || device == ComputeDevice::kMtia) {
    const double mem_bw =
        device == ComputeDevice::kMtia && behaviour.mtia_has_hbm ? hbm_bw : ddr_bw;
    switch (kernel) {
      case ComputeKernel::kDense:
        return 0.5 * mem_bw;
      case ComputeKernel::kFused:
        return 1 * mem_bw;
      case ComputeKernel::kQuant:
        return 1 * mem_bw;
      default:
        return std::nullopt;
    }
  }
  // The prefetch pipeline hides UVM latency, so TorchRec rates a prefetched
  // caching kernel at plain HBM speed (fused_uvm_caching only).
  if (prefetch_pipeline && kernel == ComputeKernel::kFusedUvmCaching) return 1 * hbm_bw;
  switch (kernel) {
    case ComputeKernel::kDense:
      return 0.5 * hbm_bw;
    case ComputeKernel::kFused:
    case ComputeKernel::kQuant:
      return 1 * hbm_bw;
    case ComputeKernel::kFusedUvm:
    case ComputeKernel::kQuantUvm:
      return host_bw / 10;
    case ComputeKernel::kFusedUvmCaching:
    case ComputeKernel::kQuantUvmCaching:
      return (c * hbm_bw + (1 - c) * host_bw) / 10;
    case ComputeKernel::kKeyValue:
      return ssd_bw;
    case ComputeKernel::kSsdVirtualTable:
    case ComputeKernel::kDramVirtualTable:
    case ComputeKernel::kDramSsdVirtualTable:
      return hbm_to_ddr_bw;
  }
  return std::nullopt;
}

Status estimate_perf(const EstimatorContext& ctx, ShardingOption* option) {
  const Topology& t = *ctx.topology;
  const auto bw =
      kernel_bandwidth(t.compute_device, option->compute_kernel, t.hbm_mem_bw, t.ddr_mem_bw,
                       option->cache_load_factor, option->prefetch_pipeline, t.hbm_to_ddr_mem_bw,
                       *ctx.behaviour, t.ssd_mem_bw);
  if (!bw) {
    return Status::planner(PlannerErrorType::kOther,
                           "No kernel bandwidth exists for this combo of compute device: " +
                               std::string(to_string(t.compute_device)) + ", compute kernel: " +
                               std::string(to_string(option->compute_kernel)));
  }
  // Expected cache fetches need cache statistics, which a scenario cannot carry.
  const double fetches = 0.0;
  const int64_t d = internal::shard_dim(*option);
  const ShardBytes x = shard_bytes(ctx, *option);
  Perf p;
  if (ctx.calibration != nullptr) {
    p = internal::calibrated_perf(ctx, *option, x, *bw, fetches);
  } else {
    switch (option->sharding_type) {
      case ShardingType::kTableWise:
      case ShardingType::kColumnWise:
      case ShardingType::kTableColumnWise:
        p = table_wise_perf(ctx, *option, x, d, *bw, fetches);
        break;
      case ShardingType::kRowWise:
        p = row_wise_perf(ctx, *option, x, d, *bw, fetches);
        break;
      case ShardingType::kTableRowWise:
      case ShardingType::kGridShard:
        p = table_row_wise_perf(ctx, *option, x, d, *bw, fetches);
        break;
      case ShardingType::kDataParallel:
        p = data_parallel_perf(ctx, *option, x, *bw);
        break;
    }
  }
  // The scenario's limits keep TorchRec's terms finite; a calibration built
  // in code is not checked by any loader, so check what it produced.
  if (!std::isfinite(p.total())) {
    return Status::invalid_argument(
        "table " + option->name + ": the " + std::string(to_string(option->sharding_type)) + "/" +
        std::string(to_string(option->compute_kernel)) +
        " option's estimated time is not finite (" + std::to_string(p.total()) +
        " ms): a bandwidth, time or multiplier is out of range");
  }
  option->shard_perf = p;
  double total = 0.0;
  const double shard_total = p.total();
  for (int j = 0; j < option->num_shards(); ++j) total += shard_total;
  option->total_perf = total;
  return Status::ok();
}

}  // namespace shardlab::planner
