// Where the shards of a sharding option may go, and whether a placed plan
// fits the cluster: the rules TorchRec's partitioners place by, for code that
// builds or edits plans itself (the plan search in search/, plans read from
// files).
//
// Placement rules, by the option's PartitionBy:
//   kUniform  (data-parallel, row-wise): shard i on rank i, one per rank;
//   kDevice   (table-wise, column-wise): each shard on any rank;
//   kHost     (table-row-wise, table-column-wise): every shard on the ranks
//             of one group (Topology::num_groups() groups of
//             intra_group_size consecutive ranks: hosts, or pods); table-
//             row-wise shard i on the group's i-th rank;
//   kMultiHost (grid): each column block's shards on the ranks of one group,
//             row shard i on the group's i-th rank (blocks may share a group).
// Storage: on every rank, the summed storage of its shards fits (<=, HBM and
// DDR) the capacity left after the storage reservation.
//
// Thread safety: reentrant.
#pragma once

#include <vector>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

// Whether `ranks` (one per shard, shard order) is a placement of `option`
// the rules above allow on `topology` (world_size, intra_group_size).
bool placement_allowed(const ShardingOption& option, const int* ranks, const Topology& topology);

// Checks every option's placement and every rank's storage (as
// check_storage_fits) against `capacity` (one entry per rank: the storage
// left after the reservation, ReservationResult::devices). Fails with
// kInvalidArgument naming the first table placed against the rules, or
// check_storage_fits's error.
Status check_plan_fits(const SearchSpace& space, const PartitionedPlan& plan,
                       const Topology& topology, const std::vector<Storage>& capacity);

// Whether every rank's shards (their storage summed as shard_storage_per_rank
// in proposal_log.h sums it) fit its entry of `capacity`, HBM and DDR. ok when
// they do; otherwise kInvalidArgument naming the ranks over capacity (the
// first three, then a count), each with the bytes it needs and has and its
// largest tables: "the plan does not fit this scenario's GPUs: rank 1 needs
// 690393568 B of HBM (tables t0, t3 and 2 more) but has 670550630 B after
// the storage reservation". O(shards); the message is built only on failure.
Status check_storage_fits(const SearchSpace& space, const PartitionedPlan& plan,
                          const std::vector<Storage>& capacity);

}  // namespace shardlab::planner
