// ChartView on QtCharts: QScatterSeries fed by QVXYModelMapper (one per y
// column, or two when the rows are split), linear or log axes, and a y = x
// QLineSeries over the data's range.
#include <QAbstractItemModel>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QVXYModelMapper>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "app/charts/chart_view.h"

namespace shardlab::gui {
namespace {

struct MappedSeries {
  QScatterSeries* series = nullptr;
  QVXYModelMapper* mapper = nullptr;
  int y_index = 0;
  bool second = false;  // rows from split_row() on
};

class QtScatterChart : public ChartView {
 public:
  QtScatterChart(QAbstractItemModel* model, const ScatterSpec& spec, QWidget* parent)
      : ChartView(parent), model_(model), spec_(spec) {
    chart_ = new QChart();
    chart_->setTitle(spec.title);
    chart_->setAnimationOptions(QChart::NoAnimation);
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chart_->legend()->setShowToolTips(true);  // an elided name shows whole on hover
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
    const std::vector<bool> halves =
        spec.split_row ? std::vector<bool>{false, true} : std::vector<bool>{false};
    for (const bool second : halves) {
      for (size_t k = 0; k < spec.y_columns.size(); ++k) {
        const auto& [column, name] = spec.y_columns[k];
        auto* series = new QScatterSeries(chart_);
        series->setName(name + (spec.split_row ? (second ? spec.second_suffix : spec.first_suffix)
                                               : QString()));
        series->setMarkerSize(second ? 9 : 7);
        if (second) {
          // Hollow markers in the colour of the first half's series.
          const QColor colour = series_.empty() ? Qt::black : series_[k].series->color();
          series->setColor(Qt::transparent);
          series->setBorderColor(colour);
          series->setPen(QPen(colour, 1.6));
        }
        auto* mapper = new QVXYModelMapper(this);
        mapper->setXColumn(spec.x_column);
        mapper->setYColumn(column);
        mapper->setSeries(series);
        chart_->addSeries(series);
        series->attachAxis(x_axis_);
        series->attachAxis(y_axis_);
        const size_t at = series_.size();
        connect(series, &QScatterSeries::hovered, this,
                [this, at](const QPointF& point, bool state) { hovered(at, point, state); });
        series_.push_back(MappedSeries{series, mapper, static_cast<int>(k), second});
      }
    }
    auto* view = new QChartView(chart_, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view);
    // A mapper reads its rows again on a reset, with its old range: detach
    // them first, and attach them again with the new ranges (refresh()).
    connect(model, &QAbstractItemModel::modelAboutToBeReset, this, [this]() {
      for (MappedSeries& m : series_) m.mapper->setModel(nullptr);
    });
    connect(model, &QAbstractItemModel::modelReset, this, [this]() { refresh(); });
    refresh();
  }

  void set_highlighted_row(int) override {}

  void set_series_visible(int y_index, bool visible) override {
    for (MappedSeries& m : series_) {
      if (m.y_index == y_index) m.series->setVisible(visible);
    }
    refresh_axes();
  }

 private:
  void refresh() {
    const int split =
        spec_.split_row ? std::clamp(spec_.split_row(), 0, model_->rowCount()) : model_->rowCount();
    for (MappedSeries& m : series_) {
      const int first = m.second ? split : 0;
      const int count = m.second ? model_->rowCount() - split : split;
      m.mapper->setModel(nullptr);
      m.series->clear();
      m.mapper->setFirstRow(first);
      m.mapper->setRowCount(count);
      // An empty range stays detached (the mapper warns about it).
      if (count > 0) m.mapper->setModel(model_);
    }
    refresh_axes();
  }

  // Whole decades (log) or the values' span around what is shown.
  void fit_range(double* lo, double* hi) const {
    if (*hi <= 0.0 || *lo > *hi) {
      *lo = spec_.log_scale ? 0.001 : 0.0;
      *hi = 1.0;
    }
    if (spec_.log_scale) {
      *lo = std::pow(10.0, std::floor(std::log10(*lo)));
      *hi = std::pow(10.0, std::ceil(std::log10(*hi)));
      if (*hi <= *lo) *hi = *lo * 10;
    }
  }

  void refresh_axes() {
    double x_lo = std::numeric_limits<double>::max();
    double x_hi = 0.0;
    double y_lo = std::numeric_limits<double>::max();
    double y_hi = 0.0;
    const auto take = [this](double v, double* lo, double* hi) {
      if (!(v > 0) && spec_.log_scale) return;
      *lo = std::min(*lo, v);
      *hi = std::max(*hi, v);
    };
    for (int r = 0; r < model_->rowCount(); ++r) {
      take(model_->index(r, spec_.x_column).data().toDouble(), &x_lo, &x_hi);
      for (size_t k = 0; k < spec_.y_columns.size(); ++k) {
        const bool visible =
            std::any_of(series_.begin(), series_.end(), [k](const MappedSeries& m) {
              return m.y_index == static_cast<int>(k) && m.series->isVisible();
            });
        if (visible)
          take(model_->index(r, spec_.y_columns[k].first).data().toDouble(), &y_lo, &y_hi);
      }
    }
    if (y_hi <= 0.0) {
      y_lo = x_lo;
      y_hi = x_hi;
    }
    fit_range(&x_lo, &x_hi);
    fit_range(&y_lo, &y_hi);
    x_axis_->setRange(x_lo, x_hi);
    y_axis_->setRange(y_lo, y_hi);
    if (identity_ != nullptr) {
      const double lo = std::max(x_lo, y_lo);
      const double hi = std::min(x_hi, y_hi);
      identity_->replace(lo < hi ? QList<QPointF>{{lo, lo}, {hi, hi}} : QList<QPointF>{});
    }
  }

  void hovered(size_t at, const QPointF& point, bool state) {
    if (!state) {
      QToolTip::hideText();
      return;
    }
    const MappedSeries& m = series_[at];
    const QList<QPointF> points = m.series->points();
    for (qsizetype i = 0; i < points.size(); ++i) {
      if (points[i] != point) continue;
      const int row = m.mapper->firstRow() + static_cast<int>(i);
      const QString tip = model_->index(row, 0).data(Qt::ToolTipRole).toString();
      if (!tip.isEmpty()) QToolTip::showText(QCursor::pos(), tip, this);
      return;
    }
  }

  QAbstractItemModel* model_;
  ScatterSpec spec_;
  QChart* chart_ = nullptr;
  QAbstractAxis* x_axis_ = nullptr;
  QAbstractAxis* y_axis_ = nullptr;
  QLineSeries* identity_ = nullptr;
  std::vector<MappedSeries> series_;
};

}  // namespace

ChartView* make_scatter_chart(QAbstractItemModel* model, const ScatterSpec& spec, QWidget* parent) {
  return new QtScatterChart(model, spec, parent);
}

}  // namespace shardlab::gui
