// The workbench's chart interface: a widget that draws columns of an item
// model. Views only know this header; the QtCharts implementation lives in
// qt_stacked_bar_chart.cc, so swapping the chart library touches no view.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <utility>
#include <vector>

class QAbstractItemModel;

namespace shardlab::gui {

// One bar per model row (labelled by the vertical header), stacking the
// model's columns first_column..last_column (DisplayRole numbers). Series
// are named by the columns' headers without a " (unit)" the value axis
// already says. Up to 32 bars each is labelled by its header; beyond, an
// axis numbers the rows every k-th (k a power of 2 keeping about 16
// numbers) with row_label_format. Hovering a bar shows describe_row().
struct StackedBarSpec {
  QString title;
  QString value_axis;  // "GiB", "ms"
  int first_column = 0;
  int last_column = 0;
  QString row_label_format = QStringLiteral("r%d");  // printf-style, of the row number
};

// One point per model row: x from x_column against each y column (one
// series each), optionally on log axes and with the y = x line. With
// split_row, rows from split_row() on form a second set of series (names
// with second_suffix, hollow markers), e.g. held-out records. Axes span the
// x column's values and the visible series' y values, to whole decades on
// log axes. Hovering a point shows its row's ToolTipRole.
struct ScatterSpec {
  QString title;
  QString x_axis;
  QString y_axis;
  int x_column = 0;
  std::vector<std::pair<int, QString>> y_columns;  // column, series name
  bool log_scale = false;
  bool identity_line = false;
  std::function<int()> split_row;
  QString first_suffix;
  QString second_suffix;
};

class ChartView : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;
  ~ChartView() override = default;

  // Rows whose bar is highlighted (the selected rank); -1: none.
  virtual void set_highlighted_row(int row) = 0;
  // What hovering row `row`'s bar shows: its label and every stacked value
  // with its series name ("r37: HBM shards 10.2, HBM dense 0.5, ... GiB");
  // empty for charts without bars or a row out of range.
  virtual QString describe_row(int row) const {
    (void)row;
    return {};
  }
  // The labels under the bars as drawn (some blank at scale); the series
  // names in the legend.
  virtual QStringList axis_labels() const { return {}; }
  virtual QStringList legend_names() const { return {}; }
  // Shows or hides the series of y column `y_index` (index into
  // ScatterSpec::y_columns); the axes follow. Bar charts ignore it.
  virtual void set_series_visible(int y_index, bool visible) {
    (void)y_index;
    (void)visible;
  }
};

// A stacked bar chart of `model` (not owned; must outlive the chart).
ChartView* make_stacked_bar_chart(QAbstractItemModel* model, const StackedBarSpec& spec,
                                  QWidget* parent = nullptr);

// A scatter chart of `model` (not owned; must outlive the chart).
ChartView* make_scatter_chart(QAbstractItemModel* model, const ScatterSpec& spec,
                              QWidget* parent = nullptr);

}  // namespace shardlab::gui
