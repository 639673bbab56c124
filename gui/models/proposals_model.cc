#include "models/proposals_model.h"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <cmath>
#include <map>

#include "models/model_roles.h"
#include "models/units.h"
#include "shardlab/data/scenario_writer.h"
#include "shardlab/sim/compare.h"

namespace shardlab::gui {

ProposalsModel::ProposalsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProposalsModel::reset(const PlanOutcome& outcome) {
  beginResetModel();
  records_ = outcome.proposals.records();
  proposer_names_.clear();
  for (const planner::ProposerSpec& p : outcome.scenario->planner.proposers) {
    QString name = QString::fromStdString(std::string(planner::to_string(p.kind)));
    if (p.kind != planner::ProposerKind::kGridSearch && !p.use_depth)
      name += QStringLiteral(" (sum)");
    proposer_names_.push_back(name);
  }
  best_row_ = -1;
  ties_.clear();
  tie_.assign(records_.size(), 0);
  skipped_ = 0;
  failed_ = 0;
  best_rating_ = outcome.result.perf_rating;
  const bool has_best = outcome.result.ok() && outcome.source == PlanSource::kPlanner;
  for (size_t i = 0; i < records_.size(); ++i) {
    const planner::ProposalRecord& r = records_[i];
    skipped_ += r.rating_skipped ? 1 : 0;
    failed_ += r.partitioned ? 0 : 1;
    // The planner keeps a plan only when it rates strictly lower than the
    // best so far: the best plan is the first record reaching the final best.
    if (!has_best || !r.rated() || r.rating != best_rating_) continue;
    tie_[i] = 1;
    if (best_row_ < 0) {
      best_row_ = static_cast<int>(i);
    } else {
      ties_.push_back(static_cast<int>(i));
    }
  }
  endResetModel();
}

void ProposalsModel::clear() {
  beginResetModel();
  records_.clear();
  tie_.clear();
  ties_.clear();
  best_row_ = -1;
  skipped_ = failed_ = 0;
  endResetModel();
}

QString ProposalsModel::ties_text() const {
  if (best_row_ < 0) return {};
  QString text;
  if (ties_.empty()) {
    text = QStringLiteral("The best plan is proposal #%1: no other proposal reaches its rating.")
               .arg(best_row_);
  } else {
    text = QStringLiteral(
               "%1 proposals tie at the best rating %2 ms. The planner keeps the first one it "
               "evaluated (#%3): a later plan replaces the best only when it rates strictly lower, "
               "as in TorchRec.")
               .arg(ties_.size() + 1)
               .arg(best_rating_, 0, 'f', 5)
               .arg(best_row_);
  }
  if (skipped_ > 0) {
    text +=
        QStringLiteral(
            " %1 partitioned proposals were not rated: the partitioner's per-rank totals already "
            "showed they could not beat the best plan found before them (select one to rate it).")
            .arg(skipped_);
  }
  return text;
}

QStringList ProposalsModel::why_not(const std::vector<planner::Storage>& overflow) {
  QStringList lines;
  for (size_t r = 0; r < overflow.size(); ++r) {
    const planner::Storage& o = overflow[r];
    if (o.hbm == 0 && o.ddr == 0) continue;
    QString line = QStringLiteral("rank %1:").arg(r);
    if (o.hbm > 0) line += QStringLiteral(" HBM +") + format_bytes(static_cast<double>(o.hbm));
    if (o.ddr > 0) line += QStringLiteral(" DDR +") + format_bytes(static_cast<double>(o.ddr));
    lines << line;
  }
  return lines;
}

QString ProposalsModel::rank_ranges(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  QStringList parts;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    parts << (j == i ? QStringLiteral("r%1").arg(ranks[i])
                     : QStringLiteral("r%1-r%2").arg(ranks[i]).arg(ranks[j]));
    i = j + 1;
  }
  return parts.join(QStringLiteral(", "));
}

QStringList ProposalsModel::differences(const planner::PlanSummary& from,
                                        const planner::PlanSummary& to) {
  std::map<std::string, const planner::TableSummary*> in_from;
  std::map<std::string, const planner::TableSummary*> in_to;
  for (const planner::TableSummary& t : from.tables) in_from.emplace(t.name, &t);
  for (const planner::TableSummary& t : to.tables) in_to.emplace(t.name, &t);
  const auto place = [](const planner::TableSummary* t) {
    if (t == nullptr) return QStringLiteral("(absent)");
    return QStringLiteral("%1 %2 on %3")
        .arg(QString::fromUtf8(std::string(planner::to_string(t->sharding_type)).c_str()),
             QString::fromUtf8(std::string(planner::to_string(t->compute_kernel)).c_str()),
             rank_ranges(t->ranks));
  };
  QStringList lines;
  for (const std::string& name : planner::diff_plans(from, to).moved_tables) {
    const auto a = in_from.find(name);
    const auto b = in_to.find(name);
    lines << QStringLiteral("%1: %2 \u2192 %3")
                 .arg(QString::fromStdString(name), place(a == in_from.end() ? nullptr : a->second),
                      place(b == in_to.end() ? nullptr : b->second));
  }
  return lines;
}

int ProposalsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(records_.size());
}

int ProposalsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant ProposalsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const size_t row = static_cast<size_t>(index.row());
  const planner::ProposalRecord& r = records_[row];
  const int column = index.column();
  const bool best = index.row() == best_row_;
  const bool tie = tie_[row] != 0 && !best;
  if (role == Qt::BackgroundRole) {
    if (best) return QBrush(QColor(0xb9, 0xe4, 0xb9));
    if (tie) return QBrush(QColor(0xe3, 0xf3, 0xe3));
    if (!r.partitioned) return QBrush(QColor(0xfb, 0xe4, 0xe4));
    return {};
  }
  if (role == OverflowRole) return !r.partitioned;
  if (role == TieRole) return tie_[row] != 0;
  if (role == WinnerRole) return best;
  if (role == Qt::TextAlignmentRole) {
    return column == kProposer || column == kNote ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  const bool has_vs = r.rated() && best_row_ >= 0;
  if (role == RawValueRole) {
    switch (column) {
      case kIndex:
        return r.index;
      case kProposer:
        return r.proposer;
      case kPartitioned:
        return r.partitioned;
      // Unrated plans sort after rated ones, failures last.
      case kRating:
        return r.rated() ? r.rating : (r.partitioned ? 1e300 : 1e301);
      case kVsBest:
        return has_vs ? sim::relative_change(best_rating_, r.rating)
                      : (r.partitioned ? 1e300 : 1e301);
      case kNote:
        return data(index, Qt::DisplayRole);
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole && column == kNote) {
    if (r.rating_skipped) {
      return QStringLiteral(
          "The partitioner's per-rank totals showed this plan could not beat the best plan "
          "found before it, so the planner did not rate it. Select it to place and rate it.");
    }
    if (!r.partitioned) return QStringLiteral("Select it to see which ranks overflow (why not).");
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kIndex:
      return r.index;
    case kProposer:
      return r.proposer >= 0 && r.proposer < static_cast<int>(proposer_names_.size())
                 ? proposer_names_[static_cast<size_t>(r.proposer)]
                 : QString::number(r.proposer);
    case kPartitioned:
      return r.partitioned ? QStringLiteral("yes") : QStringLiteral("no");
    case kRating:
      if (r.rating_skipped) return QStringLiteral("not rated");
      return std::isnan(r.rating) ? QStringLiteral("-") : QString::number(r.rating, 'f', 5);
    case kVsBest:
      return has_vs ? format_percent(sim::relative_change(best_rating_, r.rating)) : QString();
    case kNote:
      if (best) return QStringLiteral("best plan");
      if (tie) return QStringLiteral("ties the best; evaluated later");
      if (r.rating_skipped) return QStringLiteral("cannot beat the best");
      if (!r.partitioned) return QStringLiteral("does not fit");
      return {};
    default:
      return {};
  }
}

QVariant ProposalsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kNumColumns) return {};
  static const char* const kHeaders[] = {"#",           "Proposer", "Partitioned",
                                         "Rating (ms)", "vs best",  "Note"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (role == Qt::DisplayRole) return QString::fromLatin1(kHeaders[section]);
  if (role == Qt::ToolTipRole && section == kRating) {
    return QStringLiteral(
        "The planner's perf model's rating of the partitioned plan (lower is better)");
  }
  return {};
}

}  // namespace shardlab::gui
