#include "models/workbench.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringList>

#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::gui {

Workbench::Workbench(QObject* parent) : QObject(parent) {
  connect(&worker_, &PlanningWorker::planned, this, &Workbench::on_planned);
  connect(&worker_, &PlanningWorker::simulated, this, &Workbench::on_simulated);
  connect(&worker_, &PlanningWorker::compared, this, [this](const CompareOutcomePtr& c) {
    comparison_ = c;
    emit comparisonChanged();
  });
  connect(&worker_, &PlanningWorker::busyChanged, this, &Workbench::busyChanged);
  connect(&worker_, &PlanningWorker::progress, this, &Workbench::progress);
}

Status Workbench::open_scenario(const QString& path) {
  Result<planner::Scenario> loaded = data::load_scenario_file(path.toStdString());
  if (!loaded.is_ok()) {
    emit errorOccurred(QString::fromStdString(loaded.status().message()));
    return loaded.status();
  }
  set_scenario(std::make_shared<const planner::Scenario>(std::move(loaded).value()), QFileInfo(path).fileName());
  return Status::ok();
}

void Workbench::set_scenario(ScenarioPtr scenario, const QString& origin) {
  scenario_ = std::move(scenario);
  if (!origin.isEmpty()) origin_ = origin;
  if (table_ >= static_cast<int>(scenario_->tables.size())) table_ = -1;
  if (rank_ >= scenario_->topology.world_size) rank_ = -1;
  emit scenarioChanged();
  replan();
}

Result<ScenarioPtr> Workbench::edit(const data::FieldPath& path, const QString& value_json) const {
  if (!scenario_) return Status::invalid_scenario("no scenario is open");
  const std::string origin = origin_.isEmpty() ? scenario_->name : origin_.toStdString();
  Result<planner::Scenario> edited = data::edit_scenario(*scenario_, path, value_json.toStdString(), origin);
  if (!edited.is_ok()) return edited.status();
  return ScenarioPtr(std::make_shared<const planner::Scenario>(std::move(edited).value()));
}

bool Workbench::apply_edit(const data::FieldPath& path, const QString& value_json) {
  Result<ScenarioPtr> edited = edit(path, value_json);
  if (!edited.is_ok()) {
    emit editRefused(QString::fromStdString(edited.status().message()));
    return false;
  }
  set_scenario(std::move(edited).value());
  return true;
}

Status Workbench::save_scenario(const QString& path) const {
  if (!scenario_) return Status::invalid_scenario("no scenario is open");
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    return Status::io_error(path.toStdString() + ": cannot write: " + file.errorString().toStdString());
  }
  const std::string text = data::scenario_to_json(*scenario_) + "\n";
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) return Status::io_error(path.toStdString() + ": cannot write: " + file.errorString().toStdString());
  return Status::ok();
}

void Workbench::set_perf_model(PerfModelChoice choice) {
  if (perf_model_ == choice) return;
  perf_model_ = choice;
  if (scenario_) replan();
}

void Workbench::replan() {
  if (!scenario_) return;
  worker_.submit_plan(PlanJob{.scenario = scenario_, .perf_model = perf_model_, .sim_options = sim_options_});
}

void Workbench::compare() {
  if (!scenario_) return;
  worker_.submit_compare(scenario_, default_compare_variants(), sim_options_);
}

void Workbench::cancel() { worker_.cancel(); }

Status Workbench::open_plan(const QString& path) {
  std::vector<std::string> warnings;
  const Status st = show_plan([&](const planner::SearchSpace& space) {
    return data::read_plan_file(path.toStdString(), *scenario_, space, &warnings);
  });
  report_warnings(warnings);
  return st;
}

Status Workbench::open_plan_text(const QString& text, const QString& origin) {
  std::vector<std::string> warnings;
  const Status st = show_plan([&](const planner::SearchSpace& space) {
    return data::parse_plan(text.toStdString(), origin.toStdString(), *scenario_, space, &warnings);
  });
  report_warnings(warnings);
  return st;
}

void Workbench::report_warnings(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  QStringList lines;
  for (const std::string& w : warnings) lines << QString::fromStdString(w);
  emit warningsOccurred(lines.join(QLatin1Char('\n')));
}

Status Workbench::show_plan(
    const std::function<Result<planner::PartitionedPlan>(const planner::SearchSpace&)>& read) {
  if (!scenario_) return Status::invalid_scenario("open a scenario before a plan");
  worker_.cancel(/*announce=*/false);  // the plan shown supersedes any planning
  auto outcome = std::make_shared<PlanOutcome>();
  outcome->scenario = scenario_;
  outcome->result = planner::plan(*scenario_, planner::PlannerOptions{.enumerate_only = true});
  if (!outcome->result.search_space) {
    emit errorOccurred(QString::fromStdString(outcome->result.error.message()));
    return outcome->result.error;
  }
  Result<planner::PartitionedPlan> placed = read(*outcome->result.search_space);
  if (!placed.is_ok()) {
    emit errorOccurred(QString::fromStdString(placed.status().message()));
    return placed.status();
  }
  planner::PlannerResult& r = outcome->result;
  r.best = std::move(placed).value();
  planner::rate_plan(*r.search_space, *r.best, r.topology.world_size, &r.device_perf_total, &r.perf_rating);
  outcome->summary = planner::summarize_plan(*scenario_, r, *r.best);
  on_planned(outcome);
  worker_.submit_simulation(outcome_, *r.best, sim_options_);
  return Status::ok();
}

Status Workbench::planning_status() const {
  if (!outcome_) return Status::ok();
  if (outcome_->result.ok()) return Status::ok();
  if (!outcome_->result.error.is_ok()) return outcome_->result.error;
  return Status::internal("the planner returned no plan");
}

void Workbench::on_planned(const PlanOutcomePtr& outcome) {
  outcome_ = outcome;
  simulation_status_ = outcome->simulation_status;
  simulation_ = outcome->simulation ? std::make_shared<const sim::SimResult>(*outcome->simulation) : nullptr;
  if (!outcome->result.ok()) simulation_status_ = planning_status();
  emit outcomeChanged();
  show_best();
  emit simulationChanged();
}

void Workbench::show_best() {
  if (!outcome_ || !outcome_->result.ok()) {
    displayed_.reset();
    emit displayedChanged();
    return;
  }
  auto shown = std::make_shared<DisplayedPlan>();
  shown->base = outcome_;
  shown->plan = *outcome_->result.best;
  shown->summary = *outcome_->summary;
  displayed_ = std::move(shown);
  emit displayedChanged();
}

Status Workbench::select_proposal(int index) {
  if (!outcome_) return Status::invalid_scenario("no planning outcome");
  if (index < 0) {
    if (selected_proposal() < 0) return Status::ok();
    show_best();
    simulation_status_ = outcome_->simulation_status;
    simulation_ = outcome_->simulation ? std::make_shared<const sim::SimResult>(*outcome_->simulation) : nullptr;
    emit simulationChanged();
    emit selectionChanged();
    return Status::ok();
  }
  if (index >= static_cast<int>(outcome_->proposals.size())) {
    return Status::invalid_scenario("no proposal " + std::to_string(index));
  }
  const planner::ProposalRecord& record = outcome_->proposals[static_cast<size_t>(index)];
  Result<planner::ProposalPlacement> placed =
      planner::place_proposal(*outcome_->scenario, outcome_->result, record.proposal);
  if (!placed.is_ok()) {
    emit errorOccurred(QString::fromStdString(placed.status().message()));
    return placed.status();
  }
  auto shown = std::make_shared<DisplayedPlan>();
  shown->base = outcome_;
  shown->proposal = index;
  shown->plan = std::move(placed->plan);
  shown->fits = placed->fits;
  shown->overflow = std::move(placed->overflow);
  shown->summary = planner::summarize_plan(*outcome_->scenario, outcome_->result, shown->plan);
  displayed_ = std::move(shown);
  emit displayedChanged();
  emit selectionChanged();
  simulation_.reset();
  if (displayed_->fits) {
    simulation_status_ = Status::ok();
    worker_.submit_simulation(outcome_, displayed_->plan, sim_options_);
  } else {
    simulation_status_ = Status::invalid_scenario("proposal " + std::to_string(index) +
                                                  " does not fit: its relaxed placement is not simulated");
  }
  emit simulationChanged();
  return Status::ok();
}

void Workbench::on_simulated(const SimulationOutcomePtr& outcome) {
  simulation_status_ = outcome->status;
  simulation_ = outcome->simulation ? std::make_shared<const sim::SimResult>(*outcome->simulation) : nullptr;
  emit simulationChanged();
}

void Workbench::select_rank(int rank) {
  if (rank == rank_) return;
  rank_ = rank;
  emit selectionChanged();
}

void Workbench::select_table(int table) {
  if (table == table_) return;
  table_ = table;
  emit selectionChanged();
}

}  // namespace shardlab::gui
