// Interactive speed of the workbench (GPL-3.0-or-later, like gui/), on Qt's
// offscreen platform:
//
//  gui/replan_after_edit/NAME   a constraint edit through the same path as
//      the Scenario view's cell edit (ScenarioTablesModel::setData -> loader
//      validation -> background plan with the proposal log + simulation ->
//      every model reset -> the Plan view repainted), until the new plan is
//      on screen. Each iteration flips the first table's sharding types
//      between row_wise and table_wise, so each one re-plans. Wall time per
//      edit; counter progress_reports: progress updates the status bar got.
//  gui/cli_plan/NAME   the same scenario planned by the command line, as a
//      user runs it: `shardlab plan FILE -q --no-record -o /dev/null` (a
//      process: load, plan, write), wall time. The edit above should take
//      at most about twice this.
//  gui/matrix_frame/NAME/ZOOM   one frame of the placement matrix painted
//      into a 1200x700 image: ZOOM 0 fits every table and rank (overview),
//      1 readable cells, scrolled by 8 px between frames.
//  gui/timeline_frame/W    one frame of the Timeline view's painting of a
//      simulated iteration on W ranks (2W lanes), panned by 8 px between
//      frames, into a 1600x900 image, at a zoom showing one iteration.
//
// NAME is criteo (the bundled Criteo Kaggle scenario) and each scenario file
// given with --scenario=FILE (repeatable), e.g. the 1,000-table, 128-rank
// scenario of docs/gui.md "Speed":
//
//   scripts/gen_synthetic_scenario.py --tables 1000 --world-size 128 \
//       --local-world-size 8 -o syn1000x128.json
//   QT_QPA_PLATFORM=offscreen build/benchmarks/gui_replan_bench \
//       --scenario=syn1000x128.json
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QScrollBar>
#include <QTimer>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/main_window.h"
#include "app/placement_matrix_widget.h"
#include "app/plan_view.h"
#include "app/timeline_widget.h"
#include "app/workbench_view.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation.h"
// GCC 12 reports a false -Wrestrict inside std::string's operator+ as
// synthetic_scenario.h uses it (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#include "synthetic_scenario.h"
#pragma GCC diagnostic pop

namespace {

using shardlab::gui::MainWindow;
using shardlab::gui::ScenarioTablesModel;
using shardlab::gui::Workbench;

// Runs the event loop (sleeping while nothing happens, as the application's
// does) until `wb` holds a current plan and is idle, or 120 s pass.
bool wait_for_current_plan(Workbench& wb) {
  const auto done = [&wb]() { return wb.outcome() && wb.plan_state().current() && !wb.busy(); };
  if (done()) return true;
  QEventLoop loop;
  const auto check = [&]() {
    if (done()) loop.quit();
  };
  QObject::connect(&wb, &Workbench::freshnessChanged, &loop, check);
  QObject::connect(&wb, &Workbench::busyChanged, &loop, check);
  QTimer::singleShot(120000, &loop, &QEventLoop::quit);
  loop.exec();
  return done();
}

// Shows the window on the Plan view with `path` planned; false (and the
// benchmark skipped) when it cannot be planned.
bool open_and_plan(benchmark::State& state, MainWindow& window, const QString& path) {
  window.resize(1400, 860);
  window.show();
  window.show_view(QStringLiteral("plan"));
  Workbench& wb = window.workbench();
  if (!wb.document().open_file(path).is_ok() || !wait_for_current_plan(wb)) {
    state.SkipWithError("cannot plan the scenario");
    return false;
  }
  return true;
}

void replan_after_edit(benchmark::State& state, const QString& path) {
  MainWindow window;
  if (!open_and_plan(state, window, path)) return;
  Workbench& wb = window.workbench();
  ScenarioTablesModel& tables = window.models().tables;
  const QModelIndex cell = tables.index(0, ScenarioTablesModel::kShardingTypes);
  QWidget* plan_view = window.view(QStringLiteral("plan"));
  int reports = 0;
  QObject::connect(&wb, &Workbench::progress, [&reports](int, const QString&) { ++reports; });
  bool row_wise = false;
  double plan_ms = 0.0;
  double simulate_ms = 0.0;
  int64_t edits = 0;
  for (auto _ : state) {
    row_wise = !row_wise;
    if (!tables.setData(cell, row_wise ? QStringLiteral("row_wise") : QStringLiteral("table_wise"),
                        Qt::EditRole) ||
        !wait_for_current_plan(wb)) {
      state.SkipWithError("the edit was refused or never planned");
      return;
    }
    plan_view->repaint();  // the new plan on screen, synchronously
    plan_ms += wb.outcome()->plan_ms;
    simulate_ms += wb.outcome()->simulate_ms;
    ++edits;
  }
  state.counters["planner_ms"] = plan_ms / static_cast<double>(edits);
  state.counters["simulate_ms"] = simulate_ms / static_cast<double>(edits);
  state.counters["proposals"] = static_cast<double>(wb.outcome()->result.num_proposals);
  state.counters["progress_reports"] = static_cast<double>(reports) / static_cast<double>(edits);
}

void cli_plan(benchmark::State& state, const QString& path) {
  const QStringList args = {QStringLiteral("plan"), path,
                            QStringLiteral("-q"),   QStringLiteral("--no-record"),
                            QStringLiteral("-o"),   QStringLiteral("/dev/null")};
  for (auto _ : state) {
    QProcess cli;
    cli.start(QStringLiteral(SHARDLAB_CLI_PATH), args);
    if (!cli.waitForFinished(300000) || cli.exitCode() != 0) {
      state.SkipWithError("shardlab plan failed");
      return;
    }
  }
}

void matrix_frame(benchmark::State& state, const QString& path, bool overview) {
  MainWindow window;
  if (!open_and_plan(state, window, path)) return;
  auto* matrix =
      static_cast<shardlab::gui::PlanView*>(window.view(QStringLiteral("plan")))->matrix();
  matrix->resize(1200, 700);
  if (overview) {
    matrix->fit();
  } else {
    matrix->show_readable();
  }
  QImage image(matrix->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
  int dy = 8;
  for (auto _ : state) {
    QScrollBar* v = matrix->verticalScrollBar();
    if (v->value() + dy > v->maximum() || v->value() + dy < 0) dy = -dy;
    v->setValue(v->value() + dy);
    QPainter painter(&image);
    matrix->render_frame(painter, image.rect());
    painter.end();
    benchmark::DoNotOptimize(image.constBits());
  }
  state.counters["cell_w"] = matrix->cell_width();
  state.counters["cell_h"] = matrix->cell_height();
}

struct SimulatedRun {
  shardlab::planner::Scenario scenario;
  shardlab::sim::SimResult sim;
};

const SimulatedRun* simulated_run(int world_size) {
  static std::map<int, std::unique_ptr<SimulatedRun>> cache;
  auto& slot = cache[world_size];
  if (!slot) {
    auto run = std::make_unique<SimulatedRun>();
    run->scenario = shardlab::bench::synthetic_scenario(2 * world_size, world_size);
    const shardlab::planner::PlannerResult planned = shardlab::planner::plan(run->scenario);
    if (!planned.ok()) return nullptr;
    auto sim = shardlab::sim::simulate(run->scenario, *planned.search_space, *planned.best);
    if (!sim.is_ok()) return nullptr;
    run->sim = std::move(sim).value();
    slot = std::move(run);
  }
  return slot.get();
}

void timeline_frame(benchmark::State& state) {
  const int world_size = static_cast<int>(state.range(0));
  const SimulatedRun* run = simulated_run(world_size);
  if (run == nullptr) {
    state.SkipWithError("planning or simulation failed");
    return;
  }
  shardlab::gui::TimelineModel model;
  model.reset(run->sim);
  shardlab::gui::TimelineWidget widget;
  widget.resize(1600, 900);
  widget.set_model(&model);
  // One iteration across the plot, starting at the second.
  const double per_px = run->sim.iteration_ms / (1600 - shardlab::gui::TimelineWidget::kLabelWidth);
  widget.set_view(run->sim.iteration_ms, per_px, 0);
  QImage image(widget.size(), QImage::Format_ARGB32_Premultiplied);
  int64_t frames = 0;
  int dx = 8;
  for (auto _ : state) {
    // Pan right, then back, over the middle of the run; down a little too.
    if (widget.start_ms() > 2 * run->sim.iteration_ms) dx = -8;
    if (widget.start_ms() < run->sim.iteration_ms) dx = 8;
    widget.pan_by(dx, (frames % 40) < 20 ? 4 : -4);
    QPainter painter(&image);
    widget.render_frame(painter, image.rect());
    painter.end();
    benchmark::DoNotOptimize(image.constBits());
    ++frames;
  }
  state.counters["lanes"] = static_cast<double>(model.lanes().size());
  state.counters["fps"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}
BENCHMARK(timeline_frame)
    ->Name("gui/timeline_frame")
    ->Arg(8)
    ->Arg(128)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void register_scenario(const std::string& name, const QString& path) {
  benchmark::RegisterBenchmark(("gui/replan_after_edit/" + name).c_str(),
                               [path](benchmark::State& s) { replan_after_edit(s, path); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(2.0);
  benchmark::RegisterBenchmark(("gui/cli_plan/" + name).c_str(),
                               [path](benchmark::State& s) { cli_plan(s, path); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(2.0);
  for (const bool overview : {true, false}) {
    benchmark::RegisterBenchmark(
        ("gui/matrix_frame/" + name + (overview ? "/0" : "/1")).c_str(),
        [path, overview](benchmark::State& s) { matrix_frame(s, path, overview); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  // Our own --scenario=FILE arguments, before Google Benchmark's.
  std::vector<char*> rest;
  std::vector<std::string> scenarios = {SHARDLAB_SOURCE_DIR
                                        "/data/scenarios/dlrm_criteo_kaggle.json"};
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--scenario=", 11) == 0) {
      scenarios.emplace_back(argv[i] + 11);
    } else {
      rest.push_back(argv[i]);
    }
  }
  for (const std::string& s : scenarios) {
    const QFileInfo file(QString::fromStdString(s));
    const std::string name = file.completeBaseName() == QLatin1String("dlrm_criteo_kaggle")
                                 ? std::string("criteo")
                                 : file.completeBaseName().toStdString();
    register_scenario(name, file.absoluteFilePath());
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
