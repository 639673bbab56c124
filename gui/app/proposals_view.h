// The Proposals view: every proposal the planner evaluated with its proposer,
// whether it partitioned, its rating and its difference to the best; the best
// plan and the proposals tying with it marked, and how the planner broke the
// tie. Selecting one shows it in the Plan, Topology and Timeline views, and
// the details panel says what it places differently from the best plan and,
// for one that does not fit (or for the scenario when nothing fits), which
// ranks overflow by how much.
#pragma once

#include "app/workbench_view.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTableView;

namespace shardlab::gui {

class StaleBanner;
class WorkbenchModels;

class ProposalsView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit ProposalsView(WorkbenchModels* models, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("proposals"); }
  QString title() const override { return QStringLiteral("Proposals"); }
  QWidget* export_target() override;

  QTableView* table() const { return table_; }
  QString header_text() const;
  QString details_text() const;
  // Selects the best plan's row (and shows the best plan).
  void show_best();

 private:
  void refresh();
  void select_row_of(int proposal);

  WorkbenchModels* models_;
  StaleBanner* banner_ = nullptr;
  QLabel* header_ = nullptr;
  QLabel* ties_ = nullptr;
  QComboBox* show_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  QPlainTextEdit* details_ = nullptr;
  bool selecting_ = false;
};

}  // namespace shardlab::gui
