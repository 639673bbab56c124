#include "memory_balanced_partitioner.h"

#include <algorithm>
#include <vector>

#include "../saturating.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {

Status MemoryBalancedPartitioner::partition(const SearchSpace& space, const Proposal& proposal,
                                            const Topology& topology, PartitionedPlan* out) {
  if (out == nullptr) out = &result_;  // the search compares plans: it needs one
  if (Status st = inner_.partition(space, proposal, topology, out); !st) return st;
  std::vector<double> device_perf;
  double base = 0.0;
  rate_plan(space, *out, topology.world_size, &device_perf, &base);
  double kept_rating = base;

  int64_t total_hbm = 0;
  int64_t hi = 0;
  int64_t lo = 0;
  if (bounds_from_default_plan_) {
    // 2026-08: from the default plan's busiest rank down to the larger of the
    // average and the largest shard.
    std::vector<int64_t> per_rank(static_cast<size_t>(topology.world_size), 0);
    int64_t largest_shard = 0;
    for (size_t i = 0; i < out->proposal.size(); ++i) {
      const ShardingOption& o = space.options[out->proposal[i]];
      for (int j = 0; j < o.num_shards(); ++j) {
        const int64_t h = o.shards.storage(j).hbm;
        per_rank[out->ranks[out->first_shard[i] + j]] += h;
        total_hbm = internal::saturating_add(total_hbm, h);
        largest_shard = std::max(largest_shard, h);
      }
    }
    hi = *std::max_element(per_rank.begin(), per_rank.end());
    lo = std::max(static_cast<int64_t>(static_cast<double>(total_hbm) / topology.world_size),
                  largest_shard);
  } else {
    // 2024-02 starts the search from the reserved capacity, not from the
    // default plan's usage (docs/cost-model.md O26).
    hi = topology.devices.front().storage.hbm;
    for (int idx : proposal) {
      total_hbm = internal::saturating_add(total_hbm, space.options[idx].total_storage.hbm);
    }
    lo = static_cast<int64_t>(static_cast<double>(total_hbm) / topology.world_size);
  }

  constexpr int64_t kMinWindow = int64_t{10} << 20;
  capped_ = topology;
  for (int64_t count = 0; count < max_search_count_ && lo + kMinWindow < hi;) {
    ++count;
    const int64_t mid = (hi + lo) / 2;  // floor: both are non-negative here
    for (Device& d : capped_.devices) d.storage.hbm = mid;
    if (Status st = inner_.partition(space, proposal, capped_, &candidate_); !st) {
      lo = mid;
      continue;
    }
    double rating = 0.0;
    rate_plan(space, candidate_, topology.world_size, &device_perf, &rating);
    if (rating > base * (1 + tolerance_)) {
      lo = mid;
    } else {
      *out = candidate_;
      kept_rating = rating;
      hi = mid;
    }
  }
  rating_ = kept_rating;
  return Status::ok();
}

}  // namespace shardlab::planner
