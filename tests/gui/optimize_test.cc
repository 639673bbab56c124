// The optimizer's row of the Compare view (search/compare_row.h): run from
// the session like the comparison, checked against the core's own search
// (search/optimizer.h) for the same scenario, seed and evaluation budget;
// cancelled with the comparison's Cancel; opened as the plan with its
// difference to TorchRec's plan; marked stale by an edit.
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "app/compare_view.h"
#include "gui_test_support.h"
#include "models/model_roles.h"
#include "shardlab/planner/placement.h"
#include "shardlab/search/compare_row.h"
#include "shardlab/search/objective.h"
#include "shardlab/search/optimizer.h"
#include "shardlab/search/problem.h"
#include "shardlab/search/report.h"
#include "shardlab/sim/compare.h"
#include "test_registry.h"

namespace shardlab::gui::test {

namespace {

// Scenarios whose tables the optimizer moves within a small budget.
constexpr const char* kScenario = "dlrm_dcnv2_criteo_1tb.json";
constexpr const char* kTinyScenario = "tiny_2gpu.json";
constexpr int64_t kBudget = 60;  // exact evaluations

// The core's search as `shardlab optimize --seed S --time-limit 0
// --max-evaluations N` runs it, from TorchRec's plan of `scenario`.
struct CoreRun {
  planner::PlannerResult start;
  std::optional<search::Problem> problem;
  search::OptimizeResult result;
};

std::unique_ptr<CoreRun> core_search(const planner::Scenario& scenario,
                                     const OptimizeRequest& request, int sim_iterations) {
  auto run = std::make_unique<CoreRun>();
  run->start = planner::plan(scenario);
  if (!run->start.ok()) return nullptr;
  Result<search::Problem> problem = search::Problem::create(scenario, run->start);
  if (!problem.is_ok()) return nullptr;
  run->problem = *problem;
  Result<std::unique_ptr<search::Objective>> objective = search::make_simulated_objective(
      *run->problem, sim::SimOptions{.iterations = sim_iterations, .record_phases = false});
  if (!objective.is_ok()) return nullptr;
  Result<search::OptimizeResult> result =
      search::optimize(*run->problem, **objective, *run->start.best,
                       search::OptimizeOptions{.seed = request.seed,
                                               .time_limit_s = request.time_limit_s,
                                               .max_evaluations = request.max_evaluations});
  if (!result.is_ok()) return nullptr;
  run->result = std::move(result).value();
  return run;
}

int lowest_iteration_row(const sim::Comparison& c) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(c.rows.size()); ++i) {
    const sim::CompareRow& r = c.rows[static_cast<size_t>(i)];
    if (!r.iteration_ms) continue;
    if (best < 0 || *r.iteration_ms < *c.rows[static_cast<size_t>(best)].iteration_ms) best = i;
  }
  return best;
}

}  // namespace

class OptimizeTest : public QObject {
  Q_OBJECT

 private slots:
  void init() { fail_on_warnings(); }

  // With no comparison on screen, Optimize gives two rows: the scenario as
  // configured (TorchRec's plan, the start) and the optimizer's, whose plan
  // and simulated time are the core search's for the same seed and budget.
  void optimizer_row_is_the_cores_search() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, kScenario));
    const OptimizeRequest request{.seed = 7, .time_limit_s = 0, .max_evaluations = kBudget};
    wb.optimize(request);
    QVERIFY(wb.worker().optimizing());
    QVERIFY(wait_for_compare(wb));
    const CompareOutcomePtr c = wb.comparison().outcome();
    QCOMPARE(models.compare.rowCount(), 2);
    QCOMPARE(c->optimizer_row, 1);
    QVERIFY(c->optimizer != nullptr);
    QVERIFY(search::is_optimizer_config(models.compare.row(1)->config));
    QVERIFY(!search::is_optimizer_config(models.compare.row(0)->config));

    const std::unique_ptr<CoreRun> core =
        core_search(*wb.scenario(), request, wb.settings().sim_iterations);
    QVERIFY(core != nullptr);
    QVERIFY(
        !core->result.moved.empty());  // the budget moves tables: the row differs from TorchRec's
    const sim::CompareRow& row = *models.compare.row(1);
    QVERIFY(row.status.is_ok());
    QCOMPARE(row.plan->proposal, core->result.best.proposal);
    QCOMPARE(row.plan->ranks, core->result.best.ranks);
    QCOMPARE(*row.iteration_ms, core->result.best_value);
    QCOMPARE(models.compare.index(1, CompareModel::kIterationMs).data(RawValueRole).toDouble(),
             core->result.best_value);
    QCOMPARE(c->optimizer->result.evaluations, core->result.evaluations);
    QCOMPARE(c->optimizer->result.moved.size(), core->result.moved.size());
    // The start row is TorchRec's plan: the session's own.
    QCOMPARE(*models.compare.row(0)->torchrec_rating_ms, wb.outcome()->result.perf_rating);
    QCOMPARE(*models.compare.row(0)->iteration_ms, core->result.start_value);

    // The summary is the core's (what `shardlab optimize` prints).
    Result<search::OptimizeSummary> summary =
        search::summarize(*core->problem, core->result, &core->start,
                          sim::SimOptions{.iterations = wb.settings().sim_iterations});
    QVERIFY(summary.is_ok());
    QCOMPARE(c->optimizer->summary.best.simulated_ms, summary->best.simulated_ms);
    QCOMPARE(c->optimizer->summary.best.torchrec_ms, summary->best.torchrec_ms);
    QCOMPARE(c->optimizer->summary.torchrec->simulated_ms, summary->torchrec->simulated_ms);
    QCOMPARE(c->optimizer->summary.best.torchrec_ms, *row.torchrec_rating_ms);

    // Rated like every row: the winner is the lowest simulated time, and
    // the other row states its difference to it.
    QCOMPARE(models.compare.winner(), lowest_iteration_row(c->comparison));
    const int winner = models.compare.winner();
    const int other = 1 - winner;
    QCOMPARE(*models.compare.row(other)->iteration_vs_winner,
             sim::relative_change(*models.compare.row(winner)->iteration_ms,
                                  *models.compare.row(other)->iteration_ms));
    QCOMPARE(models.compare.index(winner, CompareModel::kStatus).data(WinnerRole).toBool(), true);

    // Opened, the row is the plan shown, with its difference to TorchRec's plan.
    QVERIFY(wb.open_compare_row(1).is_ok());
    QCOMPARE(wb.displayed()->plan.ranks, core->result.best.ranks);
    QVERIFY(wb.last_change().has_value());
    const PlanChange& change = *wb.last_change();
    std::vector<std::string> moved;
    std::vector<std::string> details;
    for (const search::TableMove& m : core->result.moved) {
      moved.push_back(m.name);
      details.push_back(search::move_text(*core->problem, m));
    }
    QCOMPARE(change.moved_tables, moved);
    QCOMPARE(change.moved_details, details);
    QCOMPARE(*change.iteration_before, *models.compare.row(0)->iteration_ms);
    QCOMPARE(*change.iteration_after, core->result.best_value);
    QCOMPARE(change.rating_before, *models.compare.row(0)->torchrec_rating_ms);
    const QString text = describe_change(change);
    QVERIFY2(text.contains(QString::fromStdString(moved.front())), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("\u2192")), qPrintable(text));
    // The moved tables are those the plans place differently (planner::diff_plans,
    // in plan order; the search lists them by their share of the gain).
    const planner::PlanSummary before =
        planner::summarize_plan(*wb.scenario(), core->start, core->result.start);
    const planner::PlanSummary after =
        planner::summarize_plan(*wb.scenario(), core->start, core->result.best);
    std::vector<std::string> differ = planner::diff_plans(before, after).moved_tables;
    std::vector<std::string> listed = moved;
    std::sort(differ.begin(), differ.end());
    std::sort(listed.begin(), listed.end());
    QCOMPARE(differ, listed);
    QTRY_VERIFY(wb.simulation() != nullptr);
    QCOMPARE(wb.simulation()->iteration_ms, core->result.best_value);

    // An edit makes the optimizer's row stale like every row; it cannot be opened.
    QVERIFY(wb.document().apply_edit(data::FieldPath{std::string("batch_size")},
                                     QStringLiteral("4096")));
    QVERIFY(wb.compare_state().stale());
    QCOMPARE(models.compare.rowCount(), 2);
    QVERIFY(!wb.open_compare_row(1).is_ok());
  }

  // After a complete comparison, the optimizer's row joins it: the other rows
  // stay as they were, the winner and differences are taken again.
  void optimizer_row_joins_the_comparison() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, kTinyScenario));
    wb.compare();
    QVERIFY(wait_for_compare(wb));
    const CompareOutcomePtr before = wb.comparison().outcome();
    const int rows = static_cast<int>(before->grid.size());
    wb.optimize(OptimizeRequest{.seed = 7, .time_limit_s = 0, .max_evaluations = kBudget});
    QVERIFY(wait_for_compare(wb));
    const CompareOutcomePtr after = wb.comparison().outcome();
    QCOMPARE(models.compare.rowCount(), rows + 1);
    QCOMPARE(after->optimizer_row, rows);
    for (int i = 0; i < rows; ++i) {
      QCOMPARE(after->comparison.rows[static_cast<size_t>(i)].label,
               before->comparison.rows[static_cast<size_t>(i)].label);
      QCOMPARE(after->comparison.rows[static_cast<size_t>(i)].iteration_ms,
               before->comparison.rows[static_cast<size_t>(i)].iteration_ms);
    }
    QCOMPARE(after->comparison.winner, lowest_iteration_row(after->comparison));
    const sim::CompareRow& w =
        after->comparison.rows[static_cast<size_t>(after->comparison.winner)];
    for (const sim::CompareRow& r : after->comparison.rows) {
      if (r.iteration_ms)
        QCOMPARE(*r.iteration_vs_winner, sim::relative_change(*w.iteration_ms, *r.iteration_ms));
    }
    // Optimizing again replaces the row rather than adding one.
    wb.optimize(OptimizeRequest{.seed = 8, .time_limit_s = 0, .max_evaluations = 10});
    QVERIFY(wait_for_compare(wb));
    QCOMPARE(models.compare.rowCount(), rows + 1);
    QVERIFY(
        QString::fromStdString(models.compare.row(rows)->label).contains(QStringLiteral("seed 8")));
  }

  // Cancel stops the search and keeps its best plan so far, which fits and
  // is measured as a row; the progress reported the search as it ran.
  void cancel_keeps_the_best_plan_so_far() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "large_synthetic_8x8.json"));
    QSignalSpy progress(&wb.comparison(), &Comparison::progress);
    wb.optimize(OptimizeRequest{.seed = 1, .time_limit_s = 600, .max_evaluations = 0});
    // Wait for the search itself (after TorchRec's start plan) to report.
    QElapsedTimer clock;
    clock.start();
    bool searching = false;
    while (!searching && clock.elapsed() < 120000) {
      QTest::qWait(20);
      for (const QList<QVariant>& p : progress) {
        if (p.at(1).toString().contains(QStringLiteral("optimizing:"))) searching = true;
      }
    }
    QVERIFY(searching);
    QVERIFY(wb.worker().optimizing());
    wb.cancel_compare();
    QVERIFY(wait_for_compare(wb, 60000));
    const CompareOutcomePtr c = wb.comparison().outcome();
    QVERIFY(!c->cancelled);
    QCOMPARE(c->optimizer_row, 1);
    QVERIFY(c->optimizer != nullptr);
    QCOMPARE(c->optimizer->result.stop, search::StopReason::kCancelled);
    QVERIFY(c->optimizer->result.wall_seconds < 300);
    const sim::CompareRow& row = c->comparison.rows[1];
    QVERIFY(row.status.is_ok());
    QVERIFY(row.plan.has_value());
    QCOMPARE(*row.iteration_ms, c->optimizer->summary.best.simulated_ms);
    QVERIFY(*row.iteration_ms <= *c->comparison.rows[0].iteration_ms);
    // The plan kept fits every rank after the reservation.
    const planner::PlannerResult start = planner::plan(*wb.scenario());
    Result<search::Problem> problem = search::Problem::create(*wb.scenario(), start);
    QVERIFY(problem.is_ok());
    const Status fits = planner::check_plan_fits(problem->space(), *row.plan, problem->topology(),
                                                 problem->capacity());
    QVERIFY2(fits.is_ok(), fits.message().c_str());
    QVERIFY(wb.compare_state().current());
    QVERIFY(wb.open_compare_row(1).is_ok());
  }

  // The view: Optimize with the time limit chosen adds the row and states
  // the search's summary.
  void compare_view_runs_the_optimizer() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, kTinyScenario));
    CompareView view(&models);
    QCOMPARE(view.time_limit()->value(), search::OptimizeOptions{}.time_limit_s);
    QCOMPARE(view.seed()->value(), 1);
    view.time_limit()->setValue(0.5);
    QVERIFY(view.optimize_button()->isEnabled());
    QTest::mouseClick(view.optimize_button(), Qt::LeftButton);
    QVERIFY(wb.worker().optimizing());
    QVERIFY(wait_for_compare(wb));
    QCOMPARE(models.compare.rowCount(), 2);
    QVERIFY(QString::fromStdString(models.compare.row(1)->label)
                .contains(QStringLiteral("optimized (seed 1, 0.5 s)")));
    QVERIFY2(view.summary_text().contains(QStringLiteral("Optimizer (#2)")),
             qPrintable(view.summary_text()));
  }

  // A running row's progress line (long) does not push the results off
  // screen: the Status column stays narrow and the line is its tooltip.
  void compare_status_stays_narrow_while_rows_run() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, kTinyScenario));
    CompareView view(&models);
    CompareOutcome running;
    running.scenario = wb.scenario();
    running.grid = sim::default_compare_grid();
    running.running_row = 0;
    running.running_status =
        "greedy proposer: 12,345 of about 15,000 proposals evaluated, 3,071 plans found, best "
        "rating 41.79 ms so far, 2.1 s elapsed of the row's planning, simulating the best plan "
        "next";
    models.compare.reset(running);
    QVERIFY2(view.status_width() <= CompareView::kMaxStatusWidth,
             qPrintable(QString::number(view.status_width())));
    QCOMPARE(models.compare.data(models.compare.index(0, CompareModel::kStatus), Qt::ToolTipRole)
                 .toString()
                 .toStdString(),
             running.running_status);
  }
};

SHARDLAB_REGISTER_GUI_TEST(OptimizeTest)

}  // namespace shardlab::gui::test

#include "optimize_test.moc"
