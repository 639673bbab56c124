#include "app/runs_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

#include "models/run_browser.h"
#include "models/runs_model.h"

namespace shardlab::gui {

RunsView::RunsView(RunBrowser* browser, QWidget* parent)
    : WorkbenchView(parent), browser_(browser) {
  model_ = new RunsModel(this);
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  auto* open = new QPushButton(QStringLiteral("Open run"), this);
  auto* diff = new QPushButton(QStringLiteral("Diff two runs"), this);
  auto* reload = new QPushButton(QStringLiteral("Reload"), this);
  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  diff_ = new QTextBrowser(this);
  diff_->setPlaceholderText(
      QStringLiteral("Select two runs and press Diff: deltas are the second minus the first."));
  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(open);
  bar->addWidget(diff);
  bar->addWidget(reload);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(diff_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
  connect(open, &QPushButton::clicked, this, &RunsView::open_selected);
  connect(diff, &QPushButton::clicked, this, &RunsView::diff_selected);
  connect(reload, &QPushButton::clicked, this, [this]() {
    if (Status st = browser_->refresh(); !st.is_ok())
      diff_->setPlainText(QString::fromStdString(st.message()));
  });
  connect(table_, &QTableView::doubleClicked, this, &RunsView::open_selected);
  connect(browser_, &RunBrowser::runsChanged, this, &RunsView::refresh);
  refresh();
}

QString RunsView::diff_text() const { return diff_->toPlainText(); }

void RunsView::refresh() {
  model_->reset(browser_->runs());
  header_->setText(
      browser_->is_open()
          ? QStringLiteral("<b>%1</b>: %2 runs")
                .arg(browser_->path().toHtmlEscaped())
                .arg(browser_->runs().size())
          : QStringLiteral("No run store: start with --db FILE or use File > Open run store"));
  table_->resizeColumnsToContents();
  // The summary column can be long: cap it, the tooltip has every field.
  table_->setColumnWidth(RunsModel::kSummary,
                         std::min(table_->columnWidth(RunsModel::kSummary), 600));
}

void RunsView::open_selected() {
  const QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const int64_t id = model_->run(rows.front().row()).id;
  if (before_open_ && !before_open_()) return;
  if (Status st = browser_->open_run(id); !st.is_ok()) {
    diff_->setPlainText(QString::fromStdString(st.message()));
    return;
  }
  diff_->setPlainText(QStringLiteral("Opened run %1 in the workbench.").arg(id));
  emit runOpened();
}

void RunsView::diff_selected() {
  QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.size() != 2) {
    diff_->setPlainText(
        QStringLiteral("Select exactly two runs to diff (%1 selected).").arg(rows.size()));
    return;
  }
  // The older run is A, so deltas read "what changed since".
  int64_t a = model_->run(rows[0].row()).id;
  int64_t b = model_->run(rows[1].row()).id;
  if (a > b) std::swap(a, b);
  Result<data::RunDiff> d = browser_->diff(a, b);
  if (d.is_ok()) {
    diff_->setHtml(diff_to_html(*d));
  } else {
    diff_->setPlainText(QString::fromStdString(d.status().message()));
  }
}

}  // namespace shardlab::gui
