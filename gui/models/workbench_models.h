// Every item model of the workbench, fed from one Workbench: each model is
// reset with the finished values the session holds when the matching signal
// arrives (scenario, outcome, shown plan, simulation, comparison). Views and
// tests take the models from here.
//
// Threading: UI thread only, like the Workbench.
#pragma once

#include <QObject>

#include "models/compare_model.h"
#include "models/measured_trace.h"
#include "models/phase_comparison_model.h"
#include "models/placement_matrix_model.h"
#include "models/proposals_model.h"
#include "models/rank_usage_model.h"
#include "models/scenario_settings_model.h"
#include "models/scenario_tables_model.h"
#include "models/table_filter_proxy.h"
#include "models/table_summary_model.h"
#include "models/timeline_model.h"
#include "models/workbench.h"

namespace shardlab::gui {

class WorkbenchModels : public QObject {
  Q_OBJECT

 public:
  explicit WorkbenchModels(Workbench* workbench, QObject* parent = nullptr);

  Workbench* workbench() const { return workbench_; }

  ScenarioTablesModel tables;
  ScenarioSettingsModel settings;
  PlacementMatrixModel placement;
  TableFilterProxy placement_filter;
  RankUsageModel ranks;
  TableSummaryModel table_summary;
  TableFilterProxy table_filter;
  ProposalsModel proposals;
  CompareModel compare;
  CompareRanksModel compare_ranks;
  TimelineModel timeline;
  PhaseComparisonModel measured_phases;
  // A profiler trace of the job (the Timeline view's "Trace..."), and it
  // beside the shown simulation: the timeline's measured lanes and the
  // `simulate --against` table.
  MeasuredTrace trace;
  TraceBeside trace_beside;

 signals:
  // Every model shows the session's current values.
  void refreshed();

 private:
  void on_scenario();
  void on_outcome();
  void on_displayed();
  void on_simulation();
  void on_comparison();

  Workbench* workbench_;
};

}  // namespace shardlab::gui
