// The workbench session: the current scenario, its planning outcome, the plan
// shown (the best plan or a selected proposal), its simulation, the
// comparison, and the one selection every view follows (proposal, rank,
// table).
//
// The session owns a PlanningWorker: edits and replans run off the UI thread
// and the newest request wins. Views never compute: they read the finished
// values here (or the item models fed from them, workbench_models.h).
//
// Threading: UI thread only. Values handed out are immutable snapshots
// (shared_ptr to const), safe to keep while the session moves on.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "models/planning_worker.h"
#include "shardlab/data/scenario_edit.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/status.h"

namespace shardlab::gui {

// The plan the Plan, Timeline and Topology views show.
struct DisplayedPlan {
  PlanOutcomePtr base;       // the planning run it belongs to
  int proposal = -1;         // index into base->proposals, or -1 for the best plan
  planner::PartitionedPlan plan;
  planner::PlanSummary summary;
  bool fits = true;                       // false: a relaxed placement (proposal_log.h)
  std::vector<planner::Storage> overflow; // per rank, when !fits
};
using DisplayedPlanPtr = std::shared_ptr<const DisplayedPlan>;
using SimResultPtr = std::shared_ptr<const sim::SimResult>;

class Workbench : public QObject {
  Q_OBJECT

 public:
  explicit Workbench(QObject* parent = nullptr);

  // ---- Scenario -------------------------------------------------------------
  // Loads a scenario file and plans it. On failure the session is unchanged,
  // errorOccurred is emitted and the loader's Status returned.
  Status open_scenario(const QString& path);
  // Makes `scenario` current and plans it. `origin` names it in messages
  // (a file name); empty keeps the current origin.
  void set_scenario(ScenarioPtr scenario, const QString& origin = {});
  // Validates one field edit under the loader's rules (scenario_edit.h)
  // without changing the session.
  Result<ScenarioPtr> edit(const data::FieldPath& path, const QString& value_json) const;
  // edit() then set_scenario(); a refusal emits editRefused(message).
  bool apply_edit(const data::FieldPath& path, const QString& value_json);
  Status save_scenario(const QString& path) const;

  // ---- Planning -------------------------------------------------------------
  void set_perf_model(PerfModelChoice choice);
  PerfModelChoice perf_model() const { return perf_model_; }
  void set_sim_options(const sim::SimOptions& options) { sim_options_ = options; }
  const sim::SimOptions& sim_options() const { return sim_options_; }
  void replan();
  void compare();
  // Shows a plan file (either format of data/plan_json.h) for the current
  // scenario instead of the planner's, rated and simulated.
  Status open_plan(const QString& path);
  // The same for a plan document's text; `origin` names it in messages.
  Status open_plan_text(const QString& text, const QString& origin);
  void cancel();
  bool busy() const { return worker_.busy(); }
  PlanningWorker& worker() { return worker_; }

  // ---- Selection --------------------------------------------------------------
  // -1 shows the best plan; otherwise a proposal of the outcome's log.
  Status select_proposal(int index);
  void select_rank(int rank);    // -1: none
  void select_table(int table);  // index into Scenario::tables, -1: none

  // ---- Snapshots --------------------------------------------------------------
  const ScenarioPtr& scenario() const { return scenario_; }
  const QString& origin() const { return origin_; }
  const PlanOutcomePtr& outcome() const { return outcome_; }
  const DisplayedPlanPtr& displayed() const { return displayed_; }
  const SimResultPtr& simulation() const { return simulation_; }
  const Status& simulation_status() const { return simulation_status_; }
  const CompareOutcomePtr& comparison() const { return comparison_; }
  int selected_proposal() const { return displayed_ ? displayed_->proposal : -1; }
  int selected_rank() const { return rank_; }
  int selected_table() const { return table_; }
  // Why the outcome has no plan (ok when it has one, or none was requested).
  Status planning_status() const;

 signals:
  void scenarioChanged();
  void outcomeChanged();     // new planning outcome: proposals, best plan
  void displayedChanged();   // the plan shown changed (best or a proposal)
  void simulationChanged();
  void comparisonChanged();
  void selectionChanged();
  void editRefused(const QString& message);
  void errorOccurred(const QString& message);
  // A plan file read with warnings (its settings differ from the scenario's),
  // one line each.
  void warningsOccurred(const QString& message);
  void busyChanged(bool busy);
  void progress(int percent, const QString& stage);

 private:
  void on_planned(const PlanOutcomePtr& outcome);
  void on_simulated(const SimulationOutcomePtr& outcome);
  void show_best();
  void report_warnings(const std::vector<std::string>& warnings);
  // Shows the plan `read` places in the current scenario's search space.
  Status show_plan(const std::function<Result<planner::PartitionedPlan>(const planner::SearchSpace&)>& read);

  PlanningWorker worker_;
  ScenarioPtr scenario_;
  QString origin_;
  PerfModelChoice perf_model_ = PerfModelChoice::kTorchRec;
  sim::SimOptions sim_options_;
  PlanOutcomePtr outcome_;
  DisplayedPlanPtr displayed_;
  SimResultPtr simulation_;
  Status simulation_status_;
  CompareOutcomePtr comparison_;
  int rank_ = -1;
  int table_ = -1;
};

}  // namespace shardlab::gui
