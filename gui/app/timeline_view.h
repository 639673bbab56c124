// The Timeline view: the simulated iteration as a Gantt chart
// (TimelineWidget) with scrollbars, its legend, fit / export buttons and a
// header naming the plan it simulates (best plan, proposal, plan file,
// comparison row) with a summary of the critical path. Exports as PNG, SVG
// and Chrome trace JSON. "Trace..." reads a profiler trace of the job
// (WorkbenchModels::trace): its measured lanes join the chart, and the
// `simulate --against` table shows under it.
#pragma once

#include "app/workbench_view.h"

class QLabel;
class QPlainTextEdit;
class QScrollBar;
class QTableView;

namespace shardlab::gui {

class StaleBanner;
class TimelineWidget;
class WorkbenchModels;

class TimelineView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit TimelineView(WorkbenchModels* models, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("timeline"); }
  QString title() const override { return QStringLiteral("Timeline"); }
  QWidget* export_target() override;

  TimelineWidget* timeline() const { return timeline_; }
  QScrollBar* horizontal_bar() const { return hbar_; }
  QScrollBar* vertical_bar() const { return vbar_; }
  QString header_text() const;
  // The replay's measured phases beside the simulation (hidden when the shown
  // plan has no measurements).
  QTableView* measured_table() const { return measured_; }

  // What the view says of the trace: read, failed, or laid out beside the
  // simulation; and the measured-against-simulated table (empty without).
  QString trace_text() const;
  QString against_text() const;
  // Reads `paths` as the job's trace (the "Trace..." menu's action).
  void open_trace(const QStringList& paths);

  // Writes the shown simulation as Chrome trace JSON (data/sim_json.h).
  bool export_chrome_trace(const QString& path, QString* error) const;

 private:
  void refresh();
  void refresh_trace();
  void sync_bars();

  WorkbenchModels* models_;
  StaleBanner* banner_ = nullptr;
  QLabel* header_ = nullptr;
  TimelineWidget* timeline_ = nullptr;
  QScrollBar* hbar_ = nullptr;
  QScrollBar* vbar_ = nullptr;
  QWidget* measured_box_ = nullptr;
  QLabel* measured_header_ = nullptr;
  QTableView* measured_ = nullptr;
  QLabel* trace_label_ = nullptr;
  QPlainTextEdit* against_ = nullptr;
  bool syncing_ = false;
};

}  // namespace shardlab::gui
