#include "app/calibration_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "app/charts/chart_view.h"
#include "app/export_action.h"
#include "models/calibration_models.h"
#include "models/run_browser.h"

namespace shardlab::gui {

CalibrationView::CalibrationView(RunBrowser* browser, QWidget* parent)
    : WorkbenchView(parent), browser_(browser) {
  points_ = new CalibrationPointsModel(this);
  groups_ = new CalibrationGroupsModel(this);
  parameters_ = new CalibrationParametersModel(this);
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  runs_ = new QComboBox(this);
  plan_with_ = new QPushButton(QStringLiteral("Plan with this profile"), this);
  plan_with_->setToolTip(
      QStringLiteral("Re-plan the open scenario with the fitted parameters in place of "
                     "TorchRec's constants (Plan > Plan with TorchRec's constants goes back)"));
  plan_with_->setEnabled(false);
  show_before_ = new QCheckBox(QStringLiteral("TorchRec's predictions"), this);
  show_before_->setChecked(true);
  CalibrationPointsModel* points = points_;
  scatter_ = make_scatter_chart(
      points_,
      ScatterSpec{
          .title = QStringLiteral("Predicted against measured, per record"),
          .x_axis = QStringLiteral("measured (ms)"),
          .y_axis = QStringLiteral("predicted (ms)"),
          .x_column = CalibrationPointsModel::kMeasured,
          .y_columns = {{CalibrationPointsModel::kBefore, QStringLiteral("TorchRec's constants")},
                        {CalibrationPointsModel::kAfter, QStringLiteral("calibrated")}},
          .log_scale = true,
          .identity_line = true,
          .split_row = [points]() { return points->held_out_begin(); },
          .first_suffix = QStringLiteral(" (fitted)"),
          .second_suffix = QStringLiteral(" (held out)")});
  parameter_table_ = new QTableView(this);
  parameter_table_->setModel(parameters_);
  parameter_table_->verticalHeader()->hide();
  parameter_table_->horizontalHeader()->setStretchLastSection(true);
  add_export_action(scatter_, QStringLiteral("calibration-scatter"));
  table_ = new QTableView(this);
  table_->setModel(groups_);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(new QLabel(QStringLiteral("Calibrate run:"), this));
  bar->addWidget(runs_);
  bar->addWidget(show_before_);
  bar->addWidget(plan_with_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(scatter_);
  auto* right = new QWidget(split);
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  auto* parameters_label =
      new QLabel(QStringLiteral("<b>Fitted parameters</b> beside TorchRec's (as "
                                "<tt>shardlab calibrate</tt> prints them)"),
                 right);
  parameters_label->setWordWrap(true);
  right_layout->addWidget(parameters_label);
  right_layout->addWidget(parameter_table_, 1);
  auto* groups_label =
      new QLabel(QStringLiteral("<b>Error per group</b> (mean absolute percentage error on "
                                "held-out records, and on the fit's own)"),
                 right);
  groups_label->setWordWrap(true);
  right_layout->addWidget(groups_label);
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
  connect(show_before_, &QCheckBox::toggled, this,
          [this](bool on) { scatter_->set_series_visible(0, on); });
  connect(plan_with_, &QPushButton::clicked, this, [this]() {
    if (profile_) emit planWithProfile(profile_);
  });
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
    runs_->addItem(
        QStringLiteral("run %1 (%2)").arg(r.id).arg(QString::fromStdString(r.created_at)),
        QVariant::fromValue<qint64>(r.id));
  }
  runs_->blockSignals(false);
  if (runs_->count() > 0) {
    runs_->setCurrentIndex(0);
    (void)show_run(runs_->itemData(0).toLongLong());
  } else {
    points_->clear();
    groups_->clear();
    parameters_->clear();
    profile_.reset();
    plan_with_->setEnabled(false);
    header_->setText(browser_->is_open()
                         ? QStringLiteral("No calibrate run in the store: run 'shardlab replay' "
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
    parameters_->clear();
    profile_.reset();
    plan_with_->setEnabled(false);
    return view.status();
  }
  points_->reset(view->points);
  groups_->reset(view->profile);
  parameters_->reset(view->parameters);
  profile_ = std::make_shared<const data::CalibrationProfile>(view->profile);
  plan_with_->setEnabled(true);
  const auto pct = [](const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 1) + QLatin1Char('%') : QStringLiteral("-");
  };
  // A fit of profiler traces (calibrate --from-trace): the profile's notes
  // name the files, the calibrate run keeps their records.
  int traces = 0;
  for (const std::string& n : view->profile.notes) traces += n.rfind("measured in ", 0) == 0;
  const QString sources = view->profile.source_runs.empty() && traces > 0
                              ? QStringLiteral("%1 profiler trace file(s)").arg(traces)
                              : QStringLiteral("runs %1").arg([&]() {
                                  QStringList ids;
                                  for (int64_t r : view->profile.source_runs)
                                    ids << QString::number(r);
                                  return ids.join(QLatin1Char(','));
                                }());
  header_->setText(
      QStringLiteral("<b>%1</b> from %2 on %3: %4 records (%5 without a prediction, %8 held "
                     "out of the fit); held-out error %6 before, %7 after")
          .arg(QString::fromStdString(view->profile.name).toHtmlEscaped())
          .arg(sources)
          .arg(QString::fromStdString(view->profile.device).toHtmlEscaped())
          .arg(view->points.size())
          .arg(view->skipped)
          .arg(pct(view->profile.mape_before), pct(view->profile.mape_after))
          .arg(view->points.size() - static_cast<size_t>(points_->held_out_begin())));
  table_->resizeColumnsToContents();
  parameter_table_->resizeColumnsToContents();
  return Status::ok();
}

}  // namespace shardlab::gui
