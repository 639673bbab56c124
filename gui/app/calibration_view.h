// The Calibration view: for a calibrate run of the run store, the fitted
// parameters beside TorchRec's (as `shardlab calibrate` prints them), every
// measurement of its input replays against what TorchRec's constants and the
// calibrated model predict (scatter with the y = x line, log axes; records
// held out of the fit drawn hollow; hover for the record), and the fit's
// per-group errors before and after calibration. "Plan with this profile"
// re-plans the scenario with the fitted parameters.
#pragma once

#include <cstdint>

#include "app/workbench_view.h"
#include "models/planning_job.h"
#include "shardlab/planner/status.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace shardlab::gui {

class CalibrationGroupsModel;
class CalibrationParametersModel;
class CalibrationPointsModel;
class ChartView;
class RunBrowser;

class CalibrationView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit CalibrationView(RunBrowser* browser, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("calibration"); }
  QString title() const override { return QStringLiteral("Calibration"); }
  QWidget* export_target() override;

  CalibrationPointsModel* points() const { return points_; }
  CalibrationGroupsModel* groups() const { return groups_; }
  CalibrationParametersModel* parameters() const { return parameters_; }
  // The profile shown, or null.
  const ProfilePtr& profile() const { return profile_; }
  // Shows calibrate run `id`.
  Status show_run(int64_t id);

 signals:
  // "Plan with this profile": plan the scenario with the shown profile's parameters.
  void planWithProfile(const shardlab::gui::ProfilePtr& profile);

 private:
  void refresh_runs();

  RunBrowser* browser_;
  CalibrationPointsModel* points_ = nullptr;
  CalibrationGroupsModel* groups_ = nullptr;
  CalibrationParametersModel* parameters_ = nullptr;
  ProfilePtr profile_;
  QPushButton* plan_with_ = nullptr;
  QCheckBox* show_before_ = nullptr;
  QTableView* parameter_table_ = nullptr;
  QLabel* header_ = nullptr;
  QComboBox* runs_ = nullptr;
  ChartView* scatter_ = nullptr;
  QTableView* table_ = nullptr;
};

}  // namespace shardlab::gui
