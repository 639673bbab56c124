// The per-shard perf terms with a calibration (cost_calibration.h): TorchRec's
// structure (perf_estimator.cc) with fitted bandwidths, overheads, backward
// multiplier and per-scope latency and bandwidth. A missing parameter falls
// back to TorchRec's expression, so an empty calibration gives TorchRec's bits.
#include <algorithm>

#include "perf_terms.h"
#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/estimators.h"

namespace shardlab::planner::internal {
namespace {

// The DP gradient all-reduce. With a calibrated bandwidth for its scope it is
// a ring: each rank sends 2·(W-1)/W of the table, which is what replay
// measures and the fit divides by. Without one, TorchRec's expression (§4.6).
double data_parallel_all_reduce(const Topology& t, const CommCalibration& comm, double table) {
  const double latency = comm.latency_ms.value_or(0.0);
  if (comm.bandwidth_bytes_per_ms) {
    if (t.world_size <= 1) return 0.0;
    const double w = t.world_size;
    return latency + 2.0 * (w - 1) / w * table / *comm.bandwidth_bytes_per_ms;
  }
  const double num_nodes = std::min(static_cast<double>(t.world_size) / t.local_world_size, 2.0);
  double all_reduce =
      table * (2 * num_nodes - 1) / num_nodes / (t.inter_host_bw * t.local_world_size);
  if (t.world_size > 2 * t.local_world_size) all_reduce *= 2;
  return latency + all_reduce;
}

}  // namespace

Perf calibrated_perf(const EstimatorContext& ctx, const ShardingOption& o, const ShardBytes& x,
                     double bw_dev, double fetches) {
  const CostCalibration& cal = *ctx.calibration;
  const Topology& t = *ctx.topology;
  const int64_t d = shard_dim(o);
  const bool multi_host = t.world_size > t.local_world_size;
  const double multiplier = cal.backward_multiplier(o.compute_kernel, t.bwd_compute_multiplier);
  // The scope TorchRec charges TW/CW/TWCW/RW output distribution to.
  const CommCalibration& comm = cal.comm(multi_host);
  const double comm_bw = multi_host ? t.inter_host_bw : t.intra_host_bw;

  Perf p;
  p.fwd_compute = calibrated_fwd_compute(cal, o.compute_kernel, d, x.fwd_compute_bytes(),
                                         block_penalty(o.sharding_type, d), bw_dev);
  switch (o.sharding_type) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      p.fwd_comms = calibrated_comm(comm, x.fwd_out, comm_bw);
      if (!has_backward(ctx, o.sharding_type)) return p;
      p.bwd_comms = calibrated_comm(comm, x.bwd_out, comm_bw);
      p.prefetch_compute = (fetches * static_cast<double>(d) * o.element_size) / prefetch_bw(ctx);
      break;
    case ShardingType::kRowWise:
      p.fwd_comms = calibrated_comm(comm, x.fwd_out, comm_bw);
      p.bwd_comms =
          calibrated_comm(comm, x.bwd_out, comm_bw) + x.bwd_out * kBatchedCopyPerfFactor / bw_dev;
      p.prefetch_compute =
          ((fetches / t.world_size) * static_cast<double>(d) * o.element_size) / prefetch_bw(ctx);
      break;
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard: {
      // Inside the group over NVLink, a pod included (TorchRec's estimate
      // charges a pod's reduce-scatter at the inter-host bandwidth).
      p.fwd_comms = calibrated_comm(cal.intra_host, x.fwd_out, t.intra_host_bw);
      if (x.inter_host)
        p.fwd_comms = p.fwd_comms + calibrated_comm(cal.inter_host, x.fwd_inter, t.inter_host_bw);
      const double inter = x.inter_host && x.bwd_inter > 0
                               ? calibrated_comm(cal.inter_host, x.bwd_inter, t.inter_host_bw)
                               : 0.0;
      p.bwd_comms = (inter + calibrated_comm(cal.intra_host, x.bwd_out, t.intra_host_bw)) +
                    x.bwd_out * kBatchedCopyPerfFactor / bw_dev;
      p.prefetch_compute =
          ((fetches / t.intra_group_size) * static_cast<double>(d) * o.element_size) /
          prefetch_bw(ctx);
      break;
    }
    case ShardingType::kDataParallel:
      p.fwd_comms = 0.0;
      p.bwd_comms = data_parallel_all_reduce(t, comm, x.table) +
                    x.table * kDpElementwiseKernelsPerfFactor / bw_dev;
      break;
  }
  if (!has_backward(ctx, o.sharding_type)) {
    // Inference in 2026-08: TorchRec drops the backward terms of every type.
    p.bwd_comms = 0.0;
    return p;
  }
  p.bwd_compute = backward_compute(p.fwd_compute, multiplier, o.is_weighted);
  return p;
}

}  // namespace shardlab::planner::internal
