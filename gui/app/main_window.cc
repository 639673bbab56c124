#include "app/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

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
  setWindowTitle(QStringLiteral("ShardLab workbench"));
  models_ = new WorkbenchModels(&workbench_, this);
  runs_ = new RunBrowser(&workbench_, this);
  setDockOptions(QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AnimatedDocks);
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
  progress_->setMaximumWidth(160);
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
  connect(&workbench_, &Workbench::progress, this, [this](int percent, const QString& stage) {
    progress_->setValue(percent);
    status_->setText(stage + QStringLiteral("..."));
  });
  connect(&workbench_, &Workbench::outcomeChanged, this, [this]() {
    const PlanOutcomePtr& o = workbench_.outcome();
    if (!o) return;
    const Status st = workbench_.planning_status();
    status_->setText(st.is_ok() ? QStringLiteral("Planned %1 tables on %2 ranks in %3 ms: rating %4 ms")
                                      .arg(o->scenario->tables.size())
                                      .arg(o->scenario->topology.world_size)
                                      .arg(o->plan_ms, 0, 'f', 1)
                                      .arg(o->result.perf_rating, 0, 'f', 5)
                                : QStringLiteral("No plan: ") + QString::fromStdString(st.message()).section('\n', 0, 0));
  });
  connect(&workbench_, &Workbench::errorOccurred, this, [this](const QString& m) { status_->setText(m); });
  connect(&workbench_, &Workbench::warningsOccurred, this, [this](const QString& m) { status_->setText(m); });
  connect(runs_, &RunBrowser::errorOccurred, this, [this](const QString& m) { status_->setText(m); });
  connect(&workbench_, &Workbench::editRefused, this, [this](const QString& m) {
    status_->setText(QStringLiteral("Refused: ") + m);
  });
  connect(&workbench_.worker(), &PlanningWorker::cancelled, this,
          [this]() { status_->setText(QStringLiteral("Cancelled")); });
  resize(1400, 860);
}

MainWindow::~MainWindow() = default;

void MainWindow::add_view(WorkbenchView* view) {
  auto* dock = new QDockWidget(view->title(), this);
  dock->setObjectName(view->view_name());
  dock->setWidget(view);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
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

QStringList MainWindow::views() const {
  QStringList names;
  for (const auto& [name, v] : views_) names << name;
  return names;
}

void MainWindow::show_view(const QString& name) {
  const auto it = docks_.find(name);
  if (it == docks_.end()) return;
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
  file->addAction(QStringLiteral("&Open scenario..."), QKeySequence::Open, this, &MainWindow::open_scenario_dialog);
  file->addAction(QStringLiteral("Open &plan..."), this, &MainWindow::open_plan_dialog);
  file->addAction(QStringLiteral("&Save scenario as..."), QKeySequence::SaveAs, this,
                  &MainWindow::save_scenario_dialog);
  file->addAction(QStringLiteral("Open run &store..."), this, &MainWindow::open_store_dialog);
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
    if (!static_cast<TimelineView*>(view(QStringLiteral("timeline")))->export_chrome_trace(path, &error)) {
      QMessageBox::warning(this, QStringLiteral("Export failed"), error);
    }
  });
  file->addSeparator();
  file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

  QMenu* plan = menuBar()->addMenu(QStringLiteral("&Plan"));
  replan_ = plan->addAction(QStringLiteral("&Replan"), QKeySequence(Qt::Key_F5), &workbench_, &Workbench::replan);
  compare_ = plan->addAction(QStringLiteral("&Compare configurations"), &workbench_, &Workbench::compare);
  cancel_ = plan->addAction(QStringLiteral("C&ancel"), QKeySequence(Qt::Key_Escape), &workbench_, &Workbench::cancel);
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
  connect(torchrec, &QAction::triggered, this, [this]() { workbench_.set_perf_model(PerfModelChoice::kTorchRec); });
  connect(simulated, &QAction::triggered, this, [this]() { workbench_.set_perf_model(PerfModelChoice::kSimulated); });

  QMenu* views = menuBar()->addMenu(QStringLiteral("&View"));
  for (const auto& [name, dock] : docks_) views->addAction(dock->toggleViewAction());
}

void MainWindow::open_scenario_dialog() {
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open scenario"), QString(),
                                                    QStringLiteral("Scenario (*.json)"));
  if (path.isEmpty()) return;
  if (Status st = workbench_.open_scenario(path); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot open scenario"), QString::fromStdString(st.message()));
  }
}

void MainWindow::open_plan_dialog() {
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open plan"), QString(),
                                                    QStringLiteral("Plan (*.json)"));
  if (path.isEmpty()) return;
  if (Status st = workbench_.open_plan(path); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot open plan"), QString::fromStdString(st.message()));
  }
}

void MainWindow::open_store_dialog() {
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open run store"), QString(),
                                                    QStringLiteral("Run store (*.db *.sqlite);;All files (*)"));
  if (path.isEmpty()) return;
  if (Status st = runs_->open(path); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot open run store"), QString::fromStdString(st.message()));
  }
}

void MainWindow::save_scenario_dialog() {
  const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save scenario"), QString(),
                                                    QStringLiteral("Scenario (*.json)"));
  if (path.isEmpty()) return;
  if (Status st = workbench_.save_scenario(path); !st.is_ok()) {
    QMessageBox::warning(this, QStringLiteral("Cannot save scenario"), QString::fromStdString(st.message()));
  }
}

}  // namespace shardlab::gui
