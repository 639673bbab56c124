#include "shardlab/search/optimize_run.h"

#include <fmt/format.h>

#include "shardlab/planner/deadline.h"
#include "shardlab/search/objective.h"

namespace shardlab::search {

Result<std::unique_ptr<OptimizeRun>> OptimizeRun::run(const planner::Scenario& scenario,
                                                      const OptimizeRequest& request,
                                                      planner::PlannerResult* failed_planning) {
  std::unique_ptr<OptimizeRun> run(new OptimizeRun());
  const planner::Deadline deadline(request.time_limit_s);
  run->torchrec_ = planner::plan(
      scenario,
      planner::PlannerOptions{.cancel = deadline.flag(), .calibration = request.calibration});
  if (!run->torchrec_.ok() && deadline.passed()) {
    return Status::invalid_argument(fmt::format(
        "the time limit ({} s) ran out while TorchRec's planner was making the start plan ({} "
        "proposals evaluated); nothing was written: raise the time limit, or 0 for no limit",
        request.time_limit_s, run->torchrec_.num_proposals));
  }
  if (!request.start_plan && !run->torchrec_.ok()) {
    if (failed_planning != nullptr) *failed_planning = run->torchrec_;
    return run->torchrec_.failure();
  }
  if (request.start_plan) {
    run->start_ = request.start_plan(request.calibration);
    if (!run->start_.ok()) {
      if (failed_planning != nullptr && !run->start_.search_space.has_value())
        *failed_planning = run->start_;
      return run->start_.failure();
    }
  } else {
    run->start_ = run->torchrec_;
  }
  Result<Problem> problem = Problem::create(scenario, run->start_);
  if (!problem) return problem.status();
  run->problem_.emplace(std::move(problem).value());
  std::unique_ptr<Objective> objective;
  if (request.objective == ObjectiveKind::kTorchRec) {
    objective = make_torchrec_objective(*run->problem_);
  } else {
    Result<std::unique_ptr<Objective>> made = make_simulated_objective(*run->problem_);
    if (!made) return made.status();
    objective = std::move(made).value();
  }
  OptimizeOptions options;
  options.seed = request.seed;
  options.time_limit_s = deadline.left();  // what the set-up left of the limit
  options.max_evaluations = request.max_evaluations;
  options.max_moved_tables = request.max_moved_tables;
  options.cancel = request.cancel;
  options.on_progress = request.on_progress;
  options.progress_interval_s = request.progress_interval_s;
  Result<OptimizeResult> result = optimize(*run->problem_, *objective, *run->start_.best, options);
  if (!result) return result.status();
  run->result_ = std::move(result).value();
  Result<OptimizeSummary> summary =
      summarize(*run->problem_, run->result_, run->torchrec_.ok() ? &run->torchrec_ : nullptr);
  if (!summary) return summary.status();
  run->summary_ = std::move(summary).value();
  run->best_ = as_planner_result(run->start_, run->result_);
  return run;
}

}  // namespace shardlab::search
