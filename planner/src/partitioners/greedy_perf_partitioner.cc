#include "greedy_perf_partitioner.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "../planner_messages.h"
#include "../proposal_diff.h"
#include "shardlab/planner/py_format.h"

namespace shardlab::planner {
namespace {

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
    build_hot_options(space);
    param_counts_.assign(space.modules.size(), 0);
    for (size_t m = 0; m < space.modules.size(); ++m) {
      param_counts_[m] = -static_cast<int>(space.modules[m].tables.size());
    }
    previous_.clear();
    uniform_proposal_.clear();
    row_wise_need_.assign(space.options.size(), -1);
    need_hbm_.clear();
    need_ddr_.clear();
  }
  world_size_ = topology.world_size;
  local_world_size_ = topology.local_world_size;
  num_hosts_ = world_size_ / local_world_size_;
  // Device state (free storage, perf) is set by the uniform phase, and only
  // for proposals that get past it: most do not.
  free_hbm_.resize(world_size_);
  free_ddr_.resize(world_size_);
}

void GreedyPerfPartitioner::build_hot_options(const SearchSpace& space) {
  hot_.assign(space.options.size(), HotOption{});
  small_needs_ = true;
  for (size_t i = 0; i < space.options.size(); ++i) {
    const ShardingOption& o = space.options[i];
    HotOption& h = hot_[i];
    h.shard_perf = o.shard_perf;
    h.total_storage = o.total_storage;
    h.num_shards = o.num_shards();
    h.by_host = o.partition_by == PartitionBy::kHost;
    h.row_wise = o.sharding_type == ShardingType::kTableRowWise;
    if (h.by_host && h.row_wise && h.num_shards > 0) {
      h.head = o.shards.front().storage;
      h.tail = o.shards.back().storage;
      h.head_tail = true;
      for (int j = 0; j + 1 < h.num_shards; ++j) h.head_tail &= o.shards[j].storage == h.head;
      small_needs_ &= small_need(h.head) && small_need(h.tail);
    }
  }
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
    num_uniform_ += static_cast<int>(sign);
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
    num_uniform_ = 0;
    for (int idx : proposal) apply(idx, +1);
    uniform_proposal_ = proposal;
    return;
  }
  for_each_difference(uniform_proposal_.data(), proposal.data(), proposal.size(), [&](size_t p) {
    apply(uniform_proposal_[p], -1);
    apply(proposal[p], +1);
    uniform_proposal_[p] = proposal[p];
  });
}

// Uniform options put shard i on rank i. Every rank receives one shard of
// each, so all ranks end the phase with the same perf, summed in the same
// order, and each rank's free storage only shrinks: checking the final free
// storage is equivalent to checking every shard as it is placed.
Status GreedyPerfPartitioner::place_uniform_options(const Proposal& proposal, const Topology& topology) {
  update_uniform_usage(proposal);
  const Device* devices = topology.devices.data();
  if (num_uniform_ > 0) {
    bool fits = true;
    for (int r = 0; r < world_size_; ++r) {
      fits &= (uniform_hbm_[r] <= devices[r].storage.hbm) & (uniform_ddr_[r] <= devices[r].storage.ddr);
    }
    if (!fits) return Status::planner(PlannerErrorType::kPartition, "");  // message filled by the caller
  }
  for (int r = 0; r < world_size_; ++r) {
    free_hbm_[r] = devices[r].storage.hbm - uniform_hbm_[r];
    free_ddr_[r] = devices[r].storage.ddr - uniform_ddr_[r];
  }
  // The perf sum (proposal order) is only needed by proposals that fit.
  Perf uniform_perf;
  if (num_uniform_ > 0) {
    for (int idx : proposal) {
      if (is_uniform_[idx]) uniform_perf += space_->options[idx].shard_perf;
    }
  }
  perf_.assign(world_size_, uniform_perf);
  return Status::ok();
}

void GreedyPerfPartitioner::fill_uniform_ranks(const Proposal& proposal, PartitionedPlan* out) {
  for (size_t i = 0; i < proposal.size(); ++i) {
    if (!is_uniform_[proposal[i]]) continue;
    const int n = out->first_shard[i + 1] - out->first_shard[i];
    // Ranks 0..n-1, copied: a store loop of an increasing index does not
    // vectorize, memcpy does.
    if (static_cast<int>(iota_.size()) < n) {
      const int from = static_cast<int>(iota_.size());
      iota_.resize(n);
      for (int j = from; j < n; ++j) iota_[j] = j;
    }
    std::memcpy(out->ranks.data() + out->first_shard[i], iota_.data(), n * sizeof(int));
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
    for_each_difference(previous_.data(), proposal.data(), proposal.size(),
                        [&](size_t p) { changed_.push_back(static_cast<int>(p)); });
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

std::optional<double> GreedyPerfPartitioner::max_device_perf() const {
  double largest = 0.0;
  for (int r = 0; r < perf_.size(); ++r) largest = std::max(largest, perf_.total(r));
  return largest;
}

Status GreedyPerfPartitioner::partition(const SearchSpace& space, const Proposal& proposal, const Topology& topology,
                                        PartitionedPlan* out) {
  reset(space, topology);

  // 1. Uniform options, in proposal order.
  if (Status st = place_uniform_options(proposal, topology); !st) {
    return detailed_errors_ ? uniform_failure(proposal, topology) : st;
  }

  // Every shard gets a rank below or the partition fails, so the rank array
  // needs no initial fill.
  layout_partitioned_plan(space, proposal, out);
  fill_uniform_ranks(proposal, out);

  // 2. The rest, one group per option, largest first.
  order_non_uniform(proposal);
  if (order_.empty()) return Status::ok();
  start_placement();

  // The options come in storage order, scattered over hot_: fetch a few
  // ahead so their cache lines arrive while earlier ones are placed.
  constexpr size_t kAhead = 4;
  const size_t count = order_.size();
  for (size_t k = 0; k < count; ++k) {
    if (k + kAhead < count) {
      const char* next = reinterpret_cast<const char*>(&hot_[proposal[order_[k + kAhead]]]);
      __builtin_prefetch(next);
      __builtin_prefetch(next + 64);
    }
    const int i = order_[k];
    const int o = proposal[i];
    const HotOption& h = hot_[o];
    const int first = out->first_shard[i];
    if (h.by_host) {
      if (Status st = place_on_host(o, h, first, out); !st) return st;
      continue;
    }
    if (const int failed = place_on_all_devices(o, h, first, out); failed >= 0) {
      if (!detailed_errors_) return partition_error("");
      const ShardingOption& option = space.options[o];
      Storage largest = free_storage(0);
      for (int r = 1; r < world_size_; ++r) largest = std::max(largest, free_storage(r));
      return partition_error("Device partition failed. Couldn't find a rank for shard " +
                             shard_repr(option, option.shards[failed]) + " of table " + option.name +
                             ", largest device storage: " + storage_repr(largest));
    }
  }
  return Status::ok();
}

}  // namespace shardlab::planner
