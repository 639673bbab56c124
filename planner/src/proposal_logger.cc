#include "proposal_logger.h"

#include <algorithm>

namespace shardlab::planner {
namespace {

int64_t peak_hbm(const std::vector<Storage>& used) {
  int64_t peak = 0;
  for (const Storage& s : used) peak = std::max(peak, s.hbm);
  return peak;
}

}  // namespace

Topology unlimited_topology(const Topology& topology) {
  Topology t = topology;
  for (Device& d : t.devices) d.storage = Storage{kUnlimitedStorage, kUnlimitedStorage};
  return t;
}

Status place_relaxed(Partitioner& partitioner, const SearchSpace& space, const Proposal& proposal,
                     const Topology& unlimited, const std::vector<Storage>& reserved, PartitionedPlan* plan,
                     std::vector<Storage>* overflow) {
  overflow->clear();
  if (Status st = partitioner.partition(space, proposal, unlimited, plan); !st.is_ok()) return st;
  *overflow = storage_overflow(shard_storage_per_rank(space, *plan, unlimited.world_size), reserved);
  return Status::ok();
}

ProposalLogger::ProposalLogger(std::vector<ProposalRecord>* log, const Scenario& scenario, const SearchSpace& space,
                               const Topology& reserved_topology, const std::vector<Storage>& reserved)
    : log_(log),
      scenario_(scenario),
      space_(space),
      reserved_(reserved),
      world_size_(reserved_topology.world_size),
      unlimited_(unlimited_topology(reserved_topology)) {
  shard_begin_.reserve(space.options.size() + 1);
  for (const ShardingOption& o : space.options) {
    shard_begin_.push_back(shard_storage_.size());
    for (const Shard& sh : o.shards) shard_storage_.push_back(sh.storage);
  }
  shard_begin_.push_back(shard_storage_.size());
}

void ProposalLogger::sum_storage(const PartitionedPlan& plan) {
  used_.assign(static_cast<size_t>(world_size_), Storage{});
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const Storage* storage = shard_storage_.data() + shard_begin_[static_cast<size_t>(plan.proposal[i])];
    const int* ranks = plan.ranks.data() + plan.first_shard[i];
    const int n = plan.first_shard[i + 1] - plan.first_shard[i];
    for (int j = 0; j < n; ++j) {
      if (ranks[j] >= 0 && ranks[j] < world_size_) used_[static_cast<size_t>(ranks[j])] += storage[j];
    }
  }
}

void ProposalLogger::partitioned(int proposer, const Proposal& proposal, const PartitionedPlan& plan, double rating) {
  ProposalRecord r;
  r.index = static_cast<int>(log_->size());
  r.proposer = proposer;
  r.proposal = proposal;
  r.partitioned = true;
  r.rating = rating;
  sum_storage(plan);
  r.peak_hbm = peak_hbm(used_);
  log_->push_back(std::move(r));
}

void ProposalLogger::failed(int proposer, const Proposal& proposal) {
  ProposalRecord r;
  r.index = static_cast<int>(log_->size());
  r.proposer = proposer;
  r.proposal = proposal;
  if (!relaxed_) {
    relaxed_ = make_partitioner(scenario_.planner.partitioner, scenario_.behaviour());
    relaxed_->set_detailed_errors(false);
  }
  if (relaxed_->partition(space_, proposal, unlimited_, &scratch_).is_ok()) {
    sum_storage(scratch_);
    r.overflow = storage_overflow(used_, reserved_);
    r.peak_hbm = peak_hbm(used_);
  }
  log_->push_back(std::move(r));
}

}  // namespace shardlab::planner
