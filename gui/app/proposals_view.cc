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

#include "app/stale_banner.h"
#include "models/model_roles.h"
#include "models/units.h"
#include "models/workbench_models.h"
#include "shardlab/sim/compare.h"

namespace shardlab::gui {
namespace {

// Keeps all, only partitioned, only failed, or only the best and its ties.
class ProposalFilter : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void set_mode(int mode) {
    mode_ = mode;
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    const QModelIndex i = sourceModel()->index(row, ProposalsModel::kPartitioned, parent);
    switch (mode_) {
      case 1:
        return i.data(RawValueRole).toBool();
      case 2:
        return !i.data(RawValueRole).toBool();
      case 3:
        return i.data(TieRole).toBool();
      default:
        return true;
    }
  }

 private:
  int mode_ = 0;
};

}  // namespace

ProposalsView::ProposalsView(WorkbenchModels* models, QWidget* parent)
    : WorkbenchView(parent), models_(models) {
  banner_ =
      new StaleBanner(QStringLiteral("list of proposals"), QStringLiteral("Re-plan (F5)"), this);
  header_ = new QLabel(this);
  ties_ = new QLabel(this);
  ties_->setWordWrap(true);
  show_ = new QComboBox(this);
  show_->addItems({QStringLiteral("all proposals"), QStringLiteral("partitioned"),
                   QStringLiteral("did not fit"), QStringLiteral("best and ties")});
  auto* best = new QPushButton(QStringLiteral("Show best plan"), this);
  auto* proxy = new ProposalFilter(this);
  proxy->setSourceModel(&models->proposals);
  proxy->setSortRole(RawValueRole);
  proxy_ = proxy;
  table_ = new QTableView(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(-1, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  // Fixed widths from the widest possible text: sizing from contents would
  // measure tens of thousands of rows (or cut 5-digit ids to "10...").
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  details_ = new QPlainTextEdit(this);
  details_->setReadOnly(true);
  details_->setPlaceholderText(
      QStringLiteral("Select a proposal to see what it places differently from the best plan, or "
                     "which ranks overflow when it "
                     "does not fit."));

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
  auto* details_label =
      new QLabel(QStringLiteral("<b>Details</b> (against the best plan; for a proposal that does "
                                "not fit, its relaxed placement: the same partitioner with "
                                "unlimited memory, and the overflow beyond each rank's reserved "
                                "capacity)"),
                 lower);
  details_label->setWordWrap(true);
  lower_layout->addWidget(details_label);
  lower_layout->addWidget(details_);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(banner_);
  layout->addLayout(bar);
  layout->addWidget(ties_);
  layout->addWidget(split, 1);

  Workbench* wb = models->workbench();
  connect(show_, &QComboBox::currentIndexChanged, this, [proxy](int i) { proxy->set_mode(i); });
  connect(best, &QPushButton::clicked, this, &ProposalsView::show_best);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, wb](const QModelIndex& current) {
            if (!current.isValid() || selecting_) return;
            if (Status st = wb->select_proposal(proxy_->mapToSource(current).row()); !st.is_ok()) {
              header_->setText(QStringLiteral("<b>Proposal not shown</b>: ") +
                               QString::fromStdString(st.message()).toHtmlEscaped());
            }
          });
  connect(banner_, &StaleBanner::refreshRequested, wb, &Workbench::replan);
  connect(wb, &Workbench::freshnessChanged, this,
          [this, wb]() { banner_->set_state(wb->plan_state()); });
  connect(wb, &Workbench::outcomeChanged, this, &ProposalsView::refresh);
  connect(wb, &Workbench::displayedChanged, this, &ProposalsView::refresh);
  connect(&models->proposals, &QAbstractItemModel::modelReset, table_, [this]() {
    const QFontMetrics fm(table_->font());
    const int digits = fm.horizontalAdvance(
        QString(QString::number(models_->proposals.rowCount()).size() + 1, '9'));
    QHeaderView* h = table_->horizontalHeader();
    h->resizeSection(ProposalsModel::kIndex,
                     std::max(digits, fm.horizontalAdvance(QStringLiteral("#"))) + 24);
    h->resizeSection(ProposalsModel::kProposer,
                     fm.horizontalAdvance(QStringLiteral("embedding_offload_scaleup (sum)")) + 16);
    h->resizeSection(ProposalsModel::kPartitioned,
                     fm.horizontalAdvance(QStringLiteral("Partitioned")) + 24);
    h->resizeSection(ProposalsModel::kRating,
                     fm.horizontalAdvance(QStringLiteral("0000.000000")) + 24);
    h->resizeSection(ProposalsModel::kVsBest,
                     fm.horizontalAdvance(QStringLiteral("+0000.0%")) + 24);
  });
  refresh();
  banner_->set_state(wb->plan_state());
}

QWidget* ProposalsView::export_target() { return this; }

QString ProposalsView::header_text() const {
  return header_->text() + QLatin1Char('\n') + ties_->text();
}

QString ProposalsView::details_text() const { return details_->toPlainText(); }

void ProposalsView::select_row_of(int proposal) {
  if (proposal < 0) {
    table_->clearSelection();
    return;
  }
  const QModelIndex at = proxy_->mapFromSource(models_->proposals.index(proposal, 0));
  if (!at.isValid()) return;
  selecting_ = true;
  table_->selectionModel()->setCurrentIndex(
      at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  table_->scrollTo(at, QAbstractItemView::PositionAtCenter);
  selecting_ = false;
}

void ProposalsView::show_best() {
  Workbench* wb = models_->workbench();
  (void)wb->select_proposal(-1);
  select_row_of(models_->proposals.best_row());
}

void ProposalsView::refresh() {
  Workbench* wb = models_->workbench();
  const PlanOutcomePtr& o = wb->outcome();
  if (!o) {
    header_->setText(QStringLiteral("No planning run yet"));
    ties_->clear();
    details_->clear();
    return;
  }
  const ProposalsModel& m = models_->proposals;
  const int total = m.rowCount();
  header_->setText(QStringLiteral("%1 proposals evaluated, %2 partitioned, %3 did not fit")
                       .arg(total)
                       .arg(total - m.failed_count())
                       .arg(m.failed_count()));
  ties_->setText(m.ties_text());
  QStringList text;
  const Status st = wb->planning_status();
  if (!st.is_ok()) {
    text << QStringLiteral("The scenario does not fit:") << QString::fromStdString(st.message());
    if (o->last_failure) {
      text << QStringLiteral("Last proposal #%1, placed again, overflows:").arg(total - 1)
           << ProposalsModel::why_not(o->last_failure->overflow);
    }
  }
  const DisplayedPlanPtr& d = wb->displayed();
  if (d && d->base == o && d->proposal >= 0) {
    const planner::ProposalRecord& r = o->proposals[static_cast<size_t>(d->proposal)];
    text << QStringLiteral("Proposal #%1 (%2):").arg(r.index).arg(plan_title(*d));
    if (!d->fits) {
      const QStringList lines = ProposalsModel::why_not(d->overflow);
      text << QStringLiteral("does not fit; %1 rank(s) overflow:").arg(lines.size()) << lines;
    } else {
      if (o->result.ok() && d->torchrec_rating) {
        text << QStringLiteral("fits; TorchRec rating %1 ms (%2 against the best plan's %3 ms)")
                    .arg(*d->torchrec_rating, 0, 'f', 5)
                    .arg(format_percent(
                        sim::relative_change(o->summary->torchrec_rating, *d->torchrec_rating)))
                    .arg(o->summary->torchrec_rating, 0, 'f', 5);
      }
      text << QStringLiteral("peak HBM of one rank's shards %1")
                  .arg(format_bytes(static_cast<double>(d->summary.peak_shard_hbm)));
    }
    if (o->summary) {
      const QStringList diff = ProposalsModel::differences(*o->summary, d->summary);
      text << (diff.isEmpty()
                   ? QStringLiteral("It places every table as the best plan does.")
                   : QStringLiteral("It places %1 table(s) differently from the best plan:")
                         .arg(diff.size()));
      text << diff;
    }
  } else if (d && d->base == o && o->result.ok()) {
    text << QStringLiteral("The best plan is shown (proposal #%1).").arg(m.best_row());
  }
  details_->setPlainText(text.join(QLatin1Char('\n')));
  select_row_of(d && d->base == o ? (d->proposal >= 0 ? d->proposal : m.best_row()) : -1);
}

}  // namespace shardlab::gui
