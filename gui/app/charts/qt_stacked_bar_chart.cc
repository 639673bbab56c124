// ChartView on QtCharts: a QStackedBarSeries fed by a QVBarModelMapper (one
// bar set per model column), categories from the model's vertical header.
#include <QAbstractItemModel>
#include <QCursor>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QVBarModelMapper>
#include <QtCharts/QValueAxis>
#include <algorithm>

#include "app/charts/chart_view.h"

namespace shardlab::gui {
namespace {

class QtStackedBarChart : public ChartView {
 public:
  QtStackedBarChart(QAbstractItemModel* model, const StackedBarSpec& spec, QWidget* parent)
      : ChartView(parent), model_(model), spec_(spec) {
    chart_ = new QChart();
    chart_->setTitle(spec.title);
    chart_->setAnimationOptions(QChart::NoAnimation);
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chart_->setMargins(QMargins(4, 4, 4, 4));
    series_ = new QStackedBarSeries(chart_);
    series_->setBarWidth(0.8);
    mapper_ = new QVBarModelMapper(this);
    mapper_->setFirstBarSetColumn(spec.first_column);
    mapper_->setLastBarSetColumn(spec.last_column);
    mapper_->setSeries(series_);
    mapper_->setModel(model);
    chart_->addSeries(series_);
    categories_ = new QBarCategoryAxis(chart_);
    values_ = new QValueAxis(chart_);
    values_->setTitleText(spec.value_axis);
    values_->setLabelFormat(QStringLiteral("%.3g"));
    values_->setTickCount(4);
    chart_->addAxis(categories_, Qt::AlignBottom);
    chart_->addAxis(values_, Qt::AlignLeft);
    series_->attachAxis(categories_);
    series_->attachAxis(values_);
    rows_axis_ = new QValueAxis(chart_);
    rows_axis_->setTickType(QValueAxis::TicksDynamic);
    rows_axis_->setTickAnchor(0.0);
    rows_axis_->setLabelFormat(spec.row_label_format);
    rows_axis_->setGridLineVisible(false);
    span_ = new QLineSeries(chart_);
    span_->setPen(Qt::NoPen);
    chart_->addSeries(span_);
    chart_->addAxis(rows_axis_, Qt::AlignBottom);
    span_->attachAxis(rows_axis_);
    span_->attachAxis(values_);
    for (QLegendMarker* m : chart_->legend()->markers(span_)) m->setVisible(false);
    chart_->legend()->setShowToolTips(true);
    connect(series_, &QStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet*) {
      if (on) {
        QToolTip::showText(QCursor::pos(), describe_row(index), this);
      } else {
        QToolTip::hideText();
      }
    });
    auto* view = new QChartView(chart_, this);
    view->setMinimumHeight(190);
    view->setRenderHint(QPainter::Antialiasing);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view);
    connect(model, &QAbstractItemModel::modelReset, this, [this]() { refresh(); });
    // Columns outside the stack (e.g. the simulation's busy time) do not
    // change the chart.
    connect(model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& from, const QModelIndex& to) {
              if (to.column() >= spec_.first_column && from.column() <= spec_.last_column)
                refresh();
            });
    refresh();
  }

  QString describe_row(int row) const override {
    if (row < 0 || row >= model_->rowCount()) return {};
    QStringList parts;
    for (int c = spec_.first_column; c <= spec_.last_column; ++c) {
      parts << QStringLiteral("%1 %2")
                   .arg(series_name(c))
                   .arg(model_->index(row, c).data().toDouble(), 0, 'g', 4);
    }
    return QStringLiteral("%1: %2 %3")
        .arg(model_->headerData(row, Qt::Vertical).toString(), parts.join(QStringLiteral(", ")),
             spec_.value_axis);
  }

  QStringList axis_labels() const override {
    if (!rows_axis_->isVisible()) return categories_->categories();
    QStringList labels;
    const QByteArray format = spec_.row_label_format.toUtf8();
    for (double v = 0.0; v < rows_axis_->max(); v += rows_axis_->tickInterval())
      labels << QString::asprintf(format.constData(), static_cast<int>(v));
    return labels;
  }

  QStringList legend_names() const override {
    QStringList names;
    for (const QLegendMarker* m : chart_->legend()->markers(series_)) names << m->label();
    return names;
  }

  void set_highlighted_row(int row) override {
    highlighted_ = row;
    for (QBarSet* set : series_->barSets()) {
      set->deselectAllBars();
      if (row >= 0 && row < set->count()) set->selectBar(row);
    }
  }

 private:
  // Column `c`'s header without the " (unit)" the value axis says.
  QString series_name(int c) const {
    QString name = model_->headerData(c, Qt::Horizontal).toString();
    const QString unit = QStringLiteral(" (") + spec_.value_axis + QStringLiteral(")");
    if (name.endsWith(unit)) name.chop(unit.size());
    return name;
  }

  // Categories and the value range follow the model (QtCharts does not
  // rescale axes that are attached explicitly).
  void refresh() {
    QStringList names;
    double top = 0.0;
    const int rows = model_->rowCount();
    for (int r = 0; r < rows; ++r) {
      names << model_->headerData(r, Qt::Vertical, Qt::DisplayRole).toString();
      double stack = 0.0;
      for (int c = spec_.first_column; c <= spec_.last_column; ++c)
        stack += model_->index(r, c).data().toDouble();
      top = std::max(top, stack);
    }
    if (names != categories_->categories()) {
      categories_->setCategories(names);
      // A label per bar up to 32 bars; beyond, bar labels would be elided
      // to nothing, so a numbered axis under them labels every k-th row
      // (a hidden line spans its range, which the bars' categories share).
      const bool numbered = rows > kLabelledBars;
      categories_->setLabelsVisible(!numbered);
      rows_axis_->setVisible(numbered);
      span_->replace(QList<QPointF>{{-0.5, 0.0}, {rows - 0.5, 0.0}});
      rows_axis_->setRange(-0.5, rows - 0.5);
      int every = 1;
      while (rows / every > kLabelledBars / 2) every *= 2;
      rows_axis_->setTickInterval(every);
    }
    // The legend's names only: the bar sets belong to the model mapper.
    const QList<QLegendMarker*> markers = chart_->legend()->markers(series_);
    for (int i = 0; i < static_cast<int>(markers.size()); ++i)
      markers[i]->setLabel(series_name(spec_.first_column + i));
    const double max = top > 0.0 ? top * 1.05 : 1.0;
    if (max > values_->max() || max < 0.5 * values_->max()) {
      values_->setRange(0.0, max);
      values_->applyNiceNumbers();
    }
    for (QBarSet* set : series_->barSets()) set->setSelectedColor(set->color().darker(160));
    set_highlighted_row(highlighted_);
  }

  QAbstractItemModel* model_;
  StackedBarSpec spec_;
  QChart* chart_ = nullptr;
  QStackedBarSeries* series_ = nullptr;
  QVBarModelMapper* mapper_ = nullptr;
  QBarCategoryAxis* categories_ = nullptr;
  QValueAxis* values_ = nullptr;
  QValueAxis* rows_axis_ = nullptr;  // numbered rows, beyond kLabelledBars
  QLineSeries* span_ = nullptr;      // invisible: gives rows_axis_ its range
  int highlighted_ = -1;
  static constexpr int kLabelledBars = 32;
};

}  // namespace

ChartView* make_stacked_bar_chart(QAbstractItemModel* model, const StackedBarSpec& spec,
                                  QWidget* parent) {
  return new QtStackedBarChart(model, spec, parent);
}

}  // namespace shardlab::gui
