// The Scenario view: the tables with their constraints and the topology /
// planner fields, editable in place (double-click or F2; drop-downs for
// enumerated fields; sizes and bandwidths as unit strings). The table list
// filters by name and sorts by any column. A refused value stays out of the
// scenario and its reason shows in red under the tables; every accepted edit
// can be undone (Edit > Undo).
#pragma once

#include "app/workbench_view.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace shardlab::gui {

class WorkbenchModels;

class ScenarioView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit ScenarioView(WorkbenchModels* models, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("scenario"); }
  QString title() const override { return QStringLiteral("Scenario"); }

  QTableView* tables_view() const { return tables_; }
  QTableView* settings_view() const { return settings_; }
  QLineEdit* table_filter() const { return filter_; }
  QString message() const;

 private:
  void refresh_header(bool resize);

  WorkbenchModels* models_;
  QLabel* header_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* tables_ = nullptr;
  QTableView* settings_ = nullptr;
  QLabel* message_ = nullptr;
};

}  // namespace shardlab::gui
