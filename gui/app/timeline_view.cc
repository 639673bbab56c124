#include "app/timeline_view.h"

#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
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
  layout->addWidget(new QLabel(QStringLiteral("<span style='background:#9a9a9a'>&nbsp;&nbsp;&nbsp;"
                                              "</span> other (trace)"),
                               w),
                    (sim::kNumPhases + 1) / kColumns, (sim::kNumPhases + 1) % kColumns);
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

// The lanes holding the critical path, named as their labels ("r37 comm,
// r95 compute"), the first six and how many more: at scale Fit shows the
// whole run but not every lane, and "Next critical lane" goes to them.
QString critical_lane_names(const TimelineModel& m) {
  constexpr size_t kNamed = 6;
  const std::vector<int> lanes = m.critical_lanes();
  QStringList names;
  for (size_t i = 0; i < lanes.size() && i < kNamed; ++i)
    names << lane_name(m.lanes()[static_cast<size_t>(lanes[i])]);
  QString text = names.join(QStringLiteral(", "));
  if (lanes.size() > kNamed) text += QStringLiteral(" and %1 more").arg(lanes.size() - kNamed);
  return text;
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
  auto* critical = new QPushButton(QStringLiteral("Next critical lane"), this);
  critical->setToolTip(
      QStringLiteral("Scroll to the next lane on the critical path of the last iteration (C)"));
  auto* trace = new QPushButton(QStringLiteral("Export Chrome trace..."), this);
  auto* measured_trace = new QPushButton(QStringLiteral("Trace..."), this);
  measured_trace->setToolTip(
      QStringLiteral("Read a PyTorch profiler trace of this job (a file per rank, .json or "
                     ".json.gz): its measured lanes under the simulated ones (docs/traces.md)"));
  auto* trace_menu = new QMenu(measured_trace);
  measured_trace->setMenu(trace_menu);
  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(fit);
  bar->addWidget(critical);
  bar->addWidget(measured_trace);
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
  trace_label_ = new QLabel(this);
  trace_label_->setWordWrap(true);
  trace_label_->hide();
  against_ = new QPlainTextEdit(this);
  against_->setReadOnly(true);
  against_->setLineWrapMode(QPlainTextEdit::NoWrap);
  against_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  against_->hide();
  auto* chart_box = new QWidget(this);
  chart_box->setLayout(chart);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chart_box);
  split->addWidget(measured_box_);
  split->addWidget(against_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(banner_);
  layout->addLayout(bar);
  layout->addWidget(trace_label_);
  layout->addWidget(legend(this));
  layout->addWidget(split, 1);
  auto* help = new QLabel(
      QStringLiteral("Wheel or +/-: zoom, 0: fit, C: next critical lane, Shift+wheel or Up/Down: "
                     "scroll lanes, drag or arrows: pan, hover: phase details, click a lane label: "
                     "select the rank"),
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
  connect(critical, &QPushButton::clicked, timeline_, &TimelineWidget::show_next_critical);
  connect(trace, &QPushButton::clicked, this, [this]() {
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export Chrome trace"),
                                                      QStringLiteral("trace.json"),
                                                      QStringLiteral("Chrome trace (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!export_chrome_trace(path, &error))
      QMessageBox::warning(this, QStringLiteral("Export failed"), error);
  });
  trace_menu->addAction(QStringLiteral("Open trace files..."), this, [this]() {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, QStringLiteral("Open the job's trace: a file per rank"), QString(),
        QStringLiteral("PyTorch profiler traces (*.json *.json.gz)"));
    if (!files.isEmpty()) open_trace(files);
  });
  trace_menu->addAction(QStringLiteral("Open trace folder..."), this, [this]() {
    const QString folder =
        QFileDialog::getExistingDirectory(this, QStringLiteral("Open the job's trace folder"));
    if (!folder.isEmpty()) open_trace({folder});
  });
  trace_menu->addAction(QStringLiteral("Clear trace"), &models->trace, &MeasuredTrace::clear);
  connect(&models->trace, &MeasuredTrace::changed, this, &TimelineView::refresh_trace);
  connect(timeline_, &TimelineWidget::rankClicked, &wb->selection(), &Selection::select_rank);
  connect(&wb->selection(), &Selection::changed, this,
          [this, wb]() { timeline_->set_selected_rank(wb->selection().rank()); });
  connect(wb, &Workbench::simulationChanged, this, &TimelineView::refresh);
  connect(wb, &Workbench::displayedChanged, this, &TimelineView::refresh);
  connect(wb, &Workbench::freshnessChanged, this,
          [this, wb]() { banner_->set_state(wb->plan_state()); });
  connect(banner_, &StaleBanner::refreshRequested, wb, &Workbench::replan);
  refresh();
  banner_->set_state(wb->plan_state());
}

QString TimelineView::header_text() const { return header_->text(); }

QString TimelineView::trace_text() const { return trace_label_->text(); }

QString TimelineView::against_text() const { return against_->toPlainText(); }

void TimelineView::open_trace(const QStringList& paths) {
  std::vector<std::string> list;
  for (const QString& p : paths) list.push_back(p.toStdString());
  models_->trace.load(std::move(list));
}

// What the trace is, and the trace beside the simulation (the models hold
// both, computed in the core).
void TimelineView::refresh_trace() {
  const MeasuredTrace& t = models_->trace;
  const TraceBeside& beside = models_->trace_beside;
  const QString source = QString::fromStdString(t.source()).toHtmlEscaped();
  QString text;
  if (t.loading()) {
    text = QStringLiteral("Reading the trace %1...").arg(source);
  } else if (!t.status().is_ok()) {
    text = QStringLiteral("<b>Trace not read</b>: ") +
           QString::fromStdString(t.status().message()).toHtmlEscaped();
  } else if (t.summary() && !beside.timeline.is_ok()) {
    text = QStringLiteral("<b>Trace</b> %1 not laid out: ").arg(source) +
           QString::fromStdString(beside.timeline.status().message()).toHtmlEscaped();
  } else if (t.summary()) {
    const trace::MeasuredTimeline& m = *beside.timeline;
    text = QStringLiteral(
               "<b>Measured</b> (lanes \"trace gpu\" and \"trace nccl\", hatched): step %1 of %2, "
               "the median of the "
               "%3 step(s) every traced rank has (%4 ms on the lowest rank), from the last "
               "simulated iteration's start (%5 ms); %6")
               .arg(m.step)
               .arg(source)
               .arg(m.steps)
               .arg(m.step_ms, 0, 'f', 3)
               .arg(m.origin_ms, 0, 'f', 3)
               .arg(m.aligned ? QStringLiteral("ranks on one clock, aligned by their collectives")
                              : QStringLiteral("each rank from its own step's start (the files "
                                               "are not every rank of one job)"));
  }
  trace_label_->setText(text);
  trace_label_->setVisible(!text.isEmpty());
  const bool rows = t.summary() && beside.rows.is_ok();
  against_->setPlainText(rows ? QString::fromStdString(trace::against_text(*beside.rows))
                              : QString());
  against_->setVisible(rows);
}

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
  refresh_trace();
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
          "lanes (%8)")
          .arg(which)
          .arg(s->iterations)
          .arg(s->ranks.size())
          .arg(s->iteration_ms, 0, 'f', 4)
          .arg(s->total_ms, 0, 'f', 4)
          .arg(s->critical_path.size())
          .arg(m.critical_lanes().size())
          .arg(critical_lane_names(m)) +
      host_side_note(*s, d ? d->base->scenario : wb->scenario()));
}

}  // namespace shardlab::gui
