// The workbench's chart interface: a widget that draws columns of an item
// model. Views only know this header; the QtCharts implementation lives in
// qt_stacked_bar_chart.cc, so swapping the chart library touches no view.
#pragma once

#include <utility>
#include <vector>

#include <QString>
#include <QWidget>

class QAbstractItemModel;

namespace shardlab::gui {

// One bar per model row (labelled by the vertical header), stacking the
// model's columns first_column..last_column (DisplayRole numbers).
struct StackedBarSpec {
  QString title;
  QString value_axis;  // "GiB", "ms"
  int first_column = 0;
  int last_column = 0;
};

// One point per model row: x from x_column against each y column (one
// series each), optionally on log axes and with the y = x line.
struct ScatterSpec {
  QString title;
  QString x_axis;
  QString y_axis;
  int x_column = 0;
  std::vector<std::pair<int, QString>> y_columns;  // column, series name
  bool log_scale = false;
  bool identity_line = false;
};

class ChartView : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;
  ~ChartView() override = default;

  // Rows whose bar is highlighted (the selected rank); -1: none.
  virtual void set_highlighted_row(int row) = 0;
};

// A stacked bar chart of `model` (not owned; must outlive the chart).
ChartView* make_stacked_bar_chart(QAbstractItemModel* model, const StackedBarSpec& spec, QWidget* parent = nullptr);

// A scatter chart of `model` (not owned; must outlive the chart).
ChartView* make_scatter_chart(QAbstractItemModel* model, const ScatterSpec& spec, QWidget* parent = nullptr);

}  // namespace shardlab::gui
