// The planner's proposal log: one record per proposal the planner loop
// evaluated, for front ends that show the search (the GUI's Proposals view)
// and explain why a proposal or a scenario does not fit ("why-not").
//
// Logging is opt-in (PlannerOptions::proposal_log) and cheap: it does not
// change what the loop computes, so a logged run takes about as long as an
// unlogged one and finds the same best plan. A record holds what the loop
// knew: whether the proposal partitioned and, when the loop rated it, its
// rating. Under TorchRec's model the loop skips the exact rating of a plan
// whose partitioner device totals prove it cannot beat the best plan so far
// (planner.cc); such a record is partitioned with `rating_skipped` set, and
// its rating is no lower than the final best rating. Everything else (the
// placement, its exact rating, peak HBM, why-not overflow) is computed on
// demand by place_proposal(), which places a proposal exactly as plan() did.
//
// Proposals are stored compactly: consecutive proposals usually differ in a
// few tables, so most records keep only those differences from the record
// before, with the whole proposal every ProposalLog::kCheckpointEvery
// records. proposal(i) rebuilds one from the checkpoint before it.
//
// Why-not: a proposal that does not partition has no placement, so it is
// placed again with the same partitioner on devices with unlimited memory
// (the "relaxed placement"); its overflow on a rank is what that placement
// puts there beyond the rank's reserved capacity. It says where the
// partitioner would have wanted to put more than fits, and by how much; a
// different placement might overflow elsewhere.
//
// Thread safety: the functions here have no shared state. A ProposalLog is
// written by one plan() call and then only read; concurrent reads are safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

struct PlannerResult;

struct ProposalRecord {
  int index = 0;     // evaluation order from 0 (cache hits are not evaluated, not logged)
  int proposer = 0;  // index into Scenario::planner.proposers
  bool partitioned = false;
  // The perf model's rating in ms (lower is better); NaN when not partitioned
  // or when the rating was skipped.
  double rating = std::numeric_limits<double>::quiet_NaN();
  // Partitioned, but not rated: it could not beat the best plan found before
  // it, so its rating is at least the final best rating.
  bool rating_skipped = false;

  bool rated() const { return partitioned && !rating_skipped; }
};

class ProposalLog {
 public:
  static constexpr size_t kCheckpointEvery = 64;

  void clear();
  bool empty() const { return records_.empty(); }
  size_t size() const { return records_.size(); }
  const ProposalRecord& operator[](size_t i) const { return records_[i]; }
  const std::vector<ProposalRecord>& records() const { return records_; }

  // The proposal of record `i`: an option index per fqn (SearchSpace::fqns order).
  // REQUIRES: i < size().
  Proposal proposal(size_t i) const;

  // Appends the next evaluated proposal (plan() calls this). `rating`: the
  // perf model's rating when the loop rated it; a partitioned proposal
  // without one is recorded as skipped.
  void append(int proposer, const Proposal& proposal, bool partitioned,
              std::optional<double> rating);

  // Bytes held, for diagnostics.
  size_t memory_bytes() const;

 private:
  std::vector<ProposalRecord> records_;
  size_t width_ = 0;              // options per proposal
  std::vector<int> checkpoints_;  // whole proposals of records 0, K, 2K, ... back to back
  // Per record, its first entry in deltas_ (size() + 1 entries): the (fqn,
  // option) pairs where it differs from the record before (none at a checkpoint).
  std::vector<uint32_t> delta_begin_{0};
  std::vector<std::pair<int32_t, int32_t>> deltas_;
  Proposal last_;
};

// A proposal placed again, as plan() placed it.
struct ProposalPlacement {
  PartitionedPlan plan;  // every shard placed (relaxed when !fits)
  bool fits = false;     // the partitioner placed it within the reserved capacity
  // Per rank, bytes of the relaxed placement beyond the reserved capacity (0
  // where it fits); empty when fits.
  std::vector<Storage> overflow;
  std::vector<double> device_perf_total;  // per rank, TorchRec's summed shard perf
  double torchrec_rating = 0.0;           // max of device_perf_total
  int64_t peak_hbm = 0;  // largest HBM of one rank's shards (reservations not included)

  // Sum of the HBM / DDR overflow over every rank.
  int64_t total_hbm_overflow() const;
  int64_t total_ddr_overflow() const;
};

// Partitions `proposal` (an option per fqn of result.search_space) with the
// scenario's partitioner on the reserved capacities of `result`, as plan()
// does: deterministic, so a logged proposal gets the plan plan() saw. When it
// does not fit, returns the relaxed placement with its overflow.
// REQUIRES: result.search_space and result.reserved are set (plan() got past
// enumeration); fails with kInvalidArgument otherwise, or when the proposal
// does not match the search space, or with the partitioner's error when even
// the relaxed placement fails.
Result<ProposalPlacement> place_proposal(const Scenario& scenario, const PlannerResult& result,
                                         const Proposal& proposal);

// Per rank, bytes of `used` beyond `capacity` (0 where it fits).
std::vector<Storage> storage_overflow(const std::vector<Storage>& used,
                                      const std::vector<Storage>& capacity);

// Storage of the plan's shards on each rank (no reservations); shards with a
// rank outside [0, world_size) are skipped.
std::vector<Storage> shard_storage_per_rank(const SearchSpace& space, const PartitionedPlan& plan,
                                            int world_size);

}  // namespace shardlab::planner
