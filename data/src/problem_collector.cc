#include "problem_collector.h"

#include <algorithm>
#include <utility>

namespace shardlab::data::internal {
namespace {

thread_local ProblemCollector* active = nullptr;

}  // namespace

ProblemCollector::ProblemCollector() : outer_(active) { active = this; }

ProblemCollector::~ProblemCollector() { active = outer_; }

Status ProblemCollector::note(Status problem) {
  if (active == nullptr || problem.is_ok()) return problem;
  std::vector<Status>& seen = active->problems_;
  const bool known = std::any_of(seen.begin(), seen.end(),
                                 [&](const Status& s) { return s.message() == problem.message(); });
  if (!known) seen.push_back(std::move(problem));
  return Status::ok();
}

}  // namespace shardlab::data::internal
