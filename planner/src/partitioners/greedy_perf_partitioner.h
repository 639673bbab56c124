// TorchRec's GreedyPerfPartitioner (planner-model.md §8.1).
//
// Uniform options (RW, DP) go first, shard i on rank i. The rest are placed
// one option at a time, largest first (by storage or by perf, stable), each
// shard on the device with the smallest (perf total, rank mod Lw, rank) that
// has room; table-row-wise and table-column-wise options go to the least
// loaded host that can hold them.
//
// The planner calls partition() tens of thousands of times on proposals that
// differ in one table, so this implementation keeps state between calls:
//   * the sorted order of the previous proposal's options, repaired in place
//     when few options changed (sorting by (key desc, position asc) is the
//     same order as TorchRec's stable descending sort);
//   * each uniform option's per-rank storage as runs of equal shards, so the
//     uniform phase is a few contiguous subtractions per option;
//   * host totals and host order, recomputed only for hosts whose devices
//     changed (the recomputation is exact: same additions, same order);
//   * a tournament tree over devices for the device strategy: its root is the
//     device with the smallest key; when that device lacks room (rare), a
//     linear scan finds the smallest key among devices that fit.
// Results are identical to the straightforward algorithm; the golden tests
// check that.
//
// Not thread-safe: an instance keeps scratch state between calls.
#pragma once

#include <cstdint>
#include <vector>

#include "shardlab/planner/partitioner.h"

namespace shardlab::planner {

class GreedyPerfPartitioner final : public Partitioner {
 public:
  GreedyPerfPartitioner(SortBy sort_by, bool balance_modules)
      : sort_by_(sort_by), balance_modules_(balance_modules) {}

  // With detailed errors off, a failed partition returns an empty message
  // (the planner asks again, with details, for the one failure it reports).
  void set_detailed_errors(bool on) override { detailed_errors_ = on; }

  Status partition(const SearchSpace& space, const Proposal& proposal, const Topology& topology,
                   PartitionedPlan* out) override;

 private:
  struct HeapEntry {
    double total;
    int local_rank;
    int rank;
  };
  // A run of consecutive shards with equal storage: ranks [begin, end).
  struct StorageRun {
    int begin;
    int end;
    Storage storage;
  };

  void reset(const SearchSpace& space, const Topology& topology);
  const std::vector<StorageRun>& uniform_runs(int option_index);
  void update_uniform_usage(const Proposal& proposal);
  Status place_uniform_options(const Proposal& proposal);
  void fill_uniform_ranks(const Proposal& proposal, PartitionedPlan* out);
  Status uniform_failure(const Proposal& proposal, const Topology& topology);
  void order_non_uniform(const Proposal& proposal);
  bool before(int a, int b) const;  // sort order of proposal positions
  Status place_on_host(const ShardingOption& option, int first_shard, int param_count, PartitionedPlan* out);
  // Returns the index of the first shard that fits nowhere, or -1.
  int place_on_all_devices(const ShardingOption& option, int first_shard, PartitionedPlan* out);
  bool place_within_host(const ShardingOption& option, int host, int first_shard, PartitionedPlan* out);
  void commit_device(int rank, const Storage& storage, const Perf& perf);
  void refresh_host_order();
  void build_tree();
  void sync_tree();  // recomputes the tree nodes above devices changed since the last sync
  bool key_less(int a, int b) const;  // device key order; index world_size_ is +infinity
  Storage free_storage(int rank) const { return Storage{free_hbm_[rank], free_ddr_[rank]}; }

  SortBy sort_by_;
  bool balance_modules_;
  bool detailed_errors_ = true;

  // Per search space (reset when the space changes).
  const SearchSpace* space_ = nullptr;
  std::vector<std::vector<StorageRun>> runs_;  // by option index; empty = not built
  std::vector<int> param_counts_;              // by module: -(tables in the module)
  std::vector<char> is_uniform_;               // by option index; compact, read per proposal

  // Per topology shape.
  int world_size_ = 0;
  int local_world_size_ = 1;
  int num_hosts_ = 0;

  // Device state of the current partition.
  std::vector<int64_t> free_hbm_;
  std::vector<int64_t> free_ddr_;
  std::vector<Perf> perf_;
  std::vector<double> key_total_;  // perf_[r].total(), cached
  std::vector<int> local_rank_;    // r mod Lw, precomputed
  std::vector<int> tree_;          // tournament tree of device indices, leaves at tree_size_
  int tree_size_ = 1;
  std::vector<int> tree_dirty_;    // tree node indices to recompute, one level at a time
  std::vector<HeapEntry> popped_;

  // Host state: totals, free storage, order by (total, host).
  std::vector<double> host_total_;
  std::vector<Storage> host_free_;
  std::vector<char> host_dirty_;
  std::vector<int> host_order_;

  // Per-rank storage used by the uniform options of `uniform_proposal_`,
  // updated by difference when the next proposal changes a few tables
  // (integer sums, so the update is exact).
  Proposal uniform_proposal_;
  std::vector<int64_t> uniform_hbm_;
  std::vector<int64_t> uniform_ddr_;

  // Sort order of the previous proposal's non-uniform options.
  Proposal previous_;
  std::vector<int> order_;
  std::vector<int> changed_;
  const Proposal* current_ = nullptr;
  std::vector<char> is_changed_;

  // Scratch for the within-host device strategy.
  std::vector<HeapEntry> local_heap_;
  std::vector<Storage> local_free_;
  std::vector<Perf> local_perf_;
};

}  // namespace shardlab::planner
