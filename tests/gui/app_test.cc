// The application's widgets: the main window's actions, every view, the
// screenshot mode, exports, and the timeline's painting and hover text.
#include <QAction>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QPainter>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>

#include "../shared_dir.h"
#include "app/command_line.h"
#include "app/main_window.h"
#include "app/plan_view.h"
#include "app/scenario_view.h"
#include "app/screenshot.h"
#include "app/timeline_view.h"
#include "app/timeline_widget.h"
#include "gui_test_support.h"
#include "test_registry.h"

namespace shardlab::gui::test {

class AppTest : public QObject {
  Q_OBJECT

 private slots:
  void init() { fail_on_warnings(); }

  void replan_action_plans_and_every_view_renders() {
    MainWindow window;
    auto testers = attach_testers(window.models());
    QVERIFY(open_and_plan(window.workbench(), "dlrm_criteo_kaggle.json"));
    QSignalSpy replanned(&window.workbench(), &Workbench::outcomeChanged);
    window.replan_action()->trigger();
    QVERIFY(wait_for(replanned));
    QVERIFY(window.workbench().outcome()->result.ok());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const QString& view : window.views()) {
      const QString path = dir.filePath(view + QStringLiteral(".png"));
      QString error;
      QVERIFY2(take_screenshot(window, view, path, QSize(1000, 700), &error), qPrintable(error));
      const QImage image(path);
      QCOMPARE(image.size(), QSize(1000, 700));
      // Not blank: more than a handful of distinct colours.
      QSet<QRgb> colours;
      for (int y = 0; y < image.height(); y += 7) {
        for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
      }
      QVERIFY2(colours.size() > 8, qPrintable(view));
    }
    // The compare screenshot ran the comparison, and the optimizer's row.
    QCOMPARE(window.models().compare.rowCount(),
             static_cast<int>(sim::default_compare_grid().size()) + 1);
    QVERIFY(window.workbench().comparison().outcome()->optimizer != nullptr);
    QString error;
    QVERIFY(!take_screenshot(window, QStringLiteral("nonsense"),
                             dir.filePath(QStringLiteral("x.png")), QSize(100, 100), &error));
    QVERIFY(error.contains(QStringLiteral("nonsense")));

    const auto* plan = static_cast<PlanView*>(window.view(QStringLiteral("plan")));
    QVERIFY(plan->header_text().contains(QStringLiteral("773 proposals")));
    // The planner model is named (scenario default: the newest).
    QVERIFY(
        plan->header_text().contains(QStringLiteral("TorchRec 2026-08 (commit 376cac6a) model")));
  }

  void exports_charts_as_svg_and_the_timeline_as_chrome_trace() {
    MainWindow window;
    window.resize(1000, 700);
    window.show();
    QVERIFY(open_and_plan(window.workbench(), "tiny_2gpu.json"));
    QTemporaryDir dir;
    QString error;
    const QString svg = dir.filePath(QStringLiteral("plan.svg"));
    QVERIFY2(window.export_view(QStringLiteral("plan"), svg, &error), qPrintable(error));
    QFile svg_file(svg);
    QVERIFY(svg_file.open(QIODevice::ReadOnly));
    const QByteArray svg_text = svg_file.readAll();
    QVERIFY(svg_text.contains("<svg"));
    QVERIFY(svg_text.contains("r1"));  // a rank label of the matrix, painted as text
    QVERIFY(!window.export_view(QStringLiteral("plan"), dir.filePath(QStringLiteral("plan.bmpx")),
                                &error));
    QVERIFY(error.contains(QStringLiteral(".bmpx")));

    const auto* timeline = static_cast<TimelineView*>(window.view(QStringLiteral("timeline")));
    // As the CLI's summary (sim::host_side_text): the scenario names no
    // framework, so TorchRec runs eagerly under the default host profile.
    QVERIFY2(timeline->header_text().contains(
                 QStringLiteral("host side: torchrec eager, host profile pytorch-eager-2022")),
             qPrintable(timeline->header_text()));
    QVERIFY2(timeline->header_text().contains(QStringLiteral("host-bound: the host sets ")),
             qPrintable(timeline->header_text()));
    const QString trace = dir.filePath(QStringLiteral("trace.json"));
    QVERIFY2(timeline->export_chrome_trace(trace, &error), qPrintable(error));
    QFile trace_file(trace);
    QVERIFY(trace_file.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(trace_file.readAll()).object();
    QVERIFY(doc.value(QStringLiteral("traceEvents")).isArray());
    QVERIFY(doc.value(QStringLiteral("traceEvents")).toArray().size() > 10);
  }

  void timeline_zooms_pans_and_describes_phases() {
    Workbench wb;
    WorkbenchModels models(&wb);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    TimelineWidget w;
    w.resize(800, 200);
    w.set_model(&models.timeline);
    w.fit();
    const double whole = w.ms_per_pixel();
    QVERIFY(whole > 0);
    // Hover over the first phase of the first lane.
    const TimelineLane& lane = models.timeline.lanes().front();
    const sim::PhaseRecord& first = lane.phases.front().record;
    const int x =
        TimelineWidget::kLabelWidth +
        static_cast<int>(((first.start_ms + first.end_ms) / 2 - w.start_ms()) / w.ms_per_pixel());
    const int y = TimelineWidget::kAxisHeight + TimelineWidget::kLaneHeight / 2;
    const QString tip = w.describe_at(QPoint(x, y));
    QVERIFY2(tip.contains(QString::fromUtf8(std::string(sim::to_string(first.phase)).c_str())),
             qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("rank %1").arg(lane.rank)));
    QVERIFY(w.describe_at(QPoint(5, 5)).isEmpty());
    // Wheel zoom in keeps the time under the cursor.
    const double t_before = w.start_ms() + (x - TimelineWidget::kLabelWidth) * w.ms_per_pixel();
    w.zoom_at(x, 4.0);
    QCOMPARE(w.ms_per_pixel(), whole / 4.0);
    const double t_after = w.start_ms() + (x - TimelineWidget::kLabelWidth) * w.ms_per_pixel();
    QVERIFY(std::abs(t_after - t_before) < 1e-9);
    // Dragging pans.
    const double start = w.start_ms();
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, QPoint(400, 100));
    QTest::mouseMove(&w, QPoint(300, 100));
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, QPoint(300, 100));
    QVERIFY(w.start_ms() > start);
    // Painting marks the critical path in red.
    w.fit();
    QImage image(w.size(), QImage::Format_ARGB32);
    QPainter painter(&image);
    w.render_frame(painter, QRect(QPoint(0, 0), w.size()));
    painter.end();
    int red = 0;
    for (int yy = 0; yy < image.height(); ++yy) {
      for (int xx = TimelineWidget::kLabelWidth; xx < image.width(); ++xx) {
        red += image.pixel(xx, yy) == QColor(0xd6, 0x27, 0x28).rgb() ? 1 : 0;
      }
    }
    QVERIFY(red > 0);
  }

  // A real trace of a job beside its simulation: the 4-rank V100 TorchRec
  // DLRM (../shared/traces, its README) and its bundled scenario. Each rank
  // gets measured lanes under its simulated ones, the table is the CLI's
  // `simulate --against`; a truncated file is refused with its name; clearing
  // takes the lanes away.
  void timeline_shows_a_traced_job_beside_its_simulation() {
    const std::filesystem::path traces =
        testing_support::shared_traces_dir() / "v100_4rank_torchrec_dlrm";
    if (!std::filesystem::is_directory(traces)) QSKIP("no shared traces");
    MainWindow window;
    auto testers = attach_testers(window.models());
    QVERIFY(
        open_and_plan(window.workbench(), "validation/torchrec_golden_training_v100_4x4096.json"));
    QVERIFY(window.workbench().simulation() != nullptr);
    auto* view = static_cast<TimelineView*>(window.view(QStringLiteral("timeline")));
    const MeasuredTrace& trace = window.models().trace;
    QSignalSpy changed(&trace, &MeasuredTrace::changed);
    view->open_trace({QString::fromStdString(traces.string())});
    QVERIFY2(view->trace_text().contains(QStringLiteral("Reading the trace")),
             qPrintable(view->trace_text()));
    QVERIFY(wait_for(changed, 2));
    QVERIFY2(trace.status().is_ok(), trace.status().message().c_str());
    const TimelineModel& m = window.models().timeline;
    QCOMPARE(m.measured_lanes(), 8);  // 4 ranks, compute and comm
    // Steps 4, 5, 6 last 152.6, 407.5 and 127.6 ms on rank 0: step 4 is shown.
    QVERIFY2(view->trace_text().contains(QStringLiteral("step 4 of")),
             qPrintable(view->trace_text()));
    QVERIFY2(view->against_text().contains(QStringLiteral("rank 0")),
             qPrintable(view->against_text()));
    int row = -1;
    for (size_t i = 0; i < m.lanes().size(); ++i) {
      const TimelineLane& lane = m.lanes()[i];
      if (!lane.measured) continue;
      if (row < 0) row = static_cast<int>(i);
      QVERIFY(i > 0 && m.lanes()[i - 1].rank == lane.rank);  // under its rank's lanes
      for (size_t k = 1; k < lane.phases.size(); ++k)
        QVERIFY(lane.phases[k - 1].record.end_ms <= lane.phases[k].record.start_ms + 1e-9);
    }
    QVERIFY(row >= 0);
    QVERIFY(m.data(m.index(row, TimelineModel::kName), Qt::DisplayRole)
                .toString()
                .contains(QStringLiteral(" trace ")));
    // Hovering a measured span says so.
    TimelineWidget* w = view->timeline();
    w->resize(900, 400);
    w->fit();
    const TimelineLane& lane = m.lanes()[static_cast<size_t>(row)];
    const auto widest = std::max_element(
        lane.phases.begin(), lane.phases.end(), [](const TimelinePhase& a, const TimelinePhase& b) {
          return a.record.end_ms - a.record.start_ms < b.record.end_ms - b.record.start_ms;
        });
    w->set_view(w->start_ms(), w->ms_per_pixel(), row * TimelineWidget::kLanePitch);
    const int x =
        TimelineWidget::kLabelWidth +
        static_cast<int>(((widest->record.start_ms + widest->record.end_ms) / 2 - w->start_ms()) /
                         w->ms_per_pixel());
    const QString tip =
        w->describe_at(QPoint(x, TimelineWidget::kAxisHeight + row * TimelineWidget::kLanePitch -
                                     w->scroll_y() + TimelineWidget::kLaneHeight / 2));
    QVERIFY2(tip.contains(QStringLiteral("measured (step 4)")), qPrintable(tip));

    QTemporaryDir dir;
    const QString broken = dir.filePath(QStringLiteral("rank-0.json"));
    QFile f(broken);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"traceEvents": [{"ph": "X", "name": )");
    f.close();
    changed.clear();
    view->open_trace({broken});
    QVERIFY(wait_for(changed, 2));
    QVERIFY2(view->trace_text().contains(QStringLiteral("Trace not read")) &&
                 view->trace_text().contains(QStringLiteral("rank-0.json")),
             qPrintable(view->trace_text()));
    QCOMPARE(m.measured_lanes(), 0);
    QVERIFY(view->against_text().isEmpty());
    view->open_trace({QString::fromStdString(traces.string())});
    changed.clear();
    QVERIFY(wait_for(changed, 1));
    QCOMPARE(m.measured_lanes(), 8);
    window.models().trace.clear();
    QCOMPARE(m.measured_lanes(), 0);
    QVERIFY(view->trace_text().isEmpty());
  }

  // Workbench methods return their failure; the window says it where the
  // user looks (quietly: the status bar), as it does for every caller.
  void a_failed_open_is_said_in_the_status_bar() {
    MainWindow window;
    QVERIFY(!window.open_scenario(QStringLiteral("/nonexistent/missing_scenario.json"), true));
    QVERIFY2(window.status_text().contains(QStringLiteral("missing_scenario.json")),
             qPrintable(window.status_text()));
  }

  void scenario_view_shows_a_refusal() {
    MainWindow window;
    QVERIFY(open_and_plan(window.workbench(), "tiny_2gpu.json"));
    auto* view = static_cast<ScenarioView*>(window.view(QStringLiteral("scenario")));
    QAbstractItemModel* m = view->tables_view()->model();
    QVERIFY(
        !m->setData(m->index(0, ScenarioTablesModel::kRows), QStringLiteral("-5"), Qt::EditRole));
    QVERIFY2(view->message().contains(QStringLiteral("tables[0].num_embeddings")),
             qPrintable(view->message()));
  }

  void command_line_is_checked() {
    CommandLine cl;
    QString error;
    bool help = false;
    QVERIFY(parse_command_line(
        {"shardlab-gui", "s.json", "--screenshot", "a.png", "--view", "plan"}, &cl, &error, &help));
    QCOMPARE(cl.scenario, QStringLiteral("s.json"));
    QCOMPARE(cl.view, QStringLiteral("plan"));
    QVERIFY(!parse_command_line({"shardlab-gui", "s.json", "--screenshot", "a.png"}, &cl, &error,
                                &help));
    QVERIFY(error.contains(QStringLiteral("--view")));
    QVERIFY(!parse_command_line({"shardlab-gui", "--view", "gantt"}, &cl, &error, &help));
    QVERIFY(error.contains(QStringLiteral("gantt")));
    QVERIFY(!parse_command_line({"shardlab-gui", "--plan", "p.json"}, &cl, &error, &help));
    QVERIFY(
        !parse_command_line({"shardlab-gui", "--size", "10by10", "s.json"}, &cl, &error, &help));
    QVERIFY(!parse_command_line({"shardlab-gui", "--help"}, &cl, &error, &help));
    QVERIFY(help);
  }
};

SHARDLAB_REGISTER_GUI_TEST(AppTest)

}  // namespace shardlab::gui::test

#include "app_test.moc"
