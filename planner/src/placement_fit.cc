#include "shardlab/planner/placement_fit.h"

#include "shardlab/planner/placement.h"

namespace shardlab::planner {

Status check_placement_fits(const PlannerResult& result) {
  if (!result.best || !result.search_space || !result.reserved) return Status::ok();
  return check_storage_fits(*result.search_space, *result.best, result.reserved->devices);
}

}  // namespace shardlab::planner
