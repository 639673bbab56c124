#include "models/proposals_model.h"

#include <cmath>

#include <QBrush>
#include <QColor>

#include "models/model_roles.h"
#include "models/units.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::gui {

ProposalsModel::ProposalsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProposalsModel::reset(const PlanOutcome& outcome) {
  beginResetModel();
  records_ = outcome.proposals;
  proposer_names_.clear();
  for (const planner::ProposerSpec& p : outcome.scenario->planner.proposers) {
    QString name = QString::fromStdString(data::to_string(p.kind));
    if (p.kind != planner::ProposerKind::kGridSearch && !p.use_depth) name += QStringLiteral(" (sum)");
    proposer_names_.push_back(name);
  }
  best_row_ = -1;
  if (outcome.result.best) {
    for (size_t i = 0; i < records_.size(); ++i) {
      if (records_[i].partitioned && records_[i].proposal == outcome.result.best->proposal) {
        best_row_ = static_cast<int>(i);
        break;
      }
    }
  }
  endResetModel();
}

void ProposalsModel::clear() {
  beginResetModel();
  records_.clear();
  best_row_ = -1;
  endResetModel();
}

QStringList ProposalsModel::why_not(const planner::ProposalRecord& record) {
  QStringList lines;
  for (size_t r = 0; r < record.overflow.size(); ++r) {
    const planner::Storage& o = record.overflow[r];
    if (o.hbm == 0 && o.ddr == 0) continue;
    QString line = QStringLiteral("rank %1:").arg(r);
    if (o.hbm > 0) line += QStringLiteral(" HBM +") + format_bytes(static_cast<double>(o.hbm));
    if (o.ddr > 0) line += QStringLiteral(" DDR +") + format_bytes(static_cast<double>(o.ddr));
    lines << line;
  }
  return lines;
}

int ProposalsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(records_.size());
}

int ProposalsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kNumColumns; }

QVariant ProposalsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const planner::ProposalRecord& r = records_[static_cast<size_t>(index.row())];
  const int column = index.column();
  if (role == Qt::BackgroundRole) {
    if (index.row() == best_row_) return QBrush(QColor(0xd8, 0xf0, 0xd8));
    if (!r.partitioned) return QBrush(QColor(0xfb, 0xe4, 0xe4));
    return {};
  }
  if (role == OverflowRole) return !r.partitioned;
  if (role == RawValueRole) {
    switch (column) {
      case kIndex: return r.index;
      case kProposer: return r.proposer;
      case kPartitioned: return r.partitioned;
      case kRating: return r.rating;
      case kPeakHbm: return QVariant::fromValue<qint64>(r.peak_hbm);
      case kOverflow: return QVariant::fromValue<qint64>(r.total_hbm_overflow() + r.total_ddr_overflow());
      case kWhyNot: return why_not(r).join(QStringLiteral("; "));
      default: return {};
    }
  }
  if (role == Qt::ToolTipRole && column == kWhyNot) return why_not(r).join(QLatin1Char('\n'));
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kIndex: return r.index;
    case kProposer:
      return r.proposer >= 0 && r.proposer < static_cast<int>(proposer_names_.size())
                 ? proposer_names_[static_cast<size_t>(r.proposer)]
                 : QString::number(r.proposer);
    case kPartitioned: return r.partitioned ? QStringLiteral("yes") : QStringLiteral("no");
    case kRating: return std::isnan(r.rating) ? QStringLiteral("-") : QString::number(r.rating, 'f', 5);
    case kPeakHbm: return format_bytes(static_cast<double>(r.peak_hbm));
    case kOverflow:
      return r.partitioned ? QString()
                           : format_bytes(static_cast<double>(r.total_hbm_overflow() + r.total_ddr_overflow()));
    case kWhyNot: {
      const QStringList lines = why_not(r);
      if (lines.isEmpty()) return QString();
      return lines.size() == 1 ? lines.front() : QStringLiteral("%1 ranks; %2").arg(lines.size()).arg(lines.front());
    }
    default: return {};
  }
}

QVariant ProposalsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"#",        "Proposer", "Partitioned", "Rating (ms)",
                                         "Peak HBM", "Overflow", "Why not"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
