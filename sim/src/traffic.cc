#include "traffic.h"

#include <array>
#include <numeric>
#include <string>

#include "shardlab/planner/estimators.h"
#include "shardlab/sim/dense_model.h"

namespace shardlab::sim::detail {
namespace {

using planner::ShardingOption;
using planner::ShardingType;

constexpr double kLengthBytes = 4.0;  // int32 length per (feature, sample) bag
constexpr double kWeightBytes = 4.0;  // fp32 per-id weight of weighted features
constexpr double kSplitBytes = 8.0;   // int64 per feature in the splits exchange
using planner::kNumShardingTypes;

// Everything one sharding type moves per iteration. TorchRec gives each
// sharding type its own input dist and output dist, so they stay separate
// collectives here too.
struct GroupTraffic {
  bool present = false;
  // Input dist, by receiving rank (every rank sends the same to a receiver:
  // per-rank batches are equal).
  std::vector<double> splits_to;
  std::vector<double> ids_to;
  // Output dist as an all-to-all, by sending rank; its backward by receiving
  // rank (gradients flow back to the shard owners).
  std::vector<double> out_from;
  std::vector<double> bwd_to;
  // Row-wise pooled: reduce-scatter / all-gather chunk per rank.
  double rs_chunk = 0.0;
  double ag_chunk = 0.0;
  // Table-row-wise, by host: intra-host reduce-scatter / all-gather chunks,
  // then the cross-host all-to-all of each host's outputs.
  std::vector<double> host_rs_chunk;
  std::vector<double> host_ag_chunk;
  std::vector<double> host_out_from;
  std::vector<double> host_bwd_to;
  // Data parallel: gradient bytes all-reduced.
  double allreduce_bytes = 0.0;

  void init(int ranks, int hosts) {
    present = true;
    splits_to.assign(ranks, 0.0);
    ids_to.assign(ranks, 0.0);
    out_from.assign(ranks, 0.0);
    bwd_to.assign(ranks, 0.0);
    host_rs_chunk.assign(hosts, 0.0);
    host_ag_chunk.assign(hosts, 0.0);
    host_out_from.assign(hosts, 0.0);
    host_bwd_to.assign(hosts, 0.0);
  }
};

double dense_time(const std::vector<double>& per_rank, int rank) {
  if (per_rank.empty()) return 0.0;
  return per_rank.size() == 1 ? per_rank[0] : per_rank[static_cast<size_t>(rank)];
}

std::vector<int> all_ranks(int n) {
  std::vector<int> r(static_cast<size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

CollectiveSpec all_to_all(Phase phase, std::vector<int> members, std::vector<double> from,
                          std::vector<double> to) {
  CollectiveSpec c;
  c.phase = phase;
  c.kind = CollectiveKind::kAllToAll;
  c.from_bytes = from.empty() ? std::vector<double>(members.size(), 0.0) : std::move(from);
  c.to_bytes = to.empty() ? std::vector<double>(members.size(), 0.0) : std::move(to);
  c.to_total = std::accumulate(c.to_bytes.begin(), c.to_bytes.end(), 0.0);
  c.members = std::move(members);
  return c;
}

CollectiveSpec ring(Phase phase, CollectiveKind kind, std::vector<int> members, double chunk) {
  CollectiveSpec c;
  c.phase = phase;
  c.kind = kind;
  c.chunks.assign(members.size(), chunk);
  c.members = std::move(members);
  return c;
}

bool any_positive(const std::vector<double>& v) {
  for (double x : v) {
    if (x > 0) return true;
  }
  return false;
}

// Adds one placed shard's traffic to its sharding type's group.
// `first` marks the option's first shard, for traffic counted once per table;
// `first_on_host` its first shard on the rank's host.
void add_shard(const ShardingOption& o, const planner::BatchSums& b, const planner::Shard& shard,
               bool first, bool first_on_host, int rank, const planner::Topology& topo,
               const planner::CommElementSizes& c, GroupTraffic* g) {
  const double rows_per_rank = o.is_pooled ? b.pooled : b.inputs;  // output rows per rank's batch
  const double id_bytes = planner::kIndexBytes + (o.is_weighted ? kWeightBytes : 0.0);
  const double lengths = b.pooled * kLengthBytes;
  const double features = static_cast<double>(o.input_lengths.size());
  const double d = static_cast<double>(shard.cols);
  // Ids of a row-sharded table spread over its row shards in proportion to
  // their rows (ids uniform over rows); every bucket carries all lengths.
  const double row_share =
      o.tensor_rows > 0 ? static_cast<double>(shard.rows) / static_cast<double>(o.tensor_rows)
                        : 0.0;
  switch (o.sharding_type) {
    case ShardingType::kDataParallel:
      // Replicas: no input or output dist; gradients all-reduced. One replica
      // per rank: count the table once.
      if (first) {
        g->allreduce_bytes += static_cast<double>(o.tensor_rows) *
                              static_cast<double>(o.tensor_cols) * o.element_size;
      }
      return;
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      // Each shard's owner receives every id of the table (column shards all
      // look up the same rows) and returns its columns of every sample.
      g->splits_to[rank] += kSplitBytes * features;
      g->ids_to[rank] += b.inputs * id_bytes + lengths;
      g->out_from[rank] += rows_per_rank * d * c.fwd_a2a;
      g->bwd_to[rank] += rows_per_rank * d * c.bwd_a2a;
      return;
    case ShardingType::kRowWise:
      g->splits_to[rank] += kSplitBytes * features;
      g->ids_to[rank] += b.inputs * row_share * id_bytes + lengths;
      if (o.is_pooled && o.hugectr_rows) {
        // HugeCTR's Uniform communication: every shard sends its partial
        // sums of each rank's batch to that rank (hugectr_layout.h).
        g->out_from[rank] += b.pooled * d * c.fwd_a2a;
        g->bwd_to[rank] += b.pooled * d * c.bwd_a2a;
        return;
      }
      if (o.is_pooled) {
        // Partial sums of every sample, reduce-scattered to the batch owners:
        // a rank ends with its own batch's rows, once per table.
        if (first) {
          g->rs_chunk += b.pooled * d * c.fwd_rs;
          g->ag_chunk += b.pooled * d * c.bwd_rs;
        }
      } else {
        g->out_from[rank] += b.inputs * row_share * d * c.fwd_a2a;
        g->bwd_to[rank] += b.inputs * row_share * d * c.bwd_a2a;
      }
      return;
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard: {  // a grid's column blocks are table-row-wise tables
      g->splits_to[rank] += kSplitBytes * features;
      g->ids_to[rank] += b.inputs * row_share * id_bytes + lengths;
      // Once per host holding shards (TorchRec's: one host; HugeCTR's may
      // span several, each sending its partial sums).
      if (first_on_host) {
        const int host = rank / topo.intra_group_size;
        // Inside the host: partial sums for every rank's batch, reduce-
        // scattered so local rank k holds the rows of the ranks with local
        // index k; then each sends them across hosts.
        const double ranks_per_local_index =
            static_cast<double>(topo.world_size) / topo.intra_group_size;
        g->host_rs_chunk[host] += rows_per_rank * ranks_per_local_index * d * c.fwd_rs;
        g->host_ag_chunk[host] += rows_per_rank * ranks_per_local_index * d * c.bwd_rs;
        g->host_out_from[host] += rows_per_rank * d * c.fwd_a2a;
        g->host_bwd_to[host] += rows_per_rank * d * c.bwd_a2a;
      }
      return;
    }
  }
}

// Table-row-wise's groups: the planner's placement groups of
// intra_group_size ranks (hosts, or pods), any partial one last.
int num_row_wise_groups(const planner::Topology& topo) {
  return (topo.world_size + topo.intra_group_size - 1) / topo.intra_group_size;
}

// Ranks of each group, and of each index inside a group across groups.
struct HostLayout {
  std::vector<std::vector<int>> host_ranks;
  std::vector<std::vector<int>> local_index_ranks;
  std::vector<int> host_of;  // by rank
};

HostLayout host_layout(const planner::Topology& topo) {
  HostLayout h;
  const int size = topo.intra_group_size;
  h.host_ranks.resize(num_row_wise_groups(topo));
  h.local_index_ranks.resize(std::min(size, topo.world_size));
  for (int r = 0; r < topo.world_size; ++r) {
    h.host_ranks[r / size].push_back(r);
    h.host_of.push_back(r / size);
    h.local_index_ranks[r % size].push_back(r);
  }
  return h;
}

void emit_input_dist(const GroupTraffic& g, int ranks, std::vector<CollectiveSpec>* out) {
  out->push_back(all_to_all(Phase::kInputDist, all_ranks(ranks), {}, g.splits_to));
  out->push_back(all_to_all(Phase::kInputDist, all_ranks(ranks), {}, g.ids_to));
}

void emit_output_dist(ShardingType type, const GroupTraffic& g, const HostLayout& hosts, int ranks,
                      std::vector<CollectiveSpec>* out) {
  if (type == ShardingType::kTableRowWise || type == ShardingType::kGridShard) {
    for (size_t h = 0; h < hosts.host_ranks.size(); ++h) {
      if (g.host_rs_chunk[h] > 0) {
        out->push_back(ring(Phase::kOutputDist, CollectiveKind::kReduceScatter, hosts.host_ranks[h],
                            g.host_rs_chunk[h]));
      }
    }
    if (hosts.host_ranks.size() > 1) {
      for (const std::vector<int>& members : hosts.local_index_ranks) {
        std::vector<double> from;
        for (int r : members) from.push_back(g.host_out_from[hosts.host_of[r]]);
        if (any_positive(from)) out->push_back(all_to_all(Phase::kOutputDist, members, from, {}));
      }
    }
    return;
  }
  if (g.rs_chunk > 0) {
    out->push_back(
        ring(Phase::kOutputDist, CollectiveKind::kReduceScatter, all_ranks(ranks), g.rs_chunk));
  }
  if (any_positive(g.out_from))
    out->push_back(all_to_all(Phase::kOutputDist, all_ranks(ranks), g.out_from, {}));
}

// Backward mirrors the forward output dist in reverse.
void emit_bwd_output_dist(ShardingType type, const GroupTraffic& g, const HostLayout& hosts,
                          int ranks, std::vector<CollectiveSpec>* out) {
  if (type == ShardingType::kTableRowWise || type == ShardingType::kGridShard) {
    if (hosts.host_ranks.size() > 1) {
      for (const std::vector<int>& members : hosts.local_index_ranks) {
        std::vector<double> to;
        for (int r : members) to.push_back(g.host_bwd_to[hosts.host_of[r]]);
        if (any_positive(to)) out->push_back(all_to_all(Phase::kBwdOutputDist, members, {}, to));
      }
    }
    for (size_t h = 0; h < hosts.host_ranks.size(); ++h) {
      if (g.host_ag_chunk[h] > 0) {
        out->push_back(ring(Phase::kBwdOutputDist, CollectiveKind::kAllGather, hosts.host_ranks[h],
                            g.host_ag_chunk[h]));
      }
    }
    return;
  }
  if (any_positive(g.bwd_to))
    out->push_back(all_to_all(Phase::kBwdOutputDist, all_ranks(ranks), {}, g.bwd_to));
  if (g.ag_chunk > 0) {
    out->push_back(
        ring(Phase::kBwdOutputDist, CollectiveKind::kAllGather, all_ranks(ranks), g.ag_chunk));
  }
}

// The dense model's times on the scenario's GPU, with a calibration's GEMM
// efficiency and kernel time for the model's arithmetic when it has them. Without a GPU preset
// (the loader then requires dense_fwd_ms and dense_bwd_ms) only the buckets
// are needed: they become ready in proportion to each layer's backward FLOPs
// and bytes, and the optimizer step costs nothing.
DenseTimes dense_timing(const DenseArchitecture& arch, const planner::Scenario& scenario,
                        const planner::CostCalibration* calibration) {
  const planner::DenseSpec& spec = *scenario.workload.dense;
  if (scenario.gpu) {
    const auto p = static_cast<size_t>(spec.precision);
    if (calibration != nullptr &&
        (calibration->gemm_efficiency[p] || calibration->gemm_kernel_ms[p])) {
      planner::GpuSpec gpu = *scenario.gpu;
      gpu.gemm.max_efficiency[p] =
          calibration->gemm_efficiency[p].value_or(gpu.gemm.max_efficiency[p]);
      gpu.gemm.kernel_ms = calibration->gemm_kernel_ms[p].value_or(gpu.gemm.kernel_ms);
      return dense_times(arch, spec, gpu, scenario.topology.hbm_mem_bw,
                         scenario.workload.ddp_first_bucket_bytes,
                         scenario.workload.ddp_bucket_bytes);
    }
    return dense_times(arch, spec, *scenario.gpu, scenario.topology.hbm_mem_bw,
                       scenario.workload.ddp_first_bucket_bytes,
                       scenario.workload.ddp_bucket_bytes);
  }
  std::vector<double> weights;
  for (const DenseLayer& l : arch.layers) weights.push_back(l.bwd_flops() + l.bwd_bytes);
  DenseTimes t;
  t.buckets =
      gradient_buckets(arch, weights, spec.gradient_bytes, scenario.workload.ddp_first_bucket_bytes,
                       scenario.workload.ddp_bucket_bytes);
  t.embedding_grad_fraction = embedding_grad_fraction(arch, weights);
  return t;
}

// One all-reduce per DDP bucket, in bucket order; those holding bottom MLP
// gradients go after the embedding gradients' all-to-all (part 1).
void append_ddp_buckets(const DenseTimes& dense, int ranks, std::vector<CollectiveSpec>* out) {
  if (ranks < 2) return;
  for (const GradientBucket& b : dense.buckets) {
    CollectiveSpec ar;
    ar.phase = Phase::kDdpAllreduce;
    ar.kind = CollectiveKind::kAllReduce;
    ar.members = all_ranks(ranks);
    ar.bytes = b.bytes;
    ar.ready_fraction = b.ready_fraction;
    ar.part = b.after_embeddings ? 1 : 0;
    out->push_back(std::move(ar));
  }
}

}  // namespace

std::vector<CollectiveSpec> ddp_collectives(const std::vector<CollectiveSpec>& collectives) {
  std::vector<CollectiveSpec> out;
  for (const CollectiveSpec& c : collectives) {
    if (c.phase == Phase::kDdpAllreduce) out.push_back(c);
  }
  return out;
}

std::vector<CollectiveSpec> estimate_collectives(const std::vector<RankWork>& ranks,
                                                 bool training) {
  std::vector<CollectiveSpec> out;
  auto add = [&](Phase phase, double RankWork::*field) {
    CollectiveSpec c;
    c.phase = phase;
    c.kind = CollectiveKind::kEstimate;
    c.members = all_ranks(static_cast<int>(ranks.size()));
    for (const RankWork& w : ranks) c.durations_ms.push_back(w.*field);
    if (any_positive(c.durations_ms)) out.push_back(std::move(c));
  };
  add(Phase::kOutputDist, &RankWork::output_dist_estimate_ms);
  if (!training) return out;
  add(Phase::kBwdOutputDist, &RankWork::bwd_output_dist_estimate_ms);
  add(Phase::kDpAllreduce, &RankWork::dp_allreduce_estimate_ms);
  return out;
}

namespace {

// How the simulator's lookups of `o` compare with the estimate's: for the
// SSD-resident kernels (key_value, ssd_virtual_table) the share of lookups
// the HBM L1 cache serves runs at HBM bandwidth and the rest at the SSD's,
// where TorchRec charges them all at one bandwidth (the SSD's for
// key_value, the host link's for the virtual table). The share is the
// cache's bytes over the table's: every row equally likely, which a skewed
// workload beats (docs/simulation.md "Key-value tables"). 1 for every other
// kernel. The estimate's bandwidth is TorchRec's: calibration profiles hold
// no key-value kernel (none is replayed).
double lookup_scale(const planner::EstimatorContext& ctx, const ShardingOption& o) {
  using planner::ComputeKernel;
  if (o.compute_kernel != ComputeKernel::kKeyValue &&
      o.compute_kernel != ComputeKernel::kSsdVirtualTable) {
    return 1.0;
  }
  const planner::Topology& t = *ctx.topology;
  const std::optional<double> estimated = planner::kernel_bandwidth(
      t.compute_device, o.compute_kernel, t.hbm_mem_bw, t.ddr_mem_bw, o.cache_load_factor,
      o.prefetch_pipeline, t.hbm_to_ddr_mem_bw, *ctx.behaviour, t.ssd_mem_bw);
  if (!estimated || o.tensor_bytes <= 0) return 1.0;
  const double hit = std::min(1.0, static_cast<double>(planner::key_value_l1_bytes(ctx, o)) /
                                       static_cast<double>(o.tensor_bytes));
  return *estimated * (hit / t.hbm_mem_bw + (1.0 - hit) / t.ssd_mem_bw);
}

// RankWork::collectives: the collectives each rank joins, per phase.
void count_collectives(IterationTraffic* t) {
  for (const CollectiveSpec& c : t->collectives) {
    for (int m : c.members)
      ++t->ranks[static_cast<size_t>(m)].collectives[static_cast<size_t>(c.phase)];
  }
}

}  // namespace

namespace {

// The key of a table-batched kernel group (host_model.h): options that share
// sharding type, kernel, element size and weighting run as one.
int group_key(const ShardingOption& o) {
  return ((static_cast<int>(o.sharding_type) * 16 + static_cast<int>(o.compute_kernel)) * 16 +
          o.element_size) *
             2 +
         (o.is_weighted ? 1 : 0);
}

// Step 1: every placed shard's lookups on its rank (RankWork's embedding
// terms and kernel groups) and its sharding type's traffic (groups).
Status add_sparse_work(const planner::Scenario& scenario, const planner::SearchSpace& space,
                       const planner::PartitionedPlan& plan, const planner::Topology& topology,
                       IterationTraffic* t, std::array<GroupTraffic, kNumShardingTypes>* groups) {
  const int ranks = topology.world_size;
  const bool training = !scenario.planner.is_inference;
  const planner::EstimatorContext ctx = planner::estimator_context(scenario, topology);
  // Per rank, the table-batched kernel groups it runs.
  std::vector<std::vector<int>> group_keys(static_cast<size_t>(ranks));
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& o = space.options[plan.proposal[i]];
    const int key = group_key(o);
    const planner::CommElementSizes sizes = planner::comm_element_sizes(ctx, o);
    const planner::BatchSums sums = planner::batch_sums(o);
    const double lookups = lookup_scale(ctx, o);
    GroupTraffic& g = (*groups)[static_cast<size_t>(o.sharding_type)];
    if (!g.present) g.init(ranks, num_row_wise_groups(topology));
    int last_host = -1;  // shards of one host are consecutive in both layouts
    for (int s = 0; s < o.num_shards(); ++s) {
      const int rank = plan.ranks[static_cast<size_t>(plan.first_shard[i] + s)];
      if (rank < 0 || rank >= ranks) {
        return Status::invalid_argument(
            "plan: shard " + std::to_string(s) + " of " + o.fqn + " is on rank " +
            std::to_string(rank) + ", but the topology has ranks 0.." + std::to_string(ranks - 1));
      }
      RankWork& w = t->ranks[static_cast<size_t>(rank)];
      const planner::Perf& p = o.shard_perf;
      ++w.shards;
      std::vector<int>& keys = group_keys[static_cast<size_t>(rank)];
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      const int host = rank / topology.intra_group_size;
      // A grid's column blocks each start a group's share (two blocks may
      // share a group).
      const bool block_start =
          o.sharding_type == ShardingType::kGridShard && s % topology.intra_group_size == 0;
      add_shard(o, sums, o.shards[static_cast<size_t>(s)], s == 0, host != last_host || block_start,
                rank, topology, sizes, &g);
      last_host = host;
      w.prefetch_ms += p.prefetch_compute;
      w.fwd_ms += p.fwd_compute * lookups;
      w.output_dist_estimate_ms += p.fwd_comms;
      // An inference iteration has no backward, although TorchRec's RW,
      // TWRW and DP estimates carry backward terms there too.
      if (!training) continue;
      w.bwd_ms += p.bwd_compute * lookups;
      if (o.sharding_type == ShardingType::kDataParallel) {
        w.dp_allreduce_estimate_ms += p.bwd_comms;
      } else {
        w.bwd_output_dist_estimate_ms += p.bwd_comms;
      }
    }
  }
  for (int r = 0; r < ranks; ++r) {
    t->ranks[static_cast<size_t>(r)].embedding_groups =
        static_cast<int>(group_keys[static_cast<size_t>(r)].size());
  }
  return Status::ok();
}

// Step 2: the dense model's times on every rank (given times override the
// model's) and its shape; the times, for the backward's collectives.
Result<DenseTimes> add_dense_work(const planner::Scenario& scenario,
                                  const planner::CostCalibration* calibration,
                                  IterationTraffic* t) {
  const planner::WorkloadSpec& workload = scenario.workload;
  const bool training = !scenario.planner.is_inference;
  DenseTimes dense;
  if (workload.dense) {
    auto arch = dense_architecture(*workload.dense, feature_dims(scenario), scenario.batch_size);
    if (!arch) return arch.status();
    dense = dense_timing(*arch, scenario, calibration);
    t->dense_layers = static_cast<int>(arch->layers.size());
    t->dense_params = arch->params;
    for (const DenseLayer& l : arch->layers) {
      t->dense_fwd_kernels += l.fwd_kernels;
      t->dense_bwd_kernels += l.bwd_kernels;
      t->dense_param_tensors += l.params > 0 ? 2 : 0;  // weight and bias
    }
  }
  for (size_t r = 0; r < t->ranks.size(); ++r) {
    RankWork& w = t->ranks[r];
    const int rank = static_cast<int>(r);
    w.dense_fwd_ms =
        workload.dense_fwd_ms.empty() ? dense.fwd_ms : dense_time(workload.dense_fwd_ms, rank);
    w.dense_bwd_ms = !training                       ? 0.0
                     : workload.dense_bwd_ms.empty() ? dense.bwd_ms
                                                     : dense_time(workload.dense_bwd_ms, rank);
    w.dense_optimizer_ms = training ? dense.optimizer_ms : 0.0;
    w.iteration_overhead_ms = workload.iteration_overhead_ms;
  }
  return dense;
}

// Step 3: the forward's collectives in issue order: input dists in the
// sharder's order of sharding types (data-parallel has none), then output
// dists.
void emit_forward(const std::array<GroupTraffic, kNumShardingTypes>& groups,
                  const HostLayout& hosts, int ranks, IterationTraffic* t) {
  for (int type = 0; type < kNumShardingTypes; ++type) {
    const GroupTraffic& g = groups[type];
    if (g.present && static_cast<ShardingType>(type) != ShardingType::kDataParallel) {
      emit_input_dist(g, ranks, &t->collectives);
      ++t->input_dist_types;
    }
  }
  for (int type = 0; type < kNumShardingTypes; ++type) {
    if (groups[type].present) {
      emit_output_dist(static_cast<ShardingType>(type), groups[type], hosts, ranks,
                       &t->collectives);
    }
  }
}

// Step 4: the backward's: output dists in reverse order, the data-parallel
// tables' all-reduce, and with a dense model the embedding gradients' wait
// for it and DDP's buckets.
void emit_backward(const std::array<GroupTraffic, kNumShardingTypes>& groups,
                   const HostLayout& hosts, int ranks, const planner::WorkloadSpec& workload,
                   const DenseTimes& dense, IterationTraffic* t) {
  for (int type = kNumShardingTypes - 1; type >= 0; --type) {
    if (groups[type].present) {
      emit_bwd_output_dist(static_cast<ShardingType>(type), groups[type], hosts, ranks,
                           &t->collectives);
    }
  }
  const GroupTraffic& dp = groups[static_cast<size_t>(ShardingType::kDataParallel)];
  if (dp.present && dp.allreduce_bytes > 0 && ranks > 1) {
    CollectiveSpec ar;
    ar.phase = Phase::kDpAllreduce;
    ar.kind = CollectiveKind::kAllReduce;
    ar.members = all_ranks(ranks);
    ar.bytes = dp.allreduce_bytes;
    t->collectives.push_back(std::move(ar));
  }
  if (workload.dense) {
    // The embedding gradients leave once the dense model has produced them.
    t->embedding_grad_fraction = dense.embedding_grad_fraction;
    for (CollectiveSpec& c : t->collectives) {
      if (c.phase == Phase::kBwdOutputDist) c.ready_fraction = t->embedding_grad_fraction;
    }
    append_ddp_buckets(dense, ranks, &t->collectives);
  }
}

}  // namespace

Result<IterationTraffic> build_traffic(const planner::Scenario& scenario,
                                       const planner::SearchSpace& space,
                                       const planner::PartitionedPlan& plan,
                                       const planner::Topology& topology,
                                       const planner::CostCalibration* calibration) {
  const int ranks = topology.world_size;
  IterationTraffic t;
  t.ranks.resize(static_cast<size_t>(ranks));
  std::array<GroupTraffic, kNumShardingTypes> groups;
  SHARDLAB_RETURN_IF_ERROR(add_sparse_work(scenario, space, plan, topology, &t, &groups));
  Result<DenseTimes> dense = add_dense_work(scenario, calibration, &t);
  if (!dense) return dense.status();
  const HostLayout hosts = host_layout(topology);
  emit_forward(groups, hosts, ranks, &t);
  if (!scenario.planner.is_inference)
    emit_backward(groups, hosts, ranks, scenario.workload, *dense, &t);
  count_collectives(&t);
  return t;
}

}  // namespace shardlab::sim::detail

namespace shardlab::sim {

std::string_view to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kEstimate:
      return "estimate";
  }
  return "?";
}

double CollectiveSpec::bytes_sent(int m) const {
  const size_t n = members.size();
  if (n <= 1) return 0.0;
  switch (kind) {
    case CollectiveKind::kAllToAll:
      return static_cast<double>(n - 1) * from_bytes[m] + (to_total - to_bytes[m]);
    case CollectiveKind::kReduceScatter:
      return std::accumulate(chunks.begin(), chunks.end(), 0.0) - chunks[m];
    case CollectiveKind::kAllGather:
      return std::accumulate(chunks.begin(), chunks.end(), 0.0) - chunks[(m + 1) % n];
    case CollectiveKind::kAllReduce:
      return 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * bytes;
    case CollectiveKind::kEstimate:
      return 0.0;
  }
  return 0.0;
}

Result<IterationTraffic> iteration_traffic(const planner::Scenario& scenario,
                                           const planner::SearchSpace& space,
                                           const planner::PartitionedPlan& plan) {
  // The fabric is checked as the simulator checks it, though traffic does
  // not depend on it.
  if (auto graph = TopologyGraph::build(scenario.topology, scenario.fabric); !graph)
    return graph.status();
  return detail::build_traffic(scenario, space, plan, planner::make_topology(scenario));
}

}  // namespace shardlab::sim
