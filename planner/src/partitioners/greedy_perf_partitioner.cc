#include "greedy_perf_partitioner.h"

#include <algorithm>
#include <limits>
#include <string>

#include "../planner_messages.h"
#include "shardlab/planner/py_format.h"

namespace shardlab::planner {
namespace {

// Min-heap order on (perf total, rank mod Lw, rank): a strict total order, so
// "first fitting device in key order" is well defined; the rank mod Lw term
// spreads equally loaded shards across hosts.
struct HeapGreater {
  template <typename E>
  bool operator()(const E& a, const E& b) const {
    if (a.total != b.total) return a.total > b.total;
    if (a.local_rank != b.local_rank) return a.local_rank > b.local_rank;
    return a.rank > b.rank;
  }
};

Status partition_error(std::string message) {
  return Status::planner(PlannerErrorType::kPartition, std::move(message));
}

// Above this many changed tables a full sort is cheaper than repairing.
constexpr size_t kMaxIncrementalChanges = 16;

}  // namespace

void GreedyPerfPartitioner::reset(const SearchSpace& space, const Topology& topology) {
  if (space_ != &space || runs_.size() != space.options.size()) {
    space_ = &space;
    runs_.assign(space.options.size(), {});
    is_uniform_.resize(space.options.size());
    for (size_t i = 0; i < space.options.size(); ++i) {
      is_uniform_[i] = space.options[i].partition_by == PartitionBy::kUniform;
    }
    param_counts_.assign(space.modules.size(), 0);
    for (size_t m = 0; m < space.modules.size(); ++m) {
      param_counts_[m] = -static_cast<int>(space.modules[m].tables.size());
    }
    previous_.clear();
  }
  world_size_ = topology.world_size;
  local_world_size_ = topology.local_world_size;
  num_hosts_ = world_size_ / local_world_size_;
  free_hbm_.resize(world_size_);
  free_ddr_.resize(world_size_);
  for (int r = 0; r < world_size_; ++r) {
    free_hbm_[r] = topology.devices[r].storage.hbm;
    free_ddr_[r] = topology.devices[r].storage.ddr;
  }
  perf_.assign(world_size_, Perf{});
}

const std::vector<GreedyPerfPartitioner::StorageRun>& GreedyPerfPartitioner::uniform_runs(int option_index) {
  std::vector<StorageRun>& runs = runs_[option_index];
  if (runs.empty()) {
    const auto& shards = space_->options[option_index].shards;
    for (int i = 0; i < static_cast<int>(shards.size()); ++i) {
      if (!runs.empty() && runs.back().storage == shards[i].storage) {
        runs.back().end = i + 1;
      } else {
        runs.push_back(StorageRun{i, i + 1, shards[i].storage});
      }
    }
  }
  return runs;
}

void GreedyPerfPartitioner::update_uniform_usage(const Proposal& proposal) {
  auto apply = [&](int option_index, int64_t sign) {
    if (!is_uniform_[option_index]) return;
    for (const StorageRun& run : uniform_runs(option_index)) {
      const int64_t hbm = sign * run.storage.hbm;
      const int64_t ddr = sign * run.storage.ddr;
      for (int r = run.begin; r < run.end; ++r) {
        uniform_hbm_[r] += hbm;
        uniform_ddr_[r] += ddr;
      }
    }
  };
  const bool same_shape = uniform_proposal_.size() == proposal.size() &&
                          uniform_hbm_.size() == static_cast<size_t>(world_size_);
  if (!same_shape) {
    uniform_hbm_.assign(world_size_, 0);
    uniform_ddr_.assign(world_size_, 0);
    for (int idx : proposal) apply(idx, +1);
  } else {
    for (size_t p = 0; p < proposal.size(); ++p) {
      if (uniform_proposal_[p] == proposal[p]) continue;
      apply(uniform_proposal_[p], -1);
      apply(proposal[p], +1);
    }
  }
  uniform_proposal_ = proposal;
}

// Uniform options put shard i on rank i. Every rank receives one shard of
// each, so all ranks end the phase with the same perf, summed in the same
// order, and each rank's free storage only shrinks: checking the final free
// storage is equivalent to checking every shard as it is placed.
Status GreedyPerfPartitioner::place_uniform_options(const Proposal& proposal) {
  update_uniform_usage(proposal);
  Perf uniform_perf;
  bool any = false;
  for (int idx : proposal) {
    if (!is_uniform_[idx]) continue;
    any = true;
    uniform_perf += space_->options[idx].shard_perf;
  }
  if (!any) return Status::ok();
  bool fits = true;
  for (int r = 0; r < world_size_; ++r) {
    free_hbm_[r] -= uniform_hbm_[r];
    free_ddr_[r] -= uniform_ddr_[r];
    fits &= (free_hbm_[r] >= 0) & (free_ddr_[r] >= 0);
  }
  if (!fits) return Status::planner(PlannerErrorType::kPartition, "");  // message filled by the caller
  std::fill(perf_.begin(), perf_.end(), uniform_perf);
  return Status::ok();
}

void GreedyPerfPartitioner::fill_uniform_ranks(const Proposal& proposal, PartitionedPlan* out) {
  for (size_t i = 0; i < proposal.size(); ++i) {
    if (!is_uniform_[proposal[i]]) continue;
    const ShardingOption& o = space_->options[proposal[i]];
    int* ranks = out->ranks.data() + out->first_shard[i];
    for (int j = 0; j < o.num_shards(); ++j) ranks[j] = j;
  }
}

// Replays the uniform phase shard by shard to name the first shard that did
// not fit, with the device's free storage at that moment (TorchRec's message).
Status GreedyPerfPartitioner::uniform_failure(const Proposal& proposal, const Topology& topology) {
  std::vector<Storage> free(world_size_);
  for (int r = 0; r < world_size_; ++r) free[r] = topology.devices[r].storage;
  for (int idx : proposal) {
    const ShardingOption& o = space_->options[idx];
    if (o.partition_by != PartitionBy::kUniform) continue;
    for (int i = 0; i < o.num_shards(); ++i) {
      const Storage& s = o.shards[i].storage;
      if (!s.fits_in(free[i])) {
        return partition_error("Shard of size " + storage_repr(s) +
                               " bytes does not fit on any rank. Device memory cap: " + storage_repr(free[i]) + ".");
      }
      free[i] -= s;
    }
  }
  return partition_error("uniform placement failed");
}

bool GreedyPerfPartitioner::before(int a, int b) const {
  const ShardingOption& oa = space_->options[(*current_)[a]];
  const ShardingOption& ob = space_->options[(*current_)[b]];
  if (balance_modules_) {
    const int pa = param_counts_[oa.module];
    const int pb = param_counts_[ob.module];
    if (pa != pb) return pa > pb;
  }
  if (sort_by_ == SortBy::kPerf) {
    if (oa.total_perf != ob.total_perf) return oa.total_perf > ob.total_perf;
  } else if (oa.total_storage != ob.total_storage) {
    return oa.total_storage > ob.total_storage;
  }
  return a < b;  // stable: proposal order among equal keys
}

void GreedyPerfPartitioner::order_non_uniform(const Proposal& proposal) {
  current_ = &proposal;
  auto is_placed_later = [&](int p) { return !is_uniform_[proposal[p]]; };
  const auto cmp = [this](int a, int b) { return before(a, b); };
  bool incremental = !previous_.empty() && previous_.size() == proposal.size();
  if (incremental) {
    changed_.clear();
    for (size_t p = 0; p < proposal.size() && changed_.size() <= kMaxIncrementalChanges; ++p) {
      if (previous_[p] != proposal[p]) changed_.push_back(static_cast<int>(p));
    }
    incremental = changed_.size() <= kMaxIncrementalChanges;
  }
  if (incremental) {
    is_changed_.assign(proposal.size(), 0);
    for (int p : changed_) is_changed_[p] = 1;
    order_.erase(std::remove_if(order_.begin(), order_.end(), [&](int p) { return is_changed_[p] != 0; }),
                 order_.end());
    for (int p : changed_) {
      if (is_placed_later(p)) order_.insert(std::lower_bound(order_.begin(), order_.end(), p, cmp), p);
    }
  } else {
    order_.clear();
    for (int p = 0; p < static_cast<int>(proposal.size()); ++p) {
      if (is_placed_later(p)) order_.push_back(p);
    }
    std::sort(order_.begin(), order_.end(), cmp);
  }
  previous_ = proposal;
}

bool GreedyPerfPartitioner::key_less(int a, int b) const {
  if (key_total_[a] != key_total_[b]) return key_total_[a] < key_total_[b];
  if (local_rank_[a] != local_rank_[b]) return local_rank_[a] < local_rank_[b];
  return a < b;
}

void GreedyPerfPartitioner::build_tree() {
  // Leaves past the last device hold the sentinel index world_size_, whose
  // key is +infinity.
  key_total_.resize(world_size_ + 1);
  local_rank_.resize(world_size_ + 1);
  for (int r = 0; r < world_size_; ++r) {
    key_total_[r] = perf_[r].total();
    local_rank_[r] = r % local_world_size_;
  }
  key_total_[world_size_] = std::numeric_limits<double>::infinity();
  local_rank_[world_size_] = 0;
  tree_size_ = 1;
  while (tree_size_ < world_size_) tree_size_ *= 2;
  tree_.assign(2 * static_cast<size_t>(tree_size_), world_size_);
  for (int r = 0; r < world_size_; ++r) tree_[tree_size_ + r] = r;
  for (int i = tree_size_ - 1; i >= 1; --i) {
    tree_[i] = key_less(tree_[2 * i], tree_[2 * i + 1]) ? tree_[2 * i] : tree_[2 * i + 1];
  }
  tree_dirty_.clear();
}

void GreedyPerfPartitioner::sync_tree() {
  // tree_dirty_ holds leaf indices; walk up one level at a time so a node
  // shared by several changed devices is recomputed once. Past a quarter of
  // the leaves, recomputing every internal node is cheaper.
  if (tree_dirty_.size() > static_cast<size_t>(tree_size_) / 4) {
    for (int i = tree_size_ - 1; i >= 1; --i) {
      tree_[i] = key_less(tree_[2 * i], tree_[2 * i + 1]) ? tree_[2 * i] : tree_[2 * i + 1];
    }
    tree_dirty_.clear();
    return;
  }
  while (!tree_dirty_.empty()) {
    for (int& node : tree_dirty_) node /= 2;
    std::sort(tree_dirty_.begin(), tree_dirty_.end());
    tree_dirty_.erase(std::unique(tree_dirty_.begin(), tree_dirty_.end()), tree_dirty_.end());
    if (tree_dirty_.front() == 0) {
      tree_dirty_.clear();
      break;
    }
    for (int i : tree_dirty_) {
      tree_[i] = key_less(tree_[2 * i], tree_[2 * i + 1]) ? tree_[2 * i] : tree_[2 * i + 1];
    }
    if (tree_dirty_.size() == 1 && tree_dirty_.front() == 1) {
      tree_dirty_.clear();
    }
  }
}

void GreedyPerfPartitioner::commit_device(int rank, const Storage& storage, const Perf& perf) {
  free_hbm_[rank] -= storage.hbm;
  free_ddr_[rank] -= storage.ddr;
  perf_[rank] += perf;
  key_total_[rank] = perf_[rank].total();
  tree_dirty_.push_back(tree_size_ + rank);
  const int host = rank / local_world_size_;
  if (host < num_hosts_) {  // trailing ranks of a partial host belong to none
    host_dirty_[host] = 1;
    host_free_[host] -= storage;
  }
}

int GreedyPerfPartitioner::place_on_all_devices(const ShardingOption& option, int first_shard, PartitionedPlan* out) {
  for (int j = 0; j < option.num_shards(); ++j) {
    const Storage& need = option.shards[j].storage;
    sync_tree();
    int chosen = tree_[1];
    if (!(need.hbm <= free_hbm_[chosen] && need.ddr <= free_ddr_[chosen])) {
      chosen = world_size_;
      for (int r = 0; r < world_size_; ++r) {
        if (need.hbm <= free_hbm_[r] && need.ddr <= free_ddr_[r] && key_less(r, chosen)) chosen = r;
      }
      if (chosen == world_size_) return j;
    }
    commit_device(chosen, need, option.shard_perf);
    out->ranks[first_shard + j] = chosen;
  }
  return -1;
}

void GreedyPerfPartitioner::refresh_host_order() {
  const int lw = local_world_size_;
  for (int h = 0; h < num_hosts_; ++h) {
    if (!host_dirty_[h]) continue;
    double total = 0.0;
    for (int r = h * lw; r < (h + 1) * lw; ++r) total += key_total_[r];
    host_total_[h] = total;
    host_dirty_[h] = 0;
  }
  // Insertion sort: the order changes little between options. Ties keep
  // host index order (TorchRec's stable sort of hosts in index order).
  for (size_t i = 1; i < host_order_.size(); ++i) {
    const int h = host_order_[i];
    size_t j = i;
    while (j > 0) {
      const int g = host_order_[j - 1];
      if (host_total_[g] < host_total_[h] || (host_total_[g] == host_total_[h] && g < h)) break;
      host_order_[j] = g;
      --j;
    }
    host_order_[j] = h;
  }
}

// Device strategy restricted to host `host`, on copies; commits only when
// every shard found a device.
bool GreedyPerfPartitioner::place_within_host(const ShardingOption& option, int host, int first_shard,
                                              PartitionedPlan* out) {
  const int lw = local_world_size_;
  const int base = host * lw;
  local_free_.resize(lw);
  local_perf_.resize(lw);
  local_heap_.clear();
  for (int i = 0; i < lw; ++i) {
    local_free_[i] = free_storage(base + i);
    local_perf_[i] = perf_[base + i];
    local_heap_.push_back(HeapEntry{local_perf_[i].total(), (base + i) % lw, i});
  }
  std::make_heap(local_heap_.begin(), local_heap_.end(), HeapGreater{});
  for (int j = 0; j < option.num_shards(); ++j) {
    const Storage& need = option.shards[j].storage;
    popped_.clear();
    int chosen = -1;
    while (!local_heap_.empty()) {
      std::pop_heap(local_heap_.begin(), local_heap_.end(), HeapGreater{});
      const HeapEntry e = local_heap_.back();
      local_heap_.pop_back();
      if (need.fits_in(local_free_[e.rank])) {
        chosen = e.rank;
        break;
      }
      popped_.push_back(e);
    }
    for (const HeapEntry& e : popped_) {
      local_heap_.push_back(e);
      std::push_heap(local_heap_.begin(), local_heap_.end(), HeapGreater{});
    }
    if (chosen < 0) return false;
    local_free_[chosen] -= need;
    local_perf_[chosen] += option.shard_perf;
    local_heap_.push_back(HeapEntry{local_perf_[chosen].total(), (base + chosen) % lw, chosen});
    std::push_heap(local_heap_.begin(), local_heap_.end(), HeapGreater{});
    out->ranks[first_shard + j] = base + chosen;
  }
  for (int j = 0; j < option.num_shards(); ++j) {
    commit_device(out->ranks[first_shard + j], option.shards[j].storage, option.shard_perf);
  }
  return true;
}

Status GreedyPerfPartitioner::place_on_host(const ShardingOption& option, int first_shard, int param_count,
                                            PartitionedPlan* out) {
  refresh_host_order();
  const int lw = local_world_size_;
  for (int h : host_order_) {
    if (!option.total_storage.fits_in(host_free_[h])) continue;
    if (option.sharding_type == ShardingType::kTableRowWise) {
      bool fits = true;
      for (int i = 0; i < option.num_shards() && fits; ++i) {
        fits = option.shards[i].storage.fits_in(free_storage(h * lw + i));
      }
      if (!fits) continue;
      // Shard i on the host's i-th device; the host's bookkeeping is updated
      // once (integer sums: the option total equals the shards' sum).
      for (int i = 0; i < option.num_shards(); ++i) {
        const int rank = h * lw + i;
        free_hbm_[rank] -= option.shards[i].storage.hbm;
        free_ddr_[rank] -= option.shards[i].storage.ddr;
        perf_[rank] += option.shard_perf;
        key_total_[rank] = perf_[rank].total();
        tree_dirty_.push_back(tree_size_ + rank);
        out->ranks[first_shard + i] = rank;
      }
      host_dirty_[h] = 1;
      host_free_[h] -= option.total_storage;
      return Status::ok();
    }
    if (place_within_host(option, h, first_shard, out)) return Status::ok();
  }
  if (!detailed_errors_) return partition_error("");
  return partition_error(
      "can't find a host for sharding option group ShardingOptionGroup(sharding_options=[<torchrec.distributed."
      "planner.types.ShardingOption object at 0x?>], storage_sum=" + storage_repr(option.total_storage) +
      ", perf_sum=" + py_float_repr(option.total_perf) + ", param_count=" + std::to_string(param_count) + ")");
}

Status GreedyPerfPartitioner::partition(const SearchSpace& space, const Proposal& proposal, const Topology& topology,
                                        PartitionedPlan* out) {
  reset(space, topology);

  // 1. Uniform options, in proposal order.
  if (Status st = place_uniform_options(proposal); !st) {
    return detailed_errors_ ? uniform_failure(proposal, topology) : st;
  }

  // Every shard gets a rank below or the partition fails, so the rank array
  // needs no initial fill.
  layout_partitioned_plan(space, proposal, out);
  fill_uniform_ranks(proposal, out);

  // 2. The rest, one group per option, largest first.
  order_non_uniform(proposal);
  if (order_.empty()) return Status::ok();
  build_tree();
  const int lw = local_world_size_;
  host_total_.assign(num_hosts_, 0.0);
  host_dirty_.assign(num_hosts_, 1);
  host_free_.assign(num_hosts_, Storage{});
  host_order_.resize(num_hosts_);
  for (int h = 0; h < num_hosts_; ++h) {
    host_order_[h] = h;
    for (int r = h * lw; r < (h + 1) * lw; ++r) host_free_[h] += free_storage(r);
  }

  for (int i : order_) {
    const ShardingOption& o = space.options[proposal[i]];
    const int first = out->first_shard[i];
    if (o.partition_by == PartitionBy::kHost) {
      if (Status st = place_on_host(o, first, param_counts_[o.module], out); !st) return st;
      continue;
    }
    if (const int failed = place_on_all_devices(o, first, out); failed >= 0) {
      if (!detailed_errors_) return partition_error("");
      Storage largest = free_storage(0);
      for (int r = 1; r < world_size_; ++r) largest = std::max(largest, free_storage(r));
      return partition_error("Device partition failed. Couldn't find a rank for shard " +
                             shard_repr(o, o.shards[failed]) + " of table " + o.name +
                             ", largest device storage: " + storage_repr(largest));
    }
  }
  return Status::ok();
}

}  // namespace shardlab::planner
