// The simulated iteration as a Gantt chart, custom-painted: one lane per rank
// and stream, grouped by host (a band names each host's lanes), a bar per
// phase coloured by phase, critical-path phases outlined in red. Wheel zooms
// time around the cursor (Shift+wheel scrolls lanes), dragging pans, keys
// zoom (+, -, 0 fits) and pan (arrows, Page Up/Down, Home/End), C steps
// through the critical path's lanes (show_next_critical), hovering
// shows the phase, its iteration, tables and bytes. The Timeline view adds
// scrollbars that follow the view (viewChanged).
//
// Painting touches only what is visible: the lanes in view, and in each lane
// the phases found by binary search from the left edge (a lane's phases run
// one after another, so their ends are sorted too). A 128-rank iteration has
// 256 lanes; a frame paints the ~40 in view.
#pragma once

#include <QColor>
#include <QPoint>
#include <QPointer>
#include <QWidget>

#include "shardlab/sim/simulation.h"

namespace shardlab::gui {

class TimelineModel;

// A phase's bar colour (the timeline's legend shows the same).
QColor phase_color(sim::Phase p);

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kLaneHeight = 16;
  static constexpr int kLanePitch = 18;
  static constexpr int kLabelWidth = 124;
  static constexpr int kHostBand = 22;  // left part of the labels: the host
  static constexpr int kAxisHeight = 24;

  explicit TimelineWidget(QWidget* parent = nullptr);

  void set_model(TimelineModel* model);
  void set_selected_rank(int rank);

  // The visible window: time at the left edge, ms per pixel, first lane's
  // vertical offset in pixels.
  void set_view(double start_ms, double ms_per_pixel, int scroll_y);
  double start_ms() const { return start_ms_; }
  double ms_per_pixel() const { return ms_per_px_; }
  int scroll_y() const { return scroll_y_; }
  // Shows the whole simulation.
  void fit();
  // Brings the next lane holding a critical phase (after the one this last
  // showed, wrapping; the first after fit()) into the middle of the view and
  // its first critical phase into view at the current zoom. Returns the
  // lane, or -1 when no lane holds one. At scale Fit shows the whole run but
  // not every lane: this finds the critical path's lanes.
  int show_next_critical();
  // Moves the view by pixels (positive dx shows later times).
  void pan_by(int dx, int dy);
  // Zooms by `factor` (> 1 zooms in) keeping the time under x fixed.
  void zoom_at(int x, double factor);
  // Pixels of every lane, and of the lanes in view.
  int content_height() const;
  int visible_height() const;
  // ms of the whole run (0 without a model).
  double total_ms() const;

  // Paints one frame into `painter` over `rect` (what paintEvent does).
  void render_frame(QPainter& painter, const QRect& rect) const;
  // The phase under `pos` as tooltip text, or empty.
  QString describe_at(const QPoint& pos) const;

  QSize sizeHint() const override { return {900, 480}; }

 signals:
  void viewChanged();
  void rankClicked(int rank);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void clamp();
  double time_at(int x) const { return start_ms_ + (x - kLabelWidth) * ms_per_px_; }
  double x_at(double ms) const { return kLabelWidth + (ms - start_ms_) / ms_per_px_; }

  QPointer<TimelineModel> model_;
  double start_ms_ = 0.0;
  double ms_per_px_ = 0.001;
  int scroll_y_ = 0;
  int selected_rank_ = -1;
  bool dragging_ = false;
  QPoint drag_from_;
  bool fitted_ = false;
  int critical_cursor_ = -1;  // the lane show_next_critical() showed last
};

}  // namespace shardlab::gui
