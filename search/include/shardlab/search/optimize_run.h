// `optimize` as a front end runs it (docs/optimize.md), once for the CLI and
// Python: TorchRec's plan (the reference, and the start unless another is
// given), the search with the chosen objective, and the summary against
// TorchRec's plan, all under one time limit for the whole run.
//
// Stopping. The time limit bounds the whole run: if it passes while TorchRec's
// planner is still making the start plan, that planning is cancelled and the
// run fails (nothing to start from); the search gets what is left of it.
// `cancel` stops the search, which keeps its best plan: set before the first
// move (while the start plan is made, which finishes), the start plan.
//
// Thread safety: a run blocks the calling thread (with one timer thread when
// there is a limit); separate runs are independent.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"
#include "shardlab/search/optimizer.h"
#include "shardlab/search/problem.h"
#include "shardlab/search/report.h"

namespace shardlab::search {

enum class ObjectiveKind { kSimulated, kTorchRec };

struct OptimizeRequest {
  ObjectiveKind objective = ObjectiveKind::kSimulated;
  uint64_t seed = 1;
  double time_limit_s = 30.0;   // the whole run, TorchRec's start plan included; <= 0: none
  int64_t max_evaluations = 0;  // exact evaluations of the search; 0: no limit
  int max_moved_tables = -1;    // OptimizeOptions::max_moved_tables; < 0: no cap
  // Read true: stop the search (see above). Not owned; may be set from any thread.
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const Progress&)> on_progress;
  double progress_interval_s = 0.5;
  // Rates shards (and TorchRec's plan) in place of the scenario's defaults; not owned.
  const planner::CostCalibration* calibration = nullptr;
  // The start instead of TorchRec's plan, rated with the calibration it is
  // given (e.g. a plan file read with planner::rate_placement); it must
  // succeed with a plan that fits.
  std::function<planner::PlannerResult(const planner::CostCalibration*)> start_plan;
};

class OptimizeRun {
 public:
  // Runs the request. Errors: TorchRec's planner found no plan and no start
  // was given (its failure: planner error types, exit status 3); the time
  // limit stopped TorchRec's planning (invalid_argument: "the
  // time limit (S s) ran out while TorchRec's planner was making the start
  // plan ..."); the start plan failed (its error); a start of HugeCTR's
  // layout or one that does not fit (invalid_argument); the simulated
  // objective's or the summary's simulation failed. Where planning failed,
  // `failed_planning` (when not null) receives that planner result, for
  // the error document. `scenario` must outlive the run.
  static Result<std::unique_ptr<OptimizeRun>> run(
      const planner::Scenario& scenario, const OptimizeRequest& request,
      planner::PlannerResult* failed_planning = nullptr);

  OptimizeRun(const OptimizeRun&) = delete;
  OptimizeRun& operator=(const OptimizeRun&) = delete;

  // TorchRec's planner's result (failed where a start plan was given and
  // TorchRec's planner found none).
  const planner::PlannerResult& torchrec() const { return torchrec_; }
  const planner::PlannerResult& start() const { return start_; }
  const Problem& problem() const { return *problem_; }
  const OptimizeResult& result() const { return result_; }
  const OptimizeSummary& summary() const { return summary_; }
  // The best plan as a planner result, for the plan writers.
  const planner::PlannerResult& best() const { return best_; }

 private:
  OptimizeRun() = default;
  planner::PlannerResult torchrec_;
  planner::PlannerResult start_;
  std::optional<Problem> problem_;  // points into start_
  OptimizeResult result_;
  OptimizeSummary summary_;
  planner::PlannerResult best_;
};

}  // namespace shardlab::search
