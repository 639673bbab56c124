// The Runs view: the run store (--db FILE or File > Open run store) as a
// list with each run's summary numbers; "Open" shows a run's scenario and
// plan in the workbench (a replay run with its measured phase times beside
// the simulation), "Diff" compares two selected runs as `shardlab runs diff`
// does, as tables.
#pragma once

#include <functional>

#include "app/workbench_view.h"

class QLabel;
class QTextBrowser;
class QTableView;

namespace shardlab::gui {

class RunBrowser;
class RunsModel;

class RunsView : public WorkbenchView {
  Q_OBJECT

 public:
  explicit RunsView(RunBrowser* browser, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("runs"); }
  QString title() const override { return QStringLiteral("Runs"); }

  RunsModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // Opens the selected run / diffs the two selected runs (first selected = A).
  void open_selected();
  void diff_selected();
  QString diff_text() const;
  // Asked before a run replaces the scenario (unsaved edits); false cancels.
  void set_before_open(std::function<bool()> ask) { before_open_ = std::move(ask); }

 signals:
  void runOpened();

 private:
  void refresh();

  RunBrowser* browser_;
  RunsModel* model_ = nullptr;
  QLabel* header_ = nullptr;
  QTableView* table_ = nullptr;
  QTextBrowser* diff_ = nullptr;
  std::function<bool()> before_open_;
};

}  // namespace shardlab::gui
