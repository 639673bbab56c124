// The placement matrix, custom-painted: one row per table, one column per
// rank; a filled cell is a table's shard(s) on that rank, coloured by
// sharding type, hatched for UVM kernels, with a corner dot for caching
// kernels. Ranks that overflow (a relaxed placement) have a red header.
//
// Built for a thousand tables on a hundred ranks:
// - The rank header (with a band naming each host) and the table names stay
//   in place while the cells scroll under them.
// - Zoom runs from an overview that fits every table and rank in the view as
//   coloured cells (a heat map, drawn from a one-pixel-per-cell image) to
//   readable labels (40 x 18 px cells). Ctrl+wheel zooms about the cursor,
//   wheel / Shift+wheel scroll, +/- zoom, 0 fits, 1 shows readable cells.
// - Ranks are grouped by host: a thicker line between hosts, "host k" above.
// - scroll_to_table() brings a table's row into view (find by name).
//
// Reads a PlacementMatrixModel through the TableFilterProxy the Plan view's
// filters drive (rows in the proxy's order); paints only what is exposed.
#pragma once

#include <QAbstractScrollArea>
#include <QColor>
#include <QImage>
#include <QPointer>
#include <QString>
#include <vector>

#include "shardlab/planner/types.h"

class QAbstractItemModel;

namespace shardlab::gui {

class PlacementMatrixModel;

class PlacementMatrixWidget : public QAbstractScrollArea {
  Q_OBJECT

 public:
  static constexpr double kReadableWidth = 40;
  static constexpr double kReadableHeight = 18;

  explicit PlacementMatrixWidget(QWidget* parent = nullptr);

  // `rows`: the model the matrix shows (a proxy of `source`, or `source` itself).
  void set_model(QAbstractItemModel* rows, PlacementMatrixModel* source);
  void set_selection(int rank, const QString& table);

  // Cell size in pixels (fractions below one pixel in the overview).
  double cell_width() const { return cell_w_; }
  double cell_height() const { return cell_h_; }
  // Every rank and table in view.
  void fit();
  // Readable cells (kReadableWidth x kReadableHeight).
  void show_readable();
  // Multiplies the cell size by `factor`, keeping the cell under `anchor`
  // (viewport coordinates; the centre of the cells when null) in place.
  void zoom_by(double factor, QPointF anchor = {});
  // Scrolls the row of table `name` into view; false when no row shows it.
  // (Its row, and the column of its lowest rank holding a shard.)
  bool scroll_to_table(const QString& name);
  // The first visible row and rank (for tests).
  int first_visible_row() const;
  int first_visible_rank() const;
  int header_height() const;
  int name_width() const { return name_width_; }

  // Paints one frame of the viewport into `painter` over `rect`.
  void render_frame(QPainter& painter, const QRect& rect) const;

  static QColor sharding_color(const QString& sharding_type);
  static QColor sharding_color(planner::ShardingType type);

  QSize sizeHint() const override { return {640, 420}; }

 signals:
  void rankClicked(int rank);
  void tableClicked(const QString& table);
  void zoomChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  void relayout();
  void update_scrollbars();
  void set_cell_size(double w, double h);
  // Row (proxy order; -1 for the header) and rank (-1 for the names) under
  // `pos` in viewport coordinates.
  bool cell_at(const QPoint& pos, int* row, int* rank) const;
  int rows() const { return static_cast<int>(source_rows_.size()); }
  int ranks() const;
  double fit_width() const;
  double fit_height() const;
  // The overview at the current sub-pixel cell size (cached).
  const QImage& shrunk_overview() const;

  QPointer<QAbstractItemModel> rows_model_;
  QPointer<PlacementMatrixModel> source_;
  std::vector<int> source_rows_;  // proxy row -> source row
  QImage overview_;               // one pixel per (row, rank), empty cells transparent
  mutable QImage shrunk_;         // overview_ at cells below a pixel
  mutable qint64 shrunk_key_ = 0;
  double cell_w_ = kReadableWidth;
  double cell_h_ = kReadableHeight;
  bool fitted_ = true;  // keep fitting on resize until the user zooms
  int name_width_ = 120;
  int rank_ = -1;
  QString table_;
};

}  // namespace shardlab::gui
