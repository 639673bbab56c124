// The workbench window: every view in a dock (tabbed by default, detachable),
// all following one Workbench session and its selection; menus for files,
// planning and export; a status bar with progress and Cancel.
#pragma once

#include <map>

#include <QMainWindow>

#include "models/run_browser.h"
#include "models/workbench.h"
#include "models/workbench_models.h"

class QAction;
class QDockWidget;
class QLabel;
class QProgressBar;
class QPushButton;

namespace shardlab::gui {

class WorkbenchView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  Workbench& workbench() { return workbench_; }
  WorkbenchModels& models() { return *models_; }
  RunBrowser& runs() { return *runs_; }

  // The view named `name` ("plan", ...; see command_line.h), or null.
  WorkbenchView* view(const QString& name) const;
  QStringList views() const;
  // Raises the view's dock.
  void show_view(const QString& name);

  QAction* replan_action() const { return replan_; }
  QAction* cancel_action() const { return cancel_; }
  QAction* compare_action() const { return compare_; }

  // Exports the raised view (widget_export.h).
  bool export_view(const QString& name, const QString& path, QString* error);

 private:
  void add_view(WorkbenchView* view);
  void build_menus();
  void open_scenario_dialog();
  void open_plan_dialog();
  void save_scenario_dialog();
  void open_store_dialog();
  QString current_view() const;

  Workbench workbench_;
  WorkbenchModels* models_ = nullptr;
  RunBrowser* runs_ = nullptr;
  std::map<QString, QDockWidget*> docks_;
  std::map<QString, WorkbenchView*> views_;
  QAction* replan_ = nullptr;
  QAction* cancel_ = nullptr;
  QAction* compare_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
};

}  // namespace shardlab::gui
