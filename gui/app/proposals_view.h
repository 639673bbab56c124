// The Proposals view: every proposal the planner evaluated with its rating,
// whether it partitioned and its peak HBM. Selecting one shows it in the
// Plan view; the why-not panel says which ranks a proposal (or, when nothing
// fits, the scenario) overflows and by how much.
#pragma once

#include "app/workbench_view.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTableView;

namespace shardlab::gui {

class WorkbenchModels;

class ProposalsView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit ProposalsView(WorkbenchModels* models, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("proposals"); }
  QString title() const override { return QStringLiteral("Proposals"); }
  QWidget* export_target() override;

  QTableView* table() const { return table_; }
  QString why_not_text() const;

 private:
  void refresh();

  WorkbenchModels* models_;
  QLabel* header_ = nullptr;
  QComboBox* show_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  QPlainTextEdit* why_not_ = nullptr;
};

}  // namespace shardlab::gui
