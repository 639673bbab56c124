#include "app/placement_matrix_widget.h"

#include <QAbstractItemModel>
#include <QAbstractProxyModel>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "models/model_roles.h"
#include "models/placement_matrix_model.h"

namespace shardlab::gui {
namespace {

constexpr int kHostBand = 15;
constexpr int kRankHeader = 20;
constexpr double kMaxWidth = 72;
constexpr double kMaxHeight = 30;
// Below this cell size the cells are drawn from the overview image.
constexpr double kImageBelow = 6;

QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace

PlacementMatrixWidget::PlacementMatrixWidget(QWidget* parent) : QAbstractScrollArea(parent) {
  viewport()->setAutoFillBackground(true);
  viewport()->setBackgroundRole(QPalette::Base);
  setFocusPolicy(Qt::StrongFocus);
  connect(horizontalScrollBar(), &QScrollBar::valueChanged, viewport(),
          qOverload<>(&QWidget::update));
  connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(),
          qOverload<>(&QWidget::update));
}

QColor PlacementMatrixWidget::sharding_color(planner::ShardingType t) {
  switch (t) {
    case planner::ShardingType::kDataParallel:
      return QColor(0x9e, 0x9e, 0x9e);
    case planner::ShardingType::kTableWise:
      return QColor(0x4e, 0x79, 0xa7);
    case planner::ShardingType::kColumnWise:
      return QColor(0x59, 0xa1, 0x4f);
    case planner::ShardingType::kTableColumnWise:
      return QColor(0x76, 0xb7, 0xb2);
    case planner::ShardingType::kRowWise:
      return QColor(0xf2, 0x8e, 0x2b);
    case planner::ShardingType::kTableRowWise:
      return QColor(0xb0, 0x7a, 0xa1);
    case planner::ShardingType::kGridShard:
      return QColor(0xed, 0xc9, 0x48);
  }
  return QColor(0xcc, 0xcc, 0xcc);
}

QColor PlacementMatrixWidget::sharding_color(const QString& t) {
  const std::optional<planner::ShardingType> type = planner::parse_sharding_type(t.toStdString());
  return type ? sharding_color(*type) : QColor(0xcc, 0xcc, 0xcc);
}

void PlacementMatrixWidget::set_model(QAbstractItemModel* rows, PlacementMatrixModel* source) {
  if (rows_model_) disconnect(rows_model_, nullptr, this, nullptr);
  rows_model_ = rows;
  source_ = source;
  if (rows_model_) {
    connect(rows_model_, &QAbstractItemModel::modelReset, this, &PlacementMatrixWidget::relayout);
    connect(rows_model_, &QAbstractItemModel::layoutChanged, this,
            &PlacementMatrixWidget::relayout);
    connect(rows_model_, &QAbstractItemModel::rowsInserted, this, &PlacementMatrixWidget::relayout);
    connect(rows_model_, &QAbstractItemModel::rowsRemoved, this, &PlacementMatrixWidget::relayout);
    connect(rows_model_, &QAbstractItemModel::dataChanged, this, &PlacementMatrixWidget::relayout);
  }
  relayout();
}

void PlacementMatrixWidget::set_selection(int rank, const QString& table) {
  if (rank == rank_ && table == table_) return;
  rank_ = rank;
  table_ = table;
  viewport()->update();
}

int PlacementMatrixWidget::ranks() const { return source_ ? source_->columnCount() : 0; }

int PlacementMatrixWidget::header_height() const {
  const bool hosts = source_ && source_->ranks_per_host() < ranks();
  return kRankHeader + (hosts ? kHostBand : 0);
}

void PlacementMatrixWidget::relayout() {
  source_rows_.clear();
  int widest = 60;
  const QFontMetrics fm(font());
  if (rows_model_ && source_) {
    const auto* proxy = qobject_cast<const QAbstractProxyModel*>(rows_model_.data());
    const int n = rows_model_->rowCount();
    source_rows_.reserve(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      const int s = proxy ? proxy->mapToSource(proxy->index(r, 0)).row() : r;
      source_rows_.push_back(s);
      widest =
          std::max(widest, fm.horizontalAdvance(QString::fromStdString(source_->table(s).name)));
    }
  }
  name_width_ = std::min(widest + 12, 220);
  // The overview: one pixel per cell.
  const int columns = ranks();
  overview_ =
      QImage(std::max(1, columns), std::max(1, rows()), QImage::Format_ARGB32_Premultiplied);
  overview_.fill(Qt::transparent);
  for (int r = 0; r < rows() && columns > 0; ++r) {
    const int s = source_rows_[static_cast<size_t>(r)];
    const QRgb colour = sharding_color(source_->table(s).sharding_type).rgba();
    auto* line = reinterpret_cast<QRgb*>(overview_.scanLine(r));
    for (int c = 0; c < columns; ++c) {
      if (source_->shards_at(s, c) > 0) line[c] = colour;
    }
  }
  if (fitted_) {
    fit();
  } else {
    update_scrollbars();
    viewport()->update();
  }
}

double PlacementMatrixWidget::fit_width() const {
  const int columns = std::max(1, ranks());
  return std::max(0.05, (viewport()->width() - name_width_ - 2) / static_cast<double>(columns));
}

double PlacementMatrixWidget::fit_height() const {
  return std::max(0.05, (viewport()->height() - header_height() - 2) /
                            static_cast<double>(std::max(1, rows())));
}

void PlacementMatrixWidget::set_cell_size(double w, double h) {
  cell_w_ = std::clamp(w, std::min(fit_width(), kReadableWidth), kMaxWidth);
  cell_h_ = std::clamp(h, std::min(fit_height(), kReadableHeight), kMaxHeight);
  update_scrollbars();
  viewport()->update();
  emit zoomChanged();
}

void PlacementMatrixWidget::fit() {
  fitted_ = true;
  set_cell_size(std::min(fit_width(), kReadableWidth), std::min(fit_height(), kReadableHeight));
  horizontalScrollBar()->setValue(0);
  verticalScrollBar()->setValue(0);
}

void PlacementMatrixWidget::show_readable() {
  fitted_ = false;
  set_cell_size(kReadableWidth, kReadableHeight);
}

void PlacementMatrixWidget::zoom_by(double factor, QPointF anchor) {
  fitted_ = false;
  if (anchor.isNull()) {
    anchor = QPointF(name_width_ + (viewport()->width() - name_width_) / 2.0,
                     header_height() + (viewport()->height() - header_height()) / 2.0);
  }
  // Content position (in cells) under the anchor stays under it.
  const double cx = (anchor.x() - name_width_ + horizontalScrollBar()->value()) / cell_w_;
  const double cy = (anchor.y() - header_height() + verticalScrollBar()->value()) / cell_h_;
  set_cell_size(cell_w_ * factor, cell_h_ * factor);
  horizontalScrollBar()->setValue(
      static_cast<int>(std::lround(cx * cell_w_ - (anchor.x() - name_width_))));
  verticalScrollBar()->setValue(
      static_cast<int>(std::lround(cy * cell_h_ - (anchor.y() - header_height()))));
}

void PlacementMatrixWidget::update_scrollbars() {
  const int content_w = static_cast<int>(std::ceil(ranks() * cell_w_));
  const int content_h = static_cast<int>(std::ceil(rows() * cell_h_));
  const int view_w = std::max(0, viewport()->width() - name_width_);
  const int view_h = std::max(0, viewport()->height() - header_height());
  horizontalScrollBar()->setRange(0, std::max(0, content_w - view_w));
  horizontalScrollBar()->setPageStep(view_w);
  horizontalScrollBar()->setSingleStep(std::max(1, static_cast<int>(cell_w_)));
  verticalScrollBar()->setRange(0, std::max(0, content_h - view_h));
  verticalScrollBar()->setPageStep(view_h);
  verticalScrollBar()->setSingleStep(std::max(1, static_cast<int>(cell_h_)));
}

bool PlacementMatrixWidget::scroll_to_table(const QString& name) {
  for (int r = 0; r < rows(); ++r) {
    if (QString::fromStdString(source_->table(source_rows_[static_cast<size_t>(r)]).name) != name)
      continue;
    const int view_h = std::max(0, viewport()->height() - header_height());
    const int y = static_cast<int>(r * cell_h_);
    QScrollBar* v = verticalScrollBar();
    if (y < v->value() || y + cell_h_ > v->value() + view_h) v->setValue(y - view_h / 2);
    // And its first shard: the lowest rank holding one.
    const int s = source_rows_[static_cast<size_t>(r)];
    for (int c = 0; c < ranks(); ++c) {
      if (source_->shards_at(s, c) == 0) continue;
      const int view_w = std::max(0, viewport()->width() - name_width_);
      const int x = static_cast<int>(c * cell_w_);
      QScrollBar* h = horizontalScrollBar();
      if (x < h->value() || x + cell_w_ > h->value() + view_w) h->setValue(x - view_w / 2);
      break;
    }
    return true;
  }
  return false;
}

int PlacementMatrixWidget::first_visible_row() const {
  return static_cast<int>(verticalScrollBar()->value() / cell_h_);
}

int PlacementMatrixWidget::first_visible_rank() const {
  return static_cast<int>(horizontalScrollBar()->value() / cell_w_);
}

bool PlacementMatrixWidget::cell_at(const QPoint& pos, int* row, int* rank) const {
  if (!source_) return false;
  const int hh = header_height();
  *row =
      pos.y() < hh
          ? -1
          : static_cast<int>(std::floor((pos.y() - hh + verticalScrollBar()->value()) / cell_h_));
  *rank = pos.x() < name_width_
              ? -1
              : static_cast<int>(
                    std::floor((pos.x() - name_width_ + horizontalScrollBar()->value()) / cell_w_));
  return *row < rows() && *rank < ranks() && (*row >= 0 || *rank >= 0);
}

void PlacementMatrixWidget::render_frame(QPainter& p, const QRect& rect) const {
  p.fillRect(rect, palette().base());
  if (!source_) return;
  const int columns = ranks();
  const int hh = header_height();
  const double hs = horizontalScrollBar()->value();
  const double vs = verticalScrollBar()->value();
  const int width = rect.width();
  const int height = rect.height();
  const QRectF cells(name_width_, hh, width - name_width_, height - hh);
  const auto x_of = [&](int c) { return name_width_ + c * cell_w_ - hs; };
  const auto y_of = [&](int r) { return hh + r * cell_h_ - vs; };
  const int c0 =
      std::clamp(static_cast<int>(std::floor(hs / cell_w_)), 0, std::max(0, columns - 1));
  const int c1 =
      std::clamp(static_cast<int>(std::floor((hs + cells.width()) / cell_w_)), 0, columns - 1);
  const int r0 = std::clamp(static_cast<int>(std::floor(vs / cell_h_)), 0, std::max(0, rows() - 1));
  const int r1 =
      std::clamp(static_cast<int>(std::floor((vs + cells.height()) / cell_h_)), 0, rows() - 1);
  const int per_host = source_->ranks_per_host();
  const QFontMetrics fm = p.fontMetrics();
  const QColor highlight = palette().highlight().color();

  // Cells.
  p.save();
  p.setClipRect(cells);
  if (rows() > 0 && columns > 0) {
    if (cell_w_ < 1 || cell_h_ < 1) {
      // Cells below a pixel: every filled cell marks the pixel it falls in,
      // so a lone shard stays visible (averaging would wash it out).
      p.drawImage(QPointF(x_of(0), y_of(0)), shrunk_overview());
    } else if (cell_w_ < kImageBelow || cell_h_ < kImageBelow) {
      // The overview: the one-pixel-per-cell image, scaled.
      const QRectF source(c0, r0, c1 - c0 + 1, r1 - r0 + 1);
      const QRectF target(x_of(c0), y_of(r0), (c1 - c0 + 1) * cell_w_, (r1 - r0 + 1) * cell_h_);
      p.drawImage(target, overview_, source);
    } else {
      const bool text = cell_w_ >= 24 && cell_h_ >= 12;
      for (int r = r0; r <= r1; ++r) {
        const planner::TableSummary& t = source_->table(source_rows_[static_cast<size_t>(r)]);
        const int s = source_rows_[static_cast<size_t>(r)];
        const QColor colour = sharding_color(t.sharding_type);
        const std::string_view kernel = planner::to_string(t.compute_kernel);
        const bool uvm = kernel.find("uvm") != std::string_view::npos;
        const bool caching = kernel.find("caching") != std::string_view::npos;
        for (int c = c0; c <= c1; ++c) {
          const int shards = source_->shards_at(s, c);
          if (shards == 0) continue;
          const QRectF box = QRectF(x_of(c), y_of(r), cell_w_, cell_h_).adjusted(1, 1, -1, -1);
          p.fillRect(box, colour);
          if (uvm) p.fillRect(box, QBrush(colour.darker(150), Qt::BDiagPattern));
          if (caching) {
            p.setBrush(Qt::white);
            p.setPen(Qt::NoPen);
            p.drawEllipse(QPointF(box.right() - 4, box.top() + 4), 2, 2);
          }
          if (text) {
            QString label = str(planner::abbreviation(t.sharding_type));
            if (shards > 1) label += QStringLiteral(" x%1").arg(shards);
            p.setPen(Qt::white);
            p.drawText(box, Qt::AlignCenter, label);
          }
        }
      }
    }
    // Selection: the rank's column and the table's row, tinted.
    QColor tint = highlight;
    tint.setAlpha(50);
    if (rank_ >= 0 && rank_ < columns) {
      p.fillRect(QRectF(x_of(rank_), cells.top(), std::max(1.0, cell_w_), cells.height()), tint);
    }
    for (int r = r0; r <= r1 && !table_.isEmpty(); ++r) {
      if (QString::fromStdString(source_->table(source_rows_[static_cast<size_t>(r)]).name) ==
          table_) {
        p.fillRect(QRectF(cells.left(), y_of(r), cells.width(), std::max(1.0, cell_h_)), tint);
      }
    }
    // Grid: every rank when cells are wide enough, hosts always.
    const QColor grid = palette().mid().color();
    const double bottom = std::min(cells.bottom(), y_of(rows()));
    for (int c = c0; c <= c1 + 1; ++c) {
      const bool host_edge = per_host < columns && c % per_host == 0;
      if (!host_edge && cell_w_ < kImageBelow) continue;
      p.setPen(host_edge ? QPen(palette().text().color(), cell_w_ < kImageBelow ? 1 : 2)
                         : QPen(grid));
      p.drawLine(QPointF(x_of(c), cells.top()), QPointF(x_of(c), bottom));
    }
  }
  p.restore();

  // Rank header (and the host band above it), clipped to the cell columns.
  p.save();
  p.setClipRect(QRectF(name_width_, 0, width - name_width_, hh));
  p.fillRect(QRectF(name_width_, 0, width - name_width_, hh), palette().button());
  const int band = hh - kRankHeader;
  if (band > 0 && columns > 0) {
    for (int h = c0 / per_host; h <= c1 / per_host; ++h) {
      const QRectF r(x_of(h * per_host), 0, per_host * cell_w_, band);
      p.setPen(palette().text().color());
      p.drawRect(r.adjusted(0, 0, 0, -1));
      const QString full = QStringLiteral("host %1").arg(h);
      const QString shortest = QString::number(h);
      const QString label = fm.horizontalAdvance(full) + 4 <= r.width()       ? full
                            : fm.horizontalAdvance(shortest) + 2 <= r.width() ? shortest
                                                                              : QString();
      if (!label.isEmpty()) p.drawText(r, Qt::AlignCenter, label);
    }
  }
  // Labels every k ranks so that they never overlap.
  const double label_w =
      fm.horizontalAdvance(QStringLiteral("r%1").arg(std::max(0, columns - 1))) + 6;
  const int every = std::max(1, static_cast<int>(std::ceil(label_w / cell_w_)));
  for (int c = c0; c <= c1; ++c) {
    const QRectF h(x_of(c), band, cell_w_, kRankHeader);
    const bool overflow = source_->overflows(c);
    if (overflow) p.fillRect(h, QColor(0xe1, 0x57, 0x59));
    if (c == rank_) p.fillRect(h, highlight);
    if (c % every != 0) continue;
    p.setPen(c == rank_ ? palette().highlightedText().color() : palette().buttonText().color());
    p.drawText(QRectF(h.left(), h.top(), std::max(h.width(), label_w), h.height()),
               every == 1 ? Qt::AlignCenter : (Qt::AlignLeft | Qt::AlignVCenter),
               QStringLiteral("r%1").arg(c));
  }
  p.restore();

  // Table names, clipped to the cell rows.
  p.save();
  p.setClipRect(QRectF(0, hh, name_width_, height - hh));
  p.fillRect(QRectF(0, hh, name_width_, height - hh), palette().alternateBase());
  const int every_row = std::max(1, static_cast<int>(std::ceil((fm.height() - 2) / cell_h_)));
  for (int r = r0; r <= r1 && rows() > 0; ++r) {
    const QString name =
        QString::fromStdString(source_->table(source_rows_[static_cast<size_t>(r)]).name);
    const bool selected = !table_.isEmpty() && name == table_;
    const QRectF label(0, y_of(r), name_width_, cell_h_);
    if (selected) p.fillRect(label.adjusted(0, 0, 0, std::max(0.0, 1 - cell_h_)), highlight);
    if (r % every_row != 0 && !selected) continue;
    p.setPen(selected ? palette().highlightedText().color() : palette().text().color());
    const QRectF text_box(4, label.top() + (cell_h_ - fm.height()) / 2, name_width_ - 8,
                          fm.height());
    p.drawText(text_box, Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(name, Qt::ElideMiddle, name_width_ - 8));
  }
  p.restore();

  // Corner.
  const QRectF corner(0, 0, name_width_, hh);
  p.fillRect(corner, palette().button());
  p.setPen(palette().buttonText().color());
  p.drawText(corner.adjusted(4, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
             QStringLiteral("%1 x %2").arg(rows()).arg(columns));
  p.setPen(palette().mid().color());
  p.drawLine(QPointF(0, hh - 0.5), QPointF(width, hh - 0.5));
  p.drawLine(QPointF(name_width_ - 0.5, 0), QPointF(name_width_ - 0.5, height));
}

const QImage& PlacementMatrixWidget::shrunk_overview() const {
  const QSize size(std::max(1, static_cast<int>(std::ceil(ranks() * cell_w_))),
                   std::max(1, static_cast<int>(std::ceil(rows() * cell_h_))));
  if (shrunk_.size() == size && shrunk_key_ == overview_.cacheKey()) return shrunk_;
  shrunk_ = QImage(size, QImage::Format_ARGB32_Premultiplied);
  shrunk_.fill(Qt::transparent);
  // A cell covers [floor(i * size), floor((i + 1) * size)) pixels, at least one.
  const auto span = [](int i, double cell, int limit) {
    const int from = std::min(limit - 1, static_cast<int>(i * cell));
    return std::make_pair(from, std::clamp(static_cast<int>((i + 1) * cell), from + 1, limit));
  };
  for (int r = 0; r < overview_.height() && r < rows(); ++r) {
    const auto* line = reinterpret_cast<const QRgb*>(overview_.constScanLine(r));
    const auto [y0, y1] = span(r, cell_h_, size.height());
    for (int c = 0; c < overview_.width(); ++c) {
      if (qAlpha(line[c]) == 0) continue;
      const auto [x0, x1] = span(c, cell_w_, size.width());
      for (int y = y0; y < y1; ++y) {
        auto* target = reinterpret_cast<QRgb*>(shrunk_.scanLine(y));
        std::fill(target + x0, target + x1, line[c]);
      }
    }
  }
  shrunk_key_ = overview_.cacheKey();
  return shrunk_;
}

void PlacementMatrixWidget::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  render_frame(p, viewport()->rect());
}

void PlacementMatrixWidget::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  if (fitted_) {
    fit();
  } else {
    set_cell_size(cell_w_, cell_h_);
  }
}

void PlacementMatrixWidget::wheelEvent(QWheelEvent* event) {
  const int delta =
      event->angleDelta().y() != 0 ? event->angleDelta().y() : event->angleDelta().x();
  if (event->modifiers() & Qt::ControlModifier) {
    zoom_by(std::pow(1.2, delta / 120.0), event->position());
  } else if (event->modifiers() & Qt::ShiftModifier) {
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta);
  } else {
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta);
  }
  event->accept();
}

void PlacementMatrixWidget::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoom_by(1.25);
      break;
    case Qt::Key_Minus:
      zoom_by(0.8);
      break;
    case Qt::Key_0:
      fit();
      break;
    case Qt::Key_1:
      show_readable();
      break;
    default:
      QAbstractScrollArea::keyPressEvent(event);
      return;
  }
  event->accept();
}

void PlacementMatrixWidget::mousePressEvent(QMouseEvent* event) {
  int row = 0;
  int rank = 0;
  if (!cell_at(event->position().toPoint(), &row, &rank)) return;
  if (rank >= 0) emit rankClicked(rank);
  if (row >= 0)
    emit tableClicked(
        QString::fromStdString(source_->table(source_rows_[static_cast<size_t>(row)]).name));
}

bool PlacementMatrixWidget::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    int row = 0;
    int rank = 0;
    QString tip;
    if (cell_at(help->pos(), &row, &rank)) {
      if (row >= 0 && rank >= 0) {
        tip = source_->index(source_rows_[static_cast<size_t>(row)], rank)
                  .data(Qt::ToolTipRole)
                  .toString();
      } else if (row < 0) {
        tip = source_->headerData(rank, Qt::Horizontal, Qt::ToolTipRole).toString();
      } else {
        tip = QString::fromStdString(source_->table(source_rows_[static_cast<size_t>(row)]).name);
      }
    }
    if (tip.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), tip, viewport());
    }
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace shardlab::gui
