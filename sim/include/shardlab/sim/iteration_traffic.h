// What one training iteration asks of each rank, independent of time: compute
// durations from the planner's cost model, and the collectives of each
// communication phase with their message sizes. The same every iteration.
//
// Message sizes follow the data TorchRec's sparse-dist modules move for each
// sharding type (input dist = KJT all-to-all: a splits exchange, then ids,
// lengths and per-sample weights; output dist and its backward per sharding
// type), with the per-shard sizes of the cost model (docs/cost-model.md §4):
//   S_in = ids per rank, S_pb = pooled rows per rank, d = shard columns,
//   element sizes from the qcomm codecs (§4.8).
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {

struct RankWork {
  int shards = 0;
  double prefetch_ms = 0.0;
  double fwd_ms = 0.0;
  double bwd_ms = 0.0;
  double dense_fwd_ms = 0.0;
  double dense_bwd_ms = 0.0;
  double dense_optimizer_ms = 0.0;
  double iteration_overhead_ms = 0.0;
  // TorchRec's comm estimates of the rank's shards (CommModel::kEstimates).
  double output_dist_estimate_ms = 0.0;
  double bwd_output_dist_estimate_ms = 0.0;
  double dp_allreduce_estimate_ms = 0.0;
  // What the host issues for the rank (host_model.h): its table-batched
  // embedding kernels (TorchRec groups a sharding type's tables by compute
  // kernel, data type and weighting, one kernel per group) and the
  // collectives it joins in each phase.
  int embedding_groups = 0;
  std::array<int, kNumPhases> collectives{};
};

// kEstimate: a barrier after which each member is busy for its own duration
// (TorchRec's comm estimates, CommModel::kEstimates).
enum class CollectiveKind { kAllToAll, kReduceScatter, kAllGather, kAllReduce, kEstimate };
std::string_view to_string(CollectiveKind k);  // "all_to_all", "reduce_scatter", ...

struct CollectiveSpec {
  Phase phase = Phase::kInputDist;
  CollectiveKind kind = CollectiveKind::kAllToAll;
  std::vector<int> members;  // global ranks
  // All-to-all: member i sends member j (i != j) from_bytes[i] + to_bytes[j].
  std::vector<double> from_bytes;
  std::vector<double> to_bytes;
  double to_total = 0.0;  // sum of to_bytes, for bytes_sent
  // Reduce-scatter / all-gather chunk per member.
  std::vector<double> chunks;
  // All-reduce buffer size (hierarchical over hosts when members span several).
  double bytes = 0.0;
  // Estimate: each member's duration after the barrier.
  std::vector<double> durations_ms;
  // A member joins no earlier than this fraction of its dense_bwd into that
  // phase (DDP buckets, and the embedding gradients when a dense model
  // produces them mid-backward); < 0: when its stream reaches it.
  double ready_fraction = -1.0;
  // Which of a phase's tasks runs it: DDP's buckets are issued in two groups,
  // before (0) and after (1) the embedding gradients' all-to-all.
  int part = 0;

  // Bytes member `m` sends in this collective.
  double bytes_sent(int m) const;
};

struct IterationTraffic {
  std::vector<RankWork> ranks;
  // The dense model's layer count and parameters (0 without workload.dense).
  int dense_layers = 0;
  int64_t dense_params = 0;
  // When in the dense backward the embedding gradients exist (after the top
  // MLP and the interaction), as a fraction of dense_bwd; 1 without a model.
  double embedding_grad_fraction = 1.0;
  // The host's view of the model (host_model.h): sharding types with an
  // input dist, the dense model's kernels and parameter tensors.
  int input_dist_types = 0;
  int dense_fwd_kernels = 0;
  int dense_bwd_kernels = 0;
  int dense_param_tensors = 0;
  // Collectives in issue order; those of one phase are run one after the
  // other by every member.
  std::vector<CollectiveSpec> collectives;
};

// The traffic of one iteration of `plan` on the scenario's topology and
// fabric: what the simulator runs, and what the replay backends execute for
// real, so measured and simulated phases describe the same collectives.
// Fails on a bad fabric or a shard placed outside the topology.
Result<IterationTraffic> iteration_traffic(const planner::Scenario& scenario,
                                           const planner::SearchSpace& space,
                                           const planner::PartitionedPlan& plan);

}  // namespace shardlab::sim
