#include "shardlab/planner/placement.h"

#include <string>

#include "shardlab/planner/proposal_log.h"

namespace shardlab::planner {

bool placement_allowed(const ShardingOption& option, const int* ranks, const Topology& topology) {
  const int n = option.num_shards();
  const int w = topology.world_size;
  for (int s = 0; s < n; ++s) {
    if (ranks[s] < 0 || ranks[s] >= w) return false;
  }
  switch (option.partition_by) {
    case PartitionBy::kUniform:
      if (n != w) return false;
      for (int s = 0; s < n; ++s) {
        if (ranks[s] != s) return false;
      }
      return true;
    case PartitionBy::kDevice:
      return true;
    case PartitionBy::kHost: {
      if (n == 0) return true;
      const int lw = topology.local_world_size;
      const int host = ranks[0] / lw;
      if (host >= topology.num_hosts()) return false;
      const bool row_wise = option.sharding_type == ShardingType::kTableRowWise;
      for (int s = 0; s < n; ++s) {
        if (ranks[s] / lw != host) return false;
        if (row_wise && ranks[s] != host * lw + s) return false;
      }
      return true;
    }
  }
  return false;
}

Status check_plan_fits(const SearchSpace& space, const PartitionedPlan& plan,
                       const Topology& topology, const std::vector<Storage>& capacity) {
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
    const int* ranks = plan.ranks.data() + plan.first_shard[i];
    if (!placement_allowed(opt, ranks, topology)) {
      std::string list;
      for (int s = 0; s < opt.num_shards(); ++s) {
        if (s > 0) list += ',';
        list += std::to_string(ranks[s]);
      }
      return Status::invalid_argument(
          "table " + opt.name + ": " + std::string(to_string(opt.sharding_type)) +
          " shards on ranks [" + list + "] break the placement rules of its sharding type");
    }
  }
  const std::vector<Storage> used = shard_storage_per_rank(space, plan, topology.world_size);
  for (size_t r = 0; r < used.size() && r < capacity.size(); ++r) {
    if (!used[r].fits_in(capacity[r])) {
      return Status::invalid_argument(
          "rank " + std::to_string(r) + " needs hbm " + std::to_string(used[r].hbm) + " / ddr " +
          std::to_string(used[r].ddr) + " bytes but has hbm " + std::to_string(capacity[r].hbm) +
          " / ddr " + std::to_string(capacity[r].ddr) + " after the storage reservation");
    }
  }
  return Status::ok();
}

}  // namespace shardlab::planner
