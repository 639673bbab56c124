// TorchRec's GreedyPerfPartitioner (planner-model.md §8.1).
//
// Uniform options (RW, DP) go first, shard i on rank i. The rest are placed
// one option at a time, largest first (by storage or by perf, stable), each
// shard on the device with the smallest (perf total, rank mod Lw, rank) that
// has room; table-row-wise and table-column-wise options go to the least
// loaded host that can hold them.
//
// Not thread-safe: an instance keeps scratch buffers between calls.
#pragma once

#include <vector>

#include "shardlab/planner/partitioner.h"

namespace shardlab::planner {

class GreedyPerfPartitioner final : public Partitioner {
 public:
  GreedyPerfPartitioner(SortBy sort_by, bool balance_modules)
      : sort_by_(sort_by), balance_modules_(balance_modules) {}

  Status partition(const SearchSpace& space, const Proposal& proposal, const Topology& topology,
                   PartitionedPlan* out) override;

 private:
  struct DeviceState {
    Storage free;
    Perf perf;
  };
  // Heap entry: the device's key at the time it was pushed.
  struct HeapEntry {
    double total;
    int local_rank;
    int rank;
  };

  Status place_uniform(const ShardingOption& option, int first_shard, PartitionedPlan* out);
  Status place_on_devices(const ShardingOption& option, int first_shard, const std::vector<int>& ranks,
                          std::vector<DeviceState>& devices, PartitionedPlan* out, bool* placed);
  Status place_on_host(const ShardingOption& option, int first_shard, int param_count, PartitionedPlan* out);

  SortBy sort_by_;
  bool balance_modules_;
  int local_world_size_ = 1;
  std::vector<DeviceState> devices_;
  // Scratch, reused across calls to avoid allocations in the proposal loop.
  std::vector<int> order_;
  std::vector<int> param_counts_;
  std::vector<HeapEntry> heap_;
  std::vector<HeapEntry> popped_;
  std::vector<int> all_ranks_;
  std::vector<int> host_ranks_;
  std::vector<DeviceState> host_devices_;
  std::vector<std::pair<double, int>> host_order_;
};

}  // namespace shardlab::planner
