#include "app/timeline_view.h"

#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "app/export_action.h"
#include "app/stale_banner.h"
#include "app/timeline_widget.h"
#include "models/workbench_models.h"
#include "shardlab/data/file_io.h"
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

// What the simulated iteration includes of the host's own work: the core's
// text, as the CLI's summary prints it (docs/host-model.md).
QString host_side_note(const sim::SimResult& result, const ScenarioPtr& scenario) {
  const double host_ms = scenario ? scenario->workload.iteration_overhead_ms : 0.0;
  return QStringLiteral("; ") + QString::fromStdString(sim::host_side_text(result, host_ms))
                                    .toHtmlEscaped()
                                    .replace('\n', QStringLiteral("; "));
}

}  // namespace

TimelineView::TimelineView(WorkbenchModels* models, QWidget* parent)
    : WorkbenchView(parent), models_(models) {
  banner_ = new StaleBanner(QStringLiteral("timeline"), QStringLiteral("Re-plan (F5)"), this);
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  timeline_ = new TimelineWidget(this);
  hbar_ = new QScrollBar(Qt::Horizontal, this);
  vbar_ = new QScrollBar(Qt::Vertical, this);
  timeline_->set_model(&models->timeline);
  add_export_action(timeline_, QStringLiteral("timeline"));
  auto* fit = new QPushButton(QStringLiteral("Fit"), this);
  auto* trace = new QPushButton(QStringLiteral("Export Chrome trace..."), this);
  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(fit);
  bar->addWidget(trace);
  auto* chart = new QGridLayout();
  chart->setSpacing(0);
  chart->addWidget(timeline_, 0, 0);
  chart->addWidget(vbar_, 0, 1);
  chart->addWidget(hbar_, 1, 0);
  measured_box_ = new QWidget(this);
  auto* measured_layout = new QVBoxLayout(measured_box_);
  measured_layout->setContentsMargins(0, 0, 0, 0);
  measured_header_ = new QLabel(measured_box_);
  measured_header_->setWordWrap(true);
  measured_ = new QTableView(measured_box_);
  measured_->setModel(&models->measured_phases);
  measured_->setSortingEnabled(false);
  measured_->verticalHeader()->hide();
  measured_->horizontalHeader()->setStretchLastSection(true);
  measured_layout->addWidget(measured_header_);
  measured_layout->addWidget(measured_, 1);
  measured_box_->hide();
  auto* chart_box = new QWidget(this);
  chart_box->setLayout(chart);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chart_box);
  split->addWidget(measured_box_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(banner_);
  layout->addLayout(bar);
  layout->addWidget(legend(this));
  layout->addWidget(split, 1);
  auto* help = new QLabel(
      QStringLiteral("Wheel or +/-: zoom, 0: fit, Shift+wheel or Up/Down: scroll lanes, drag or "
                     "arrows: pan, hover: phase details, click a lane label: select the rank"),
      this);
  help->setWordWrap(true);
  layout->addWidget(help);
  connect(timeline_, &TimelineWidget::viewChanged, this, &TimelineView::sync_bars);
  connect(hbar_, &QScrollBar::valueChanged, this, [this](int v) {
    if (syncing_) return;
    timeline_->set_view(v * timeline_->ms_per_pixel(), timeline_->ms_per_pixel(),
                        timeline_->scroll_y());
  });
  connect(vbar_, &QScrollBar::valueChanged, this, [this](int v) {
    if (syncing_) return;
    timeline_->set_view(timeline_->start_ms(), timeline_->ms_per_pixel(), v);
  });

  Workbench* wb = models->workbench();
  connect(fit, &QPushButton::clicked, timeline_, &TimelineWidget::fit);
  connect(trace, &QPushButton::clicked, this, [this]() {
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export Chrome trace"),
                                                      QStringLiteral("trace.json"),
                                                      QStringLiteral("Chrome trace (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!export_chrome_trace(path, &error))
      QMessageBox::warning(this, QStringLiteral("Export failed"), error);
  });
  connect(timeline_, &TimelineWidget::rankClicked, wb, &Workbench::select_rank);
  connect(wb, &Workbench::selectionChanged, this,
          [this, wb]() { timeline_->set_selected_rank(wb->selected_rank()); });
  connect(wb, &Workbench::simulationChanged, this, &TimelineView::refresh);
  connect(wb, &Workbench::displayedChanged, this, &TimelineView::refresh);
  connect(wb, &Workbench::freshnessChanged, this,
          [this, wb]() { banner_->set_state(wb->plan_state()); });
  connect(banner_, &StaleBanner::refreshRequested, wb, &Workbench::replan);
  refresh();
  banner_->set_state(wb->plan_state());
}

QString TimelineView::header_text() const { return header_->text(); }

void TimelineView::sync_bars() {
  syncing_ = true;
  const double per_px = timeline_->ms_per_pixel();
  const int plot = std::max(1, timeline_->width() - TimelineWidget::kLabelWidth);
  const int total_px = static_cast<int>(std::min(2e9, timeline_->total_ms() / per_px));
  hbar_->setRange(0, std::max(0, total_px - plot / 2));
  hbar_->setPageStep(plot);
  hbar_->setSingleStep(std::max(1, plot / 20));
  hbar_->setValue(static_cast<int>(std::clamp(timeline_->start_ms() / per_px, 0.0, 2e9)));
  const int visible = timeline_->visible_height();
  vbar_->setRange(0, std::max(0, timeline_->content_height() - visible));
  vbar_->setPageStep(visible);
  vbar_->setSingleStep(TimelineWidget::kLanePitch);
  vbar_->setValue(timeline_->scroll_y());
  syncing_ = false;
}

QWidget* TimelineView::export_target() { return timeline_; }

bool TimelineView::export_chrome_trace(const QString& path, QString* error) const {
  const SimResultPtr& s = models_->workbench()->simulation();
  if (!s) {
    *error = QStringLiteral("no simulation to export");
    return false;
  }
  // As the command line writes its outputs (docs/outputs.md).
  const Status written =
      data::write_output_file(path.toStdString(), data::chrome_trace_json(*s) + "\n");
  if (!written.is_ok()) {
    *error = QString::fromStdString(written.message());
    return false;
  }
  return true;
}

void TimelineView::refresh() {
  Workbench* wb = models_->workbench();
  const PhaseComparisonModel& measured = models_->measured_phases;
  measured_box_->setVisible(measured.rowCount() > 0);
  if (measured.rowCount() > 0 && wb->displayed()) {
    const kernels::ReplayResult& replay = *wb->displayed()->base->replay;
    measured_header_->setText(
        QStringLiteral("<b>Measured</b> by the replay (%1 backend, %2) against TorchRec's "
                       "estimate and this simulation, per rank and phase: median and p90 of "
                       "the rank's time in the phase per iteration")
            .arg(QString::fromStdString(replay.backend).toHtmlEscaped(),
                 QString::fromStdString(replay.device_name).toHtmlEscaped()));
    measured_->resizeColumnsToContents();
  }
  const SimResultPtr& s = wb->simulation();
  if (!s) {
    const Status& st = wb->simulation_status();
    header_->setText(st.is_ok() ? QStringLiteral("No simulation yet")
                                : QStringLiteral("No simulation: ") +
                                      QString::fromStdString(st.message()));
    return;
  }
  const TimelineModel& m = models_->timeline;
  const DisplayedPlanPtr& d = wb->displayed();
  const QString which = d ? plan_title(*d).toHtmlEscaped() : QStringLiteral("plan");
  header_->setText(
      QStringLiteral(
          "<b>%1</b> simulated, <b>%2 iterations</b> on %3 ranks: steady-state iteration "
          "%4 ms, all end at %5 ms; critical path of the last iteration: %6 phases on %7 "
          "lanes")
          .arg(which)
          .arg(s->iterations)
          .arg(s->ranks.size())
          .arg(s->iteration_ms, 0, 'f', 4)
          .arg(s->total_ms, 0, 'f', 4)
          .arg(s->critical_path.size())
          .arg(m.critical_lanes().size()) +
      host_side_note(*s, d ? d->base->scenario : wb->scenario()));
}

}  // namespace shardlab::gui
