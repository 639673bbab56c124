#include "shardlab/search/problem.h"

namespace shardlab::search {

Result<Problem> Problem::create(const planner::Scenario& scenario,
                                const planner::PlannerResult& planned) {
  if (!planned.search_space.has_value() || !planned.reserved.has_value()) {
    return Status::invalid_argument(
        "no search space to optimize in: planning stopped before the reservation or enumeration");
  }
  if (planned.best.has_value()) {
    for (const int option : planned.best->proposal) {
      const planner::ShardingOption& o = planned.search_space->options[static_cast<size_t>(option)];
      if (!o.hugectr_rows) continue;
      return Status::invalid_argument(
          "table " + o.name +
          " is split by rows as HugeCTR splits it (\"layout\": \"hugectr\"): the search moves "
          "TorchRec's layouts only, so it cannot start from this plan");
    }
  }
  Problem p;
  p.scenario_ = &scenario;
  p.space_ = &*planned.search_space;
  p.topology_ = &planned.topology;
  p.capacity_ = &planned.reserved->devices;
  p.separable_.reserve(p.space_->options.size());
  for (const planner::ShardingOption& o : p.space_->options) {
    const bool separable = o.partition_by == planner::PartitionBy::kDevice ||
                           o.sharding_type == planner::ShardingType::kTableColumnWise;
    p.separable_.push_back(separable ? 1 : 0);
    p.has_grid_ = p.has_grid_ || o.sharding_type == planner::ShardingType::kGridShard;
  }
  return p;
}

}  // namespace shardlab::search
