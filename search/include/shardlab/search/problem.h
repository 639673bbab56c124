// What a plan search works on: the scenario, the planner's search space (every
// table's sharding options with their shards, perf and storage estimates), the
// cluster's shape and the storage each rank has left after the reservation.
//
// The search never estimates or reserves storage itself: shard storages come
// from the search space, capacities from the planner's reservation, and the
// placement rules from planner/placement.h.
#pragma once

#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"
#include "shardlab/planner/types.h"

namespace shardlab::search {

class Problem {
 public:
  // `planned` is a planner result with its search space and reservation
  // (plan(), or plan() with enumerate_only); both it and `scenario` must
  // outlive the problem. Fails (invalid_argument) when either is missing, or
  // when its best plan holds a table of HugeCTR's layout
  // (planner/hugectr_layout.h): the search moves TorchRec's layouts only.
  static Result<Problem> create(const planner::Scenario& scenario,
                                const planner::PlannerResult& planned);

  const planner::Scenario& scenario() const { return *scenario_; }
  const planner::SearchSpace& space() const { return *space_; }
  const planner::Topology& topology() const { return *topology_; }
  // Storage left per rank after the reservation.
  const std::vector<planner::Storage>& capacity() const { return *capacity_; }

  int num_tables() const { return static_cast<int>(space_->fqns.size()); }
  int world_size() const { return topology_->world_size; }
  // The groups table-row-wise and table-column-wise shards are placed in:
  // hosts, or pods (planner::Topology::intra_group_size).
  int group_size() const { return topology_->intra_group_size; }
  int num_groups() const { return topology_->num_groups(); }

  // Sharding types the search converts between, as ShardingType values
  // 0 .. n-1: TorchRec 2024's six, and grid_shard where the space offers it
  // (so a space without grid options is searched as before grid existed).
  int sharding_types() const { return has_grid_ ? planner::kNumShardingTypes : 6; }

  // Option indices (into space().options) of table position `t`.
  const std::vector<int>& options_of(int t) const { return space_->options_by_fqn[t]; }
  const planner::ShardingOption& option(int o) const { return space_->options[o]; }

  // Whether the shards of option `o` are placed one by one, each on a rank
  // of its own choosing: table-wise and column-wise on any rank,
  // table-column-wise on any rank of its host. Other options are placed
  // whole (uniform: fixed ranks; table-row-wise: a host).
  bool separable(int o) const { return separable_[o] != 0; }

 private:
  Problem() = default;
  const planner::Scenario* scenario_ = nullptr;
  const planner::SearchSpace* space_ = nullptr;
  const planner::Topology* topology_ = nullptr;
  const std::vector<planner::Storage>* capacity_ = nullptr;
  std::vector<char> separable_;
  bool has_grid_ = false;
};

}  // namespace shardlab::search
