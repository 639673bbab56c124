#include "app/scenario_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "app/choice_delegate.h"
#include "models/model_roles.h"
#include "models/workbench_models.h"

namespace shardlab::gui {

ScenarioView::ScenarioView(WorkbenchModels* models, QWidget* parent)
    : WorkbenchView(parent), models_(models) {
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(QStringLiteral("filter tables by name"));
  filter_->setClearButtonEnabled(true);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(&models->tables);
  proxy_->setFilterKeyColumn(ScenarioTablesModel::kName);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy_->setSortRole(RawValueRole);
  tables_ = new QTableView(this);
  tables_->setModel(proxy_);
  tables_->setSortingEnabled(true);
  tables_->sortByColumn(-1, Qt::AscendingOrder);
  tables_->setAlternatingRowColors(true);
  tables_->horizontalHeader()->setStretchLastSection(true);
  // A thousand rows: size columns from a sample of them.
  tables_->horizontalHeader()->setResizeContentsPrecision(60);
  // Editing starts on purpose only: a double-click or F2, never a stray key.
  tables_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  tables_->setItemDelegate(new ChoiceDelegate(tables_));
  settings_ = new QTableView(this);
  settings_->setModel(&models->settings);
  settings_->horizontalHeader()->setStretchLastSection(true);
  settings_->verticalHeader()->hide();
  settings_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  settings_->setItemDelegate(new ChoiceDelegate(settings_));
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setStyleSheet(QStringLiteral("color: #c0392b;"));

  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  auto* left_bar = new QHBoxLayout();
  auto* tables_label =
      new QLabel(QStringLiteral("<b>Tables</b> (double-click or F2 edits; an empty constraint "
                                "means none; headers sort)"),
                 left);
  tables_label->setWordWrap(true);
  left_bar->addWidget(tables_label, 1);
  left_bar->addWidget(filter_);
  left_layout->addLayout(left_bar);
  left_layout->addWidget(tables_, 1);
  left_layout->addWidget(message_);
  auto* right = new QWidget(split);
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  auto* settings_label =
      new QLabel(QStringLiteral("<b>Topology and planner</b> (sizes and bandwidths take "
                                "units, e.g. 32 GiB, 897 GiB/s)"),
                 right);
  settings_label->setWordWrap(true);
  right_layout->addWidget(settings_label);
  right_layout->addWidget(settings_, 1);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header_);
  layout->addWidget(split, 1);

  Workbench* wb = models->workbench();
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(&wb->document(), &ScenarioDocument::scenarioChanged, this, [this](bool replaced) {
    message_->clear();
    refresh_header(replaced);
  });
  connect(&wb->document(), &ScenarioDocument::editRefused, this,
          [this](const QString& m) { message_->setText(m); });
  refresh_header(true);
}

QString ScenarioView::message() const { return message_->text(); }

void ScenarioView::refresh_header(bool resize) {
  Workbench* wb = models_->workbench();
  if (!wb->scenario()) {
    header_->setText(QStringLiteral("No scenario: File > Open scenario"));
    return;
  }
  const planner::Scenario& s = *wb->scenario();
  header_->setText(
      QStringLiteral("<b>%1</b> (%2): %3 tables on %4 ranks (%5 per host), batch size %6")
          .arg(QString::fromStdString(s.name).toHtmlEscaped(), wb->origin().toHtmlEscaped())
          .arg(s.tables.size())
          .arg(s.topology.world_size)
          .arg(s.topology.local_world_size.value_or(s.topology.world_size))
          .arg(s.batch_size));
  // Sizing columns measures cells: once per document, not per edit.
  if (resize) {
    tables_->resizeColumnsToContents();
    settings_->resizeColumnsToContents();
  }
}

}  // namespace shardlab::gui
