// The Compare view: the scenario planned with greedy_perf and
// memory_balanced partitioners, each rated by TorchRec's model and by the
// simulated perf model, side by side: rating, simulated iteration time, peak
// HBM, tables that moved, and per-rank differences. "Both TorchRec versions"
// plans each configuration with both TorchRec models, next to each other.
#pragma once

#include "app/workbench_view.h"

class QLabel;
class QTableView;

namespace shardlab::gui {

class ChartView;
class WorkbenchModels;

class CompareView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit CompareView(WorkbenchModels* models, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("compare"); }
  QString title() const override { return QStringLiteral("Compare"); }

 private:
  WorkbenchModels* models_;
  QLabel* header_ = nullptr;
  QTableView* rows_ = nullptr;
  QTableView* ranks_ = nullptr;
};

}  // namespace shardlab::gui
