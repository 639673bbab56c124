// Partitioners (docs/cost-model.md §8): assign every shard of a proposal a rank.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

// Whether a partition() failure ends planning instead of failing only its
// proposal (TorchRec's exceptions other than PlannerError).
inline bool is_fatal_partition_error(const Status& st) {
  return st.code() == StatusCode::kPlanner && st.planner_error() != PlannerErrorType::kPartition;
}

class Partitioner {
 public:
  virtual ~Partitioner() = default;

  // Places `proposal` on `topology` whose device storages are the reserved
  // capacities (device perfs are ignored; every partition starts at zero).
  // On failure returns a kPlanner Status (kPartition) with TorchRec's message;
  // kOther for what TorchRec raises as another exception, which ends
  // planning (is_fatal_partition_error: a grid option on a topology without
  // a whole group raises IndexError).
  // `out` may be null when the caller only needs the status and
  // max_device_perf(): the plan is then not built (or not returned).
  virtual Status partition(const SearchSpace& space, const Proposal& proposal,
                           const Topology& topology, PartitionedPlan* out) = 0;

  // When off, failures may carry an empty message (cheaper in the proposal
  // loop); the error type is unchanged. On by default.
  virtual void set_detailed_errors(bool on) = 0;

  // After a successful partition(): the NoopPerfModel rating of the plan
  // (returned or not) up to rounding: the largest device perf total, with
  // each device's shard perfs summed in any order and grouping (the greedy
  // partitioner sums component-wise, then the total, docs/cost-model.md O27), or the exact
  // rating. nullopt when the partitioner does not know it. The planner uses
  // it to skip exact ratings (and building plans) that provably cannot win.
  virtual std::optional<double> max_device_perf() const { return std::nullopt; }

  // The last partition() as placed, for the planner to find its exact
  // rating from a few ranks (planner.cc, exact_rating) without building the
  // plan: each device's perf total as max_device_perf() sums it (by rank),
  // whether the option at each proposal position went to ranks 0..n-1 in
  // shard order, and the plan's first_shard and ranks (the ranks of
  // positions in rank order possibly unwritten, the proposal possibly
  // unset). Set after a successful partition() that placed every shard
  // (with `out`, or without one and not stopped early); nullopt otherwise,
  // or when the partitioner keeps no such record. Valid until the next
  // partition().
  struct Placement {
    const std::vector<double>* device_totals = nullptr;
    const std::vector<char>* in_rank_order = nullptr;
    const PartitionedPlan* plan = nullptr;
  };
  virtual std::optional<Placement> last_placement() const { return std::nullopt; }

  // Lets later partition() calls without `out` stop placing once the outcome
  // the caller reads is settled: the largest device perf total has reached
  // `perf` and every shard left provably fits wherever the placement would
  // put it. Such a call returns success, and max_device_perf() the largest
  // total so far: at least `perf` and at most the full placement's. Only
  // valid where a placement's device totals never decrease (no negative
  // perf); a partitioner that cannot prove both conditions places
  // everything. +infinity (the default) turns it off; calls with `out`
  // always place everything.
  virtual void set_early_stop(double perf) { (void)perf; }

  // The order of the proposal's tables for tie-breaks (fqn positions; a
  // proposer's Proposer::table_order()), or null for fqn order. `order`
  // must outlive its use.
  virtual void set_table_order(const std::vector<int>* order) { (void)order; }

  // A promise from the caller: until the next call of this method, every
  // partition() given `*topology` (the same object) finds its devices'
  // storages unchanged, so what the partitioner derives from them (a
  // compact copy, their sum) may be kept across calls. Calls given another
  // topology are not affected. nullptr (the default) promises nothing.
  virtual void set_fixed_topology(const Topology* topology) { (void)topology; }
};

// The partitioner `spec` names, as the TorchRec version of `behaviour` runs it.
std::unique_ptr<Partitioner> make_partitioner(const PartitionerSpec& spec,
                                              const TorchRecBehaviour& behaviour);

}  // namespace shardlab::planner
