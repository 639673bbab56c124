// Fills the opt-in proposal log of the planner loop (proposal_log.h).
// Private to the planner library.
#pragma once

#include <memory>
#include <vector>

#include "shardlab/planner/limits.h"
#include "shardlab/planner/partitioner.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

// Per-device capacity of the relaxed placement: at least what all tables
// together can put on one rank (limits.h), yet far from int64 overflow when
// the partitioner adds and subtracts storage.
inline constexpr int64_t kUnlimitedStorage = kMaxRankBytes;

// `topology` with every device's storage set to kUnlimitedStorage.
Topology unlimited_topology(const Topology& topology);

// Places `proposal` with `partitioner` on the unlimited topology (the relaxed
// placement) and sets *overflow to what exceeds `reserved` per rank.
Status place_relaxed(Partitioner& partitioner, const SearchSpace& space, const Proposal& proposal,
                     const Topology& unlimited, const std::vector<Storage>& reserved, PartitionedPlan* plan,
                     std::vector<Storage>* overflow);

class ProposalLogger {
 public:
  // All references must outlive the logger. `reserved_topology` holds the
  // reserved capacities the loop partitions against.
  ProposalLogger(std::vector<ProposalRecord>* log, const Scenario& scenario, const SearchSpace& space,
                 const Topology& reserved_topology, const std::vector<Storage>& reserved);

  void partitioned(int proposer, const Proposal& proposal, const PartitionedPlan& plan, double rating);
  void failed(int proposer, const Proposal& proposal);

 private:
  std::vector<ProposalRecord>* log_;
  const Scenario& scenario_;
  const SearchSpace& space_;
  const std::vector<Storage>& reserved_;
  int world_size_;
  Topology unlimited_;
  std::unique_ptr<Partitioner> relaxed_;  // created on the first failure
  PartitionedPlan scratch_;
  // Shard storages of every option, contiguous (option o's shards start at
  // shard_begin_[o]): summing a plan's storage per rank runs over every
  // shard of every logged proposal, so it reads a compact copy.
  std::vector<Storage> shard_storage_;
  std::vector<size_t> shard_begin_;
  std::vector<Storage> used_;  // per rank, scratch

  // Storage of `plan`'s shards per rank, into used_.
  void sum_storage(const PartitionedPlan& plan);
};

}  // namespace shardlab::planner
