#include "models/workbench.h"

#include <QFileInfo>
#include <QStringList>

#include "models/units.h"
#include "shardlab/data/file_io.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"
#include "shardlab/planner/placement_fit.h"
#include "shardlab/search/report.h"

namespace shardlab::gui {

QString describe_change(const PlanChange& c) {
  const auto pct = [](double a, double b) { return format_percent(sim::relative_change(a, b)); };
  QStringList parts;
  if (c.same_rating_model) {
    parts << QStringLiteral("rating %1 \u2192 %2 ms (%3)")
                 .arg(c.rating_before, 0, 'f', 5)
                 .arg(c.rating_after, 0, 'f', 5)
                 .arg(pct(c.rating_before, c.rating_after));
  }
  if (c.iteration_before && c.iteration_after) {
    parts << QStringLiteral("simulated iteration %1 \u2192 %2 ms (%3)")
                 .arg(*c.iteration_before, 0, 'f', 5)
                 .arg(*c.iteration_after, 0, 'f', 5)
                 .arg(pct(*c.iteration_before, *c.iteration_after));
  }
  parts << QStringLiteral("peak HBM %1 \u2192 %2 (%3)")
               .arg(format_bytes(static_cast<double>(c.peak_hbm_before)),
                    format_bytes(static_cast<double>(c.peak_hbm_after)))
               .arg(pct(static_cast<double>(c.peak_hbm_before),
                        static_cast<double>(c.peak_hbm_after)));
  QString moved;
  if (c.moved_tables.empty()) {
    moved = QStringLiteral("no table moved");
  } else {
    // Names, or from what to what where known.
    const std::vector<std::string>& items =
        c.moved_details.empty() ? c.moved_tables : c.moved_details;
    QStringList names;
    for (size_t i = 0; i < items.size() && i < 12; ++i) {
      names << QString::fromStdString(items[i])
                   .replace(QStringLiteral("->"), QStringLiteral("\u2192"))
                   .toHtmlEscaped();
    }
    if (items.size() > 12) names << QStringLiteral("...");
    moved = QStringLiteral("%1 table(s) moved: %2")
                .arg(c.moved_tables.size())
                .arg(names.join(QStringLiteral(", ")));
  }
  return QStringLiteral("After <i>%1</i>: %2; %3.")
      .arg(c.cause.toHtmlEscaped(), parts.join(QStringLiteral(", ")), moved);
}

Workbench::Workbench(QObject* parent) : QObject(parent) {
  connect(&document_, &ScenarioDocument::scenarioChanged, this, &Workbench::on_document_changed);
  connect(&worker_, &PlanningWorker::planned, this, &Workbench::on_planned);
  connect(&worker_, &PlanningWorker::simulated, this, &Workbench::on_simulated);
  connect(&worker_, &PlanningWorker::compared, this, [this](const CompareOutcomePtr& outcome) {
    comparison_.set_outcome(outcome);
    emit freshnessChanged();
  });
  connect(&worker_, &PlanningWorker::busyChanged, this, [this](bool busy) {
    emit busyChanged(busy);
    emit freshnessChanged();
  });
  connect(&worker_, &PlanningWorker::progress, this, &Workbench::progress);
  connect(&worker_, &PlanningWorker::compareProgress, &comparison_, &Comparison::progress);
}

void Workbench::on_document_changed(bool replaced) {
  selection_.fit(*scenario());
  if (replaced) {
    // Results of another document never stay on screen.
    worker_.cancel(/*announce=*/false);
    clear_results();
    pending_cause_.clear();
  } else {
    pending_cause_ = document_.last_change();
  }
  // Planning starts first: the views update while it runs.
  replan();
  emit scenarioChanged();
  emit freshnessChanged();
}

void Workbench::clear_results() {
  outcome_.reset();
  displayed_.reset();
  simulation_.reset();
  simulation_status_ = Status::ok();
  change_.reset();
  emit outcomeChanged();
  emit displayedChanged();
  emit simulationChanged();
  comparison_.set_outcome(nullptr);
  emit changeExplained();
}

void Workbench::set_perf_model(PerfModelChoice choice) {
  if (settings_.perf_model == choice) return;
  settings_.perf_model = choice;
  pending_cause_ = choice == PerfModelChoice::kTorchRec
                       ? QStringLiteral("Rate plans with TorchRec's model")
                       : QStringLiteral("Rate plans by simulated iteration time");
  emit freshnessChanged();
  if (scenario()) replan();
}

void Workbench::set_calibration(ProfilePtr profile) {
  if (settings_.calibration == profile) return;
  settings_.calibration = std::move(profile);
  pending_cause_ = settings_.calibration
                       ? QStringLiteral("Plan with profile %1")
                             .arg(QString::fromStdString(settings_.calibration->name))
                       : QStringLiteral("Plan with TorchRec's constants");
  emit freshnessChanged();
  if (scenario()) replan();
}

void Workbench::replan() {
  if (!scenario()) return;
  const int expected = outcome_ ? outcome_->result.num_proposals : 0;
  worker_.submit_plan(
      PlanJob{.scenario = scenario(), .settings = settings_, .expected_proposals = expected});
  emit freshnessChanged();
}

void Workbench::compare() {
  if (!scenario()) return;
  worker_.submit_compare(scenario(), settings_, comparison_.grid());
  emit freshnessChanged();
}

void Workbench::optimize(const OptimizeRequest& request) {
  if (!scenario()) return;
  const CompareOutcomePtr& rows = comparison_.outcome();
  const bool keep = rows && rows->complete && compare_state().current();
  worker_.submit_optimize(scenario(), settings_, keep ? rows : nullptr, request);
  emit freshnessChanged();
}

void Workbench::cancel() {
  cancel_with([this] { worker_.cancel(); });
}

void Workbench::cancel_compare() {
  cancel_with([this] { worker_.cancel_compare(); });
}

void Workbench::cancel_with(const std::function<void()>& cancel) {
  // An optimization stops and delivers its best plan: its rows are not cancelled.
  const bool comparing = worker_.comparing() && !worker_.optimizing();
  cancel();
  if (comparing) comparison_.mark_cancelled();
  emit freshnessChanged();
}

Status Workbench::open_plan(const QString& path) {
  return show_read_plan(
      [&](planner::SearchSpace& space, std::vector<std::string>* warnings) {
        return data::read_plan_file(path.toStdString(), *scenario(), space, warnings);
      },
      PlanSource::kPlanFile, QFileInfo(path).fileName().toStdString());
}

Status Workbench::open_plan_text(const QString& text, const QString& origin) {
  return open_parsed_plan(text, origin, PlanSource::kPlanFile, origin.toStdString(), nullptr);
}

Status Workbench::open_run_plan(const QString& text, const QString& origin, const QString& name,
                                std::shared_ptr<const kernels::ReplayResult> replay) {
  return open_parsed_plan(text, origin, PlanSource::kStoredRun, name.toStdString(),
                          std::move(replay));
}

Status Workbench::open_parsed_plan(const QString& text, const QString& origin, PlanSource source,
                                   const std::string& name,
                                   std::shared_ptr<const kernels::ReplayResult> replay) {
  return show_read_plan(
      [&](planner::SearchSpace& space, std::vector<std::string>* warnings) {
        return data::parse_plan(text.toStdString(), origin.toStdString(), *scenario(), space,
                                warnings);
      },
      source, name, std::move(replay));
}

Status Workbench::show_read_plan(const std::function<Result<planner::PartitionedPlan>(
                                     planner::SearchSpace&, std::vector<std::string>*)>& read,
                                 PlanSource source, const std::string& name,
                                 std::shared_ptr<const kernels::ReplayResult> replay) {
  std::vector<std::string> warnings;
  const Status st = show_plan([&](planner::SearchSpace& space) { return read(space, &warnings); },
                              source, name, std::move(replay));
  report_warnings(warnings);
  return st;
}

void Workbench::report_warnings(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  QStringList lines;
  for (const std::string& w : warnings) lines << QString::fromStdString(w);
  emit warningsOccurred(lines.join(QLatin1Char('\n')));
}

Status Workbench::open_compare_row(int row) {
  Result<planner::PartitionedPlan> plan = comparison_.row_plan(row, compare_state());
  if (!plan.is_ok()) return plan.status();
  const CompareOutcomePtr comparison = comparison_.outcome();
  const std::string& label = comparison->comparison.rows[static_cast<size_t>(row)].label;
  const Status shown = show_plan(
      [&](planner::SearchSpace& space) -> Result<planner::PartitionedPlan> {
        if (Status st = Comparison::check_row_plan(*plan, space); !st) return st;
        return *plan;
      },
      PlanSource::kCompareRow, "#" + std::to_string(row + 1) + " " + label);
  if (!shown.is_ok() || row != comparison->optimizer_row || !comparison->optimizer) return shown;
  // The optimizer's plan against TorchRec's, its start, as an edit's change is shown.
  const search::OptimizerRun& run = *comparison->optimizer;
  const search::PlanRating& before = run.summary.reference();
  PlanChange c;
  c.cause = QStringLiteral("optimizing TorchRec's plan (%1)")
                .arg(QString::fromStdString(search::search_text(run.result)));
  c.rating_before = before.torchrec_ms;
  c.rating_after = run.summary.best.torchrec_ms;
  c.iteration_before = before.simulated_ms;
  c.iteration_after = run.summary.best.simulated_ms;
  c.peak_hbm_before =
      planner::summarize_plan(*scenario(), outcome_->result, run.result.start).peak_shard_hbm;
  c.peak_hbm_after = outcome_->summary->peak_shard_hbm;
  for (const search::TableMove& m : run.result.moved) c.moved_tables.push_back(m.name);
  c.moved_details = run.moves;
  change_ = std::move(c);
  emit changeExplained();
  return shown;
}

Status Workbench::show_plan(
    const std::function<Result<planner::PartitionedPlan>(planner::SearchSpace&)>& read,
    PlanSource source, const std::string& source_name,
    std::shared_ptr<const kernels::ReplayResult> replay) {
  if (!scenario()) return Status::invalid_argument("open a scenario before a plan");
  worker_.cancel(/*announce=*/false);  // the plan shown supersedes any planning
  auto outcome = std::make_shared<PlanOutcome>();
  outcome->scenario = scenario();
  outcome->settings = settings_;
  outcome->source = source;
  outcome->source_name = source_name;
  outcome->replay = std::move(replay);
  outcome->result = planner::rate_placement(*scenario(), read, settings_.parameters());
  planner::PlannerResult& r = outcome->result;
  // The rule of every front end: a plan over the GPUs' capacity is refused.
  (void)planner::refuse_over_capacity(
      r, source_name, /*allow=*/false,
      "make the plan fit (the command line's --allow-over-capacity runs it all the same)");
  if (!r.ok()) {
    emit freshnessChanged();
    return r.failure();
  }
  outcome->summary = planner::summarize_plan(*scenario(), r, *r.best);
  pending_cause_.clear();
  on_planned(outcome);
  worker_.submit_simulation(outcome_, *r.best);
  return Status::ok();
}

Status Workbench::planning_status() const {
  if (!outcome_) return Status::ok();
  if (outcome_->result.ok()) return Status::ok();
  return outcome_->result.failure();
}

ResultState Workbench::plan_state() const {
  ResultState s;
  s.refreshing = worker_.planning();
  if (!outcome_) {
    s.reason = !scenario()    ? QStringLiteral("no scenario is open")
               : s.refreshing ? QStringLiteral("planning")
                              : QStringLiteral("not planned");
    return s;
  }
  if (outcome_->scenario != scenario()) {
    s.freshness = ResultState::Freshness::kStale;
    s.reason = QStringLiteral("the scenario changed after this plan was made");
    return s;
  }
  const QString settings = settings_difference(outcome_->settings, settings_);
  s.freshness =
      settings.isEmpty() ? ResultState::Freshness::kCurrent : ResultState::Freshness::kStale;
  s.reason = settings;
  return s;
}

ResultState Workbench::compare_state() const {
  return comparison_.state(scenario(), settings_, worker_.comparing());
}

void Workbench::on_planned(const PlanOutcomePtr& outcome) {
  const PlanOutcomePtr before = outcome_;
  const SimResultPtr before_sim =
      displayed_ && displayed_->proposal < 0 && before ? simulation_ : nullptr;
  outcome_ = outcome;
  simulation_status_ = outcome->simulation_status;
  simulation_ =
      outcome->simulation ? std::make_shared<const sim::SimResult>(*outcome->simulation) : nullptr;
  if (!outcome->result.ok()) simulation_status_ = planning_status();
  // What this re-plan changed against the best plan shown before it.
  change_.reset();
  if (before && before->summary && outcome->summary && !pending_cause_.isEmpty() &&
      before->source == PlanSource::kPlanner && outcome->source == PlanSource::kPlanner) {
    PlanChange c;
    c.cause = pending_cause_;
    c.rating_before = before->result.perf_rating;
    c.rating_after = outcome->result.perf_rating;
    c.same_rating_model = before->settings.perf_model == outcome->settings.perf_model;
    if (before_sim) c.iteration_before = before_sim->iteration_ms;
    if (outcome->simulation) c.iteration_after = outcome->simulation->iteration_ms;
    c.peak_hbm_before = before->summary->peak_shard_hbm;
    c.peak_hbm_after = outcome->summary->peak_shard_hbm;
    c.moved_tables = planner::diff_plans(*before->summary, *outcome->summary).moved_tables;
    change_ = std::move(c);
  }
  pending_cause_.clear();
  emit outcomeChanged();
  show_best();
  emit simulationChanged();
  emit changeExplained();
  emit freshnessChanged();
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
  if (!outcome_) return Status::invalid_argument("no planning outcome");
  if (index < 0) {
    if (selected_proposal() < 0) return Status::ok();
    show_best();
    simulation_status_ = outcome_->simulation_status;
    simulation_ = outcome_->simulation
                      ? std::make_shared<const sim::SimResult>(*outcome_->simulation)
                      : nullptr;
    emit simulationChanged();
    return Status::ok();
  }
  if (index >= static_cast<int>(outcome_->proposals.size())) {
    return Status::invalid_argument("no proposal " + std::to_string(index));
  }
  Result<planner::ProposalPlacement> placed =
      planner::place_proposal(*outcome_->scenario, outcome_->result,
                              outcome_->proposals.proposal(static_cast<size_t>(index)));
  if (!placed.is_ok()) return placed.status();
  auto shown = std::make_shared<DisplayedPlan>();
  shown->base = outcome_;
  shown->proposal = index;
  shown->plan = std::move(placed->plan);
  shown->fits = placed->fits;
  shown->overflow = std::move(placed->overflow);
  shown->torchrec_rating = placed->torchrec_rating;
  shown->summary = planner::summarize_plan(*outcome_->scenario, outcome_->result, shown->plan);
  displayed_ = std::move(shown);
  emit displayedChanged();
  simulation_.reset();
  if (displayed_->fits) {
    simulation_status_ = Status::ok();
    worker_.submit_simulation(outcome_, displayed_->plan);
  } else {
    simulation_status_ =
        Status::invalid_argument("proposal " + std::to_string(index) +
                                 " does not fit: its relaxed placement is not simulated");
  }
  emit simulationChanged();
  return Status::ok();
}

void Workbench::on_simulated(const SimulationOutcomePtr& outcome) {
  simulation_status_ = outcome->status;
  simulation_ =
      outcome->simulation ? std::make_shared<const sim::SimResult>(*outcome->simulation) : nullptr;
  emit simulationChanged();
}

}  // namespace shardlab::gui
