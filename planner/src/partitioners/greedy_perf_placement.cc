// The device and host strategies of the greedy perf partitioner
// (docs/cost-model.md §8.1), on the state set up by partition().
#include <algorithm>
#include <numeric>
#include <string>

#include "../planner_messages.h"
#include "greedy_perf_partitioner.h"
#include "py_format.h"
#include "row_wise_storage.h"
#include "shardlab/planner/memory_budget.h"

namespace shardlab::planner {

void GreedyPerfPartitioner::start_placement() {
  const int lw = local_world_size_;
  key_total_.resize(world_size_);
  local_rank_.resize(world_size_);
  for (int r = 0; r < world_size_; ++r) {
    key_total_[r] = perf_.total(r);
    local_rank_[r] = r % lw;
  }
  // Checked now, then kept up to date by commit_device(); table-row-wise
  // placements keep it (their needs are small and non-negative, and placed
  // only where they fit, so free storage stays between its value and 0).
  small_frees_ = true;
  for (int r = 0; r < world_size_; ++r)
    small_frees_ &= is_small(free_hbm_[r]) & is_small(free_ddr_[r]);
  if (track_stop_) {
    max_total_ = key_total_[0];
    min_free_hbm_ = free_hbm_[0];
    min_free_ddr_ = free_ddr_[0];
    for (int r = 1; r < world_size_; ++r) note_device(r);
    unplaced_ = placed_need_;
  }
  num_groups_ = (world_size_ + lw - 1) / lw;
  device_tree_.reset(num_groups_);
  group_dirty_.assign(num_groups_, 1);
  dirty_groups_.resize(num_groups_);
  for (int g = 0; g < num_groups_; ++g) dirty_groups_[g] = g;

  host_total_.assign(num_hosts_, 0.0);
  host_free_.assign(num_hosts_, Storage{});
  host_dirty_.assign(num_hosts_, 0);
  dirty_hosts_.clear();
  host_tree_.reset(num_hosts_);
  const int hs = host_size_;
  for (int h = 0; h < num_hosts_; ++h) {
    double total = 0.0;
    for (int r = h * hs; r < (h + 1) * hs; ++r) {
      total += key_total_[r];
      host_free_[h] += free_storage(r);
    }
    host_total_[h] = total;
    host_tree_.set(h, TreeKey{total, static_cast<uint64_t>(h)});
  }
}

// Marks the device group and the host of a changed device for a refresh.
void GreedyPerfPartitioner::mark_rank(int rank) {
  const int group = rank / local_world_size_;
  if (!group_dirty_[group]) {
    group_dirty_[group] = 1;
    dirty_groups_.push_back(group);
  }
  const int host = rank / host_size_;
  if (host < num_hosts_ && !host_dirty_[host]) {  // trailing ranks of a partial host belong to none
    host_dirty_[host] = 1;
    dirty_hosts_.push_back(host);
  }
}

void GreedyPerfPartitioner::commit_device(int rank, const Storage& storage, const Perf& perf) {
  free_hbm_[rank] -= storage.hbm;
  free_ddr_[rank] -= storage.ddr;
  free_ssd_[rank] -= storage.ssd;
  small_frees_ &= is_small(free_hbm_[rank]) & is_small(free_ddr_[rank]);
  perf_.add(rank, 1, perf, key_total_.data());
  const int host = rank / host_size_;
  if (host < num_hosts_) host_free_[host] -= storage;
  mark_rank(rank);
  if (track_stop_) note_device(rank);
}

// A group's leaf is its smallest device key; only changed groups are redone.
void GreedyPerfPartitioner::refresh_groups() {
  // Inside a group rank mod Lw grows with the rank, so the key order there
  // is (total, rank): the first device with the smallest total.
  const int lw = local_world_size_;
  const double* totals = key_total_.data();
  for (const int g : dirty_groups_) {
    const int end = std::min(world_size_, (g + 1) * lw);
    int best = g * lw;
    for (int r = best + 1; r < end; ++r) {
      if (totals[r] < totals[best]) best = r;
    }
    device_tree_.set(g, device_key(best));
    group_dirty_[g] = 0;
  }
  dirty_groups_.clear();
}

int GreedyPerfPartitioner::place_on_all_devices(const HotOption& h, int first_shard,
                                                PartitionedPlan* out) {
  for (int j = 0; j < h.num_shards; ++j) {
    // A single shard's storage is the option's total: no need to visit the
    // option's shards (another cache miss) for table-wise options.
    const Storage& need =
        h.num_shards == 1 ? h.total_storage : space_->options[h.option].shards.storage(j);
    refresh_groups();
    int chosen = device_tree_.min().item();
    if (!fits_device(need, chosen)) {
      chosen = smallest_fitting_device(need);
      if (chosen < 0) return j;
    }
    commit_device(chosen, need, h.shard_perf);
    out->ranks[first_shard + j] = chosen;
  }
  return -1;
}

// TorchRec 2026-08's _column_wise_device_partition: for each shard, the
// ranks the option has not used yet, by (total, rank mod Lw, rank), and the
// first of them with room.
Status GreedyPerfPartitioner::place_on_distinct_devices(const HotOption& h, int first_shard,
                                                        PartitionedPlan* out) {
  const ShardingOption& option = space_->options[h.option];
  const auto failure = [&](std::string message) {
    return Status::planner(PlannerErrorType::kPartition,
                           detailed_errors_ ? std::move(message) : std::string());
  };
  if (h.num_shards > world_size_) {
    return failure("COLUMN_WISE sharding requires num_shards (" + std::to_string(h.num_shards) +
                   ") <= num_devices (" + std::to_string(world_size_) + ")");
  }
  used_ranks_.assign(static_cast<size_t>(world_size_), 0);
  for (int j = 0; j < h.num_shards; ++j) {
    const Storage& need = option.shards.storage(static_cast<size_t>(j));
    int chosen = -1;
    for (int r = 0; r < world_size_; ++r) {
      if (used_ranks_[r] || !fits_device(need, r)) continue;
      if (chosen < 0 || device_key(r) < device_key(chosen)) chosen = r;
    }
    if (chosen < 0) {
      return failure("COLUMN_WISE partition failed. Couldn't find a suitable rank for shard " +
                     shard_repr(option, option.shards[static_cast<size_t>(j)]) + " of table " +
                     option.name + ". Storage required: " + storage_repr(need) +
                     ", available devices: " + std::to_string(world_size_ - j));
    }
    used_ranks_[chosen] = 1;
    commit_device(chosen, need, h.shard_perf);
    out->ranks[first_shard + j] = chosen;
  }
  return Status::ok();
}

// The least loaded device is full: the smallest key among the devices with
// room, by a scan. First the smallest total (branch-free), then the smallest
// (rank mod Lw, rank) among the devices with that total, usually one.
int GreedyPerfPartitioner::smallest_fitting_device(const Storage& need) const {
  const int64_t* free_hbm = free_hbm_.data();
  const int64_t* free_ddr = free_ddr_.data();
  const int64_t* free_ssd = free_ssd_.data();
  const double* totals = key_total_.data();
  double best = 0.0;
  int first = -1;  // the first fitting device: `best` starts at its total
  for (int r = 0; r < world_size_ && first < 0; ++r) {
    if (fits_device(need, r)) first = r;
  }
  if (first < 0) return -1;
  best = totals[first];
  for (int r = first + 1; r < world_size_; ++r) {
    const bool better = (need.hbm <= free_hbm[r]) & (need.ddr <= free_ddr[r]) &
                        (need.ssd <= free_ssd[r]) & (totals[r] < best);
    best = better ? totals[r] : best;
  }
  int chosen = -1;
  for (int r = first; r < world_size_; ++r) {
    if (totals[r] != best || !fits_device(need, r)) continue;
    if (chosen < 0 || local_rank_[r] < local_rank_[chosen])
      chosen = r;  // ranks ascend: ties keep the lower
  }
  return chosen;
}

// Host totals are Σ device totals in rank order from 0.0, as TorchRec sums
// them; only hosts whose devices changed since the last refresh are redone.
void GreedyPerfPartitioner::refresh_hosts() {
  const int hs = host_size_;
  for (const int h : dirty_hosts_) {
    double total = 0.0;
    for (int r = h * hs; r < (h + 1) * hs; ++r) total += key_total_[r];
    host_total_[h] = total;
    host_dirty_[h] = 0;
    host_tree_.update(h, TreeKey{total, static_cast<uint64_t>(h)});
  }
  dirty_hosts_.clear();
}

// Device strategy restricted to host `host`, on copies; commits only when
// every shard found a device. A host here is a group of intra_group_size
// ranks (a pod when there is one); TorchRec keys its heap (total, rank mod
// the group's size, rank), which inside the group is (total, index): each
// shard goes to the first device with the smallest total among those with
// room, found by a scan of the group's devices (the heap would
// pop the same device; its pops and pushes cost more than the scan). Shard
// storages come from `h` when they are head and tail: the option itself, far
// from the placement's other data, is then not read.
bool GreedyPerfPartitioner::place_within_host(const HotOption& h, int host, int first_shard,
                                              PartitionedPlan* out) {
  const int lw = host_size_;  // the host's devices, indexed by rank mod its size
  const int base = host * lw;
  if (h.num_shards == 1) {
    // One shard (the common case): nothing to undo if it fits nowhere, so no
    // copies; key_total_ holds each device's Perf::total().
    const Storage& need = h.total_storage;
    int chosen = -1;
    for (int r = base; r < base + lw; ++r) {
      if (fits_device(need, r) && (chosen < 0 || key_total_[r] < key_total_[chosen])) {
        chosen = r;
      }
    }
    if (chosen < 0) return false;
    out->ranks[first_shard] = chosen;
    commit_device(chosen, need, h.shard_perf);
    return true;
  }
  local_free_.resize(lw);
  local_perf_.resize(lw);
  local_total_.resize(lw);
  for (int i = 0; i < lw; ++i) {
    local_free_[i] = free_storage(base + i);
    local_perf_[i] = perf_.get(base + i);
    local_total_[i] = local_perf_[i].total();
  }
  for (int j = 0; j < h.num_shards; ++j) {
    const Storage& need = host_shard_storage(h, j);
    int chosen = -1;
    for (int i = 0; i < lw; ++i) {
      if (need.fits_in(local_free_[i]) && (chosen < 0 || local_total_[i] < local_total_[chosen]))
        chosen = i;
    }
    if (chosen < 0) return false;
    local_free_[chosen] -= need;
    local_perf_[chosen] += h.shard_perf;
    local_total_[chosen] = local_perf_[chosen].total();
    out->ranks[first_shard + j] = base + chosen;
  }
  for (int j = 0; j < h.num_shards; ++j) {
    commit_device(out->ranks[first_shard + j], host_shard_storage(h, j), h.shard_perf);
  }
  return true;
}

// Table-row-wise on one host: shard i on the host's i-th device. Commits
// and returns true when every shard fits.
bool GreedyPerfPartitioner::try_row_wise(const HotOption& h, int host, int first_shard,
                                         PartitionedPlan* out) {
  const int o = h.option;
  const int lw = host_size_;
  const int base = host * lw;
  const int n = h.num_shards;
  int64_t* free_hbm = free_hbm_.data() + base;
  int64_t* free_ddr = free_ddr_.data() + base;
  int* ranks = out->ranks.data() + first_shard;
  const bool small = small_frees_ && small_needs_;
  if (h.head_tail) {
    const bool fits = small ? head_tail_fits_small(h.head, h.tail, n, free_hbm, free_ddr)
                            : row_wise_fits(h.head, h.tail, n, free_hbm, free_ddr);
    if (!fits) return false;
    head_tail_take(h.head, h.tail, n, base, free_hbm, free_ddr, ranks);
  } else {
    if (row_wise_need_[o] < 0) {
      row_wise_need_[o] = static_cast<int>(need_hbm_.size());
      for (const ShardList::Run& r : space_->options[o].shards.runs()) {
        need_hbm_.insert(need_hbm_.end(), r.count, r.first.storage.hbm);
        need_ddr_.insert(need_ddr_.end(), r.count, r.first.storage.ddr);
        small_needs_ &= small_need(r.first.storage);
      }
    }
    const int64_t* need_hbm = need_hbm_.data() + row_wise_need_[o];
    const int64_t* need_ddr = need_ddr_.data() + row_wise_need_[o];
    const bool fits = small_frees_ && small_needs_
                          ? row_wise_fits_small(need_hbm, need_ddr, n, free_hbm, free_ddr)
                          : row_wise_fits(need_hbm, need_ddr, n, free_hbm, free_ddr);
    if (!fits) return false;
    if (ssd_in_play_) {  // key_value shards: SSD too (head_tail options have none)
      const ShardList& shards = space_->options[o].shards;
      for (int j = 0; j < n; ++j) {
        if (shards.storage(j).ssd > free_ssd_[base + j]) return false;
      }
      for (int j = 0; j < n; ++j) free_ssd_[base + j] -= shards.storage(j).ssd;
    }
    row_wise_take(need_hbm, need_ddr, n, base, free_hbm, free_ddr, ranks);
  }
  perf_.add(base, n, h.shard_perf, key_total_.data());
  if (track_stop_) {
    for (int r = base; r < base + n; ++r) note_device(r);
  }
  // The host's bookkeeping is updated at once (integer sums: the option
  // total equals the shards' sum; the host total is redone as in
  // refresh_hosts()).
  host_free_[host] -= h.total_storage;
  double total = 0.0;
  for (int r = base; r < base + lw; ++r) total += key_total_[r];
  host_total_[host] = total;
  host_tree_.update(host, TreeKey{total, static_cast<uint64_t>(host)});
  for (int g = base / local_world_size_; g * local_world_size_ < base + lw; ++g) {
    if (!group_dirty_[g]) {
      group_dirty_[g] = 1;
      dirty_groups_.push_back(g);
    }
  }
  return true;
}

// One host of the host strategy: commits and returns true when the option fits.
bool GreedyPerfPartitioner::try_host(const HotOption& h, int host, int first_shard,
                                     PartitionedPlan* out) {
  if (!h.total_storage.fits_in(host_free_[host])) return false;
  if (h.row_wise) return try_row_wise(h, host, first_shard, out);
  return place_within_host(h, host, first_shard, out);
}

// Hosts are tried in (total, host) order: the tree's root, then the root
// once the hosts tried so far are taken out, which is the next in order.
Status GreedyPerfPartitioner::place_on_host(const HotOption& h, int first_shard,
                                            PartitionedPlan* out) {
  refresh_hosts();
  const int first = host_tree_.min().item();
  if (first < 0) return host_failure(space_->options[h.option]);
  if (try_host(h, first, first_shard, out)) return Status::ok();
  // The least loaded host cannot take it: the next ones in order, by taking
  // each host tried out of the tree until one fits.
  bool placed = false;
  excluded_hosts_.assign(1, first);
  host_tree_.update(first, MinKeyTree::kEmpty);
  for (int host = host_tree_.min().item(); host >= 0; host = host_tree_.min().item()) {
    if (try_host(h, host, first_shard, out)) {
      placed = true;
      break;
    }
    host_tree_.update(host, MinKeyTree::kEmpty);
    excluded_hosts_.push_back(host);
  }
  for (const int host : excluded_hosts_) {
    host_tree_.update(host, TreeKey{host_total_[host], static_cast<uint64_t>(host)});
  }
  if (placed) return Status::ok();
  return host_failure(space_->options[h.option]);
}

Status GreedyPerfPartitioner::place_on_hosts(const HotOption& h, int first_shard,
                                             PartitionedPlan* out) {
  const ShardingOption& option = space_->options[h.option];
  if (num_hosts_ == 0) {
    return Status::planner(PlannerErrorType::kOther,
                           "IndexError: list index out of range (TorchRec's "
                           "_multi_hosts_partition: no whole group of " +
                               std::to_string(host_size_) + " ranks in a world of " +
                               std::to_string(world_size_) + " for " + option.name +
                               "'s grid shards)");
  }
  refresh_hosts();
  // Sorted by summed device perf, stably: (total, host).
  sorted_hosts_.resize(num_hosts_);
  std::iota(sorted_hosts_.begin(), sorted_hosts_.end(), 0);
  std::stable_sort(sorted_hosts_.begin(), sorted_hosts_.end(),
                   [&](int a, int b) { return host_total_[a] < host_total_[b]; });
  const int blocks = h.num_shards / host_size_;  // the enumerator's layout: exact
  if (blocks >= num_hosts_) {
    // Every host, in a circle: one attempt.
    window_.resize(blocks);
    for (int i = 0; i < blocks; ++i) window_[i] = sorted_hosts_[i % num_hosts_];
    if (try_hosts(h, window_.data(), blocks, first_shard, out)) return Status::ok();
  } else {
    for (int start = 0; start + blocks <= num_hosts_; ++start) {
      if (try_hosts(h, sorted_hosts_.data() + start, blocks, first_shard, out)) return Status::ok();
    }
  }
  return host_failure(option, "can't find hosts");
}

// One attempt of place_on_hosts: block i's shards on the ranks of
// hosts[i] in order (TorchRec's uniform partition over the hosts' devices);
// commits and returns true when every shard fits its rank.
bool GreedyPerfPartitioner::try_hosts(const HotOption& h, const int* hosts, int blocks,
                                      int first_shard, PartitionedPlan* out) {
  const ShardList& shards = space_->options[h.option].shards;
  // What the attempt takes from each rank so far; all zero between attempts
  // (only the attempt's ranks are written, and cleared again below).
  attempt_used_.resize(static_cast<size_t>(world_size_));
  const int hs = host_size_;
  const int n = blocks * hs;
  auto rank_of = [&](int k) { return hosts[k / hs] * hs + k % hs; };
  int fitted = 0;
  while (fitted < n) {
    const int rank = rank_of(fitted);
    const Storage& need = shards.storage(static_cast<size_t>(fitted));
    Storage& used = attempt_used_[static_cast<size_t>(rank)];
    if (!need.fits_in(free_storage(rank) - used)) break;
    used += need;
    ++fitted;
  }
  for (int k = 0; k < n; ++k) attempt_used_[static_cast<size_t>(rank_of(k))] = Storage{};
  if (fitted < n) return false;
  for (int k = 0; k < n; ++k) {
    commit_device(rank_of(k), shards.storage(static_cast<size_t>(k)), h.shard_perf);
    out->ranks[first_shard + k] = rank_of(k);
  }
  return true;
}

Status GreedyPerfPartitioner::host_failure(const ShardingOption& option,
                                           std::string_view what) const {
  if (!detailed_errors_) return Status::planner(PlannerErrorType::kPartition, "");
  // TorchRec's words, then what they leave out: the table, what it needs and
  // the most any group has left.
  int roomiest = -1;
  for (int h = 0; h < num_hosts_; ++h) {
    if (roomiest < 0 || host_free_[h].hbm > host_free_[roomiest].hbm) roomiest = h;
  }
  std::string detail = " [table " + option.name + " needs " +
                       memory_text(option.total_storage.hbm) + " of HBM and " +
                       memory_text(option.total_storage.ddr) + " of DDR";
  if (roomiest < 0) {
    detail += "; no group of " + std::to_string(host_size_) + " ranks fits in the world of " +
              std::to_string(world_size_) + "]";
  } else {
    detail += "; the group with the most free HBM, ranks " + std::to_string(roomiest * host_size_) +
              "-" + std::to_string((roomiest + 1) * host_size_ - 1) + ", has " +
              memory_text(host_free_[roomiest].hbm) + " of HBM and " +
              memory_text(host_free_[roomiest].ddr) + " of DDR free]";
  }
  return Status::planner(
      PlannerErrorType::kPartition,
      std::string(what) +
          " for sharding option group "
          "ShardingOptionGroup(sharding_options=[<torchrec.distributed."
          "planner.types.ShardingOption object at 0x?>], storage_sum=" +
          storage_repr(option.total_storage) + ", perf_sum=" + py_float_repr(option.total_perf) +
          ", param_count=" + std::to_string(param_counts_[option.module]) + ")" + detail);
}

}  // namespace shardlab::planner
