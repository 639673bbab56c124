// Partitioners (planner-model.md §8): assign every shard of a proposal a rank.
#pragma once

#include <memory>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

class Partitioner {
 public:
  virtual ~Partitioner() = default;

  // Places `proposal` on `topology` whose device storages are the reserved
  // capacities (device perfs are ignored; every partition starts at zero).
  // On failure returns a kPlanner Status (kPartition) with TorchRec's message.
  virtual Status partition(const SearchSpace& space, const Proposal& proposal,
                           const Topology& topology, PartitionedPlan* out) = 0;

  // When off, failures may carry an empty message (cheaper in the proposal
  // loop); the error type is unchanged. On by default.
  virtual void set_detailed_errors(bool on) = 0;
};

std::unique_ptr<Partitioner> make_partitioner(const PartitionerSpec& spec);

}  // namespace shardlab::planner
