#include "shardlab/planner/placement.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

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
      const int lw = topology.intra_group_size;
      const int host = ranks[0] / lw;
      if (host >= topology.num_groups()) return false;
      const bool row_wise = option.sharding_type == ShardingType::kTableRowWise;
      for (int s = 0; s < n; ++s) {
        if (ranks[s] / lw != host) return false;
        if (row_wise && ranks[s] != host * lw + s) return false;
      }
      return true;
    }
    case PartitionBy::kMultiHost: {
      // Each column block's row shards on the ranks of one group, in order.
      const int size = topology.intra_group_size;
      if (n % size != 0) return false;
      for (int b = 0; b < n; b += size) {
        const int group = ranks[b] / size;
        if (ranks[b] % size != 0 || group >= topology.num_groups()) return false;
        for (int s = 0; s < size; ++s) {
          if (ranks[b + s] != group * size + s) return false;
        }
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
  return check_storage_fits(space, plan, capacity);
}

Status check_storage_fits(const SearchSpace& space, const PartitionedPlan& plan,
                          const std::vector<Storage>& capacity) {
  const int world = static_cast<int>(capacity.size());
  const std::vector<Storage> used = shard_storage_per_rank(space, plan, world);
  constexpr int kNamedRanks = 3;
  constexpr size_t kNamedTables = 2;
  std::string text;
  int over = 0;
  for (int rank = 0; rank < world; ++rank) {
    const Storage& need = used[static_cast<size_t>(rank)];
    const Storage& cap = capacity[static_cast<size_t>(rank)];
    if (need.fits_in(cap)) continue;
    if (++over > kNamedRanks) continue;
    // The rank's tables, largest share first.
    std::vector<std::pair<int64_t, std::string>> tables;
    for (size_t i = 0; i < plan.proposal.size(); ++i) {
      const ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
      int64_t bytes = 0;
      for (int sh = 0; sh < opt.num_shards(); ++sh) {
        if (plan.ranks[static_cast<size_t>(plan.first_shard[i] + sh)] != rank) continue;
        const Storage& st = opt.shards.storage(static_cast<size_t>(sh));
        bytes += st.hbm + st.ddr + st.ssd;
      }
      if (bytes > 0) tables.emplace_back(bytes, opt.name);
    }
    std::sort(tables.begin(), tables.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string names;
    for (size_t t = 0; t < std::min(tables.size(), kNamedTables); ++t)
      names += (t == 0 ? "" : ", ") + tables[t].second;
    if (tables.size() > kNamedTables)
      names += " and " + std::to_string(tables.size() - kNamedTables) + " more";
    // The first tier that overflows, in TorchRec's order.
    const char* tier = "SSD";
    int64_t needed = need.ssd;
    int64_t has = cap.ssd;
    if (need.hbm > cap.hbm) {
      tier = "HBM", needed = need.hbm, has = cap.hbm;
    } else if (need.ddr > cap.ddr) {
      tier = "DDR", needed = need.ddr, has = cap.ddr;
    }
    text += std::string(text.empty() ? "" : "; ") + "rank " + std::to_string(rank) + " needs " +
            std::to_string(needed) + " B of " + tier + " (tables " + names + ") but has " +
            std::to_string(has) + " B after the storage reservation";
  }
  if (over == 0) return Status::ok();
  if (over > kNamedRanks) {
    const int more = over - kNamedRanks;
    text += "; and " + std::to_string(more) + (more == 1 ? " more rank" : " more ranks");
  }
  return Status::invalid_argument("the plan does not fit this scenario's GPUs: " + text);
}

}  // namespace shardlab::planner
