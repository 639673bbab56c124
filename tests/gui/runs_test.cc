// The Runs and Calibration views' data: a run store written through data/'s
// own API, listed, opened in the workbench, diffed, and a calibration's
// predictions set against its measurements.
#include <QFile>
#include <QObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "app/calibration_view.h"
#include "app/main_window.h"
#include "gui_test_support.h"
#include "models/calibration_models.h"
#include "models/model_roles.h"
#include "models/run_browser.h"
#include "models/runs_model.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/scenario_edit.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"
#include "shardlab/kernels/calibration.h"
#include "shardlab/kernels/phase_report.h"
#include "shardlab/sim/iteration_traffic.h"
#include "test_registry.h"

namespace shardlab::gui::test {

class RunsTest : public QObject {
  Q_OBJECT

 private:
  struct Store {
    QString path;
    int64_t plan_a = 0, plan_b = 0, replay = 0, calibrate = 0;
    std::vector<kernels::Measurement> measurements;
  };

  static data::NewRun plan_run(const planner::Scenario& s) {
    const planner::PlannerResult r = planner::plan(s);
    data::NewRun run;
    run.kind = data::RunKind::kPlan;
    run.scenario_name = s.name;
    run.scenario_json = data::scenario_to_json(s);
    run.plan_json = data::plan_to_json(s, r);
    run.summary_json = data::summary_json({{"rating_ms", r.perf_rating}});
    run.estimates = data::estimate_rows(*r.search_space, *r.best);
    return run;
  }

  // Lookups whose time is 0.01 ms + model bytes at 100 MB/ms, and
  // intra-host collectives at 0.005 ms + bytes at 50 MB/ms.
  static std::vector<kernels::Measurement> measurements() {
    std::vector<kernels::Measurement> out;
    for (int i = 0; i < 12; ++i) {
      kernels::Measurement m;
      m.rank = i % 2;
      m.phase = sim::Phase::kFwdCompute;
      m.option = i;
      m.shard = 0;
      m.table = QStringLiteral("t%1").arg(i).toStdString();
      m.compute_kernel = planner::ComputeKernel::kFused;
      m.dim = 128;
      m.bags = 512;
      m.pooling_factor = 4;
      m.model_bytes = 1e6 * (i + 1);
      m.bytes = m.model_bytes;
      m.timing = kernels::summarize({0.01 + m.model_bytes / 1e8});
      out.push_back(m);
    }
    for (int i = 0; i < 12; ++i) {
      kernels::Measurement m;
      m.rank = i % 2;
      m.phase = sim::Phase::kOutputDist;
      m.collective = i;
      m.members = 2;
      m.bytes = 5e5 * (i + 1);
      m.model_bytes = m.bytes;
      m.timing = kernels::summarize({0.005 + m.bytes / 5e7});
      out.push_back(m);
    }
    return out;
  }

  static Store make_store(const QString& path) {
    Store st;
    st.path = path;
    auto store = data::RunStore::open(path.toStdString());
    if (!store.is_ok()) qFatal("%s", store.status().message().c_str());
    auto tiny = data::load_scenario_file(scenario_path("tiny_2gpu.json").toStdString());
    st.plan_a = *store->add_run(plan_run(*tiny));
    auto row_wise = data::edit_scenario(*tiny, {"constraints", "user_id", "sharding_types"},
                                        "[\"row_wise\"]", "t");
    st.plan_b = *store->add_run(plan_run(*row_wise));
    data::NewRun replay;
    replay.kind = data::RunKind::kReplay;
    replay.scenario_name = tiny->name;
    replay.scenario_json = data::scenario_to_json(*tiny);
    replay.backend = "cpu";
    {
      const planner::PlannerResult r = planner::plan(*tiny);
      replay.plan_json = data::plan_to_json(*tiny, r);
    }
    st.measurements = measurements();
    replay.measurements = st.measurements;
    st.replay = *store->add_run(replay);
    auto fit = kernels::fit_calibration(st.measurements);
    if (!fit.is_ok()) qFatal("%s", fit.status().message().c_str());
    const data::CalibrationProfile profile =
        data::make_profile(*fit, "test-fit", "2025-01-01T00:00:00Z", "cpu", {st.replay});
    data::NewRun calibrate;
    calibrate.kind = data::RunKind::kCalibrate;
    calibrate.inputs = {st.replay};
    calibrate.summary_json = data::summary_json(
        {{"profile", std::string("test-fit")}, {"holdout_fraction", 0.2}, {"seed", int64_t{1}}});
    calibrate.label = "first fit";
    calibrate.calibration = data::CalibrationRow{.name = "test-fit",
                                                 .profile_json = data::calibration_to_json(profile),
                                                 .mape_before = profile.mape_before.value_or(0),
                                                 .mape_after = profile.mape_after.value_or(0),
                                                 .fit_count = profile.fit_count,
                                                 .held_out_count = profile.held_out};
    st.calibrate = *store->add_run(calibrate);
    return st;
  }

 private slots:
  void init() { fail_on_warnings(); }

  void lists_opens_and_diffs_runs() {
    QTemporaryDir dir;
    const Store st = make_store(dir.filePath(QStringLiteral("runs.db")));
    Workbench wb;
    WorkbenchModels models(&wb);
    RunBrowser browser(&wb);
    RunsModel runs;
    QAbstractItemModelTester tester(&runs, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QObject::connect(&browser, &RunBrowser::runsChanged, &runs,
                     [&]() { runs.reset(browser.runs()); });
    QVERIFY(browser.open(st.path).is_ok());
    QCOMPARE(runs.rowCount(), 4);
    QCOMPARE(runs.index(0, RunsModel::kId).data(RawValueRole).toLongLong(),
             st.calibrate);  // newest first
    QCOMPARE(runs.index(3, RunsModel::kKind).data().toString(), QStringLiteral("plan"));
    QCOMPARE(runs.index(0, RunsModel::kLabel).data().toString(), QStringLiteral("first fit"));
    QCOMPARE(runs.headerData(RunsModel::kLabel, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("Label"));

    // Opening the row-wise plan run shows its stored plan, not a new one.
    QSignalSpy shown(&wb, &Workbench::displayedChanged);
    QVERIFY(browser.open_run(st.plan_b).is_ok());
    QVERIFY(shown.count() >= 1);
    QVERIFY(wb.scenario()->constraints[0]->sharding_types.has_value());
    QCOMPARE(wb.displayed()->summary.tables.size(), size_t{4});
    for (const planner::TableSummary& t : wb.displayed()->summary.tables) {
      if (t.name == "user_id") {
        QCOMPARE(t.sharding_type, planner::ShardingType::kRowWise);
        QCOMPARE(t.ranks, (std::vector<int>{0, 1}));
      }
    }
    QCOMPARE(wb.outcome()->result.num_proposals, 0);  // read, not planned
    wb.worker().wait_idle();

    auto diff = browser.diff(st.plan_a, st.plan_b);
    QVERIFY(diff.is_ok());
    bool moved = false;
    for (const data::PlacementDiff& p : diff->placements) moved = moved || p.fqn == "ebc.user_id";
    QVERIFY(moved);
    QVERIFY(!browser.diff(st.plan_a, 999).is_ok());
    QVERIFY(!browser.open_run(999).is_ok());
    // The diff as tables: the moved table with both placements.
    const QString html = diff_to_html(*diff);
    QVERIFY(html.contains(QStringLiteral("Tables placed differently")));
    QVERIFY(html.contains(QStringLiteral("ebc.user_id")));
    QVERIFY(html.contains(QStringLiteral("rating_ms")));

    // Summaries read as numbers, not JSON.
    const QString summary = runs.index(3, RunsModel::kSummary).data().toString();
    QVERIFY2(summary.startsWith(QStringLiteral("rating 0.0")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral(" ms")), qPrintable(summary));
    // The text `shardlab runs list` shows, computed once in the core.
    QCOMPARE(summary, QString::fromStdString(data::summary_text(browser.runs()[3].summary_json)));
    QVERIFY(!summary.contains(QLatin1Char('{')));

    // A replay run shows its plan with the measured phase times beside the
    // simulation: kernels::compare_phases of the run's measurements.
    QVERIFY(browser.open_run(st.replay).is_ok());
    QCOMPARE(wb.displayed()->base->source, PlanSource::kStoredRun);
    QVERIFY(plan_title(*wb.displayed()).contains(QStringLiteral("replay")));
    QTRY_VERIFY(wb.simulation() != nullptr);
    QVERIFY(models.measured_phases.rowCount() > 0);
    const auto traffic = sim::iteration_traffic(*wb.scenario(), *wb.outcome()->result.search_space,
                                                wb.displayed()->plan);
    QVERIFY(traffic.is_ok());
    const std::vector<kernels::PhaseComparison> expected =
        kernels::compare_phases(*wb.outcome()->replay, traffic->ranks, wb.simulation().get());
    QCOMPARE(models.measured_phases.rowCount(), static_cast<int>(expected.size()));
    for (int r = 0; r < models.measured_phases.rowCount(); ++r) {
      const kernels::PhaseComparison& e = expected[static_cast<size_t>(r)];
      const QVariant measured =
          models.measured_phases.index(r, PhaseComparisonModel::kMeasured).data(RawValueRole);
      QCOMPARE(measured, e.measured.samples > 0 ? QVariant(e.measured.median_ms) : QVariant());
      QCOMPARE(models.measured_phases.index(r, PhaseComparisonModel::kSimulated).data(RawValueRole),
               e.simulated_ms ? QVariant(*e.simulated_ms) : QVariant());
    }
    wb.worker().wait_idle();
  }

  // "Plan with this profile" re-plans the scenario with the fitted
  // parameters; the plan shown before is stale until then.
  void plan_with_this_profile_replans_with_the_fit() {
    QTemporaryDir dir;
    const Store st = make_store(dir.filePath(QStringLiteral("runs.db")));
    MainWindow window;
    QVERIFY(window.runs().open(st.path).is_ok());
    Workbench& wb = window.workbench();
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    auto* calibration = static_cast<CalibrationView*>(window.view(QStringLiteral("calibration")));
    QVERIFY(calibration->profile() != nullptr);
    QCOMPARE(calibration->parameters()->rowCount(),
             static_cast<int>(kernels::calibration_parameters(calibration->profile()->parameters,
                                                              calibration->profile()->groups, {})
                                  .size()));
    QPushButton* plan_with = nullptr;
    for (QPushButton* b : calibration->findChildren<QPushButton*>()) {
      if (b->text() == QStringLiteral("Plan with this profile")) plan_with = b;
    }
    QVERIFY(plan_with != nullptr && plan_with->isEnabled());
    plan_with->click();
    QCOMPARE(wb.calibration(), calibration->profile());
    QVERIFY(wb.plan_state().stale());
    QVERIFY(wb.plan_state().reason.contains(QStringLiteral("calibration")));
    QVERIFY(wait_for_current_plan(wb));
    QCOMPARE(wb.outcome()->settings.calibration, calibration->profile());
    // The planner's own run with those parameters gives the same plan.
    const planner::PlannerResult direct =
        planner::plan(*wb.scenario(),
                      planner::PlannerOptions{.calibration = &calibration->profile()->parameters});
    QCOMPARE(wb.outcome()->result.perf_rating, direct.perf_rating);
  }

  void a_missing_store_is_refused_not_created() {
    QTemporaryDir dir;
    Workbench wb;
    RunBrowser browser(&wb);
    const QString path = dir.filePath(QStringLiteral("typo.db"));
    const Status st = browser.open(path);
    QVERIFY(!st.is_ok());
    QVERIFY(st.message().find("no run store here") != std::string::npos);
    QVERIFY(!QFile::exists(path));
    QVERIFY(!browser.is_open());
  }

  void calibration_points_are_the_models_predictions() {
    QTemporaryDir dir;
    const Store st = make_store(dir.filePath(QStringLiteral("runs.db")));
    Workbench wb;
    RunBrowser browser(&wb);
    QVERIFY(browser.open(st.path).is_ok());
    auto view = browser.calibration(st.calibrate);
    QVERIFY2(view.is_ok(), view.status().message().c_str());
    QCOMPARE(view->points.size() + static_cast<size_t>(view->skipped), st.measurements.size());
    QVERIFY(view->points.size() >= 20);
    // Every record with both predictions is a point, held out exactly when
    // the fit's split (the calibrate run's fraction and seed) held it out.
    kernels::CalibrationOptions options;
    options.holdout_fraction = 0.2;
    options.seed = 1;
    const kernels::HoldoutSplit split = kernels::holdout_split(st.measurements, options);
    int held = 0;
    for (size_t i = 0; i < st.measurements.size(); ++i) {
      const kernels::Measurement& m = st.measurements[i];
      const auto before = kernels::predict_ms(m, nullptr, {});
      const auto after = kernels::predict_ms(m, &view->profile.parameters, {});
      if (!before || !after) continue;
      const bool held_out =
          std::find(split.held_out.begin(), split.held_out.end(), i) != split.held_out.end();
      held += held_out ? 1 : 0;
      const auto found =
          std::find_if(view->points.begin(), view->points.end(), [&](const CalibrationPoint& p) {
            return p.measured_ms == m.timing.median_ms && p.before_ms == *before &&
                   p.after_ms == *after;
          });
      QVERIFY(found != view->points.end());
      QCOMPARE(found->held_out, held_out);
    }
    QVERIFY(held > 0);
    // Fitted records first, held-out ones after.
    QVERIFY(std::is_partitioned(view->points.begin(), view->points.end(),
                                [](const CalibrationPoint& p) { return !p.held_out; }));
    // The fit recovers the lookups' line: calibrated within 1% where
    // TorchRec's GPU constants are far off.
    const auto lookup =
        std::find_if(view->points.begin(), view->points.end(),
                     [](const CalibrationPoint& p) { return p.group.rfind("fwd ", 0) == 0; });
    QVERIFY(lookup != view->points.end());
    QVERIFY(std::abs(lookup->after_ms / lookup->measured_ms - 1) < 0.01);
    QVERIFY(std::abs(lookup->before_ms / lookup->measured_ms - 1) > 0.5);
    // The fitted parameters beside TorchRec's are the core's table.
    const auto expected =
        kernels::calibration_parameters(view->profile.parameters, view->profile.groups, {});
    QCOMPARE(view->parameters.size(), expected.size());
    QVERIFY(!expected.empty());
    CalibrationParametersModel parameters;
    QAbstractItemModelTester t0(&parameters,
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    parameters.reset(view->parameters);
    for (int r = 0; r < parameters.rowCount(); ++r) {
      QCOMPARE(parameters.index(r, CalibrationParametersModel::kParameter).data().toString(),
               QString::fromStdString(expected[static_cast<size_t>(r)].name));
      QCOMPARE(parameters.index(r, CalibrationParametersModel::kFitted).data(RawValueRole),
               expected[static_cast<size_t>(r)].fitted
                   ? QVariant(*expected[static_cast<size_t>(r)].fitted)
                   : QVariant());
    }

    CalibrationPointsModel points;
    CalibrationGroupsModel groups;
    QAbstractItemModelTester t1(&points, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&groups, QAbstractItemModelTester::FailureReportingMode::QtTest);
    points.reset(view->points);
    groups.reset(view->profile);
    QCOMPARE(points.rowCount(), static_cast<int>(view->points.size()));
    QCOMPARE(points.held_out_begin(), static_cast<int>(view->points.size()) - held);
    QVERIFY(
        points.index(0, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("measured")));
    QCOMPARE(groups.rowCount(), static_cast<int>(view->profile.groups.size()) + 1);
    const int all = groups.rowCount() - 1;
    QCOMPARE(groups.index(all, CalibrationGroupsModel::kGroup).data().toString(),
             QStringLiteral("all"));
    QCOMPARE(groups.index(all, CalibrationGroupsModel::kMapeAfter).data(RawValueRole),
             view->profile.mape_after ? QVariant(*view->profile.mape_after) : QVariant());
    const auto [lo, hi] = points.range();
    QVERIFY(lo > 0 && lo <= hi);
    // A run without a calibration is refused with its id.
    auto not_calibration = browser.calibration(st.plan_a);
    QVERIFY(!not_calibration.is_ok());
    QVERIFY(not_calibration.status().message().find("holds no calibration") != std::string::npos);
  }
};

SHARDLAB_REGISTER_GUI_TEST(RunsTest)

}  // namespace shardlab::gui::test

#include "runs_test.moc"
