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
//   * the per-rank storage of the uniform options, as runs of equal shards
//     per option, updated by difference (integer sums, so exact);
// and within one call:
//   * tournament trees over devices (by host) and over hosts whose roots are
//     the device (host) with the smallest key; both keys are strict total
//     orders, so the root is exactly what TorchRec's heap (stable sort) yields
//     first. When the root cannot take the shard (option), the next
//     candidates come from a scan (devices) or from taking hosts out of the
//     tree one at a time (hosts), in key order;
//   * per-device perf as one array per component, so a host placement's
//     additions are vector instructions (same additions, same results);
//   * host totals, recomputed only for hosts whose devices changed (the
//     recomputation is exact: same additions, same order).
// Results are identical to the straightforward algorithm; the golden tests
// check that.
//
// Not thread-safe: an instance keeps scratch state between calls.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "device_perfs.h"
#include "shardlab/planner/partitioner.h"
#include "min_key_tree.h"

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
  std::optional<double> max_device_perf() const override;

 private:
  struct HeapEntry {
    double total;
    int local_rank;
    int rank;
  };
  // What placing an option reads, packed into two cache lines. The
  // placement loop visits options in storage order, i.e. all over the search
  // space, and a ShardingOption spreads these fields over four lines among
  // its strings and vectors.
  struct alignas(64) HotOption {
    Perf shard_perf;
    Storage total_storage;
    int num_shards = 0;
    bool by_host = false;    // partition_by == kHost
    bool row_wise = false;   // table-row-wise (else, by host: table-column-wise)
    // Table-row-wise shards 0..n-2 all have storage `head`, shard n-1 `tail`
    // (row blocks of equal size, the last one shorter); false: read the shards.
    bool head_tail = false;
    Storage head;
    Storage tail;
  };
  // A run of consecutive shards with equal storage: ranks [begin, end).
  struct StorageRun {
    int begin;
    int end;
    Storage storage;
  };
  // greedy_perf_partitioner.cc: state, the uniform phase, the order.
  void reset(const SearchSpace& space, const Topology& topology);
  const std::vector<StorageRun>& uniform_runs(int option_index);
  void update_uniform_usage(const Proposal& proposal);
  Status place_uniform_options(const Proposal& proposal, const Topology& topology);
  void fill_uniform_ranks(const Proposal& proposal, PartitionedPlan* out);
  Status uniform_failure(const Proposal& proposal, const Topology& topology);
  void order_non_uniform(const Proposal& proposal);
  bool before(int a, int b) const;  // sort order of proposal positions

  // greedy_perf_placement.cc: the device and host strategies.
  void start_placement();
  // `o` is an option index, `h` its hot_ entry.
  Status place_on_host(int o, const HotOption& h, int first_shard, PartitionedPlan* out);
  bool try_host(int o, const HotOption& h, int host, int first_shard, PartitionedPlan* out);
  bool try_row_wise(int o, const HotOption& h, int host, int first_shard, PartitionedPlan* out);
  Status host_failure(const ShardingOption& option) const;
  // Returns the index of the first shard that fits nowhere, or -1.
  int place_on_all_devices(int o, const HotOption& h, int first_shard, PartitionedPlan* out);
  bool place_within_host(const ShardingOption& option, int host, int first_shard, PartitionedPlan* out);
  void commit_device(int rank, const Storage& storage, const Perf& perf);
  void mark_host(int host);  // its devices changed
  void refresh_hosts();
  void refresh_groups();
  TreeKey device_key(int rank) const {
    return TreeKey{key_total_[rank], (static_cast<uint64_t>(local_rank_[rank]) << 32) | static_cast<uint32_t>(rank)};
  }
  Storage free_storage(int rank) const { return Storage{free_hbm_[rank], free_ddr_[rank]}; }
  void build_hot_options(const SearchSpace& space);

  // Storage values in (-2^62, 2^62): the difference of two cannot overflow.
  static constexpr int64_t kSmallStorage = int64_t{1} << 62;
  static bool is_small(int64_t v) { return v > -kSmallStorage && v < kSmallStorage; }
  // A need that is small and non-negative: placing it only lowers free
  // storage, towards 0, so free storage stays small.
  static bool small_need(const Storage& s) { return s.hbm >= 0 && s.ddr >= 0 && is_small(s.hbm) && is_small(s.ddr); }

  SortBy sort_by_;
  bool balance_modules_;
  bool detailed_errors_ = true;

  // Per search space (reset when the space changes).
  const SearchSpace* space_ = nullptr;
  std::vector<std::vector<StorageRun>> runs_;  // by option index; empty = not built
  std::vector<int> param_counts_;              // by module: -(tables in the module)
  std::vector<char> is_uniform_;               // by option index; compact, read per proposal
  std::vector<HotOption> hot_;                 // by option index
  // Table-row-wise shard storages of options without head_tail, contiguous
  // so the fit check and update vectorize: option o's shards at
  // need_*_[row_wise_need_[o] ...] (-1 = not built yet).
  std::vector<int> row_wise_need_;
  std::vector<int64_t> need_hbm_;
  std::vector<int64_t> need_ddr_;
  bool small_needs_ = true;  // every table-row-wise need lies in [0, 2^62)
  bool small_frees_ = true;  // every free storage now lies in (-2^62, 2^62)

  // Per topology shape.
  int world_size_ = 0;
  int local_world_size_ = 1;
  int num_hosts_ = 0;

  // Device state of the current partition.
  std::vector<int64_t> free_hbm_;
  std::vector<int64_t> free_ddr_;
  DevicePerfs perf_;
  std::vector<double> key_total_;  // perf_.total(r), cached
  std::vector<int> local_rank_;    // r mod Lw, precomputed
  // Devices in groups of Lw consecutive ranks (the hosts, then any partial
  // one); a leaf holds its group's smallest device key, so the root is the
  // device with the smallest key.
  int num_groups_ = 0;
  MinKeyTree device_tree_;
  std::vector<char> group_dirty_;
  std::vector<int> dirty_groups_;

  // Host state: totals (valid for hosts not marked dirty), free storage, and
  // a tree over (total, host).
  std::vector<double> host_total_;
  std::vector<Storage> host_free_;
  std::vector<char> host_dirty_;
  std::vector<int> dirty_hosts_;
  MinKeyTree host_tree_;
  std::vector<int> excluded_hosts_;

  // Per-rank storage used by the uniform options of `uniform_proposal_`,
  // updated by difference when the next proposal changes a few tables
  // (integer sums, so the update is exact).
  Proposal uniform_proposal_;
  std::vector<int64_t> uniform_hbm_;
  std::vector<int64_t> uniform_ddr_;
  int num_uniform_ = 0;  // uniform options in uniform_proposal_
  std::vector<int> iota_;  // 0, 1, 2, ...: the ranks of a uniform option

  // Sort order of the previous proposal's non-uniform options.
  Proposal previous_;
  std::vector<int> order_;
  std::vector<int> changed_;
  const Proposal* current_ = nullptr;
  std::vector<char> is_changed_;

  // Scratch for the within-host device strategy.
  std::vector<HeapEntry> local_heap_;
  std::vector<HeapEntry> popped_;
  std::vector<Storage> local_free_;
  std::vector<Perf> local_perf_;
};

}  // namespace shardlab::planner
