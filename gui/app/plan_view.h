// The Plan view: the placement matrix (custom-painted), per-rank stacked bars
// of HBM and DDR use against capacity and of the cost model's compute and
// comms, and the stats table's per-table summary, sortable and filtered by
// table name, sharding type and kernel. Shows the best plan, a selected
// proposal, a plan file or a comparison row (the header says which), what the
// last re-plan changed, and a banner when the plan is out of date.
#pragma once

#include "app/workbench_view.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QTableView;

namespace shardlab::gui {

class ChartView;
class PlacementMatrixWidget;
class StaleBanner;
class WorkbenchModels;

class PlanView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit PlanView(WorkbenchModels* models, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("plan"); }
  QString title() const override { return QStringLiteral("Plan"); }
  QWidget* export_target() override;

  PlacementMatrixWidget* matrix() const { return matrix_; }
  ChartView* hbm_chart() const { return hbm_chart_; }
  ChartView* time_chart() const { return time_chart_; }
  QString header_text() const;
  QString change_text() const;
  // The matrix's legend: each sharding type the plan uses with its colour
  // and abbreviation, and the hatching of UVM kernels.
  QString legend_text() const;
  StaleBanner* banner() const { return banner_; }
  // Finds a table by name: selects it and scrolls the matrix to it.
  bool find_table(const QString& name);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void refresh_header();
  void refresh_change();
  void refresh_selection();
  void refresh_legend();

  WorkbenchModels* models_;
  StaleBanner* banner_ = nullptr;
  QLabel* header_ = nullptr;
  QLabel* change_ = nullptr;
  QLabel* legend_ = nullptr;
  QLineEdit* find_ = nullptr;
  QLineEdit* name_filter_ = nullptr;
  QComboBox* type_filter_ = nullptr;
  QComboBox* kernel_filter_ = nullptr;
  PlacementMatrixWidget* matrix_ = nullptr;
  ChartView* hbm_chart_ = nullptr;
  ChartView* ddr_chart_ = nullptr;
  ChartView* time_chart_ = nullptr;
  QTableView* summary_ = nullptr;
  QSplitter* top_ = nullptr;
  bool sized_ = false;  // the matrix / charts split was set once shown
};

}  // namespace shardlab::gui
