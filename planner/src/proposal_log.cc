#include "shardlab/planner/proposal_log.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "partitioner.h"
#include "proposal_diff.h"
#include "saturating.h"
#include "shardlab/planner/limits.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {
namespace {

// Per-device capacity of the relaxed placement: at least what all tables
// together can put on one rank (limits.h), yet far from int64 overflow when
// the partitioner adds and subtracts storage.
constexpr int64_t kUnlimitedStorage = kMaxRankBytes;

int64_t peak_hbm(const std::vector<Storage>& used) {
  int64_t peak = 0;
  for (const Storage& s : used) peak = std::max(peak, s.hbm);
  return peak;
}

}  // namespace

void ProposalLog::clear() {
  records_.clear();
  width_ = 0;
  checkpoints_.clear();
  delta_begin_.assign(1, 0);
  deltas_.clear();
  last_.clear();
}

void ProposalLog::append(int proposer, const Proposal& proposal, bool partitioned,
                         std::optional<double> rating) {
  ProposalRecord r;
  r.index = static_cast<int>(records_.size());
  r.proposer = proposer;
  r.partitioned = partitioned;
  if (partitioned && rating) r.rating = *rating;
  r.rating_skipped = partitioned && !rating;
  if (records_.empty()) width_ = proposal.size();
  // Every proposal of one search space has one option per fqn.
  assert(proposal.size() == width_);
  if (records_.size() % kCheckpointEvery == 0) {
    checkpoints_.insert(checkpoints_.end(), proposal.begin(), proposal.end());
  } else {
    for_each_difference(last_.data(), proposal.data(), width_, [&](size_t f) {
      deltas_.emplace_back(static_cast<int32_t>(f), static_cast<int32_t>(proposal[f]));
    });
  }
  delta_begin_.push_back(static_cast<uint32_t>(deltas_.size()));
  last_ = proposal;
  records_.push_back(r);
}

Proposal ProposalLog::proposal(size_t i) const {
  const size_t checkpoint = i - i % kCheckpointEvery;
  const auto first =
      checkpoints_.begin() + static_cast<std::ptrdiff_t>(checkpoint / kCheckpointEvery * width_);
  Proposal p(first, first + static_cast<std::ptrdiff_t>(width_));
  for (size_t k = delta_begin_[checkpoint + 1]; k < delta_begin_[i + 1]; ++k) {
    p[static_cast<size_t>(deltas_[k].first)] = deltas_[k].second;
  }
  return p;
}

size_t ProposalLog::memory_bytes() const {
  return records_.capacity() * sizeof(ProposalRecord) + checkpoints_.capacity() * sizeof(int) +
         delta_begin_.capacity() * sizeof(uint32_t) + deltas_.capacity() * sizeof(deltas_[0]) +
         last_.capacity() * sizeof(int);
}

int64_t ProposalPlacement::total_hbm_overflow() const {
  int64_t sum = 0;
  for (const Storage& s : overflow) sum = internal::saturating_add(sum, s.hbm);
  return sum;
}

int64_t ProposalPlacement::total_ddr_overflow() const {
  int64_t sum = 0;
  for (const Storage& s : overflow) sum = internal::saturating_add(sum, s.ddr);
  return sum;
}

std::vector<Storage> storage_overflow(const std::vector<Storage>& used,
                                      const std::vector<Storage>& capacity) {
  std::vector<Storage> over(used.size());
  for (size_t r = 0; r < used.size(); ++r) {
    const Storage cap = r < capacity.size() ? capacity[r] : Storage{};
    over[r].hbm = std::max<int64_t>(0, used[r].hbm - cap.hbm);
    over[r].ddr = std::max<int64_t>(0, used[r].ddr - cap.ddr);
    over[r].ssd = std::max<int64_t>(0, used[r].ssd - cap.ssd);
  }
  return over;
}

std::vector<Storage> shard_storage_per_rank(const SearchSpace& space, const PartitionedPlan& plan,
                                            int world_size) {
  std::vector<Storage> used(static_cast<size_t>(std::max(0, world_size)));
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
    for (int s = 0; s < opt.num_shards(); ++s) {
      const int rank = plan.ranks[static_cast<size_t>(plan.first_shard[i] + s)];
      if (rank >= 0 && rank < world_size)
        used[static_cast<size_t>(rank)] += opt.shards.storage(static_cast<size_t>(s));
    }
  }
  return used;
}

Result<ProposalPlacement> place_proposal(const Scenario& scenario, const PlannerResult& result,
                                         const Proposal& proposal) {
  if (!result.search_space || !result.reserved) {
    return Status::invalid_argument(
        "no search space to place a proposal in: planning stopped before enumeration");
  }
  const SearchSpace& space = *result.search_space;
  if (proposal.size() != space.fqns.size()) {
    return Status::invalid_argument("proposal has " + std::to_string(proposal.size()) +
                                    " options, expected one per " + "table (" +
                                    std::to_string(space.fqns.size()) + ")");
  }
  for (size_t f = 0; f < proposal.size(); ++f) {
    const int o = proposal[f];
    if (o < 0 || o >= static_cast<int>(space.options.size()) ||
        space.fqn_of_option[static_cast<size_t>(o)] != static_cast<int>(f)) {
      return Status::invalid_argument("proposal entry " + std::to_string(f) + " (option " +
                                      std::to_string(o) + ") is not an option of " + space.fqns[f]);
    }
  }
  Topology reserved_topology = result.topology;
  const std::vector<Storage>& reserved = result.reserved->devices;
  for (size_t r = 0; r < reserved_topology.devices.size() && r < reserved.size(); ++r) {
    reserved_topology.devices[r].storage = reserved[r];
  }
  std::unique_ptr<Partitioner> partitioner =
      make_partitioner(scenario.planner.partitioner, scenario.behaviour());
  ProposalPlacement out;
  const int world_size = result.topology.world_size;
  if (partitioner->partition(space, proposal, reserved_topology, &out.plan).is_ok()) {
    out.fits = true;
    out.peak_hbm = peak_hbm(shard_storage_per_rank(space, out.plan, world_size));
  } else {
    // The relaxed placement: the same partitioner, unlimited devices.
    Topology unlimited = reserved_topology;
    for (Device& d : unlimited.devices)
      d.storage = Storage{kUnlimitedStorage, kUnlimitedStorage, kUnlimitedStorage};
    std::unique_ptr<Partitioner> relaxed =
        make_partitioner(scenario.planner.partitioner, scenario.behaviour());
    if (Status st = relaxed->partition(space, proposal, unlimited, &out.plan); !st.is_ok())
      return st;
    const std::vector<Storage> used = shard_storage_per_rank(space, out.plan, world_size);
    out.overflow = storage_overflow(used, reserved);
    out.peak_hbm = peak_hbm(used);
  }
  rate_plan(space, out.plan, world_size, &out.device_perf_total, &out.torchrec_rating);
  return out;
}

}  // namespace shardlab::planner
