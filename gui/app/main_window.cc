#include "app/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QUndoStack>

#include "app/calibration_view.h"
#include "app/compare_view.h"
#include "app/export_action.h"
#include "app/plan_view.h"
#include "app/proposals_view.h"
#include "app/runs_view.h"
#include "app/scenario_view.h"
#include "app/timeline_view.h"
#include "app/topology_view.h"
#include "app/widget_export.h"

namespace shardlab::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  models_ = new WorkbenchModels(&workbench_, this);
  runs_ = new RunBrowser(&workbench_, this);
  unsaved_prompt_ = [this](const QString& name) {
    const auto answer = QMessageBox::warning(
        this, QStringLiteral("Unsaved changes"),
        QStringLiteral("The scenario %1 has unsaved edits. Save them first?").arg(name),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    return answer == QMessageBox::Save      ? UnsavedAnswer::kSave
           : answer == QMessageBox::Discard ? UnsavedAnswer::kDiscard
                                            : UnsavedAnswer::kCancel;
  };
  save_path_prompt_ = [this](const QString& suggestion) {
    return QFileDialog::getSaveFileName(this, QStringLiteral("Save scenario as"), suggestion,
                                        QStringLiteral("Scenario (*.json)"));
  };
  setDockOptions(QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks |
                 QMainWindow::AnimatedDocks);
  setTabPosition(Qt::AllDockWidgetAreas, QTabWidget::North);
  add_view(new ScenarioView(models_, this));
  add_view(new TopologyView(models_, this));
  add_view(new PlanView(models_, this));
  add_view(new ProposalsView(models_, this));
  add_view(new CompareView(models_, this));
  add_view(new TimelineView(models_, this));
  add_view(new CalibrationView(runs_, this));
  add_view(new RunsView(runs_, this));
  build_menus();

  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  progress_->setRange(0, 100);
  progress_->hide();
  status_ = new QLabel(this);
  cancel_button_ = new QPushButton(QStringLiteral("Cancel"), this);
  cancel_button_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_button_);
  connect(cancel_button_, &QPushButton::clicked, cancel_, &QAction::trigger);
  connect(&workbench_, &Workbench::busyChanged, this, [this](bool busy) {
    progress_->setVisible(busy);
    cancel_button_->setVisible(busy);
    cancel_->setEnabled(busy);
    if (busy) progress_->setValue(0);
  });
  const auto show_progress = [this](int percent, const QString& stage) {
    progress_->setValue(percent);
    progress_->setToolTip(stage);
    set_status(stage + QStringLiteral("..."));
  };
  connect(&workbench_, &Workbench::progress, this, show_progress);
  connect(&workbench_.comparison(), &Comparison::progress, this, show_progress);
  connect(&workbench_, &Workbench::outcomeChanged, this, [this]() {
    const PlanOutcomePtr& o = workbench_.outcome();
    if (!o) return;
    const Status st = workbench_.planning_status();
    set_status(st.is_ok() ? QStringLiteral("Planned %1 tables on %2 ranks in %3 ms: rating %4 ms")
                                .arg(o->scenario->tables.size())
                                .arg(o->scenario->topology.world_size)
                                .arg(o->plan_ms, 0, 'f', 1)
                                .arg(o->result.perf_rating, 0, 'f', 5)
                          : QStringLiteral("No plan: ") +
                                QString::fromStdString(st.message()).section('\n', 0, 0));
  });
  connect(&workbench_, &Workbench::warningsOccurred, this, &MainWindow::set_status);
  connect(&workbench_.document(), &ScenarioDocument::editRefused, this,
          [this](const QString& m) { set_status(QStringLiteral("Refused: ") + m); });
  connect(&workbench_.worker(), &PlanningWorker::cancelled, this, [this]() {
    set_status(QStringLiteral("Cancelled: results on screen are marked when they are out of date"));
  });
  ScenarioDocument& doc = workbench_.document();
  connect(&doc, &ScenarioDocument::modifiedChanged, this, &MainWindow::update_title);
  connect(&doc, &ScenarioDocument::pathChanged, this, &MainWindow::update_title);
  connect(&doc, &ScenarioDocument::scenarioChanged, this, &MainWindow::update_title);
  auto* compare = static_cast<CompareView*>(view(QStringLiteral("compare")));
  connect(compare, &CompareView::rowOpened, this, [this]() { show_view(QStringLiteral("plan")); });
  auto* calibration = static_cast<CalibrationView*>(view(QStringLiteral("calibration")));
  connect(calibration, &CalibrationView::planWithProfile, this, [this](const ProfilePtr& profile) {
    workbench_.set_calibration(profile);
    use_constants_->setEnabled(profile != nullptr);
    if (workbench_.scenario()) show_view(QStringLiteral("plan"));
  });
  auto* runs = static_cast<RunsView*>(view(QStringLiteral("runs")));
  connect(runs, &RunsView::runOpened, this, [this]() { show_view(QStringLiteral("plan")); });
  runs->set_before_open([this]() { return maybe_save(); });
  update_title();
  resize(1400, 860);
}

MainWindow::~MainWindow() = default;

void MainWindow::set_status(const QString& text) { status_->setText(text); }

QString MainWindow::status_text() const { return status_->text(); }

void MainWindow::update_title() {
  const ScenarioDocument& doc = workbench_.document();
  const QString name =
      doc.scenario()
          ? (doc.name().isEmpty() ? QString::fromStdString(doc.scenario()->name) : doc.name())
          : QString();
  setWindowTitle(name.isEmpty() ? QStringLiteral("ShardLab workbench")
                                : QStringLiteral("%1[*] \u2014 ShardLab workbench").arg(name));
  setWindowModified(doc.modified());
  if (save_ != nullptr) save_->setEnabled(doc.scenario() != nullptr);
}

void MainWindow::add_view(WorkbenchView* view) {
  auto* dock = new QDockWidget(view->title(), this);
  dock->setObjectName(view->view_name());
  dock->setWidget(view);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                    QDockWidget::DockWidgetClosable);
  if (docks_.empty()) {
    addDockWidget(Qt::TopDockWidgetArea, dock);
  } else {
    tabifyDockWidget(docks_.begin()->second, dock);
  }
  docks_[view->view_name()] = dock;
  views_[view->view_name()] = view;
}

WorkbenchView* MainWindow::view(const QString& name) const {
  const auto it = views_.find(name);
  return it == views_.end() ? nullptr : it->second;
}

QDockWidget* MainWindow::dock(const QString& name) const {
  const auto it = docks_.find(name);
  return it == docks_.end() ? nullptr : it->second;
}

QStringList MainWindow::views() const {
  QStringList names;
  for (const auto& [name, v] : views_) names << name;
  return names;
}

void MainWindow::show_view(const QString& name) {
  const auto it = docks_.find(name);
  if (it == docks_.end()) return;
  if (it->second->isHidden()) {
    // A closed dock comes back tabbed with the others.
    for (const auto& [other, d] : docks_) {
      if (d != it->second && !d->isHidden() && !d->isFloating()) {
        tabifyDockWidget(d, it->second);
        break;
      }
    }
  }
  it->second->show();
  it->second->raise();
}

QString MainWindow::current_view() const {
  for (const auto& [name, dock] : docks_) {
    if (!dock->visibleRegion().isEmpty()) return name;
  }
  return QStringLiteral("plan");
}

bool MainWindow::export_view(const QString& name, const QString& path, QString* error) {
  WorkbenchView* v = view(name);
  if (v == nullptr) {
    *error = QStringLiteral("no view '%1'").arg(name);
    return false;
  }
  return export_widget(v->export_target(), path, error);
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  file->addAction(QStringLiteral("&Open scenario..."), QKeySequence::Open, this,
                  &MainWindow::open_scenario_dialog);
  file->addAction(QStringLiteral("Open &plan..."), this, &MainWindow::open_plan_dialog);
  save_ = file->addAction(QStringLiteral("&Save scenario"), QKeySequence::Save, this,
                          [this]() { (void)save(); });
  file->addAction(QStringLiteral("Save scenario &as..."), QKeySequence::SaveAs, this,
                  [this]() { (void)save_as(); });
  file->addAction(QStringLiteral("Open run &store..."), this, &MainWindow::open_store_dialog);
  file->addSeparator();
  file->addAction(QStringLiteral("Save p&lan as..."), this, &MainWindow::save_plan_dialog);
  file->addAction(QStringLiteral("&Record in run store"), QKeySequence(Qt::CTRL | Qt::Key_R), this,
                  &MainWindow::record_run);
  file->addSeparator();
  file->addAction(QStringLiteral("&Export view as PNG or SVG..."), this, [this]() {
    const QString name = current_view();
    if (WorkbenchView* v = view(name)) export_with_dialog(v->export_target(), name);
  });
  file->addAction(QStringLiteral("Export timeline as &Chrome trace..."), this, [this]() {
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export Chrome trace"),
                                                      QStringLiteral("trace.json"),
                                                      QStringLiteral("Chrome trace (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!static_cast<TimelineView*>(view(QStringLiteral("timeline")))
             ->export_chrome_trace(path, &error)) {
      QMessageBox::warning(this, QStringLiteral("Export failed"), error);
    }
  });
  file->addSeparator();
  file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  QUndoStack* undo = workbench_.document().undo_stack();
  undo_ = undo->createUndoAction(this, QStringLiteral("&Undo"));
  undo_->setShortcut(QKeySequence::Undo);
  redo_ = undo->createRedoAction(this, QStringLiteral("&Redo"));
  redo_->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::Key_Y)});
  edit->addAction(undo_);
  edit->addAction(redo_);

  QMenu* plan = menuBar()->addMenu(QStringLiteral("&Plan"));
  replan_ = plan->addAction(QStringLiteral("&Replan"), QKeySequence(Qt::Key_F5), &workbench_,
                            &Workbench::replan);
  compare_ = plan->addAction(QStringLiteral("&Compare configurations"), this, [this]() {
    workbench_.compare();
    show_view(QStringLiteral("compare"));
  });
  cancel_ = plan->addAction(QStringLiteral("C&ancel"), QKeySequence(Qt::Key_Escape), &workbench_,
                            &Workbench::cancel);
  cancel_->setEnabled(false);
  plan->addSeparator();
  auto* models = new QActionGroup(this);
  QAction* torchrec = plan->addAction(QStringLiteral("Rate plans with TorchRec's model"));
  QAction* simulated = plan->addAction(QStringLiteral("Rate plans by simulated iteration time"));
  for (QAction* a : {torchrec, simulated}) {
    a->setCheckable(true);
    models->addAction(a);
  }
  torchrec->setChecked(true);
  connect(torchrec, &QAction::triggered, this,
          [this]() { workbench_.set_perf_model(PerfModelChoice::kTorchRec); });
  connect(simulated, &QAction::triggered, this,
          [this]() { workbench_.set_perf_model(PerfModelChoice::kSimulated); });
  plan->addSeparator();
  use_constants_ = plan->addAction(
      QStringLiteral("Plan with TorchRec's constants (drop the calibration profile)"), this,
      [this]() {
        workbench_.set_calibration(nullptr);
        use_constants_->setEnabled(false);
      });
  use_constants_->setEnabled(false);

  QMenu* views = menuBar()->addMenu(QStringLiteral("&View"));
  for (const auto& [name, dock] : docks_) {
    QAction* toggle = dock->toggleViewAction();
    views->addAction(toggle);
    // Showing a view also raises it (it may sit behind another tab).
    connect(toggle, &QAction::triggered, this, [this, name = name](bool on) {
      if (on) show_view(name);
    });
  }
  views->addSeparator();
  views->addAction(QStringLiteral("Show &all views"), this, [this]() {
    for (const auto& [name, dock] : docks_) {
      if (dock->isHidden()) show_view(name);
    }
  });
}

bool MainWindow::maybe_save() {
  if (!workbench_.document().modified()) return true;
  switch (unsaved_prompt_(workbench_.document().name())) {
    case UnsavedAnswer::kSave:
      return save();
    case UnsavedAnswer::kDiscard:
      return true;
    case UnsavedAnswer::kCancel:
      return false;
  }
  return false;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (maybe_save()) {
    event->accept();
  } else {
    event->ignore();
  }
}

bool MainWindow::open_scenario(const QString& path, bool quiet) {
  if (!maybe_save()) return false;
  if (Status st = workbench_.document().open_file(path); !st.is_ok()) {
    if (quiet) {
      set_status(QString::fromStdString(st.message()));
    } else {
      QMessageBox::critical(this, QStringLiteral("Cannot open scenario"),
                            QString::fromStdString(st.message()));
    }
    return false;
  }
  set_status(QStringLiteral("Opened %1: planning...").arg(QFileInfo(path).fileName()));
  show_view(QStringLiteral("plan"));
  return true;
}

bool MainWindow::save() {
  if (!workbench_.scenario()) return false;
  if (workbench_.document().path().isEmpty()) return save_as();
  if (Status st = workbench_.document().save(); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot save scenario"),
                         QString::fromStdString(st.message()));
    return false;
  }
  set_status(QStringLiteral("Saved %1").arg(workbench_.document().path()));
  return true;
}

bool MainWindow::save_as() {
  if (!workbench_.scenario()) return false;
  const QString suggestion =
      workbench_.document().path().isEmpty()
          ? QString::fromStdString(workbench_.scenario()->name) + QStringLiteral(".json")
          : workbench_.document().path();
  const QString path = save_path_prompt_(suggestion);
  if (path.isEmpty()) return false;
  if (Status st = workbench_.document().save(path); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot save scenario"),
                         QString::fromStdString(st.message()));
    return false;
  }
  set_status(QStringLiteral("Saved %1").arg(path));
  return true;
}

void MainWindow::open_scenario_dialog() {
  if (!maybe_save()) return;
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open scenario"),
                                                    QString(), QStringLiteral("Scenario (*.json)"));
  if (path.isEmpty()) return;
  // Already asked: the edits were saved or discarded.
  if (Status st = workbench_.document().open_file(path); !st.is_ok()) {
    QMessageBox::critical(this, QStringLiteral("Cannot open scenario"),
                          QString::fromStdString(st.message()));
    return;
  }
  show_view(QStringLiteral("plan"));
}

void MainWindow::open_plan_dialog() {
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open plan"), QString(),
                                                    QStringLiteral("Plan (*.json)"));
  if (path.isEmpty()) return;
  if (Status st = workbench_.open_plan(path); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot open plan"),
                         QString::fromStdString(st.message()));
    return;
  }
  show_view(QStringLiteral("plan"));
}

void MainWindow::save_plan_dialog() {
  const QString shardlab_filter = QStringLiteral("ShardLab plan (*.json)");
  const QString torchrec_filter = QStringLiteral("TorchRec ShardingPlan (*.json)");
  QString filter;
  const QString path = QFileDialog::getSaveFileName(
      this, QStringLiteral("Save plan"), QStringLiteral("plan.json"),
      shardlab_filter + QStringLiteral(";;") + torchrec_filter, &filter);
  if (path.isEmpty()) return;
  if (Status st = save_plan(workbench_.displayed(), path, filter == torchrec_filter); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot save the plan"),
                         QString::fromStdString(st.message()));
    return;
  }
  statusBar()->showMessage(QStringLiteral("Saved the plan to %1").arg(path), 5000);
}

void MainWindow::record_run() {
  Result<data::NewRun> run = run_record(workbench_.displayed(), workbench_.simulation().get());
  if (!run.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Nothing to record"),
                         QString::fromStdString(run.status().message()));
    return;
  }
  QString path = runs_->path();
  if (path.isEmpty()) {
    path = QFileDialog::getSaveFileName(
        this, QStringLiteral("Record in run store"), QString::fromUtf8(data::kDefaultRunStoreFile),
        QStringLiteral("Run store (*.db *.sqlite);;All files (*)"), nullptr,
        QFileDialog::DontConfirmOverwrite);  // an existing store takes the run
    if (path.isEmpty()) return;
  }
  Result<int64_t> id = runs_->record(*run, path);
  if (!id.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot record the run"),
                         QString::fromStdString(id.status().message()));
    return;
  }
  statusBar()->showMessage(QStringLiteral("Recorded run %1 in %2").arg(*id).arg(path), 5000);
}

void MainWindow::open_store_dialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, QStringLiteral("Open run store"), QString(),
                                   QStringLiteral("Run store (*.db *.sqlite);;All files (*)"));
  if (path.isEmpty()) return;
  if (Status st = runs_->open(path); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot open run store"),
                         QString::fromStdString(st.message()));
    return;
  }
  show_view(QStringLiteral("runs"));
}

}  // namespace shardlab::gui
