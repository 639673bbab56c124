// ChartView on QtCharts: a QStackedBarSeries fed by a QVBarModelMapper (one
// bar set per model column), categories from the model's vertical header.
#include <QAbstractItemModel>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
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

  void set_highlighted_row(int row) override {
    highlighted_ = row;
    for (QBarSet* set : series_->barSets()) {
      set->deselectAllBars();
      if (row >= 0 && row < set->count()) set->selectBar(row);
    }
  }

 private:
  // Categories and the value range follow the model (QtCharts does not
  // rescale axes that are attached explicitly).
  void refresh() {
    QStringList names;
    double top = 0.0;
    for (int r = 0; r < model_->rowCount(); ++r) {
      names << model_->headerData(r, Qt::Vertical, Qt::DisplayRole).toString();
      double stack = 0.0;
      for (int c = spec_.first_column; c <= spec_.last_column; ++c)
        stack += model_->index(r, c).data().toDouble();
      top = std::max(top, stack);
    }
    if (names != categories_->categories()) {
      categories_->setCategories(names);
      // Rank labels would overlap beyond a few dozen bars.
      categories_->setLabelsVisible(names.size() <= 32);
    }
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
  int highlighted_ = -1;
};

}  // namespace

ChartView* make_stacked_bar_chart(QAbstractItemModel* model, const StackedBarSpec& spec,
                                  QWidget* parent) {
  return new QtStackedBarChart(model, spec, parent);
}

}  // namespace shardlab::gui
