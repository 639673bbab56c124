// Partitioners (planner-model.md §8): assign every shard of a proposal a rank.
#pragma once

#include <memory>
#include <optional>
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

  // After a successful partition(): the largest device perf total as the
  // partitioner accumulated it (component-wise sums, then the total; §8.1),
  // which agrees with the NoopPerfModel rating of the returned plan up to
  // rounding (ODD-27). nullopt when the partitioner does not track it (the
  // returned plan is not the one whose totals it accumulated). The planner
  // uses it to skip exact ratings that provably cannot win.
  virtual std::optional<double> max_device_perf() const { return std::nullopt; }
};

std::unique_ptr<Partitioner> make_partitioner(const PartitionerSpec& spec);

}  // namespace shardlab::planner
