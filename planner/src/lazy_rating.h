// Rating proposals without building their plans, for proposers that read
// neither plan nor rating (Proposer::reads_plan_or_rating() false), and on
// two cores where the machine has them. Private to the planner library
// (docs/cost-model.md §9.1, "Ratings skipped and shared").
//
// A lazily rated proposal is partitioned without a plan. Its outcome is
// settled by one of, cheapest first:
//   * the partition fails;
//   * the partitioner's largest device total proves the plan cannot beat
//     the best (cannot_beat), often before the placement ends (the early
//     stop, Partitioner::set_early_stop);
//   * its exact rating from the few ranks that can hold the largest sum
//     (exact_rating);
//   * its exact rating from the built plan (rate_plan), when too many ranks
//     are that close.
// A batch of proposals is settled against the best rating known when the
// batch starts: a proof against that rating holds against any lower one, and
// the ratings computed are exact, so the planner, committing the outcomes in
// proposal order, keeps the same best plan as a one-at-a-time loop.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "partitioner.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::planner::internal {

// The relative margin of cannot_beat for a plan of `num_shards` shards.
double rating_margin(int64_t num_shards);

// Proves that a plan's NoopPerfModel rating is not below `best` from the
// partitioner's max_device_perf(): the result equals `!(rating < best)`
// whenever it returns true.
bool cannot_beat(double partitioner_max, int64_t num_shards, double best);

// A device total from which cannot_beat holds; +infinity where none is found.
double cannot_beat_from(int64_t num_shards, double best);

// TorchRec's rating of the proposal `placement` placed (rate_plan's largest
// per-rank sum) from a few ranks; nullopt when more than 16 ranks are close
// to the largest or a total is not finite.
std::optional<double> exact_rating(const SearchSpace& space, const Proposal& proposal,
                                   const Partitioner::Placement& placement, double margin);

// One proposal to settle, and its outcome.
struct LazyItem {
  Proposal proposal;
  int64_t num_shards = 0;  // ProposalTracker::num_shards()
  // Outcome.
  Status status;                 // the partition's; its message empty (no details)
  std::optional<double> bound;   // max_device_perf(), when it partitioned
  std::optional<double> rating;  // exact, unless the bound proved it cannot win
};

class LazyRater {
 public:
  // Partitioners as `scenario` names them, one per thread (`threads` >= 1),
  // placing on `reserved` (the reserved device storages, unchanged from
  // here on). REQUIRES: `space` and `reserved` outlive the rater.
  LazyRater(const Scenario& scenario, const SearchSpace& space, const Topology& reserved,
            int threads);
  ~LazyRater();

  int threads() const { return static_cast<int>(partitioners_.size()); }

  // Settles every item against `best` (the best rating so far), on up to
  // threads() threads. Deterministic: each item's outcome depends only on
  // the item and `best`.
  void settle(const std::vector<LazyItem*>& items, double best);

  // Places `proposal` into `out` (after settle() found it the best).
  void build(const Proposal& proposal, PartitionedPlan* out);

  // Partitioner::set_table_order on every worker's partitioner.
  void set_table_order(const std::vector<int>* order);

 private:
  struct Worker;
  const SearchSpace& space_;
  const Topology& reserved_;
  std::vector<std::unique_ptr<Worker>> partitioners_;
};

}  // namespace shardlab::planner::internal
