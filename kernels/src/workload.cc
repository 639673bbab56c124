// build_workload: a placed plan as per-rank lookups and the iteration's
// collectives. Lookup sizes come from the cost model's batch sums so a
// measured shard is the shard TorchRec's formula rated (workload.h).

#include "shardlab/kernels/workload.h"

#include <cmath>
#include <string>

#include "shardlab/planner/estimators.h"
#include "shardlab/planner/topology.h"

namespace shardlab::kernels {
namespace {

using planner::ShardingType;

Result<Precision> replay_precision(const planner::Scenario& scenario,
                                   const planner::ShardingOption& o) {
  const planner::DataType t = scenario.tables[static_cast<size_t>(o.table)].data_type;
  if (t == planner::DataType::kFp32) return Precision::kFp32;
  if (t == planner::DataType::kFp16) return Precision::kFp16;
  return Status::invalid_argument("table '" + o.name + "': data_type " +
                                  std::string(planner::to_string(t)) +
                                  " has no replay kernel (only fp32 and fp16 tables replay)");
}

// Bags per iteration and ids per bag of one shard of `o`, per workload.h.
struct LookupCounts {
  int64_t bags = 0;
  double pooling = 0.0;
};

LookupCounts lookup_counts(const planner::ShardingOption& o, const planner::BatchSums& sums,
                           int world_size, int group_size) {
  if (sums.pooled <= 0) return {};
  const double per_bag = sums.inputs / sums.pooled;
  const double w = world_size;
  switch (o.sharding_type) {
    case ShardingType::kDataParallel:
      return {std::llround(sums.pooled), per_bag};
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      return {std::llround(sums.pooled * w), per_bag};
    case ShardingType::kRowWise:
      return {std::llround(sums.pooled * w), per_bag / w};
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard:
      return {std::llround(sums.pooled * w), per_bag / group_size};
  }
  return {};
}

}  // namespace

Result<ReplayWorkload> build_workload(const planner::Scenario& scenario,
                                      const planner::SearchSpace& space,
                                      const planner::PartitionedPlan& plan,
                                      const WorkloadOptions& options) {
  const planner::Topology topology = planner::make_topology(scenario);
  const planner::EstimatorContext ctx = planner::estimator_context(scenario, topology);
  ReplayWorkload w;
  w.world_size = topology.world_size;
  w.local_world_size = topology.local_world_size;
  w.optimizer = scenario.sharder.optimizer == planner::OptimizerKind::kRowwiseAdagrad
                    ? OptimizerKind::kRowwiseAdagrad
                    : OptimizerKind::kSgd;
  w.training = !scenario.planner.is_inference;
  w.ranks.resize(static_cast<size_t>(w.world_size));
  for (int r = 0; r < w.world_size; ++r) w.ranks[static_cast<size_t>(r)].rank = r;

  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const int option_index = plan.proposal[i];
    const planner::ShardingOption& o = space.options[static_cast<size_t>(option_index)];
    Result<Precision> precision = replay_precision(scenario, o);
    if (!precision) return precision.status();
    const LookupCounts counts =
        lookup_counts(o, planner::batch_sums(o), w.world_size, topology.intra_group_size);
    const double model_bytes = planner::fwd_compute_bytes(ctx, o);
    for (int s = 0; s < o.num_shards(); ++s) {
      const int rank = plan.ranks[static_cast<size_t>(plan.first_shard[i] + s)];
      if (rank < 0 || rank >= w.world_size) {
        return Status::invalid_argument(
            "plan: shard " + std::to_string(s) + " of table '" + o.name + "' is placed on rank " +
            std::to_string(rank) + ", not on one of ranks 0.." + std::to_string(w.world_size - 1));
      }
      const planner::Shard& shard = o.shards[static_cast<size_t>(s)];
      ShardWork work;
      work.option = option_index;
      work.shard = s;
      work.table = o.name;
      work.sharding_type = o.sharding_type;
      work.compute_kernel = o.compute_kernel;
      work.rows = shard.rows;
      work.rows_used = options.max_rows > 0 ? std::min(shard.rows, options.max_rows) : shard.rows;
      work.dim = shard.cols;
      work.precision = *precision;
      work.pooling = o.is_pooled ? PoolingMode::kSum : PoolingMode::kNone;
      work.weighted = o.is_weighted;
      work.bags = counts.bags;
      // A shard without rows (row-wise sharding can leave one empty) looks nothing up.
      work.pooling_factor = shard.rows > 0 ? counts.pooling : 0.0;
      work.estimated_fwd_ms = o.shard_perf.fwd_compute;
      work.estimated_bwd_ms = o.shard_perf.bwd_compute;
      work.model_fwd_bytes = model_bytes;
      w.ranks[static_cast<size_t>(rank)].shards.push_back(std::move(work));
    }
  }

  Result<sim::IterationTraffic> traffic = sim::iteration_traffic(scenario, space, plan);
  if (!traffic) return traffic.status();
  w.collectives = std::move(traffic->collectives);
  return w;
}

}  // namespace shardlab::kernels
