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
    QVERIFY(window.workbench().comparison()->optimizer != nullptr);
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
