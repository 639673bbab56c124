// The greedy perf partitioner's state across calls, its uniform phase and
// partition() itself. The device and host strategies are in
// greedy_perf_placement.cc, the placement order in greedy_perf_order.cc.
#include "greedy_perf_partitioner.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "../planner_messages.h"
#include "../proposal_diff.h"
#include "py_format.h"

namespace shardlab::planner {
namespace {

Status partition_error(std::string message) {
  return Status::planner(PlannerErrorType::kPartition, std::move(message));
}

}  // namespace

void GreedyPerfPartitioner::reset(const SearchSpace& space, const Topology& topology) {
  if (space_ != &space || hot_.size() != space.options.size()) {
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
    last_proposal_.clear();  // nothing carries over to another space
    row_wise_need_.assign(space.options.size(), -1);
    need_hbm_.clear();
    need_ddr_.clear();
  }
  world_size_ = topology.world_size;
  local_world_size_ = topology.local_world_size;
  host_size_ = topology.intra_group_size;
  num_hosts_ = topology.num_groups();
  // Device state (free storage, perf) is set by the uniform phase, and only
  // for proposals that get past it: most do not.
  free_hbm_.resize(world_size_);
  free_ddr_.resize(world_size_);
  free_ssd_.resize(world_size_);
}

void GreedyPerfPartitioner::build_hot_options(const SearchSpace& space) {
  hot_.assign(space.options.size(), HotOption{});
  small_needs_ = true;
  early_stop_allowed_ = true;
  ssd_in_play_ = false;
  for (size_t i = 0; i < space.options.size(); ++i) {
    const ShardingOption& o = space.options[i];
    const Perf& p = o.shard_perf;
    early_stop_allowed_ &= p.fwd_compute >= 0 && p.fwd_comms >= 0 && p.bwd_compute >= 0 &&
                           p.bwd_comms >= 0 && p.prefetch_compute >= 0;
    // A grid option needs several hosts at once: the early stop's counting
    // argument (one safe host takes any option) does not cover it.
    early_stop_allowed_ &= o.partition_by != PartitionBy::kMultiHost;
    // One pass over the shards (a large space holds millions): the early
    // stop's premises, and a uniform option's runs of equal storage.
    std::vector<StorageRun>* runs = is_uniform_[i] ? &runs_[i] : nullptr;
    int j = 0;
    for (const ShardList::Run& r : o.shards.runs()) {
      const Storage& storage = r.first.storage;
      early_stop_allowed_ &=
          storage.hbm >= 0 && storage.ddr >= 0 && storage.fits_in(o.total_storage);
      ssd_in_play_ |= storage.ssd != 0;
      const int end = j + static_cast<int>(r.count);
      if (runs != nullptr) {
        if (!runs->empty() && runs->back().storage == storage) {
          runs->back().end = end;
        } else {
          runs->push_back(StorageRun{j, end, storage});
        }
      }
      j = end;
    }
    HotOption& h = hot_[i];
    h.shard_perf = o.shard_perf;
    h.total_storage = o.total_storage;
    h.num_shards = o.num_shards();
    h.by_host = o.partition_by == PartitionBy::kHost;
    h.multi_host = o.partition_by == PartitionBy::kMultiHost;
    h.row_wise = o.sharding_type == ShardingType::kTableRowWise;
    h.distinct_ranks = o.sharding_type == ShardingType::kColumnWise &&
                       o.compute_kernel == ComputeKernel::kKeyValue;
    h.option = static_cast<int>(i);
    h.module = o.module;
    h.total_perf = o.total_perf;
    if (h.by_host && h.num_shards > 0) {
      const Storage& head = o.shards.storage(0);
      const Storage& tail = o.shards.storage(o.shards.size() - 1);
      h.head = HbmDdr{head.hbm, head.ddr};
      h.tail = HbmDdr{tail.hbm, tail.ddr};
      // Every shard but the last stores as the first.
      h.head_tail = o.total_storage.ssd == 0;
      for (const ShardList::Run& r : o.shards.runs()) {
        const bool is_tail = &r == &o.shards.runs().back() && r.count == 1;
        h.head_tail &= is_tail || r.first.storage == head;
      }
      if (h.row_wise) small_needs_ &= small_need(head) && small_need(tail);
    }
  }
  // The early stop's counting argument covers HBM and DDR only.
  early_stop_allowed_ &= !ssd_in_play_;
}

// Moves from last_proposal_ to `proposal`: patches the uniform options'
// per-rank storage for the tables that changed, and records those tables as
// pending for the position data and the order (greedy_perf_order.cc).
void GreedyPerfPartitioner::advance(const Proposal& proposal) {
  auto apply = [&](int option_index, int64_t sign) {
    const Storage& total = hot_[option_index].total_storage;
    total_need_.add(total, static_cast<int>(sign));
    num_shards_ += sign * hot_[option_index].num_shards;
    if (!is_uniform_[option_index]) {
      placed_need_.add(total, static_cast<int>(sign));
      return;
    }
    num_uniform_ += static_cast<int>(sign);
    uniform_perf_valid_ = false;  // the uniform options changed
    uniform_fit_valid_ = false;
    host_least_free_valid_ = false;
    for (const StorageRun& run : runs_[option_index]) {
      const int64_t hbm = sign * run.storage.hbm;
      const int64_t ddr = sign * run.storage.ddr;
      for (int r = run.begin; r < run.end; ++r) {
        uniform_hbm_[r] += hbm;
        uniform_ddr_[r] += ddr;
      }
      if (const int64_t ssd = sign * run.storage.ssd; ssd != 0) {
        for (int r = run.begin; r < run.end; ++r) uniform_ssd_[r] += ssd;
      }
    }
  };
  const bool same_shape = last_proposal_.size() == proposal.size() &&
                          uniform_hbm_.size() == static_cast<size_t>(world_size_);
  if (!same_shape) {
    uniform_hbm_.assign(world_size_, 0);
    uniform_ddr_.assign(world_size_, 0);
    uniform_ssd_.assign(world_size_, 0);
    num_uniform_ = 0;
    total_need_ = internal::WideStorage{};
    placed_need_ = internal::WideStorage{};
    num_shards_ = 0;
    for (int idx : proposal) apply(idx, +1);
    uniform_perf_valid_ = false;
    uniform_fit_valid_ = false;
    host_least_free_valid_ = false;
    positions_valid_ = false;  // rebuilt from scratch, so nothing is pending
    pending_.clear();
    is_pending_.assign(proposal.size(), 0);
    last_proposal_ = proposal;
    return;
  }
  for_each_difference(last_proposal_.data(), proposal.data(), proposal.size(), [&](size_t p) {
    apply(last_proposal_[p], -1);
    apply(proposal[p], +1);
    last_proposal_[p] = proposal[p];
    mark_pending(static_cast<int>(p));
  });
}

// The devices' capacities as two compact arrays, which the checks below
// read (a Device spreads them over a cache line each), and their sum. Kept
// across calls for the topology the caller promised not to change.
void GreedyPerfPartitioner::sync_topology(const Topology& topology) {
  if (&topology == cached_topology_ && cap_hbm_.size() == static_cast<size_t>(world_size_)) return;
  cached_topology_ = &topology == fixed_topology_ ? &topology : nullptr;
  cap_hbm_.resize(world_size_);
  cap_ddr_.resize(world_size_);
  cap_ssd_.resize(world_size_);
  capacity_ = Storage{};
  capacity_known_ = true;
  for (int r = 0; r < world_size_; ++r) {
    const Storage& d = topology.devices[r].storage;
    cap_hbm_[r] = d.hbm;
    cap_ddr_[r] = d.ddr;
    cap_ssd_[r] = d.ssd;
    capacity_known_ = capacity_known_ &&
                      !__builtin_add_overflow(capacity_.hbm, d.hbm, &capacity_.hbm) &&
                      !__builtin_add_overflow(capacity_.ddr, d.ddr, &capacity_.ddr) &&
                      !__builtin_add_overflow(capacity_.ssd, d.ssd, &capacity_.ssd);
  }
  uniform_fit_valid_ = false;
  host_least_free_valid_ = false;
}

// Uniform options put shard i on rank i. Every rank receives one shard of
// each, so all ranks end the phase with the same perf, summed in the same
// order, and each rank's free storage only shrinks: checking the final free
// storage is equivalent to checking every shard as it is placed.
// Every placed shard takes its storage from a device with room, so a plan
// exists only if the proposal's total storage fits in the devices' total:
// when it does not, the greedy placement fails too, sooner or later. When
// that total passes int64, there is no conclusion.
bool GreedyPerfPartitioner::may_fit() const {
  return !capacity_known_ || total_need_.saturated().fits_in(capacity_);
}

bool GreedyPerfPartitioner::uniform_options_fit() {
  if (num_uniform_ == 0) return true;
  if (!uniform_fit_valid_) {
    const int64_t* cap_hbm = cap_hbm_.data();
    const int64_t* cap_ddr = cap_ddr_.data();
    const int64_t* hbm = uniform_hbm_.data();
    const int64_t* ddr = uniform_ddr_.data();
    bool fits = true;
    for (int r = 0; r < world_size_; ++r) fits &= (hbm[r] <= cap_hbm[r]) & (ddr[r] <= cap_ddr[r]);
    if (ssd_in_play_) {
      for (int r = 0; r < world_size_; ++r) fits &= uniform_ssd_[r] <= cap_ssd_[r];
    }
    uniform_fit_ = fits;
    uniform_fit_valid_ = true;
  }
  return uniform_fit_;
}

// Each host's least free storage per component once the uniform options are
// placed (the early stop's counting argument reads it).
const std::vector<Storage>& GreedyPerfPartitioner::host_least_free() {
  if (!host_least_free_valid_) {
    const int hs = host_size_;
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    host_least_free_.resize(num_hosts_);
    for (int h = 0; h < num_hosts_; ++h) {
      Storage least{kMax, kMax};
      for (int r = h * hs; r < (h + 1) * hs; ++r) {
        least.hbm = std::min(least.hbm, cap_hbm_[r] - uniform_hbm_[r]);
        least.ddr = std::min(least.ddr, cap_ddr_[r] - uniform_ddr_[r]);
      }
      host_least_free_[h] = least;
    }
    host_least_free_valid_ = true;
  }
  return host_least_free_;
}

void GreedyPerfPartitioner::place_uniform_options() {
  for (int r = 0; r < world_size_; ++r) {
    free_hbm_[r] = cap_hbm_[r] - uniform_hbm_[r];
    free_ddr_[r] = cap_ddr_[r] - uniform_ddr_[r];
    free_ssd_[r] = cap_ssd_[r] - uniform_ssd_[r];
  }
  perf_.assign(world_size_, uniform_perf());
}

// The per-rank perf is the uniform options' shard perf summed in proposal
// order: unchanged while the uniform options are.
const Perf& GreedyPerfPartitioner::uniform_perf() {
  if (!uniform_perf_valid_) {
    uniform_perf_ = Perf{};
    for (size_t p = 0; p < pos_uniform_.size(); ++p) {
      if (pos_uniform_[p]) uniform_perf_ += pos_hot_[p].shard_perf;
    }
    uniform_perf_valid_ = true;
  }
  return uniform_perf_;
}

// `full`: the caller wants the plan, so it gets the proposal and the uniform
// options' ranks too; otherwise only what placement writes into.
void GreedyPerfPartitioner::layout(const Proposal& proposal, bool full, PartitionedPlan* out) {
  if (full) out->proposal = proposal;
  out->first_shard.resize(proposal.size() + 1);
  int total = 0;
  for (size_t p = 0; p < proposal.size(); ++p) {
    out->first_shard[p] = total;
    total += pos_shards_[p];
  }
  out->first_shard[proposal.size()] = total;
  // Every shard gets a rank (uniform ones below, the rest when placed) or
  // the partition fails: no initial fill.
  out->ranks.resize(static_cast<size_t>(total));
  if (!full) return;
  for (size_t p = 0; p < proposal.size(); ++p) {
    if (!pos_uniform_[p]) continue;
    const int n = pos_shards_[p];
    // Ranks 0..n-1, copied: a store loop of an increasing index does not
    // vectorize, memcpy does.
    if (static_cast<int>(iota_.size()) < n) {
      const int from = static_cast<int>(iota_.size());
      iota_.resize(n);
      for (int j = from; j < n; ++j) iota_[j] = j;
    }
    std::memcpy(out->ranks.data() + out->first_shard[p], iota_.data(), n * sizeof(int));
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
      const Storage& s = o.shards.storage(i);
      if (!s.fits_in(free[i])) {
        // TorchRec's words, then the table they leave out.
        return partition_error(
            "Shard of size " + storage_repr(s) +
            " bytes does not fit on any rank. Device memory cap: " + storage_repr(free[i]) +
            ". [table " + o.name + ", its " + std::string(to_string(o.sharding_type)) +
            " shard for rank " + std::to_string(i) + "]");
      }
      free[i] -= s;
    }
  }
  return partition_error("uniform placement failed");
}

std::optional<double> GreedyPerfPartitioner::max_device_perf() const {
  if (stopped_) return stopped_at_;
  double largest = 0.0;
  for (int r = 0; r < perf_.size(); ++r) largest = std::max(largest, perf_.total(r));
  return largest;
}

std::optional<Partitioner::Placement> GreedyPerfPartitioner::last_placement() const {
  if (placed_ == nullptr || stopped_) return std::nullopt;
  placed_totals_.resize(static_cast<size_t>(perf_.size()));
  for (int r = 0; r < perf_.size(); ++r) placed_totals_[r] = perf_.total(r);
  return Placement{
      .device_totals = &placed_totals_, .in_rank_order = &pos_uniform_, .plan = placed_};
}

Status GreedyPerfPartitioner::partition(const SearchSpace& space, const Proposal& proposal,
                                        const Topology& topology, PartitionedPlan* out) {
  reset(space, topology);
  const bool full = out != nullptr;
  if (!full) out = &scratch_;
  track_stop_ = !full && early_stop_allowed_ && world_size_ > 0 &&
                early_stop_ < std::numeric_limits<double>::infinity();
  stopped_ = false;
  placed_ = nullptr;

  // 1. Uniform options, in proposal order. Most proposals stop here.
  sync_topology(topology);
  advance(proposal);
  // The shortcut fails without TorchRec's message: only when none is wanted.
  if (!detailed_errors_ && !may_fit()) return partition_error("");
  if (!uniform_options_fit()) {
    return detailed_errors_ ? uniform_failure(proposal, topology) : partition_error("");
  }
  sync_positions(proposal);
  if (track_stop_ && settled_at_start()) return Status::ok();
  place_uniform_options();
  layout(proposal, full, out);

  // 2. The rest, one group per option, largest first.
  if (order_.empty()) {
    placed_ = out;
    return Status::ok();
  }
  start_placement();
  // The options come in storage order, scattered over pos_hot_: fetch a
  // few ahead so their cache lines arrive while earlier ones are placed.
  constexpr size_t kAhead = 4;
  const size_t count = order_.size();
  for (size_t k = 0; k < count; ++k) {
    if (k + kAhead < count) {
      const char* next = reinterpret_cast<const char*>(&pos_hot_[order_[k + kAhead]]);
      __builtin_prefetch(next);
      __builtin_prefetch(next + 64);
    }
    const int i = order_[k];
    const HotOption& h = pos_hot_[i];
    const int first = out->first_shard[i];
    if (h.multi_host) {
      if (Status st = place_on_hosts(h, first, out); !st) return st;
    } else if (h.by_host) {
      if (Status st = place_on_host(h, first, out); !st) return st;
    } else if (h.distinct_ranks) {
      if (Status st = place_on_distinct_devices(h, first, out); !st) return st;
    } else if (const int failed = place_on_all_devices(h, first, out); failed >= 0) {
      if (!detailed_errors_) return partition_error("");
      const ShardingOption& option = space.options[h.option];
      Storage largest = free_storage(0);
      for (int r = 1; r < world_size_; ++r) largest = std::max(largest, free_storage(r));
      return partition_error("Device partition failed. Couldn't find a rank for shard " +
                             shard_repr(option, option.shards[failed]) + " of table " +
                             option.name + ", largest device storage: " + storage_repr(largest));
    }
    if (track_stop_ && settled(h)) return Status::ok();
  }
  placed_ = out;
  return Status::ok();
}

}  // namespace shardlab::planner
