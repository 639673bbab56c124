#include "models/compare_model.h"

#include <algorithm>

#include <QStringList>

#include "models/model_roles.h"
#include "models/units.h"
#include "shardlab/data/compare_json.h"

namespace shardlab::gui {

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareModel::reset(const CompareOutcome& outcome) {
  beginResetModel();
  rows_ = outcome.rows;
  endResetModel();
}

void CompareModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kNumColumns; }

QVariant CompareModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const CompareRow& r = rows_[static_cast<size_t>(index.row())];
  const bool has_plan = r.summary.has_value();
  QStringList moved;
  if (r.diff) {
    for (const std::string& t : r.diff->moved_tables) moved << QString::fromStdString(t);
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == kStatus && !r.status.is_ok()) return QString::fromStdString(r.status.message());
    if (index.column() == kMoved) return moved.join(QLatin1Char('\n'));
    return {};
  }
  if (role == RawValueRole) {
    switch (index.column()) {
      case kRating: return has_plan ? QVariant(r.rating) : QVariant();
      case kTorchRecRating: return has_plan ? QVariant(r.summary->torchrec_rating) : QVariant();
      case kIterationMs: return r.iteration_ms ? QVariant(*r.iteration_ms) : QVariant();
      case kPeakHbm: return has_plan ? QVariant::fromValue<qint64>(r.summary->peak_shard_hbm) : QVariant();
      case kProposals: return r.num_proposals;
      case kPlanMs: return r.plan_ms;
      case kMovedCount: return r.diff ? QVariant(static_cast<int>(r.diff->moved_tables.size())) : QVariant();
      default: break;
    }
  }
  if (role != Qt::DisplayRole && role != RawValueRole) return {};
  switch (index.column()) {
    case kConfiguration: return QStringLiteral("#%1 ").arg(index.row() + 1) + QString::fromStdString(r.variant.label);
    case kStatus:
      return r.status.is_ok() ? QStringLiteral("ok") : QString::fromStdString(data::error_type_name(r.status));
    case kRating: return has_plan ? QString::number(r.rating, 'f', 5) : QStringLiteral("-");
    case kTorchRecRating: return has_plan ? QString::number(r.summary->torchrec_rating, 'f', 5) : QStringLiteral("-");
    case kIterationMs: return r.iteration_ms ? QString::number(*r.iteration_ms, 'f', 5) : QStringLiteral("-");
    case kPeakHbm: return has_plan ? format_bytes(static_cast<double>(r.summary->peak_shard_hbm)) : QStringLiteral("-");
    case kProposals: return r.num_proposals;
    case kPlanMs: return QString::number(r.plan_ms, 'f', 1);
    case kMovedCount: return r.diff ? QVariant(static_cast<int>(r.diff->moved_tables.size())) : QVariant(QString());
    case kMoved: return moved.join(QStringLiteral(", "));
    default: return {};
  }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Configuration",  "Status",       "Model rating (ms)",
                                         "TorchRec rating (ms)", "Simulated iteration (ms)", "Peak HBM",
                                         "Proposals",      "Plan time (ms)", "Tables moved",
                                         "Moved tables"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

CompareRanksModel::CompareRanksModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareRanksModel::reset(const CompareOutcome& outcome) {
  beginResetModel();
  plans_.clear();
  numbers_.clear();
  ranks_ = 0;
  for (size_t i = 0; i < outcome.rows.size(); ++i) {
    const CompareRow& r = outcome.rows[i];
    if (!r.summary) continue;
    plans_.push_back(r);
    numbers_.push_back(static_cast<int>(i) + 1);
    ranks_ = std::max(ranks_, static_cast<int>(r.summary->ranks.size()));
  }
  endResetModel();
}

void CompareRanksModel::clear() {
  beginResetModel();
  plans_.clear();
  numbers_.clear();
  ranks_ = 0;
  endResetModel();
}

int CompareRanksModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ranks_; }

int CompareRanksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(plans_.size()) * kColumnsPerPlan;
}

QVariant CompareRanksModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  if (role != Qt::DisplayRole && role != RawValueRole && role != Qt::ToolTipRole) return {};
  const CompareRow& p = plans_[static_cast<size_t>(index.column() / kColumnsPerPlan)];
  const int what = index.column() % kColumnsPerPlan;
  const size_t rank = static_cast<size_t>(index.row());
  const bool has_rank = rank < p.summary->ranks.size();
  QVariant raw;
  switch (what) {
    case 0:
      if (has_rank) raw = p.summary->ranks[rank].perf_total;
      break;
    case 1:
      if (has_rank) raw = QVariant::fromValue<qint64>(p.summary->ranks[rank].shards.hbm);
      break;
    case 2:
      if (p.diff && rank < p.diff->perf_delta.size()) raw = p.diff->perf_delta[rank];
      break;
    case 3:
      if (p.diff && rank < p.diff->hbm_delta.size()) raw = QVariant::fromValue<qint64>(p.diff->hbm_delta[rank]);
      break;
  }
  if (role == RawValueRole || !raw.isValid()) return raw;
  const bool delta = what >= 2;
  if (what == 1 || what == 3) {
    if (role == Qt::ToolTipRole) return format_bytes(static_cast<double>(raw.toLongLong()));
    const QString text = QString::number(to_gib(raw.toLongLong()), 'f', 3);
    return delta && raw.toLongLong() > 0 ? QLatin1Char('+') + text : text;
  }
  if (role == Qt::ToolTipRole) return format_ms(raw.toDouble());
  const QString text = QString::number(raw.toDouble(), 'f', 4);
  return delta && raw.toDouble() > 0 ? QLatin1Char('+') + text : text;
}

QVariant CompareRanksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole && !(role == Qt::ToolTipRole && orientation == Qt::Horizontal)) return {};
  if (orientation == Qt::Vertical) {
    return section >= 0 && section < ranks_ ? QVariant(QStringLiteral("r%1").arg(section)) : QVariant();
  }
  if (section < 0 || section >= columnCount()) return {};
  const size_t plan = static_cast<size_t>(section / kColumnsPerPlan);
  if (role == Qt::ToolTipRole) return QString::fromStdString(plans_[plan].variant.label);
  static const char* const kWhat[] = {"perf (ms)", "HBM (GiB)", "d perf", "d HBM"};
  return QStringLiteral("#%1 ").arg(numbers_[plan]) + QString::fromLatin1(kWhat[section % kColumnsPerPlan]);
}

}  // namespace shardlab::gui
