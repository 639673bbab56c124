#include "models/workbench_models.h"

#include "shardlab/sim/iteration_traffic.h"

namespace shardlab::gui {

WorkbenchModels::WorkbenchModels(Workbench* workbench, QObject* parent)
    : QObject(parent),
      tables([workbench](const data::FieldPath& p, const QString& v) {
        return workbench->document().validate_edit(p, v);
      }),
      settings([workbench](const data::FieldPath& p, const QString& v) {
        return workbench->document().validate_edit(p, v);
      }),
      workbench_(workbench) {
  placement_filter.setSourceModel(&placement);
  table_filter.setSourceModel(&table_summary);
  // An accepted edit becomes the session's scenario as an undoable step (and
  // is re-planned); a refused one is reported by the document like any other
  // refusal.
  connect(&tables, &ScenarioTablesModel::scenarioEdited, &workbench->document(),
          &ScenarioDocument::apply_field_edit);
  connect(&settings, &ScenarioSettingsModel::scenarioEdited, &workbench->document(),
          &ScenarioDocument::apply_field_edit);
  connect(&tables, &ScenarioTablesModel::editRefused, &workbench->document(),
          &ScenarioDocument::editRefused);
  connect(&settings, &ScenarioSettingsModel::editRefused, &workbench->document(),
          &ScenarioDocument::editRefused);

  connect(workbench, &Workbench::scenarioChanged, this, &WorkbenchModels::on_scenario);
  connect(workbench, &Workbench::outcomeChanged, this, &WorkbenchModels::on_outcome);
  connect(workbench, &Workbench::displayedChanged, this, &WorkbenchModels::on_displayed);
  connect(workbench, &Workbench::simulationChanged, this, &WorkbenchModels::on_simulation);
  connect(&workbench->comparison(), &Comparison::changed, this, &WorkbenchModels::on_comparison);
  connect(&trace, &MeasuredTrace::changed, this, &WorkbenchModels::on_simulation);
  if (workbench->scenario()) on_scenario();
}

void WorkbenchModels::on_scenario() {
  tables.reset(workbench_->scenario());
  settings.reset(workbench_->scenario());
}

void WorkbenchModels::on_outcome() {
  const PlanOutcomePtr& o = workbench_->outcome();
  if (o) {
    proposals.reset(*o);
  } else {
    proposals.clear();
  }
}

void WorkbenchModels::on_displayed() {
  const DisplayedPlanPtr& d = workbench_->displayed();
  if (!d) {
    placement.clear();
    ranks.clear();
    table_summary.clear();
  } else {
    const planner::Scenario& s = *d->base->scenario;
    placement.reset(d->summary, d->overflow,
                    s.topology.local_world_size.value_or(s.topology.world_size));
    ranks.reset(d->summary);
    table_summary.reset(d->summary);
  }
  emit refreshed();
}

void WorkbenchModels::on_simulation() {
  const SimResultPtr& s = workbench_->simulation();
  ranks.reset_simulation(s.get());
  trace_beside = s ? trace.beside(*s) : TraceBeside{};
  if (s) {
    timeline.reset(*s, trace_beside.timeline.is_ok() ? &*trace_beside.timeline : nullptr);
  } else {
    timeline.clear();
  }
  // A replay run's measurements beside the simulation of its plan.
  const DisplayedPlanPtr& d = workbench_->displayed();
  measured_phases.clear();
  if (s && d && d->base->replay && d->base->result.search_space) {
    Result<sim::IterationTraffic> traffic =
        sim::iteration_traffic(*d->base->scenario, *d->base->result.search_space, d->plan);
    if (traffic.is_ok())
      measured_phases.reset(kernels::compare_phases(*d->base->replay, traffic->ranks, s.get()));
  }
  emit refreshed();
}

void WorkbenchModels::on_comparison() {
  const CompareOutcomePtr& c = workbench_->comparison().outcome();
  if (c) {
    compare.reset(*c);
    compare_ranks.reset(*c);
  } else {
    compare.clear();
    compare_ranks.clear();
  }
}

}  // namespace shardlab::gui
