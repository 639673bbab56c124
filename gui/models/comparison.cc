#include "models/comparison.h"

#include <string>
#include <utility>

namespace shardlab::gui {

std::vector<sim::CompareConfig> Comparison::grid() const {
  return each_version_ ? sim::each_torchrec_version(sim::default_compare_grid())
                       : sim::default_compare_grid();
}

void Comparison::set_outcome(CompareOutcomePtr outcome) {
  outcome_ = std::move(outcome);
  emit changed();
}

void Comparison::mark_cancelled() {
  if (!outcome_ || outcome_->complete) return;
  auto cancelled = std::make_shared<CompareOutcome>(*outcome_);
  cancelled->cancelled = true;
  cancelled->running_row = -1;
  cancelled->running_status.clear();
  set_outcome(std::move(cancelled));
}

ResultState Comparison::state(const ScenarioPtr& scenario, const PlanSettings& settings,
                              bool refreshing) const {
  ResultState s;
  s.refreshing = refreshing;
  if (!outcome_) {
    s.reason = s.refreshing ? QStringLiteral("comparing") : QStringLiteral("not run");
    return s;
  }
  if (outcome_->scenario != scenario) {
    s.freshness = ResultState::Freshness::kStale;
    s.reason = QStringLiteral("the scenario changed after this comparison");
    return s;
  }
  if (outcome_->settings.calibration != settings.calibration ||
      outcome_->settings.sim_iterations != settings.sim_iterations) {
    s.freshness = ResultState::Freshness::kStale;
    s.reason = settings_difference(outcome_->settings, settings);
    return s;
  }
  if (!outcome_->complete && !s.refreshing) {
    s.freshness = ResultState::Freshness::kStale;
    s.reason = QStringLiteral("the comparison was cancelled after %1 of %2 rows")
                   .arg(outcome_->comparison.rows.size())
                   .arg(outcome_->grid.size());
    return s;
  }
  s.freshness = ResultState::Freshness::kCurrent;
  return s;
}

Result<planner::PartitionedPlan> Comparison::row_plan(int row, const ResultState& state) const {
  if (!outcome_ || row < 0 || row >= static_cast<int>(outcome_->comparison.rows.size())) {
    return Status::invalid_argument("no comparison row " + std::to_string(row + 1));
  }
  if (!state.current()) {
    return Status::invalid_argument(
        "the comparison is out of date: run it again before opening a row");
  }
  const sim::CompareRow& r = outcome_->comparison.rows[static_cast<size_t>(row)];
  if (!r.plan)
    return Status::invalid_argument("comparison row " + std::to_string(row + 1) + " has no plan");
  return *r.plan;
}

Status Comparison::check_row_plan(const planner::PartitionedPlan& plan,
                                  const planner::SearchSpace& space) {
  const Status mismatch =
      Status::internal("comparison row plan does not match the scenario's search space");
  if (plan.proposal.size() != space.fqns.size()) return mismatch;
  for (size_t f = 0; f < plan.proposal.size(); ++f) {
    const int o = plan.proposal[f];
    if (o < 0 || o >= static_cast<int>(space.options.size()) ||
        space.fqn_of_option[static_cast<size_t>(o)] != static_cast<int>(f)) {
      return mismatch;
    }
  }
  return Status::ok();
}

}  // namespace shardlab::gui
