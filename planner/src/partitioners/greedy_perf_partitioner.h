// TorchRec's GreedyPerfPartitioner (docs/cost-model.md §8.1).
//
// Uniform options (RW, DP) go first, shard i on rank i. The rest are placed
// one option at a time, largest first (by storage or by perf, stable), each
// shard on the device with the smallest (perf total, rank mod Lw, rank) that
// has room; table-row-wise and table-column-wise options go to the least
// loaded host that can hold them.
//
// The planner calls partition() tens of thousands of times on proposals that
// differ in one table, and most proposals do not fit. So this implementation
// keeps state between calls:
//   * the per-rank storage of the uniform options, as runs of equal shards
//     per option, and the proposal's total storage, updated by difference
//     (integer sums, so exact): a proposal that does not fit usually stops
//     at one O(world size) check;
//   * the uniform options' perf sum, reused while they do not change;
//   * the devices' capacities as compact arrays with their sum, copied once
//     for a topology the caller promises not to change (set_fixed_topology),
//     and what they give with the uniform options (whether those fit, each
//     host's least free storage), reused while neither changes;
//   * what the placement reads of each option, packed per proposal position,
//     and the sorted order of the positions, repaired in place when few
//     tables changed (sorting by (key desc, position asc) is the same order
//     as TorchRec's stable descending sort);
// and within one call:
//   * tournament trees over devices (one leaf per host) and over hosts whose
//     roots are the device (host) with the smallest key; both keys are strict
//     total orders, so the root is exactly what TorchRec's heap (stable sort)
//     yields first. When the root cannot take the shard (option), the next
//     candidates come from a scan (devices) or from taking hosts out of the
//     tree one at a time (hosts), in key order;
//   * per-device perf as one array per component, so a host placement's
//     additions are vector instructions (same additions, same results);
//   * host totals, recomputed only for hosts whose devices changed (the
//     recomputation is exact: same additions, same order).
// Without `out` the plan is not built, only decided, and with an early stop
// set (set_early_stop) the placement ends as soon as the caller's answer is
// settled, often before it starts (greedy_perf_early_stop.cc). Results are
// identical to the straightforward algorithm; the golden tests check that.
//
// Not thread-safe: an instance keeps scratch state between calls.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "../saturating.h"
#include "device_perfs.h"
#include "min_key_tree.h"
#include "partitioner.h"
#include "row_wise_storage.h"

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
  // Uniform options go to ranks 0..n-1 in order (the class comment).
  std::optional<Placement> last_placement() const override;
  void set_early_stop(double perf) override { early_stop_ = perf; }
  void set_table_order(const std::vector<int>* order) override;
  void set_fixed_topology(const Topology* topology) override {
    fixed_topology_ = topology;
    cached_topology_ = nullptr;  // a new promise: copy the devices again
  }

 private:
  // What placing an option reads, packed into two cache lines. The
  // placement loop visits options in storage order, i.e. all over the search
  // space, and a ShardingOption spreads these fields over four lines among
  // its strings and vectors.
  struct alignas(64) HotOption {  // 128 bytes (static_assert below)
    Perf shard_perf;
    Storage total_storage;
    int num_shards = 0;
    bool by_host = false;         // partition_by == kHost
    bool multi_host = false;      // partition_by == kMultiHost (grid)
    bool row_wise = false;        // table-row-wise (else, by host: table-column-wise)
    bool distinct_ranks = false;  // column-wise key_value: one shard per rank
    // By host (table-row-wise, table-column-wise): shards 0..n-2 all have
    // storage `head`, shard n-1 `tail` (row or column blocks of equal size,
    // the last one smaller); false: read the shards.
    // Only for options without SSD (HbmDdr keeps this struct in two lines).
    bool head_tail = false;
    HbmDdr head;
    HbmDdr tail;
    int option = -1;  // index in the search space
    int module = -1;
    double total_perf = 0.0;
  };
  static_assert(sizeof(HotOption) == 128);
  // A run of consecutive shards with equal storage: ranks [begin, end).
  struct StorageRun {
    int begin;
    int end;
    Storage storage;
  };
  // greedy_perf_partitioner.cc: state, the uniform phase.
  void reset(const SearchSpace& space, const Topology& topology);
  void build_hot_options(const SearchSpace& space);
  void sync_topology(const Topology& topology);
  void advance(const Proposal& proposal);
  bool may_fit() const;
  bool uniform_options_fit();
  const std::vector<Storage>& host_least_free();
  void place_uniform_options();
  void layout(const Proposal& proposal, bool full, PartitionedPlan* out);
  Status uniform_failure(const Proposal& proposal, const Topology& topology);

  // greedy_perf_order.cc: position data and the placement order.
  void mark_pending(int p);
  void sync_position(const Proposal& proposal, int p);
  void sync_positions(const Proposal& proposal);
  bool before(int a, int b) const;  // sort order of proposal positions

  // greedy_perf_placement.cc: the device and host strategies.
  void start_placement();
  Status place_on_host(const HotOption& h, int first_shard, PartitionedPlan* out);
  // Grid options (TorchRec's _multi_hosts_partition): one column block per
  // host, hosts in order of their totals, reused in a circle when there
  // are fewer hosts than blocks, else the first window of consecutive
  // sorted hosts where every shard fits its rank. planner(kOther) when the
  // topology has no whole host: TorchRec raises IndexError there, which
  // ends planning.
  Status place_on_hosts(const HotOption& h, int first_shard, PartitionedPlan* out);
  bool try_hosts(const HotOption& h, const int* hosts, int blocks, int first_shard,
                 PartitionedPlan* out);
  bool try_host(const HotOption& h, int host, int first_shard, PartitionedPlan* out);
  bool try_row_wise(const HotOption& h, int host, int first_shard, PartitionedPlan* out);
  // TorchRec's "<what> for sharding option group ShardingOptionGroup(...)"
  // ("can't find a host", "can't find hosts"); an empty message without
  // detailed errors.
  Status host_failure(const ShardingOption& option,
                      std::string_view what = "can't find a host") const;
  // Returns the index of the first shard that fits nowhere, or -1.
  int place_on_all_devices(const HotOption& h, int first_shard, PartitionedPlan* out);
  int smallest_fitting_device(const Storage& need) const;  // -1 if none fits
  // A column-wise key_value option: each shard on a rank of its own
  // (TorchRec 2026-08's _column_wise_device_partition); -1 or the failed shard.
  Status place_on_distinct_devices(const HotOption& h, int first_shard, PartitionedPlan* out);
  bool place_within_host(const HotOption& h, int host, int first_shard, PartitionedPlan* out);
  // Storage of shard j of a by-host option.
  Storage host_shard_storage(const HotOption& h, int j) const {
    if (h.head_tail) return (j + 1 < h.num_shards ? h.head : h.tail).storage();
    return space_->options[h.option].shards.storage(j);
  }
  void commit_device(int rank, const Storage& storage, const Perf& perf);

  // greedy_perf_early_stop.cc: whether the outcome is settled before the
  // placement, or once `placed` has been placed; note_device(r) after
  // device r changed.
  bool settled_at_start();
  bool settled(const HotOption& placed);
  void note_device(int r) {
    max_total_ = std::max(max_total_, key_total_[r]);
    min_free_hbm_ = std::min(min_free_hbm_, free_hbm_[r]);
    min_free_ddr_ = std::min(min_free_ddr_, free_ddr_[r]);
  }
  // Whether `need` fits device r's free storage.
  bool fits_device(const Storage& need, int r) const {
    return need.hbm <= free_hbm_[r] && need.ddr <= free_ddr_[r] && need.ssd <= free_ssd_[r];
  }
  const Perf& uniform_perf();
  void mark_rank(int rank);  // the device changed: its device group and host group
  void refresh_hosts();
  void refresh_groups();
  TreeKey device_key(int rank) const {
    return TreeKey{key_total_[rank],
                   (static_cast<uint64_t>(local_rank_[rank]) << 32) | static_cast<uint32_t>(rank)};
  }
  Storage free_storage(int rank) const {
    return Storage{free_hbm_[rank], free_ddr_[rank], free_ssd_[rank]};
  }

  // Storage values in (-2^62, 2^62): the difference of two cannot overflow.
  static constexpr int64_t kSmallStorage = int64_t{1} << 62;
  static bool is_small(int64_t v) { return v > -kSmallStorage && v < kSmallStorage; }
  // A need that is small and non-negative: placing it only lowers free
  // storage, towards 0, so free storage stays small.
  static bool small_need(const Storage& s) {
    return s.hbm >= 0 && s.ddr >= 0 && is_small(s.hbm) && is_small(s.ddr);
  }

  SortBy sort_by_;
  bool balance_modules_;
  bool detailed_errors_ = true;

  // Per search space (reset when the space changes).
  const SearchSpace* space_ = nullptr;
  std::vector<std::vector<StorageRun>> runs_;  // by uniform option index, built with hot_
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
  // Some shard of the space needs SSD (a key_value option, TorchRec
  // 2026-08): the SSD arrays below are then kept and checked, and the early
  // stop (which counts HBM and DDR only) is off. Otherwise every SSD need is
  // 0 and every SSD check passes.
  bool ssd_in_play_ = false;
  // Every shard perf component and shard storage is non-negative, and no
  // shard's storage exceeds its option's total: device totals only grow and
  // free storage only shrinks, the premises of the early stop.
  bool early_stop_allowed_ = false;
  bool small_frees_ = true;  // every free storage now lies in (-2^62, 2^62)

  // Per topology shape.
  int world_size_ = 0;
  int local_world_size_ = 1;  // device groups (the heap key's rank mod Lw)
  // "Hosts" of the host strategy: TorchRec's host-level devices, groups of
  // Topology::intra_group_size ranks (a host, or a pod), W // size of them.
  int host_size_ = 1;
  int num_hosts_ = 0;

  // The devices' capacities (the topology's storages), copied once per call,
  // or once for the topology of set_fixed_topology (cached_topology_), and
  // their sum (unknown when it passes int64).
  const Topology* fixed_topology_ = nullptr;
  const Topology* cached_topology_ = nullptr;
  std::vector<int64_t> cap_hbm_;
  std::vector<int64_t> cap_ddr_;
  std::vector<int64_t> cap_ssd_;
  Storage capacity_;
  bool capacity_known_ = false;
  // What the capacities and the uniform options' per-rank storage give,
  // computed when first asked and kept while neither changes: whether the
  // uniform options fit, and each host's least free storage after them.
  bool uniform_fit_valid_ = false;
  bool uniform_fit_ = true;
  bool host_least_free_valid_ = false;
  std::vector<Storage> host_least_free_;

  // Device state of the current partition.
  std::vector<int64_t> free_hbm_;
  std::vector<int64_t> free_ddr_;
  std::vector<int64_t> free_ssd_;
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
  // A grid placement's attempt: the hosts in order, and what it takes from
  // each rank so far (a rank may take several blocks).
  std::vector<int> sorted_hosts_;
  std::vector<int> window_;
  std::vector<Storage> attempt_used_;

  // The proposal of the previous call, and the per-rank storage used by its
  // uniform options, updated by difference when the next proposal changes a
  // few tables (integer sums, so the update is exact).
  Proposal last_proposal_;
  std::vector<int64_t> uniform_hbm_;
  std::vector<int64_t> uniform_ddr_;
  std::vector<int64_t> uniform_ssd_;   // all 0 unless ssd_in_play_
  int num_uniform_ = 0;                // uniform options in last_proposal_
  int64_t num_shards_ = 0;             // shards of last_proposal_'s options
  internal::WideStorage total_need_;   // Σ total storage of last_proposal_'s options, exact
  internal::WideStorage placed_need_;  // the same over its non-uniform options
  Perf uniform_perf_;                  // their shard perfs summed in proposal order
  bool uniform_perf_valid_ = false;
  std::vector<int> iota_;  // 0, 1, 2, ...: the ranks of a uniform option

  // Per proposal position p, for the proposal of the last call that got past
  // the uniform phase: hot_[proposal[p]] (the options of one proposal fit in
  // the L2 cache where all of hot_ does not), its shard count, whether it
  // is uniform; and the positions of the non-uniform ones in placement
  // order. Positions changed since are pending.
  bool positions_valid_ = false;
  // Tie-break rank of each proposal position (set_table_order); empty:
  // the position itself.
  std::vector<int> tie_rank_;
  std::vector<HotOption> pos_hot_;
  std::vector<int> pos_shards_;
  std::vector<char> pos_uniform_;
  std::vector<double> pos_perf_;      // shard perf total × shard count
  std::vector<Storage> pos_storage_;  // total storage
  std::vector<int> order_;
  std::vector<int> changed_, merged_;  // sync_positions scratch
  std::vector<int> pending_;
  std::vector<char> is_pending_;

  PartitionedPlan scratch_;  // placement target when the caller wants no plan
  // The last successful partition(): its plan (out or scratch_) and
  // whether every shard was placed; last_placement()'s totals.
  const PartitionedPlan* placed_ = nullptr;
  mutable std::vector<double> placed_totals_;

  // Early stop (set_early_stop): the threshold (+inf: off); whether this
  // call may stop; a lower bound of the full placement's largest device
  // total; whether the call stopped, and the bound it stopped at; and while
  // it places: the largest device total, the least free storage of any
  // device (per component), and the total storage of the options not placed
  // yet.
  double early_stop_ = std::numeric_limits<double>::infinity();
  bool track_stop_ = false;
  double perf_bound_ = 0.0;
  bool stopped_ = false;
  double stopped_at_ = 0.0;
  double max_total_ = 0.0;
  int64_t min_free_hbm_ = 0;
  int64_t min_free_ddr_ = 0;
  internal::WideStorage unplaced_;

  // Scratch for the within-host device strategy: the host's devices' free
  // storage, perf and perf total.
  std::vector<Storage> local_free_;
  std::vector<char> used_ranks_;  // place_on_distinct_devices' ranks taken
  std::vector<Perf> local_perf_;
  std::vector<double> local_total_;
};

}  // namespace shardlab::planner
