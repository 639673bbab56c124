#include "app/timeline_view.h"

#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QVBoxLayout>

#include "app/export_action.h"
#include "app/timeline_widget.h"
#include "models/workbench_models.h"
#include "shardlab/data/sim_json.h"

namespace shardlab::gui {
namespace {

QWidget* legend(QWidget* parent) {
  auto* w = new QWidget(parent);
  auto* layout = new QGridLayout(w);
  layout->setContentsMargins(0, 0, 0, 0);
  // Two rows: twelve phases and the critical path do not fit one row of a
  // 1000-pixel window.
  constexpr int kColumns = 7;
  for (int i = 0; i < sim::kNumPhases; ++i) {
    const auto phase = static_cast<sim::Phase>(i);
    const std::string_view name = sim::to_string(phase);
    layout->addWidget(
        new QLabel(QStringLiteral("<span style='background:%1'>&nbsp;&nbsp;&nbsp;</span> %2")
                       .arg(phase_color(phase).name(),
                            QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))),
                   w),
        i / kColumns, i % kColumns);
  }
  layout->addWidget(
      new QLabel(QStringLiteral("<span style='color:#d62728'>&#9634;</span> critical path"), w),
      sim::kNumPhases / kColumns, sim::kNumPhases % kColumns);
  layout->setColumnStretch(kColumns, 1);
  return w;
}

}  // namespace

TimelineView::TimelineView(WorkbenchModels* models, QWidget* parent) : WorkbenchView(parent), models_(models) {
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  timeline_ = new TimelineWidget(this);
  timeline_->set_model(&models->timeline);
  add_export_action(timeline_, QStringLiteral("timeline"));
  auto* fit = new QPushButton(QStringLiteral("Fit"), this);
  auto* trace = new QPushButton(QStringLiteral("Export Chrome trace..."), this);
  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(fit);
  bar->addWidget(trace);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(legend(this));
  layout->addWidget(timeline_, 1);
  layout->addWidget(new QLabel(QStringLiteral("Wheel: zoom, Shift+wheel: scroll lanes, drag: pan, hover: phase "
                                              "details, click a lane label: select the rank"),
                               this));

  Workbench* wb = models->workbench();
  connect(fit, &QPushButton::clicked, timeline_, &TimelineWidget::fit);
  connect(trace, &QPushButton::clicked, this, [this]() {
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export Chrome trace"),
                                                      QStringLiteral("trace.json"),
                                                      QStringLiteral("Chrome trace (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!export_chrome_trace(path, &error)) QMessageBox::warning(this, QStringLiteral("Export failed"), error);
  });
  connect(timeline_, &TimelineWidget::rankClicked, wb, &Workbench::select_rank);
  connect(wb, &Workbench::selectionChanged, this, [this, wb]() { timeline_->set_selected_rank(wb->selected_rank()); });
  connect(wb, &Workbench::simulationChanged, this, &TimelineView::refresh);
  refresh();
}

QWidget* TimelineView::export_target() { return timeline_; }

bool TimelineView::export_chrome_trace(const QString& path, QString* error) const {
  const SimResultPtr& s = models_->workbench()->simulation();
  if (!s) {
    *error = QStringLiteral("no simulation to export");
    return false;
  }
  QSaveFile file(path);
  const std::string json = data::chrome_trace_json(*s) + "\n";
  if (!file.open(QIODevice::WriteOnly) || file.write(json.data(), static_cast<qint64>(json.size())) < 0 ||
      !file.commit()) {
    *error = path + QStringLiteral(": cannot write: ") + file.errorString();
    return false;
  }
  return true;
}

void TimelineView::refresh() {
  Workbench* wb = models_->workbench();
  const SimResultPtr& s = wb->simulation();
  if (!s) {
    const Status& st = wb->simulation_status();
    header_->setText(st.is_ok() ? QStringLiteral("No simulation yet")
                                : QStringLiteral("No simulation: ") + QString::fromStdString(st.message()));
    return;
  }
  const TimelineModel& m = models_->timeline;
  header_->setText(QStringLiteral("<b>%1 iterations</b> on %2 ranks: steady-state iteration %3 ms, all end at %4 ms; "
                                  "critical path of the last iteration: %5 phases on %6 lanes")
                       .arg(s->iterations)
                       .arg(s->ranks.size())
                       .arg(s->iteration_ms, 0, 'f', 4)
                       .arg(s->total_ms, 0, 'f', 4)
                       .arg(s->critical_path.size())
                       .arg(m.critical_lanes().size()));
}

}  // namespace shardlab::gui
