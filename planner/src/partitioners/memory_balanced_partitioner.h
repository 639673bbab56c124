// TorchRec's MemoryBalancedPartitioner (docs/cost-model.md §8.2): binary-search
// a per-device HBM cap so the plan uses less peak memory, as long as its perf
// rating stays within (1 + tolerance) of the unconstrained greedy plan.
#pragma once

#include "greedy_perf_partitioner.h"

namespace shardlab::planner {

class MemoryBalancedPartitioner final : public Partitioner {
 public:
  // `bounds_from_default_plan`: TorchRecBehaviour::memory_balanced_bounds_from_default_plan.
  MemoryBalancedPartitioner(int64_t max_search_count, double tolerance, bool balance_modules,
                            bool bounds_from_default_plan)
      : max_search_count_(max_search_count),
        tolerance_(tolerance),
        bounds_from_default_plan_(bounds_from_default_plan),
        inner_(SortBy::kPerf, balance_modules) {}

  Status partition(const SearchSpace& space, const Proposal& proposal, const Topology& topology,
                   PartitionedPlan* out) override;
  void set_detailed_errors(bool on) override { inner_.set_detailed_errors(on); }
  void set_table_order(const std::vector<int>* order) override { inner_.set_table_order(order); }
  // The search places on a capped copy, another object: the inner
  // partitioner copies its devices on every call.
  void set_fixed_topology(const Topology* topology) override {
    inner_.set_fixed_topology(topology);
  }
  // The returned plan's exact rating: the search rates every plan it keeps.
  std::optional<double> max_device_perf() const override { return rating_; }

 private:
  int64_t max_search_count_;
  double tolerance_;
  bool bounds_from_default_plan_;
  GreedyPerfPartitioner inner_;  // always sorts by perf
  PartitionedPlan candidate_;
  PartitionedPlan result_;  // the plan when the caller passes no `out`
  Topology capped_;
  double rating_ = 0.0;  // rating of the plan returned last
};

}  // namespace shardlab::planner
