#include "greedy_perf_partitioner.h"

#include <algorithm>
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

}  // namespace

Status GreedyPerfPartitioner::place_uniform(const ShardingOption& option, int first_shard, PartitionedPlan* out) {
  for (int i = 0; i < option.num_shards(); ++i) {
    const Shard& shard = option.shards[i];
    DeviceState& d = devices_[i];
    if (!shard.storage.fits_in(d.free)) {
      return partition_error("Shard of size " + storage_repr(shard.storage) +
                             " bytes does not fit on any rank. Device memory cap: " + storage_repr(d.free) + ".");
    }
    d.free -= shard.storage;
    d.perf += option.shard_perf;
    out->ranks[first_shard + i] = i;
  }
  return Status::ok();
}

// Places each shard of `option` on the fitting device (among `ranks`, indices
// into `devices`) with the smallest key. Sets *placed = false (and leaves the
// devices partly updated) when a shard fits nowhere.
Status GreedyPerfPartitioner::place_on_devices(const ShardingOption& option, int first_shard,
                                               const std::vector<int>& ranks, std::vector<DeviceState>& devices,
                                               PartitionedPlan* out, bool* placed) {
  heap_.clear();
  for (size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    heap_.push_back(HeapEntry{devices[i].perf.total(), r % local_world_size_, static_cast<int>(i)});
  }
  // `rank` in the heap holds the index into `devices`; the real rank orders
  // identically because `ranks` is ascending.
  std::make_heap(heap_.begin(), heap_.end(), HeapGreater{});
  for (int j = 0; j < option.num_shards(); ++j) {
    const Shard& shard = option.shards[j];
    popped_.clear();
    int chosen = -1;
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), HeapGreater{});
      const HeapEntry e = heap_.back();
      heap_.pop_back();
      if (shard.storage.fits_in(devices[e.rank].free)) {
        chosen = e.rank;
        break;
      }
      popped_.push_back(e);
    }
    for (const HeapEntry& e : popped_) {
      heap_.push_back(e);
      std::push_heap(heap_.begin(), heap_.end(), HeapGreater{});
    }
    if (chosen < 0) {
      *placed = false;
      return Status::ok();
    }
    DeviceState& d = devices[chosen];
    d.free -= shard.storage;
    d.perf += option.shard_perf;
    out->ranks[first_shard + j] = ranks[chosen];
    heap_.push_back(HeapEntry{d.perf.total(), ranks[chosen] % local_world_size_, chosen});
    std::push_heap(heap_.begin(), heap_.end(), HeapGreater{});
  }
  *placed = true;
  return Status::ok();
}

Status GreedyPerfPartitioner::place_on_host(const ShardingOption& option, int first_shard, int param_count,
                                            PartitionedPlan* out) {
  const int lw = local_world_size_;
  const int num_hosts = static_cast<int>(devices_.size()) / lw;
  host_order_.clear();
  for (int h = 0; h < num_hosts; ++h) {
    double total = 0.0;
    for (int r = h * lw; r < (h + 1) * lw; ++r) total += devices_[r].perf.total();
    host_order_.emplace_back(total, h);
  }
  std::stable_sort(host_order_.begin(), host_order_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  for (const auto& [unused_total, h] : host_order_) {
    Storage host_free;
    for (int r = h * lw; r < (h + 1) * lw; ++r) host_free += devices_[r].free;
    if (!option.total_storage.fits_in(host_free)) continue;
    host_devices_.assign(devices_.begin() + h * lw, devices_.begin() + (h + 1) * lw);
    bool placed = true;
    if (option.sharding_type == ShardingType::kTableRowWise) {
      for (int i = 0; i < option.num_shards() && placed; ++i) {
        const Shard& shard = option.shards[i];
        if (!shard.storage.fits_in(host_devices_[i].free)) {
          placed = false;
          break;
        }
        host_devices_[i].free -= shard.storage;
        host_devices_[i].perf += option.shard_perf;
        out->ranks[first_shard + i] = h * lw + i;
      }
    } else {
      host_ranks_.clear();
      for (int r = h * lw; r < (h + 1) * lw; ++r) host_ranks_.push_back(r);
      Status st = place_on_devices(option, first_shard, host_ranks_, host_devices_, out, &placed);
      if (!st) return st;
    }
    if (placed) {
      std::copy(host_devices_.begin(), host_devices_.end(), devices_.begin() + h * lw);
      return Status::ok();
    }
  }
  return partition_error(
      "can't find a host for sharding option group ShardingOptionGroup(sharding_options=[<torchrec.distributed."
      "planner.types.ShardingOption object at 0x?>], storage_sum=" + storage_repr(option.total_storage) +
      ", perf_sum=" + py_float_repr(option.total_perf) + ", param_count=" + std::to_string(param_count) + ")");
}

Status GreedyPerfPartitioner::partition(const SearchSpace& space, const Proposal& proposal, const Topology& topology,
                                        PartitionedPlan* out) {
  local_world_size_ = topology.local_world_size;
  devices_.resize(topology.devices.size());
  for (size_t r = 0; r < devices_.size(); ++r) devices_[r] = DeviceState{topology.devices[r].storage, Perf{}};
  init_partitioned_plan(space, proposal, out);

  // 1. Uniform options, in proposal order.
  const int n = static_cast<int>(proposal.size());
  order_.clear();
  for (int i = 0; i < n; ++i) {
    const ShardingOption& o = space.options[proposal[i]];
    if (o.partition_by == PartitionBy::kUniform) {
      if (Status st = place_uniform(o, out->first_shard[i], out); !st) return st;
    } else {
      order_.push_back(i);
    }
  }

  // 2. The rest, one group per option, largest first. balance_modules puts
  // options of modules with fewer tables first (param_count = -#options of
  // the module in the proposal).
  param_counts_.assign(space.modules.size(), 0);
  for (int i = 0; i < n; ++i) --param_counts_[space.options[proposal[i]].module];
  auto option_at = [&](int i) -> const ShardingOption& { return space.options[proposal[i]]; };
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    const ShardingOption& oa = option_at(a);
    const ShardingOption& ob = option_at(b);
    if (balance_modules_) {
      const int pa = param_counts_[oa.module];
      const int pb = param_counts_[ob.module];
      if (pa != pb) return pa > pb;
    }
    if (sort_by_ == SortBy::kPerf) return oa.total_perf > ob.total_perf;
    return oa.total_storage > ob.total_storage;
  });

  all_ranks_.resize(devices_.size());
  for (size_t r = 0; r < devices_.size(); ++r) all_ranks_[r] = static_cast<int>(r);
  for (int i : order_) {
    const ShardingOption& o = option_at(i);
    if (o.partition_by == PartitionBy::kHost) {
      if (Status st = place_on_host(o, out->first_shard[i], param_counts_[o.module], out); !st) return st;
      continue;
    }
    bool placed = false;
    if (Status st = place_on_devices(o, out->first_shard[i], all_ranks_, devices_, out, &placed); !st) return st;
    if (!placed) {
      // Name the first shard that fits nowhere.
      const Shard* failed = nullptr;
      for (int j = 0; j < o.num_shards(); ++j) {
        if (out->ranks[out->first_shard[i] + j] < 0) {
          failed = &o.shards[j];
          break;
        }
      }
      Storage largest = devices_.front().free;
      for (const DeviceState& d : devices_) largest = std::max(largest, d.free);
      return partition_error("Device partition failed. Couldn't find a rank for shard " +
                             shard_repr(o, failed ? *failed : o.shards.front()) + " of table " + o.name +
                             ", largest device storage: " + storage_repr(largest));
    }
  }
  return Status::ok();
}

}  // namespace shardlab::planner
