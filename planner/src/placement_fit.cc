#include "shardlab/planner/placement_fit.h"

#include <string>

#include "shardlab/planner/placement.h"

namespace shardlab::planner {

Status check_placement_fits(const PlannerResult& result) {
  if (!result.best || !result.search_space || !result.reserved) return Status::ok();
  return check_storage_fits(*result.search_space, *result.best, result.reserved->devices);
}

Status refuse_over_capacity(PlannerResult& result, std::string_view source, bool allow,
                            std::string_view remedy) {
  Status fits = check_placement_fits(result);
  if (!fits.is_ok() && !allow) {
    result.error = Status::invalid_argument(std::string(source) + ": " + fits.message() + "; " +
                                            std::string(remedy));
    result.best.reset();
  }
  return fits;
}

}  // namespace shardlab::planner
