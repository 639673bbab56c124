#include "app/timeline_widget.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "models/timeline_model.h"
#include "models/units.h"

namespace shardlab::gui {
namespace {

QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// A "nice" tick step (1, 2 or 5 x 10^k) near `raw`.
double nice_step(double raw) {
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10.0 * p;
}

// First phase of `lane` that ends after `t` (phases run back to back, so
// ends are sorted like starts).
std::vector<TimelinePhase>::const_iterator first_ending_after(const TimelineLane& lane, double t) {
  return std::partition_point(lane.phases.begin(), lane.phases.end(),
                              [t](const TimelinePhase& p) { return p.record.end_ms < t; });
}

// A measured span no rule of docs/traces.md "Phases" places.
const QColor kOtherColor(0x9a, 0x9a, 0x9a);

}  // namespace

QColor phase_color(sim::Phase p) {
  switch (p) {
    case sim::Phase::kInputDist:
      return QColor(0x8c, 0xd1, 0x7d);
    case sim::Phase::kFwdCompute:
      return QColor(0x4e, 0x79, 0xa7);
    case sim::Phase::kOutputDist:
      return QColor(0xf2, 0x8e, 0x2b);
    case sim::Phase::kDenseFwd:
      return QColor(0xba, 0xb0, 0xac);
    case sim::Phase::kDenseBwd:
      return QColor(0x9d, 0x75, 0x5d);
    case sim::Phase::kBwdOutputDist:
      return QColor(0xff, 0xbe, 0x7d);
    case sim::Phase::kBwdCompute:
      return QColor(0x76, 0xb7, 0xb2);
    case sim::Phase::kDpAllreduce:
      return QColor(0xb0, 0x7a, 0xa1);
    case sim::Phase::kPrefetch:
      return QColor(0xed, 0xc9, 0x48);
    case sim::Phase::kIterationOverhead:
      return QColor(0xd4, 0xd4, 0xd4);
    // A darker dp_allreduce: the dense gradients' all-reduce, not the critical path's red.
    case sim::Phase::kDdpAllreduce:
      return QColor(0x6a, 0x3d, 0x9a);
    case sim::Phase::kDenseOptimizer:
      return QColor(0x6b, 0x4c, 0x3b);
    // The host blocked on a GPU result: black, the one thing nobody wants.
    case sim::Phase::kHostSync:
      return QColor(0x33, 0x33, 0x33);
  }
  return Qt::gray;
}

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAutoFillBackground(false);
  setMinimumSize(300, 120);
  setFocusPolicy(Qt::StrongFocus);
}

void TimelineWidget::set_model(TimelineModel* model) {
  if (model_) disconnect(model_, nullptr, this, nullptr);
  model_ = model;
  if (model_) {
    connect(model_, &QAbstractItemModel::modelReset, this, [this]() {
      fitted_ = false;
      fit();
    });
  }
  fit();
}

void TimelineWidget::set_selected_rank(int rank) {
  if (rank == selected_rank_) return;
  selected_rank_ = rank;
  update();
}

void TimelineWidget::set_view(double start_ms, double ms_per_pixel, int scroll_y) {
  start_ms_ = start_ms;
  ms_per_px_ = ms_per_pixel > 0 ? ms_per_pixel : ms_per_px_;
  scroll_y_ = scroll_y;
  clamp();
  update();
  emit viewChanged();
}

void TimelineWidget::fit() {
  const double total = model_ && model_->total_ms() > 0 ? model_->total_ms() : 1.0;
  const int plot = std::max(50, width() - kLabelWidth - 8);
  fitted_ = true;
  critical_cursor_ = -1;
  set_view(0.0, total / plot, 0);
}

int TimelineWidget::show_next_critical() {
  if (!model_) return -1;
  const std::vector<int> lanes = model_->critical_lanes();
  if (lanes.empty()) return -1;
  const auto next = std::upper_bound(lanes.begin(), lanes.end(), critical_cursor_);
  critical_cursor_ = next == lanes.end() ? lanes.front() : *next;
  const TimelineLane& lane = model_->lanes()[static_cast<size_t>(critical_cursor_)];
  const auto first = std::find_if(lane.phases.begin(), lane.phases.end(),
                                  [](const TimelinePhase& p) { return p.critical; });
  const int plot = std::max(50, width() - kLabelWidth);
  double start = start_ms_;
  if (first != lane.phases.end() && (first->record.start_ms < start_ms_ ||
                                     first->record.start_ms > start_ms_ + plot * ms_per_px_))
    start = first->record.start_ms - 0.1 * plot * ms_per_px_;
  const int visible = std::max(0, height() - kAxisHeight);
  fitted_ = false;
  set_view(start, ms_per_px_, critical_cursor_ * kLanePitch - visible / 2);
  return critical_cursor_;
}

void TimelineWidget::pan_by(int dx, int dy) {
  fitted_ = false;
  set_view(start_ms_ + dx * ms_per_px_, ms_per_px_, scroll_y_ + dy);
}

void TimelineWidget::zoom_at(int x, double factor) {
  fitted_ = false;
  const double t = time_at(x);
  const double scale = ms_per_px_ / factor;
  set_view(t - (x - kLabelWidth) * scale, scale, scroll_y_);
}

int TimelineWidget::content_height() const {
  return model_ ? static_cast<int>(model_->lanes().size()) * kLanePitch : 0;
}

int TimelineWidget::visible_height() const { return std::max(0, height() - kAxisHeight); }

double TimelineWidget::total_ms() const { return model_ ? model_->total_ms() : 0.0; }

void TimelineWidget::clamp() {
  const double total = model_ ? model_->total_ms() : 0.0;
  // Zoom out at most to twice the whole run, in to 1 ns per pixel.
  const int plot = std::max(50, width() - kLabelWidth);
  ms_per_px_ = std::clamp(ms_per_px_, 1e-6, std::max(1e-6, 2.0 * std::max(total, 1e-3) / plot));
  start_ms_ = std::clamp(start_ms_, -0.5 * plot * ms_per_px_, std::max(0.0, total));
  const int visible = std::max(0, height() - kAxisHeight);
  scroll_y_ = std::clamp(scroll_y_, 0, std::max(0, content_height() - visible));
}

void TimelineWidget::render_frame(QPainter& p, const QRect& rect) const {
  p.fillRect(rect, Qt::white);
  if (!model_ || model_->lanes().empty()) {
    p.setPen(Qt::darkGray);
    p.drawText(rect, Qt::AlignCenter, QStringLiteral("No simulation"));
    return;
  }
  const std::vector<TimelineLane>& lanes = model_->lanes();
  const int plot_left = kLabelWidth;
  const double view_end = time_at(rect.right());
  // Time axis with nice ticks.
  const double step = nice_step(80.0 * ms_per_px_);
  p.setPen(QColor(0x60, 0x60, 0x60));
  p.fillRect(QRect(0, 0, rect.width(), kAxisHeight), QColor(0xf3, 0xf3, 0xf3));
  for (double t = std::ceil(start_ms_ / step) * step; t <= view_end; t += step) {
    const int x = static_cast<int>(std::lround(x_at(t)));
    if (x < plot_left) continue;
    p.drawLine(x, kAxisHeight - 6, x, kAxisHeight);
    p.drawText(QRect(x + 2, 0, 80, kAxisHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
               QString::number(t, 'g', 6) + QStringLiteral(" ms"));
  }
  p.setClipRect(QRect(0, kAxisHeight, rect.width(), rect.height() - kAxisHeight));
  const int first = std::max(0, scroll_y_ / kLanePitch);
  const int last = std::min(static_cast<int>(lanes.size()) - 1,
                            (scroll_y_ + rect.height() - kAxisHeight) / kLanePitch);
  const QPen critical_pen(QColor(0xd6, 0x27, 0x28), 2);
  for (int i = first; i <= last; ++i) {
    const TimelineLane& lane = lanes[static_cast<size_t>(i)];
    const int y = kAxisHeight + i * kLanePitch - scroll_y_;
    if (lane.rank == selected_rank_)
      p.fillRect(QRect(0, y - 1, rect.width(), kLanePitch), QColor(0xfd, 0xf3, 0xc4));
    // Host boundaries.
    if (i > 0 && lanes[static_cast<size_t>(i - 1)].host != lane.host) {
      p.setPen(QColor(0x80, 0x80, 0x80));
      p.drawLine(0, y - 1, rect.width(), y - 1);
    }
    p.setPen(lane.critical ? QColor(0xd6, 0x27, 0x28) : QColor(0x30, 0x30, 0x30));
    if (lane.measured) {
      // A traced step's lane: a hatched ground, so it reads as measured.
      p.fillRect(QRect(plot_left, y, rect.width() - plot_left, kLaneHeight),
                 QBrush(QColor(0xe8, 0xe8, 0xe8), Qt::BDiagPattern));
    }
    p.drawText(QRect(kHostBand + 4, y, kLabelWidth - kHostBand - 8, kLaneHeight),
               Qt::AlignVCenter | Qt::AlignLeft, lane_name(lane));
    p.save();
    p.setClipRect(
        QRect(plot_left, std::max(y, kAxisHeight), rect.width() - plot_left, kLaneHeight));
    double last_px = -1e9;  // right edge painted so far: sub-pixel phases merge
    for (auto it = first_ending_after(lane, start_ms_); it != lane.phases.end(); ++it) {
      const sim::PhaseRecord& r = it->record;
      if (r.start_ms > view_end) break;
      const double x0 = x_at(r.start_ms);
      const double x1 = std::max(x0 + 1.0, x_at(r.end_ms));
      if (x1 <= last_px && !it->critical) continue;
      last_px = x1;
      const QRectF box(x0, y, x1 - x0, kLaneHeight);
      p.fillRect(box, it->other ? kOtherColor : phase_color(r.phase));
      if (it->critical) {
        p.setPen(critical_pen);
        p.setBrush(Qt::NoBrush);
        p.drawRect(box.adjusted(1, 1, -1, -1));
      }
      if (x1 - x0 > 60) {
        p.setPen(Qt::white);
        p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   it->other ? QStringLiteral("other") : str(sim::to_string(r.phase)));
      }
    }
    p.restore();
  }
  // Host bands: one per host's run of lanes, named when there is room.
  for (int i = first; i <= last;) {
    const int host = lanes[static_cast<size_t>(i)].host;
    int end = i;
    while (end + 1 < static_cast<int>(lanes.size()) &&
           lanes[static_cast<size_t>(end + 1)].host == host)
      ++end;
    int begin = i;
    while (begin > 0 && lanes[static_cast<size_t>(begin - 1)].host == host) --begin;
    const QRect band(0, kAxisHeight + begin * kLanePitch - scroll_y_, kHostBand,
                     (end - begin + 1) * kLanePitch - 1);
    p.fillRect(band, host % 2 == 0 ? QColor(0xe4, 0xea, 0xf2) : QColor(0xd2, 0xdc, 0xe9));
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.save();
    const QRect visible_band =
        band.intersected(QRect(0, kAxisHeight, kHostBand, rect.height() - kAxisHeight));
    p.translate(visible_band.center());
    p.rotate(-90);
    const QString full = QStringLiteral("host %1").arg(host);
    const QString label = p.fontMetrics().horizontalAdvance(full) + 4 <= visible_band.height()
                              ? full
                              : QStringLiteral("h%1").arg(host);
    p.drawText(QRect(-visible_band.height() / 2, -kHostBand / 2, visible_band.height(), kHostBand),
               Qt::AlignCenter, label);
    p.restore();
    i = end + 1;
  }
  p.setClipping(false);
  p.setPen(QColor(0xb0, 0xb0, 0xb0));
  p.drawLine(plot_left - 1, kAxisHeight, plot_left - 1, rect.bottom());
}

QString TimelineWidget::describe_at(const QPoint& pos) const {
  if (!model_ || pos.x() < kLabelWidth || pos.y() < kAxisHeight) return {};
  const int lane_index = (pos.y() - kAxisHeight + scroll_y_) / kLanePitch;
  if (lane_index < 0 || lane_index >= static_cast<int>(model_->lanes().size())) return {};
  const TimelineLane& lane = model_->lanes()[static_cast<size_t>(lane_index)];
  // Half a pixel either side, so a one-pixel sliver can be hovered.
  const double t = time_at(pos.x());
  for (auto it = first_ending_after(lane, t - ms_per_px_); it != lane.phases.end(); ++it) {
    const sim::PhaseRecord& r = it->record;
    if (r.start_ms > t + ms_per_px_) break;
    // A measured span names its step and GPU events; a simulated phase its
    // iteration and table shards.
    const QString phase = it->other ? QStringLiteral("other") : str(sim::to_string(r.phase));
    QString text =
        QStringLiteral("%1%2\nrank %3, %4 %5\n%6 to %7 ms (%8)\n")
            .arg(phase, lane.measured ? QStringLiteral(", measured (step %1)").arg(r.iteration)
                                      : QStringLiteral(" (iteration %1)").arg(r.iteration))
            .arg(lane.rank)
            .arg(str(sim::to_string(lane.stream)),
                 lane.measured ? QStringLiteral("lane") : QStringLiteral("stream"))
            .arg(r.start_ms, 0, 'f', 4)
            .arg(r.end_ms, 0, 'f', 4)
            .arg(format_ms(r.end_ms - r.start_ms));
    if (lane.measured) return text + QStringLiteral("%1 GPU event(s)").arg(it->events);
    text += QStringLiteral("%1 table shard(s)").arg(r.tables);
    if (r.bytes > 0) text += QStringLiteral(", sends ") + format_bytes(r.bytes);
    if (it->critical) text += QStringLiteral("\non the critical path");
    return text;
  }
  return {};
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render_frame(p, rect());
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (event->modifiers() & Qt::ShiftModifier) {
    pan_by(0, static_cast<int>(-steps * 3 * kLanePitch));
  } else {
    zoom_at(static_cast<int>(event->position().x()), std::pow(1.25, steps));
  }
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  dragging_ = true;
  drag_from_ = event->position().toPoint();
  if (model_ && drag_from_.x() < kLabelWidth && drag_from_.y() >= kAxisHeight) {
    const int lane = (drag_from_.y() - kAxisHeight + scroll_y_) / kLanePitch;
    if (lane >= 0 && lane < static_cast<int>(model_->lanes().size())) {
      emit rankClicked(model_->lanes()[static_cast<size_t>(lane)].rank);
    }
  }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (dragging_) {
    const QPoint d = drag_from_ - pos;
    drag_from_ = pos;
    pan_by(d.x(), d.y());
    return;
  }
  const QString tip = describe_at(pos);
  if (tip.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
  }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent*) { dragging_ = false; }

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
  const int plot = std::max(50, width() - kLabelWidth);
  const int center = kLabelWidth + plot / 2;
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoom_at(center, 1.5);
      break;
    case Qt::Key_Minus:
      zoom_at(center, 1 / 1.5);
      break;
    case Qt::Key_0:
      fit();
      break;
    case Qt::Key_C:
      show_next_critical();
      break;
    case Qt::Key_Left:
      pan_by(-plot / 8, 0);
      break;
    case Qt::Key_Right:
      pan_by(plot / 8, 0);
      break;
    case Qt::Key_Up:
      pan_by(0, -kLanePitch);
      break;
    case Qt::Key_Down:
      pan_by(0, kLanePitch);
      break;
    case Qt::Key_PageUp:
      pan_by(0, -visible_height());
      break;
    case Qt::Key_PageDown:
      pan_by(0, visible_height());
      break;
    case Qt::Key_Home:
      set_view(start_ms_, ms_per_px_, 0);
      break;
    case Qt::Key_End:
      set_view(start_ms_, ms_per_px_, content_height());
      break;
    default:
      QWidget::keyPressEvent(event);
      return;
  }
  event->accept();
}

void TimelineWidget::resizeEvent(QResizeEvent*) {
  if (fitted_) {
    fit();
  } else {
    clamp();
  }
}

}  // namespace shardlab::gui
