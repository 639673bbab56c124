// The workbench session: the scenario document (scenario_document.h), its
// planning outcome, the plan shown (the best plan, a selected proposal, a
// plan file or a comparison row: displayed_plan.h), its simulation, the
// comparison, what the last re-plan changed, and the rank and table every
// view follows (selection.h).
//
// The session owns a PlanningWorker: edits and replans run off the UI thread
// and the newest request wins. Views never compute: they read the finished
// values here (or the item models fed from them, workbench_models.h).
//
// Stale results. Every result carries the scenario snapshot and the
// PlanSettings it was computed from. A result is current when both are the
// ones on screen; otherwise it is stale, and plan_state() / compare_state()
// say why and whether a refresh is under way. After an edit, undo or redo
// the previous results stay on screen marked stale until the new ones arrive
// (or until a cancel, which leaves them stale with the action to refresh);
// opening another scenario drops them, as they belong to another document.
//
// Threading: UI thread only. Values handed out are immutable snapshots
// (shared_ptr to const), safe to keep while the session moves on.
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/comparison.h"
#include "models/displayed_plan.h"
#include "models/planning_worker.h"
#include "models/result_state.h"
#include "models/scenario_document.h"
#include "models/selection.h"
#include "shardlab/data/run_store.h"
#include "shardlab/data/scenario_edit.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/status.h"

namespace shardlab::gui {

// A PlanChange in one line of rich text: "After <i>cause</i>: rating a -> b ms
// (+x%), simulated iteration ..., peak HBM ...; N tables moved: ...".
struct PlanChange;
QString describe_change(const PlanChange& change);
using SimResultPtr = std::shared_ptr<const sim::SimResult>;

// What the last re-plan changed against the plan shown before it.
struct PlanChange {
  QString cause;  // "Edit batch_size", "Undo Edit ...", "rating model"
  double rating_before = 0.0;
  double rating_after = 0.0;
  std::optional<double> iteration_before;  // simulated, ms
  std::optional<double> iteration_after;
  int64_t peak_hbm_before = 0;
  int64_t peak_hbm_after = 0;
  std::vector<std::string> moved_tables;  // planner::diff_plans
  // Each moved table from what to what ("t: table_wise/fused on rank 3 ->
  // ..."), when known (the optimizer's plan against TorchRec's).
  std::vector<std::string> moved_details;
  bool same_rating_model = true;  // the ratings compare
};

class Workbench : public QObject {
  Q_OBJECT

 public:
  explicit Workbench(QObject* parent = nullptr);

  // ---- Scenario document ----------------------------------------------------
  // Opening, editing and saving are the document's (scenario_document.h);
  // each new or edited scenario is planned.
  ScenarioDocument& document() { return document_; }
  const ScenarioDocument& document() const { return document_; }

  // ---- Settings and planning ------------------------------------------------
  void set_perf_model(PerfModelChoice choice);
  PerfModelChoice perf_model() const { return settings_.perf_model; }
  // Plans with the calibration profile's parameters (null: TorchRec's constants).
  void set_calibration(ProfilePtr profile);
  const ProfilePtr& calibration() const { return settings_.calibration; }
  const PlanSettings& settings() const { return settings_; }
  void replan();
  // Plans and simulates the Compare view's configurations
  // (Comparison::grid()); the outcome goes to comparison().
  void compare();
  // Runs the plan search of `shardlab optimize` (search/optimizer.h) from
  // TorchRec's plan and adds it as a row of the comparison on screen (when
  // it is current and complete; else next to the scenario as configured).
  // cancel_compare() stops it and keeps its best plan so far.
  void optimize(const OptimizeRequest& request = {});
  // Shows a plan file (either format of data/plan_json.h) for the current
  // scenario instead of the planner's, rated and simulated.
  Status open_plan(const QString& path);
  // The same for a plan document's text; `origin` names it in messages.
  Status open_plan_text(const QString& text, const QString& origin);
  // The plan of a stored run (`name`: "run 7 (replay)"), with the replay's
  // measurements when it has them.
  Status open_run_plan(const QString& text, const QString& origin, const QString& name,
                       std::shared_ptr<const kernels::ReplayResult> replay);
  // Shows row `row` of the current comparison as the plan, rated and
  // simulated. For the optimizer's row, last_change() then states its plan
  // against TorchRec's (the search's start): tables moved from what to
  // what, simulated time and rating before and after.
  Status open_compare_row(int row);
  void cancel();
  void cancel_compare();
  bool busy() const { return worker_.busy(); }
  PlanningWorker& worker() { return worker_; }

  // ---- Selection --------------------------------------------------------------
  // -1 shows the best plan; otherwise a proposal of the outcome's log.
  Status select_proposal(int index);
  // The rank and table the views follow (fitted to each new scenario).
  Selection& selection() { return selection_; }
  const Selection& selection() const { return selection_; }

  // ---- Snapshots --------------------------------------------------------------
  const ScenarioPtr& scenario() const { return document_.scenario(); }
  const QString& origin() const { return document_.name(); }
  const PlanOutcomePtr& outcome() const { return outcome_; }
  const DisplayedPlanPtr& displayed() const { return displayed_; }
  const SimResultPtr& simulation() const { return simulation_; }
  const Status& simulation_status() const { return simulation_status_; }
  // The comparison on screen; its state against the scenario on screen is
  // compare_state().
  Comparison& comparison() { return comparison_; }
  const Comparison& comparison() const { return comparison_; }
  const std::optional<PlanChange>& last_change() const { return change_; }
  int selected_proposal() const { return displayed_ ? displayed_->proposal : -1; }
  // Why the outcome has no plan (ok when it has one, or none was requested).
  Status planning_status() const;
  // The plan (and everything shown with it) against the scenario and settings on screen.
  ResultState plan_state() const;
  ResultState compare_state() const;

 signals:
  void scenarioChanged();
  void outcomeChanged();    // new planning outcome: proposals, best plan
  void displayedChanged();  // the plan shown changed (best, a proposal, a file, a row)
  void simulationChanged();
  void changeExplained();  // last_change() is new (or cleared)
  // plan_state() or compare_state() may have changed.
  void freshnessChanged();
  // A plan file read with warnings (its settings differ from the scenario's),
  // one line each.
  void warningsOccurred(const QString& message);
  void busyChanged(bool busy);
  void progress(int percent, const QString& stage);

 private:
  void on_document_changed(bool replaced);
  void on_planned(const PlanOutcomePtr& outcome);
  void on_simulated(const SimulationOutcomePtr& outcome);
  void show_best();
  void clear_results();
  // Cancels what `cancel` stops; a comparison it stops keeps its rows,
  // marked so (an optimization delivers its best plan instead).
  void cancel_with(const std::function<void()>& cancel);
  void report_warnings(const std::vector<std::string>& warnings);
  // Shows the plan `read` places in the current scenario's search space.
  Status show_plan(
      const std::function<Result<planner::PartitionedPlan>(planner::SearchSpace&)>& read,
      PlanSource source, const std::string& source_name,
      std::shared_ptr<const kernels::ReplayResult> replay = nullptr);
  // show_plan of a reader that collects warnings; they are reported
  // (warningsOccurred) whatever the outcome.
  Status show_read_plan(const std::function<Result<planner::PartitionedPlan>(
                            planner::SearchSpace&, std::vector<std::string>*)>& read,
                        PlanSource source, const std::string& name,
                        std::shared_ptr<const kernels::ReplayResult> replay = nullptr);
  // A plan file's text (either format) shown as from `source`.
  Status open_parsed_plan(const QString& text, const QString& origin, PlanSource source,
                          const std::string& name,
                          std::shared_ptr<const kernels::ReplayResult> replay);

  ScenarioDocument document_;
  PlanningWorker worker_;
  PlanSettings settings_;
  PlanOutcomePtr outcome_;
  DisplayedPlanPtr displayed_;
  SimResultPtr simulation_;
  Status simulation_status_;
  Comparison comparison_;
  std::optional<PlanChange> change_;
  // What made the pending re-plan necessary, for PlanChange::cause.
  QString pending_cause_;
  Selection selection_;
};

}  // namespace shardlab::gui
