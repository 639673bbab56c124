#include "app/proposals_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/model_roles.h"
#include "models/workbench_models.h"

namespace shardlab::gui {
namespace {

// Keeps all, only partitioned, or only failed proposals.
class PartitionedFilter : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void set_mode(int mode) {
    mode_ = mode;
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    if (mode_ == 0) return true;
    const bool partitioned = sourceModel()->index(row, ProposalsModel::kPartitioned, parent).data(RawValueRole).toBool();
    return mode_ == 1 ? partitioned : !partitioned;
  }

 private:
  int mode_ = 0;
};

}  // namespace

ProposalsView::ProposalsView(WorkbenchModels* models, QWidget* parent) : WorkbenchView(parent), models_(models) {
  header_ = new QLabel(this);
  show_ = new QComboBox(this);
  show_->addItems({QStringLiteral("all proposals"), QStringLiteral("partitioned"), QStringLiteral("did not fit")});
  auto* best = new QPushButton(QStringLiteral("Show best plan"), this);
  auto* proxy = new PartitionedFilter(this);
  proxy->setSourceModel(&models->proposals);
  proxy->setSortRole(RawValueRole);
  proxy_ = proxy;
  table_ = new QTableView(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(-1, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  // Sizing columns measures cells: a few dozen rows tell the widths, and a
  // re-plan then costs no text layout of thousands of rows.
  table_->horizontalHeader()->setResizeContentsPrecision(40);
  why_not_ = new QPlainTextEdit(this);
  why_not_->setReadOnly(true);
  why_not_->setPlaceholderText(QStringLiteral("Select a proposal that did not fit to see which ranks overflow."));

  auto* bar = new QHBoxLayout();
  bar->addWidget(header_, 1);
  bar->addWidget(new QLabel(QStringLiteral("Show"), this));
  bar->addWidget(show_);
  bar->addWidget(best);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  auto* lower = new QWidget(split);
  auto* lower_layout = new QVBoxLayout(lower);
  lower_layout->setContentsMargins(0, 0, 0, 0);
  lower_layout->addWidget(new QLabel(QStringLiteral("<b>Why not</b> (relaxed placement: the same partitioner "
                                                    "with unlimited memory; overflow beyond each rank's "
                                                    "reserved capacity)"),
                                     lower));
  lower_layout->addWidget(why_not_);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  Workbench* wb = models->workbench();
  connect(show_, &QComboBox::currentIndexChanged, this, [proxy](int i) { proxy->set_mode(i); });
  connect(best, &QPushButton::clicked, this, [wb]() { (void)wb->select_proposal(-1); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, wb](const QModelIndex& current) {
            if (!current.isValid()) return;
            (void)wb->select_proposal(proxy_->mapToSource(current).row());
          });
  connect(wb, &Workbench::outcomeChanged, this, &ProposalsView::refresh);
  connect(wb, &Workbench::displayedChanged, this, &ProposalsView::refresh);
  connect(&models->proposals, &QAbstractItemModel::modelReset, table_, [this]() { table_->resizeColumnsToContents(); });
  refresh();
}

QWidget* ProposalsView::export_target() { return this; }

QString ProposalsView::why_not_text() const { return why_not_->toPlainText(); }

void ProposalsView::refresh() {
  Workbench* wb = models_->workbench();
  const PlanOutcomePtr& o = wb->outcome();
  if (!o) {
    header_->setText(QStringLiteral("No planning run yet"));
    why_not_->clear();
    return;
  }
  int failed = 0;
  for (const planner::ProposalRecord& r : o->proposals) failed += r.partitioned ? 0 : 1;
  header_->setText(QStringLiteral("%1 proposals evaluated, %2 partitioned, %3 did not fit (best plan highlighted)")
                       .arg(o->proposals.size())
                       .arg(o->proposals.size() - static_cast<size_t>(failed))
                       .arg(failed));
  QStringList text;
  const Status st = wb->planning_status();
  if (!st.is_ok()) {
    text << QStringLiteral("The scenario does not fit:") << QString::fromStdString(st.message());
    if (!o->proposals.empty() && !o->proposals.back().partitioned) {
      text << QStringLiteral("Last proposal #%1 overflows:").arg(o->proposals.back().index)
           << ProposalsModel::why_not(o->proposals.back());
    }
  }
  const DisplayedPlanPtr& d = wb->displayed();
  if (d && d->proposal >= 0) {
    const planner::ProposalRecord& r = o->proposals[static_cast<size_t>(d->proposal)];
    if (r.partitioned) {
      text << QStringLiteral("Proposal #%1 fits.").arg(r.index);
    } else {
      const QStringList lines = ProposalsModel::why_not(r);
      text << QStringLiteral("Proposal #%1 does not fit; %2 rank(s) overflow:").arg(r.index).arg(lines.size()) << lines;
    }
  }
  why_not_->setPlainText(text.join(QLatin1Char('\n')));
}

}  // namespace shardlab::gui
