// The Timeline view: the simulated iteration as a Gantt chart
// (TimelineWidget) with its legend, fit / export buttons and a summary of the
// critical path. Exports as PNG, SVG and Chrome trace JSON.
#pragma once

#include "app/workbench_view.h"

class QLabel;

namespace shardlab::gui {

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

  // Writes the shown simulation as Chrome trace JSON (data/sim_json.h).
  bool export_chrome_trace(const QString& path, QString* error) const;

 private:
  void refresh();

  WorkbenchModels* models_;
  QLabel* header_ = nullptr;
  TimelineWidget* timeline_ = nullptr;
};

}  // namespace shardlab::gui
