#include "app/placement_matrix_widget.h"

#include <algorithm>

#include <QAbstractItemModel>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include "models/model_roles.h"

namespace shardlab::gui {

PlacementMatrixWidget::PlacementMatrixWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

QColor PlacementMatrixWidget::sharding_color(const QString& t) {
  if (t == QLatin1String("data_parallel")) return QColor(0x9e, 0x9e, 0x9e);
  if (t == QLatin1String("table_wise")) return QColor(0x4e, 0x79, 0xa7);
  if (t == QLatin1String("column_wise")) return QColor(0x59, 0xa1, 0x4f);
  if (t == QLatin1String("table_column_wise")) return QColor(0x76, 0xb7, 0xb2);
  if (t == QLatin1String("row_wise")) return QColor(0xf2, 0x8e, 0x2b);
  if (t == QLatin1String("table_row_wise")) return QColor(0xb0, 0x7a, 0xa1);
  return QColor(0xcc, 0xcc, 0xcc);
}

void PlacementMatrixWidget::set_model(QAbstractItemModel* model) {
  if (model_) disconnect(model_, nullptr, this, nullptr);
  model_ = model;
  if (model_) {
    connect(model_, &QAbstractItemModel::modelReset, this, &PlacementMatrixWidget::relayout);
    connect(model_, &QAbstractItemModel::layoutChanged, this, &PlacementMatrixWidget::relayout);
    connect(model_, &QAbstractItemModel::rowsInserted, this, &PlacementMatrixWidget::relayout);
    connect(model_, &QAbstractItemModel::rowsRemoved, this, &PlacementMatrixWidget::relayout);
    connect(model_, &QAbstractItemModel::dataChanged, this, [this]() { update(); });
  }
  relayout();
}

void PlacementMatrixWidget::set_selection(int rank, const QString& table) {
  if (rank == rank_ && table == table_) return;
  rank_ = rank;
  table_ = table;
  update();
}

void PlacementMatrixWidget::relayout() {
  int widest = 60;
  if (model_) {
    const QFontMetrics fm(font());
    for (int r = 0; r < model_->rowCount(); ++r) {
      widest = std::max(widest, fm.horizontalAdvance(model_->headerData(r, Qt::Vertical).toString()));
    }
  }
  name_width_ = std::min(widest + 12, 240);
  resize(sizeHint());
  updateGeometry();
  update();
}

QSize PlacementMatrixWidget::sizeHint() const {
  const int rows = model_ ? model_->rowCount() : 0;
  const int columns = model_ ? model_->columnCount() : 0;
  return {name_width_ + columns * kCellWidth + 2, kHeaderHeight + rows * kCellHeight + 2};
}

bool PlacementMatrixWidget::cell_at(const QPoint& pos, int* row, int* column) const {
  if (!model_) return false;
  *row = pos.y() < kHeaderHeight ? -1 : (pos.y() - kHeaderHeight) / kCellHeight;
  *column = pos.x() < name_width_ ? -1 : (pos.x() - name_width_) / kCellWidth;
  return *row < model_->rowCount() && *column < model_->columnCount();
}

void PlacementMatrixWidget::paintEvent(QPaintEvent* event) {
  QPainter p(this);
  const QRect exposed = event->rect();
  p.fillRect(exposed, palette().base());
  if (!model_) return;
  const int rows = model_->rowCount();
  const int columns = model_->columnCount();
  const int first_row = std::max(0, (exposed.top() - kHeaderHeight) / kCellHeight);
  const int last_row = std::min(rows - 1, (exposed.bottom() - kHeaderHeight) / kCellHeight);
  const int first_col = std::max(0, (exposed.left() - name_width_) / kCellWidth);
  const int last_col = std::min(columns - 1, (exposed.right() - name_width_) / kCellWidth);
  const QColor grid = palette().mid().color();

  // Rank header.
  for (int c = first_col; c <= last_col; ++c) {
    const QRect h(name_width_ + c * kCellWidth, 0, kCellWidth, kHeaderHeight);
    const bool overflow = model_->headerData(c, Qt::Horizontal, OverflowRole).toBool();
    p.fillRect(h, overflow ? QColor(0xe1, 0x57, 0x59) : (c == rank_ ? palette().highlight().color()
                                                                      : palette().button().color()));
    p.setPen(c == rank_ ? palette().highlightedText().color() : palette().buttonText().color());
    p.drawText(h, Qt::AlignCenter, model_->headerData(c, Qt::Horizontal).toString());
  }
  // Rows: name, then cells.
  for (int r = first_row; r <= last_row; ++r) {
    const int y = kHeaderHeight + r * kCellHeight;
    const QString name = model_->headerData(r, Qt::Vertical).toString();
    const bool selected_row = !table_.isEmpty() && name == table_;
    const QRect label(0, y, name_width_, kCellHeight);
    p.fillRect(label, selected_row ? palette().highlight().color() : palette().alternateBase().color());
    p.setPen(selected_row ? palette().highlightedText().color() : palette().text().color());
    p.drawText(label.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(name, Qt::ElideMiddle, name_width_ - 8));
    for (int c = first_col; c <= last_col; ++c) {
      const QRect cell(name_width_ + c * kCellWidth, y, kCellWidth, kCellHeight);
      if (c == rank_ || selected_row) p.fillRect(cell, palette().highlight().color().lighter(185));
      const QModelIndex index = model_->index(r, c);
      if (index.data(ShardCountRole).toInt() == 0) continue;
      const QColor color = sharding_color(index.data(ShardingTypeRole).toString());
      const QRect box = cell.adjusted(1, 1, -1, -1);
      p.fillRect(box, color);
      const QString kernel = index.data(ComputeKernelRole).toString();
      if (kernel.contains(QLatin1String("uvm"))) p.fillRect(box, QBrush(color.darker(150), Qt::BDiagPattern));
      if (kernel.contains(QLatin1String("caching"))) {
        p.setBrush(Qt::white);
        p.setPen(Qt::NoPen);
        p.drawEllipse(QPoint(box.right() - 4, box.top() + 4), 2, 2);
      }
      p.setPen(Qt::white);
      p.drawText(box, Qt::AlignCenter, index.data(Qt::DisplayRole).toString());
    }
  }
  // Grid.
  p.setPen(grid);
  for (int c = first_col; c <= last_col + 1; ++c) {
    const int x = name_width_ + c * kCellWidth;
    p.drawLine(x, 0, x, kHeaderHeight + rows * kCellHeight);
  }
  p.drawLine(0, kHeaderHeight, name_width_ + columns * kCellWidth, kHeaderHeight);
}

void PlacementMatrixWidget::mousePressEvent(QMouseEvent* event) {
  int row = 0;
  int column = 0;
  if (!cell_at(event->position().toPoint(), &row, &column)) return;
  if (column >= 0) emit rankClicked(column);
  if (row >= 0) emit tableClicked(model_->headerData(row, Qt::Vertical).toString());
}

bool PlacementMatrixWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    int row = 0;
    int column = 0;
    if (cell_at(help->pos(), &row, &column) && row >= 0 && column >= 0) {
      const QString tip = model_->index(row, column).data(Qt::ToolTipRole).toString();
      if (!tip.isEmpty()) {
        QToolTip::showText(help->globalPos(), tip, this);
        return true;
      }
    }
    QToolTip::hideText();
    event->ignore();
    return true;
  }
  return QWidget::event(event);
}

}  // namespace shardlab::gui
