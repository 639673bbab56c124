// Interactive speed of the workbench (GPL-3.0-or-later, like gui/), on Qt's
// offscreen platform:
//
//  gui/replan_after_edit   a constraint edit on the bundled Criteo Kaggle
//      scenario, through the same path as the Scenario view's cell edit
//      (ScenarioTablesModel::setData -> loader validation -> background plan
//      with the proposal log + simulation -> every model reset -> the Plan
//      view repainted), until the new plan is on screen. Each iteration
//      flips t_cat_2 between row_wise and table_wise, so each one re-plans
//      and moves the table. Wall time per edit.
//  gui/timeline_frame/W    one frame of the Timeline view's painting of a
//      simulated iteration on W ranks (2W lanes), panned by 8 px between
//      frames, into a 1600x900 image, at a zoom showing one iteration.
//
//   QT_QPA_PLATFORM=offscreen build/benchmarks/gui_replan_bench
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QEventLoop>
#include <QImage>
#include <QPainter>
#include <QTimer>

#include <memory>

#include "app/main_window.h"
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

// Runs the event loop until `wb` delivers an outcome (or 30 s pass).
bool wait_for_outcome(Workbench& wb) {
  QEventLoop loop;
  bool got = false;
  QObject::connect(&wb, &Workbench::outcomeChanged, &loop, [&]() {
    got = true;
    loop.quit();
  });
  QTimer::singleShot(30000, &loop, &QEventLoop::quit);
  loop.exec();
  return got;
}

void replan_after_edit(benchmark::State& state) {
  MainWindow window;
  window.resize(1400, 860);
  window.show();
  window.show_view(QStringLiteral("plan"));
  Workbench& wb = window.workbench();
  if (!wb.open_scenario(QStringLiteral(SHARDLAB_SOURCE_DIR "/data/scenarios/dlrm_criteo_kaggle.json")).is_ok() ||
      !wait_for_outcome(wb)) {
    state.SkipWithError("cannot plan the Criteo Kaggle scenario");
    return;
  }
  ScenarioTablesModel& tables = window.models().tables;
  int row = -1;
  for (int r = 0; r < tables.rowCount(); ++r) {
    if (tables.index(r, ScenarioTablesModel::kName).data().toString() == QLatin1String("t_cat_2")) row = r;
  }
  const QModelIndex cell = tables.index(row, ScenarioTablesModel::kShardingTypes);
  QWidget* plan_view = window.view(QStringLiteral("plan"));
  bool row_wise = false;
  double plan_ms = 0.0;
  int64_t edits = 0;
  for (auto _ : state) {
    row_wise = !row_wise;
    if (!tables.setData(cell, row_wise ? QStringLiteral("row_wise") : QStringLiteral("table_wise"), Qt::EditRole) ||
        !wait_for_outcome(wb)) {
      state.SkipWithError("the edit was refused or never planned");
      return;
    }
    plan_view->repaint();  // the new plan on screen, synchronously
    plan_ms += wb.outcome()->plan_ms;
    ++edits;
  }
  state.counters["planner_ms"] = plan_ms / static_cast<double>(edits);
  state.counters["proposals"] = static_cast<double>(wb.outcome()->result.num_proposals);
}
BENCHMARK(replan_after_edit)->Name("gui/replan_after_edit")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

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
  state.counters["fps"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}
BENCHMARK(timeline_frame)->Name("gui/timeline_frame")->Arg(8)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
