// The placement matrix, custom-painted: one row per table, one column per
// rank; a filled cell is a table's shard(s) on that rank, coloured by
// sharding type, hatched for UVM kernels, with a corner dot for caching
// kernels. Ranks that overflow (a relaxed placement) have a red header.
// Reads any model shaped like PlacementMatrixModel (e.g. through
// TableFilterProxy); paints only the exposed cells.
#pragma once

#include <QColor>
#include <QPointer>
#include <QString>
#include <QWidget>

class QAbstractItemModel;

namespace shardlab::gui {

class PlacementMatrixWidget : public QWidget {
  Q_OBJECT

 public:
  explicit PlacementMatrixWidget(QWidget* parent = nullptr);

  void set_model(QAbstractItemModel* model);
  void set_selection(int rank, const QString& table);

  static QColor sharding_color(const QString& sharding_type);

  QSize sizeHint() const override;

 signals:
  void rankClicked(int rank);
  void tableClicked(const QString& table);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void relayout();
  // Cell under `pos`: row (-1 for the header) and column (-1 for the names).
  bool cell_at(const QPoint& pos, int* row, int* column) const;

  QPointer<QAbstractItemModel> model_;
  int name_width_ = 120;
  int rank_ = -1;
  QString table_;
  static constexpr int kHeaderHeight = 22;
  static constexpr int kCellWidth = 40;
  static constexpr int kCellHeight = 18;
};

}  // namespace shardlab::gui
