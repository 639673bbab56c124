// The comparison on screen: the Compare view's rows (sim/compare.h) and the
// optimizer's row, as the latest CompareOutcome (partial while rows run,
// marked when cancelled); which grid the next comparison runs; and whether
// the outcome belongs to the scenario and settings on screen.
//
// The workbench submits comparisons to its worker and hands each outcome
// here (set_outcome); views read outcome() and follow changed().
//
// Threading: UI thread only. Outcomes are immutable snapshots.
#pragma once

#include <QObject>
#include <vector>

#include "models/planning_worker.h"
#include "models/result_state.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"

namespace shardlab::gui {

class Comparison : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

  const CompareOutcomePtr& outcome() const { return outcome_; }
  // Whether the next comparison runs each configuration once per TorchRec
  // model version (sim::each_torchrec_version), else once.
  bool each_torchrec_version() const { return each_version_; }
  void set_each_torchrec_version(bool each) { each_version_ = each; }
  // The configurations the next comparison runs.
  std::vector<sim::CompareConfig> grid() const;

  // The newest outcome (partial or complete); null drops it.
  void set_outcome(CompareOutcomePtr outcome);
  // The comparison in flight was cancelled: its rows stay, marked so.
  void mark_cancelled();

  // The outcome against `scenario` and `settings` on screen; `refreshing`:
  // a comparison is running. Only the profile and the iterations count
  // among the settings (every row sets its own rating model).
  ResultState state(const ScenarioPtr& scenario, const PlanSettings& settings,
                    bool refreshing) const;
  // Row `row`'s plan. kInvalidArgument when there is no such row, the
  // outcome is not current (`state`, of state()), or the row has no plan.
  Result<planner::PartitionedPlan> row_plan(int row, const ResultState& state) const;
  // Every row plans in the scenario's own search space (only proposers and
  // partitioner differ): ok when `plan` is a plan of `space`, else
  // kInternal.
  static Status check_row_plan(const planner::PartitionedPlan& plan,
                               const planner::SearchSpace& space);

 signals:
  void changed();  // also for each partial outcome
  void progress(int percent, const QString& stage);

 private:
  CompareOutcomePtr outcome_;
  bool each_version_ = false;
};

}  // namespace shardlab::gui
