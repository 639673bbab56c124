#include "models/displayed_plan.h"

#include "shardlab/data/file_io.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::gui {

QString plan_title(const DisplayedPlan& shown) {
  const PlanOutcome& o = *shown.base;
  switch (o.source) {
    case PlanSource::kPlanFile:
      return QStringLiteral("plan file %1").arg(QString::fromStdString(o.source_name));
    case PlanSource::kCompareRow:
      return QStringLiteral("comparison row %1").arg(QString::fromStdString(o.source_name));
    case PlanSource::kStoredRun:
      return QStringLiteral("plan of %1").arg(QString::fromStdString(o.source_name));
    case PlanSource::kPlanner:
      break;
  }
  if (shown.proposal < 0) return QStringLiteral("best plan");
  const planner::ProposalRecord& r = o.proposals[static_cast<size_t>(shown.proposal)];
  const std::vector<planner::ProposerSpec>& proposers = o.scenario->planner.proposers;
  const QString proposer =
      r.proposer >= 0 && r.proposer < static_cast<int>(proposers.size())
          ? QString::fromStdString(
                std::string(planner::to_string(proposers[static_cast<size_t>(r.proposer)].kind)))
          : QString::number(r.proposer);
  return QStringLiteral("proposal #%1 (%2)").arg(r.index).arg(proposer);
}

Result<std::shared_ptr<const planner::PlannerResult>> planner_result(
    const DisplayedPlanPtr& shown) {
  if (!shown) return Status::invalid_argument("no plan is shown");
  if (!shown->fits) {
    return Status::invalid_argument(
        "the proposal shown does not fit: its relaxed placement is not a plan");
  }
  const PlanOutcomePtr& base = shown->base;
  if (shown->proposal < 0) {
    return std::shared_ptr<const planner::PlannerResult>(base, &base->result);
  }
  return std::make_shared<const planner::PlannerResult>(
      planner::with_best_plan(base->result, shown->plan, shown->summary));
}

Status save_plan(const DisplayedPlanPtr& shown, const QString& path, bool torchrec_format) {
  Result<std::shared_ptr<const planner::PlannerResult>> result = planner_result(shown);
  if (!result.is_ok()) return result.status();
  const planner::Scenario& scenario = *shown->base->scenario;
  if (torchrec_format) SHARDLAB_RETURN_IF_ERROR(data::torchrec_buildable(**result));
  const std::string json = torchrec_format ? data::plan_to_torchrec_json(scenario, **result)
                                           : data::plan_to_json(scenario, **result);
  return data::write_output_file(path.toStdString(), json + "\n");
}

Result<data::NewRun> run_record(const DisplayedPlanPtr& shown, const sim::SimResult* simulation) {
  Result<std::shared_ptr<const planner::PlannerResult>> result = planner_result(shown);
  if (!result.is_ok()) return result.status();
  const PlanOutcome& base = *shown->base;
  const planner::Scenario& scenario = *base.scenario;
  const std::string from_plan =
      base.source == PlanSource::kPlanner ? std::string() : base.source_name;
  const std::string calibration = base.settings.calibration ? base.settings.calibration->name : "";
  data::NewRun run =
      simulation != nullptr
          ? data::simulation_run(
                scenario, **result, *simulation,
                data::SimulationRunSettings{.from_plan = from_plan, .calibration = calibration})
          : data::plan_run(scenario, **result,
                           data::PlanRunSettings{
                               .perf_model = base.settings.perf_model == PerfModelChoice::kSimulated
                                                 ? "simulated"
                                                 : "torchrec",
                               .from_plan = from_plan,
                               .calibration = calibration});
  run.scenario_json = data::scenario_to_json(scenario);
  return run;
}

}  // namespace shardlab::gui
