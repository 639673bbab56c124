#include "app/calibration_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "app/charts/chart_view.h"
#include "app/export_action.h"
#include "models/calibration_models.h"
#include "models/run_browser.h"

namespace shardlab::gui {

CalibrationView::CalibrationView(RunBrowser* browser, QWidget* parent) : WorkbenchView(parent), browser_(browser) {
  points_ = new CalibrationPointsModel(this);
  groups_ = new CalibrationGroupsModel(this);
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  runs_ = new QComboBox(this);
  scatter_ = make_scatter_chart(
      points_, ScatterSpec{.title = QStringLiteral("Predicted against measured, per record"),
                           .x_axis = QStringLiteral("measured (ms)"),
                           .y_axis = QStringLiteral("predicted (ms)"),
                           .x_column = CalibrationPointsModel::kMeasured,
                           .y_columns = {{CalibrationPointsModel::kBefore, QStringLiteral("TorchRec's constants")},
                                         {CalibrationPointsModel::kAfter, QStringLiteral("calibrated")}},
                           .log_scale = true,
                           .identity_line = true});
  add_export_action(scatter_, QStringLiteral("calibration-scatter"));
  table_ = new QTableView(this);
  table_->setModel(groups_);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(new QLabel(QStringLiteral("Calibrate run:"), this));
  bar->addWidget(runs_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(scatter_);
  auto* right = new QWidget(split);
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(new QLabel(QStringLiteral("<b>Error per group</b> (mean absolute percentage error on "
                                                    "held-out records, and on the fit's own)"),
                                     right));
  right_layout->addWidget(table_, 1);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({720, 560});
  scatter_->setMinimumWidth(300);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
  connect(browser_, &RunBrowser::runsChanged, this, &CalibrationView::refresh_runs);
  connect(runs_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) (void)show_run(runs_->itemData(i).toLongLong());
  });
  refresh_runs();
}

QWidget* CalibrationView::export_target() { return scatter_; }

void CalibrationView::refresh_runs() {
  runs_->blockSignals(true);
  runs_->clear();
  for (const data::RunSummary& r : browser_->runs()) {
    if (r.kind != data::RunKind::kCalibrate || !r.has_calibration) continue;
    runs_->addItem(QStringLiteral("run %1 (%2)").arg(r.id).arg(QString::fromStdString(r.created_at)),
                   QVariant::fromValue<qint64>(r.id));
  }
  runs_->blockSignals(false);
  if (runs_->count() > 0) {
    runs_->setCurrentIndex(0);
    (void)show_run(runs_->itemData(0).toLongLong());
  } else {
    points_->clear();
    groups_->clear();
    header_->setText(browser_->is_open() ? QStringLiteral("No calibrate run in the store: run 'shardlab replay' "
                                                          "and 'shardlab calibrate' first")
                                         : QStringLiteral("No run store: start with --db FILE"));
  }
}

Status CalibrationView::show_run(int64_t id) {
  Result<CalibrationData> view = browser_->calibration(id);
  if (!view.is_ok()) {
    header_->setText(QString::fromStdString(view.status().message()));
    points_->clear();
    groups_->clear();
    return view.status();
  }
  points_->reset(view->points);
  groups_->reset(view->profile);
  const auto pct = [](const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 1) + QLatin1Char('%') : QStringLiteral("-");
  };
  header_->setText(QStringLiteral("<b>%1</b> from runs %2 on %3: %4 records (%5 without a prediction); held-out "
                                  "error %6 before, %7 after")
                       .arg(QString::fromStdString(view->profile.name).toHtmlEscaped())
                       .arg([&]() {
                         QStringList ids;
                         for (int64_t r : view->profile.source_runs) ids << QString::number(r);
                         return ids.join(QLatin1Char(','));
                       }())
                       .arg(QString::fromStdString(view->profile.device).toHtmlEscaped())
                       .arg(view->points.size())
                       .arg(view->skipped)
                       .arg(pct(view->profile.mape_before), pct(view->profile.mape_after)));
  table_->resizeColumnsToContents();
  return Status::ok();
}

}  // namespace shardlab::gui
