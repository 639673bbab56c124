// The workbench window: every view in a dock (tabbed by default, detachable,
// closable and reopened from the View menu), all following one Workbench
// session and its selection; menus for files, editing (undo / redo), planning
// and export; a status bar with progress and Cancel.
//
// Edits are never lost silently: the title shows the scenario's file name
// with an unsaved marker, and opening another scenario, closing the window or
// quitting with unsaved edits asks whether to save them first.
#pragma once

#include <QMainWindow>
#include <functional>
#include <map>

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
  // The answer to "save the unsaved edits first?".
  enum class UnsavedAnswer { kSave, kDiscard, kCancel };
  // Asks about the document named by the argument; the default shows a
  // message box. Tests replace it.
  using UnsavedPrompt = std::function<UnsavedAnswer(const QString& name)>;
  // Asks for a file to save to (empty: cancelled); the default shows a file dialog.
  using SavePathPrompt = std::function<QString(const QString& suggestion)>;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  Workbench& workbench() { return workbench_; }
  WorkbenchModels& models() { return *models_; }
  RunBrowser& runs() { return *runs_; }

  // The view named `name` ("plan", ...; see command_line.h), or null.
  WorkbenchView* view(const QString& name) const;
  QStringList views() const;
  // Shows and raises the view's dock.
  void show_view(const QString& name);
  // The dock of a view (View menu toggles it).
  QDockWidget* dock(const QString& name) const;

  QAction* replan_action() const { return replan_; }
  QAction* cancel_action() const { return cancel_; }
  QAction* compare_action() const { return compare_; }
  QAction* undo_action() const { return undo_; }
  QAction* redo_action() const { return redo_; }
  QAction* save_action() const { return save_; }

  // Exports the raised view (widget_export.h).
  bool export_view(const QString& name, const QString& path, QString* error);

  // Opens a scenario file after asking about unsaved edits; false when the
  // user cancelled or it failed to load (then a message box says why, unless
  // `quiet`).
  bool open_scenario(const QString& path, bool quiet = false);
  // Saves to the scenario's file (asks for one when it has none); false when
  // cancelled or failed.
  bool save();
  bool save_as();
  // Asks whether to save unsaved edits; true when it is fine to go on.
  bool maybe_save();
  // What the status bar says.
  QString status_text() const;

  void set_unsaved_prompt(UnsavedPrompt prompt) { unsaved_prompt_ = std::move(prompt); }
  void set_save_path_prompt(SavePathPrompt prompt) { save_path_prompt_ = std::move(prompt); }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void add_view(WorkbenchView* view);
  void build_menus();
  void open_scenario_dialog();
  void open_plan_dialog();
  void open_store_dialog();
  void save_plan_dialog();
  // Records what is shown (run_record, displayed_plan.h) in the open run store,
  // or in one the user picks (created when new) when none is open.
  void record_run();
  void update_title();
  void set_status(const QString& text);
  QString current_view() const;

  Workbench workbench_;
  WorkbenchModels* models_ = nullptr;
  RunBrowser* runs_ = nullptr;
  std::map<QString, QDockWidget*> docks_;
  std::map<QString, WorkbenchView*> views_;
  QAction* replan_ = nullptr;
  QAction* cancel_ = nullptr;
  QAction* compare_ = nullptr;
  QAction* undo_ = nullptr;
  QAction* redo_ = nullptr;
  QAction* save_ = nullptr;
  QAction* use_constants_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  UnsavedPrompt unsaved_prompt_;
  SavePathPrompt save_path_prompt_;
};

}  // namespace shardlab::gui
