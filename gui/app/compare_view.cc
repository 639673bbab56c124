#include "app/compare_view.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/workbench_models.h"

namespace shardlab::gui {

CompareView::CompareView(WorkbenchModels* models, QWidget* parent) : WorkbenchView(parent), models_(models) {
  header_ = new QLabel(QStringLiteral("Plans the scenario with each partitioner and perf model, then simulates "
                                      "each chosen plan."),
                       this);
  header_->setWordWrap(true);
  auto* versions = new QCheckBox(QStringLiteral("Both TorchRec versions"), this);
  versions->setToolTip(
      QStringLiteral("Plan each configuration with the TorchRec 2024-02 and 2026-08 models, "
                     "side by side (docs/torchrec-versions.md)"));
  auto* run = new QPushButton(QStringLiteral("Run comparison"), this);
  rows_ = new QTableView(this);
  rows_->setModel(&models->compare);
  rows_->verticalHeader()->hide();
  rows_->horizontalHeader()->setStretchLastSection(true);
  ranks_ = new QTableView(this);
  ranks_->setModel(&models->compare_ranks);
  ranks_->setAlternatingRowColors(true);
  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(versions);
  bar->addWidget(run);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(rows_);
  auto* lower = new QWidget(split);
  auto* lower_layout = new QVBoxLayout(lower);
  lower_layout->setContentsMargins(0, 0, 0, 0);
  lower_layout->addWidget(new QLabel(QStringLiteral("<b>Per rank</b>: TorchRec perf total and shard HBM of each "
                                                    "plan, and the difference (d) to the first plan"),
                                     lower));
  lower_layout->addWidget(ranks_, 1);
  split->addWidget(lower);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  Workbench* wb = models->workbench();
  versions->setChecked(wb->compare_torchrec_versions());
  connect(versions, &QCheckBox::toggled, wb, &Workbench::set_compare_torchrec_versions);
  connect(run, &QPushButton::clicked, wb, &Workbench::compare);
  connect(&models->compare, &QAbstractItemModel::modelReset, this, [this]() {
    rows_->resizeColumnsToContents();
    ranks_->resizeColumnsToContents();
  });
}

}  // namespace shardlab::gui
