// The Scenario view: the tables with their constraints and the topology /
// planner fields, editable in place. A refused value stays out of the
// scenario and its reason shows in red under the tables.
#pragma once

#include "app/workbench_view.h"

class QLabel;
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
  QString message() const;

 private:
  WorkbenchModels* models_;
  QLabel* header_ = nullptr;
  QTableView* tables_ = nullptr;
  QTableView* settings_ = nullptr;
  QLabel* message_ = nullptr;
};

}  // namespace shardlab::gui
