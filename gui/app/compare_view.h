// The Compare view: the comparison of planner configurations that `shardlab
// compare` prints (sim/compare.h): one row per configuration, filled in as
// each finishes (with a progress bar and Cancel), every row measured the
// same way, the winner marked with each row's difference to it, and per rank
// the simulated busy time of two rows side by side (by default the scenario
// as configured against the winner) that explains the difference. Any row
// opens as the plan shown in the Plan, Topology and Timeline views. "Both TorchRec
// versions" plans each configuration with both TorchRec models, next to each other.
// "Optimize" runs the plan search of `shardlab optimize` from TorchRec's plan
// for the time limit chosen, showing its progress, and adds its plan as a
// row (Cancel stops it and keeps its best plan so far).
#pragma once

#include "app/workbench_view.h"

class QCheckBox;
class QDoubleSpinBox;
class QSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace shardlab::gui {

class StaleBanner;
class WorkbenchModels;

class CompareView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit CompareView(WorkbenchModels* models, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("compare"); }
  QString title() const override { return QStringLiteral("Compare"); }

  QTableView* rows_view() const { return rows_; }
  QString summary_text() const;
  // The Status column's width: at most kMaxStatusWidth pixels.
  int status_width() const;
  static constexpr int kMaxStatusWidth = 220;
  StaleBanner* banner() const { return banner_; }
  // Opens the selected row as the plan; false when none is selected or it has no plan.
  bool open_selected();
  QPushButton* optimize_button() const { return optimize_; }
  QDoubleSpinBox* time_limit() const { return time_limit_; }
  QSpinBox* seed() const { return seed_; }
  // Runs the optimizer with the time limit and seed chosen.
  void optimize();

 signals:
  // A row was opened as the plan (the main window raises the Plan view).
  void rowOpened();

 private:
  void refresh();

  WorkbenchModels* models_;
  StaleBanner* banner_ = nullptr;
  QLabel* summary_ = nullptr;
  QCheckBox* versions_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* optimize_ = nullptr;
  QDoubleSpinBox* time_limit_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* open_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QTableView* rows_ = nullptr;
  QLabel* ranks_header_ = nullptr;
  QTableView* ranks_ = nullptr;
};

}  // namespace shardlab::gui
