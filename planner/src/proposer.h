// Proposers (docs/cost-model.md §7): each emits candidate plans, one option per
// fqn, and may steer by the feedback the planner gives after partitioning.
//
// Protocol, as TorchRec's planner drives it: prepare() once before the first
// proposal of any proposer; then, per proposer, load() once and repeatedly
// propose() until it returns nullopt, calling feedback() after each proposal
// (also for proposals the planner answered from its de-duplication cache).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"

namespace shardlab::planner {

class OptionEstimator;  // enumerator.h

// What more than one proposer derives from the search space, computed by
// the first that asks and then shared: the planner gives all its proposers
// one. The space must not change after the first question (proposers add
// options in prepare(), before any load()).
class ProposerShared {
 public:
  // Per option index: (largest shard hbm, Σ shard hbm, largest shard ddr,
  // Σ shard ddr), sums saturated and in shard order; all zeros for an
  // option without shards. Reading every shard of a large space (millions
  // at 1,024 ranks) is the cost worth sharing.
  using StorageKey = std::array<int64_t, 4>;
  const std::vector<StorageKey>& storage_keys(const SearchSpace& space);

 private:
  bool have_storage_keys_ = false;
  std::vector<StorageKey> storage_keys_;
};

class Proposer {
 public:
  virtual ~Proposer() = default;

  // Before any proposal: a proposer whose proposals need options the
  // enumerator did not produce appends them to `space` (SearchSpace::
  // num_derived), estimated with `estimator`. Fails where TorchRec's load()
  // raises. Default: nothing to add.
  virtual Status prepare(SearchSpace* /*space*/, const OptionEstimator& /*estimator*/) {
    return Status::ok();
  }

  // REQUIRES: `space` outlives the proposer.
  virtual void load(const SearchSpace& space) = 0;

  // The next proposal (fqn order), or nullopt when the proposer is done.
  virtual std::optional<Proposal> propose() = 0;

  // `plan` is the partitioned plan when `partitionable`, else null. `rating`
  // is its perf rating, or nullopt. `reserved` is the storage left per device
  // after the storage reservation.
  virtual void feedback(bool partitionable, const PartitionedPlan* plan,
                        std::optional<double> rating, const std::vector<Storage>& reserved) = 0;

  // Whether feedback() reads `plan` or `rating` for a partitionable
  // proposal. When false, the planner may pass a null plan and no rating for
  // a proposal it has proven cannot be the best, instead of building and
  // rating its plan.
  virtual bool reads_plan_or_rating() const { return true; }

  // How far the walk is, in [0, 1], for progress reports
  // (PlannerProgress::walked); negative when unknown.
  virtual double walked() const { return -1.0; }

  // `shared` outlives the proposer and is given only proposers of the same
  // space. Without it a proposer computes what it needs by itself.
  virtual void set_shared(ProposerShared* shared) { (void)shared; }

  // The order of the tables in this proposer's proposals (fqn positions),
  // when it is not fqn order: TorchRec's proposals are lists, and the
  // partitioner breaks ties in list order. Valid after load(). Null: fqn
  // order.
  virtual const std::vector<int>* table_order() const { return nullptr; }

  // Set once the proposer cannot go on: what TorchRec raises from the
  // proposer as another exception than PlannerError, which ends planning
  // (a planner error of type other). Checked after each feedback().
  virtual Status failure() const { return Status::ok(); }
};

// A proposer whose sequence is fixed at load(): feedback only moves it on to
// its next proposal, whatever the plan, rating or storage.
class StaticProposer : public Proposer {
 public:
  void feedback(bool /*partitionable*/, const PartitionedPlan* /*plan*/,
                std::optional<double> /*rating*/, const std::vector<Storage>& /*reserved*/) final {
    advance();
  }
  bool reads_plan_or_rating() const final { return false; }

 protected:
  virtual void advance() = 0;
};

// The proposer `spec` names, as the TorchRec version of `behaviour` runs it.
std::unique_ptr<Proposer> make_proposer(
    const ProposerSpec& spec,
    const TorchRecBehaviour& behaviour = torchrec_behaviour(kLatestTorchRecVersion));

// Scores an option for proposer sorting: max shard total (depth) or the sum.
double option_score(const ShardingOption& option, bool use_depth);

}  // namespace shardlab::planner
