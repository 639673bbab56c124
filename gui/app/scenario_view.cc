#include "app/scenario_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/workbench_models.h"

namespace shardlab::gui {

ScenarioView::ScenarioView(WorkbenchModels* models, QWidget* parent) : WorkbenchView(parent), models_(models) {
  header_ = new QLabel(this);
  tables_ = new QTableView(this);
  tables_->setModel(&models->tables);
  tables_->setAlternatingRowColors(true);
  tables_->horizontalHeader()->setStretchLastSection(true);
  tables_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                           QAbstractItemView::AnyKeyPressed);
  settings_ = new QTableView(this);
  settings_->setModel(&models->settings);
  settings_->horizontalHeader()->setStretchLastSection(true);
  settings_->verticalHeader()->hide();
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setStyleSheet(QStringLiteral("color: #c0392b;"));

  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  left_layout->addWidget(new QLabel(QStringLiteral("<b>Tables</b> (double-click a cell to edit; an empty "
                                                   "constraint cell means no constraint)"),
                                    left));
  left_layout->addWidget(tables_, 1);
  left_layout->addWidget(message_);
  auto* right = new QWidget(split);
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(new QLabel(QStringLiteral("<b>Topology and planner</b> (sizes and bandwidths take "
                                                    "units, e.g. 32 GiB, 897 GiB/s)"),
                                     right));
  right_layout->addWidget(settings_, 1);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header_);
  layout->addWidget(split, 1);

  Workbench* wb = models->workbench();
  const auto refresh_header = [this, wb]() {
    if (!wb->scenario()) {
      header_->setText(QStringLiteral("No scenario: File > Open scenario"));
      return;
    }
    const planner::Scenario& s = *wb->scenario();
    header_->setText(QStringLiteral("<b>%1</b> (%2): %3 tables on %4 ranks, batch size %5")
                         .arg(QString::fromStdString(s.name).toHtmlEscaped(), wb->origin().toHtmlEscaped())
                         .arg(s.tables.size())
                         .arg(s.topology.world_size)
                         .arg(s.batch_size));
    tables_->resizeColumnsToContents();
    settings_->resizeColumnsToContents();
  };
  connect(wb, &Workbench::scenarioChanged, this, [this, refresh_header]() {
    message_->clear();
    refresh_header();
  });
  connect(wb, &Workbench::editRefused, this, [this](const QString& m) { message_->setText(m); });
  refresh_header();
}

QString ScenarioView::message() const { return message_->text(); }

}  // namespace shardlab::gui
