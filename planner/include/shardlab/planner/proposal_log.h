// The planner's proposal log: one record per proposal the planner loop
// evaluated, for front ends that show the search (the GUI's Proposals view)
// and explain why a proposal or a scenario does not fit ("why-not").
//
// Logging is opt-in (PlannerOptions::proposal_log). When it is on, plan()
// rates every proposal that partitions exactly (it otherwise skips ratings
// that provably cannot win), so the best plan is the same either way and
// every logged plan has its rating.
//
// Why-not: a proposal that does not partition has no placement, so it is
// placed again with the same partitioner on devices with unlimited memory
// (the "relaxed placement"); its overflow on a rank is what that placement
// puts there beyond the rank's reserved capacity. It says where the
// partitioner would have wanted to put more than fits, and by how much; a
// different placement might overflow elsewhere.
//
// Thread safety: the functions here have no shared state.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

struct PlannerResult;

struct ProposalRecord {
  int index = 0;         // evaluation order from 0 (cache hits are not evaluated, not logged)
  int proposer = 0;      // index into Scenario::planner.proposers
  Proposal proposal;     // option index per fqn (SearchSpace::fqns order)
  bool partitioned = false;
  // The perf model's rating in ms (lower is better); NaN when not partitioned.
  double rating = std::numeric_limits<double>::quiet_NaN();
  // Largest HBM of one rank's shards, in bytes (reservations not included):
  // of the plan when partitioned, else of the relaxed placement (0 when even
  // that failed).
  int64_t peak_hbm = 0;
  // Not partitioned: per rank, bytes of the relaxed placement beyond the
  // reserved capacity (0 where it fits); empty when partitioned or when the
  // relaxed placement failed too.
  std::vector<Storage> overflow;

  // Sum of the HBM / DDR overflow over every rank.
  int64_t total_hbm_overflow() const;
  int64_t total_ddr_overflow() const;
};

// A proposal placed again, as plan() placed it.
struct ProposalPlacement {
  PartitionedPlan plan;           // every shard placed (relaxed when !fits)
  bool fits = false;              // the partitioner placed it within the reserved capacity
  std::vector<Storage> overflow;  // per rank, as ProposalRecord::overflow; empty when fits
  std::vector<double> device_perf_total;  // per rank, TorchRec's summed shard perf
  double torchrec_rating = 0.0;   // max of device_perf_total
};

// Partitions `proposal` (an option per fqn of result.search_space) with the
// scenario's partitioner on the reserved capacities of `result`, as plan()
// does: deterministic, so a logged proposal gets the plan plan() saw. When it
// does not fit, returns the relaxed placement with its overflow.
// REQUIRES: result.search_space and result.reserved are set (plan() got past
// enumeration); fails with invalid_scenario otherwise, or when the proposal
// does not match the search space, or with the partitioner's error when even
// the relaxed placement fails.
Result<ProposalPlacement> place_proposal(const Scenario& scenario, const PlannerResult& result,
                                         const Proposal& proposal);

// Per rank, bytes of `used` beyond `capacity` (0 where it fits).
std::vector<Storage> storage_overflow(const std::vector<Storage>& used, const std::vector<Storage>& capacity);

// Storage of the plan's shards on each rank (no reservations); shards with a
// rank outside [0, world_size) are skipped.
std::vector<Storage> shard_storage_per_rank(const SearchSpace& space, const PartitionedPlan& plan, int world_size);

}  // namespace shardlab::planner
