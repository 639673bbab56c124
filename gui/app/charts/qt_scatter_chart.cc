// ChartView on QtCharts: QScatterSeries fed by QVXYModelMapper (one per y
// column), linear or log axes, and a y = x QLineSeries over the data's range.
#include <algorithm>
#include <cmath>
#include <limits>

#include <QAbstractItemModel>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QVXYModelMapper>
#include <QtCharts/QValueAxis>

#include "app/charts/chart_view.h"

namespace shardlab::gui {
namespace {

class QtScatterChart : public ChartView {
 public:
  QtScatterChart(QAbstractItemModel* model, const ScatterSpec& spec, QWidget* parent)
      : ChartView(parent), model_(model), spec_(spec) {
    chart_ = new QChart();
    chart_->setTitle(spec.title);
    chart_->setAnimationOptions(QChart::NoAnimation);
    chart_->legend()->setAlignment(Qt::AlignBottom);
    if (spec.log_scale) {
      auto* x = new QLogValueAxis(chart_);
      auto* y = new QLogValueAxis(chart_);
      x->setLabelFormat(QStringLiteral("%.3g"));
      y->setLabelFormat(QStringLiteral("%.3g"));
      x_axis_ = x;
      y_axis_ = y;
    } else {
      x_axis_ = new QValueAxis(chart_);
      y_axis_ = new QValueAxis(chart_);
    }
    x_axis_->setTitleText(spec.x_axis);
    y_axis_->setTitleText(spec.y_axis);
    chart_->addAxis(x_axis_, Qt::AlignBottom);
    chart_->addAxis(y_axis_, Qt::AlignLeft);
    if (spec.identity_line) {
      identity_ = new QLineSeries(chart_);
      identity_->setName(QStringLiteral("y = x"));
      identity_->setPen(QPen(Qt::darkGray, 1, Qt::DashLine));
      chart_->addSeries(identity_);
      identity_->attachAxis(x_axis_);
      identity_->attachAxis(y_axis_);
    }
    for (const auto& [column, name] : spec.y_columns) {
      auto* series = new QScatterSeries(chart_);
      series->setName(name);
      series->setMarkerSize(7);
      auto* mapper = new QVXYModelMapper(this);
      mapper->setXColumn(spec.x_column);
      mapper->setYColumn(column);
      mapper->setSeries(series);
      mapper->setModel(model);
      chart_->addSeries(series);
      series->attachAxis(x_axis_);
      series->attachAxis(y_axis_);
    }
    auto* view = new QChartView(chart_, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view);
    connect(model, &QAbstractItemModel::modelReset, this, [this]() { refresh(); });
    refresh();
  }

  void set_highlighted_row(int) override {}

 private:
  void refresh() {
    double lo = std::numeric_limits<double>::max();
    double hi = 0.0;
    for (int r = 0; r < model_->rowCount(); ++r) {
      std::vector<int> columns{spec_.x_column};
      for (const auto& [c, name] : spec_.y_columns) columns.push_back(c);
      for (int c : columns) {
        const double v = model_->index(r, c).data().toDouble();
        if (!(v > 0) && spec_.log_scale) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    if (hi <= 0.0 || lo > hi) {
      lo = spec_.log_scale ? 0.001 : 0.0;
      hi = 1.0;
    }
    if (spec_.log_scale) {
      lo = std::pow(10.0, std::floor(std::log10(lo)));
      hi = std::pow(10.0, std::ceil(std::log10(hi)));
    }
    x_axis_->setRange(lo, hi);
    y_axis_->setRange(lo, hi);
    if (identity_ != nullptr) identity_->replace(QList<QPointF>{{lo, lo}, {hi, hi}});
  }

  QAbstractItemModel* model_;
  ScatterSpec spec_;
  QChart* chart_ = nullptr;
  QAbstractAxis* x_axis_ = nullptr;
  QAbstractAxis* y_axis_ = nullptr;
  QLineSeries* identity_ = nullptr;
};

}  // namespace

ChartView* make_scatter_chart(QAbstractItemModel* model, const ScatterSpec& spec, QWidget* parent) {
  return new QtScatterChart(model, spec, parent);
}

}  // namespace shardlab::gui
