// DynamicProgrammingProposer (TorchRec 2026-08, docs/cost-model.md §7.6): a
// knapsack over HBM. The reserved HBM of all devices is cut into
// hbm_bins_per_device x world_size bins; for each bin the proposer keeps the
// choice of one option per table with the smallest summed option perf whose
// summed HBM falls in it, then proposes one plan per reachable bin, from the
// most HBM to the least.
//
// Protocol (TorchRec's): the first proposal is each table's lowest-HBM
// option; the first feedback (whatever its outcome) builds the table, and
// each later feedback moves to the next bin's plan. Tables are taken in the
// order in which their lowest-HBM option appears among all options sorted by
// HBM (stably): table_order() gives it, and the planner hands it to the
// partitioner, whose tie-breaks follow it as TorchRec's follow the
// proposal's list order.
//
// Arithmetic is TorchRec's: the bin size and each option's bin count are
// floats, a plan's bin position the float sum of its tables' counts, cut to
// an integer; a plan replaces a bin's only when strictly faster, so ties
// keep the first option (HBM order) and the lowest previous bin.
//
// failure(): on a topology with no reserved HBM (cpu) the bin size is 0 and
// TorchRec's first feedback divides by zero (ZeroDivisionError), which ends
// planning; it is a planning error of type other here.
//
// Memory: the back-pointers, 8 bytes per table and bin (two rows of the
// table itself), and the proposals, 4 bytes per table each; at most one
// proposal per bin.
//
// Threads: the knapsack uses a second thread where the machine has two
// cores (a table's options split in two halves, the walks back shared);
// the result is the sequential one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "proposer.h"

namespace shardlab::planner {

class DynamicProgrammingProposer final : public Proposer {
 public:
  explicit DynamicProgrammingProposer(int64_t hbm_bins_per_device);

  void load(const SearchSpace& space) override;
  std::optional<Proposal> propose() override;
  void feedback(bool partitionable, const PartitionedPlan* plan, std::optional<double> rating,
                const std::vector<Storage>& reserved) override;
  bool reads_plan_or_rating() const override { return false; }
  double walked() const override;
  const std::vector<int>* table_order() const override { return &order_; }
  Status failure() const override { return failure_; }

 private:
  void build(const std::vector<Storage>& reserved);
  Proposal to_proposal(const std::vector<int>& choice) const;

  int64_t bins_per_device_;
  const SearchSpace* space_ = nullptr;
  std::vector<int> order_;                 // fqn positions, in the proposer's table order
  std::vector<std::vector<int>> options_;  // per entry of order_: option indices, HBM ascending
  bool built_ = false;
  // The plans, one row of space_->fqns.size() option indices (a Proposal)
  // each, most HBM first.
  std::unique_ptr<int[]> proposals_;
  size_t num_proposals_ = 0;
  int64_t current_ = -1;
  Status failure_;
};

}  // namespace shardlab::planner
