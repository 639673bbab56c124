#include "models/compare_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QStringList>
#include <algorithm>

#include "models/model_roles.h"
#include "models/units.h"
#include "shardlab/data/compare_json.h"

namespace shardlab::gui {
namespace {

template <typename T>
QVariant raw(const std::optional<T>& v) {
  if (!v) return {};
  if constexpr (std::is_same_v<T, int64_t>) {
    return QVariant::fromValue<qint64>(*v);
  } else {
    return *v;
  }
}

}  // namespace

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareModel::reset(const CompareOutcome& outcome) {
  std::vector<std::string> labels;
  for (const sim::CompareConfig& c : outcome.grid)
    labels.push_back(sim::label(c, *outcome.scenario));
  const bool same_shape = labels == labels_;
  if (!same_shape) beginResetModel();
  labels_ = std::move(labels);
  rows_ = outcome.comparison.rows;
  winner_ = outcome.complete ? outcome.comparison.winner : -1;
  running_ = outcome.running_row;
  running_status_ = QString::fromStdString(outcome.running_status);
  cancelled_ = outcome.cancelled;
  if (!same_shape) {
    endResetModel();
  } else if (rowCount() > 0) {
    // A partial outcome: the same rows with more filled in.
    emit dataChanged(index(0, 0), index(rowCount() - 1, kNumColumns - 1));
  }
}

void CompareModel::clear() {
  beginResetModel();
  labels_.clear();
  rows_.clear();
  winner_ = -1;
  running_ = -1;
  endResetModel();
}

const sim::CompareRow* CompareModel::row(int r) const {
  return r >= 0 && r < static_cast<int>(rows_.size()) ? &rows_[static_cast<size_t>(r)] : nullptr;
}

int CompareModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(labels_.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const int column = index.column();
  const sim::CompareRow* r = row(index.row());
  const bool winner = index.row() == winner_;
  if (role == WinnerRole) return winner;
  if (role == Qt::BackgroundRole)
    return winner ? QVariant(QBrush(QColor(0xd8, 0xf0, 0xd8))) : QVariant();
  if (role == Qt::FontRole && winner) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::TextAlignmentRole) {
    return column == kConfiguration || column == kStatus || column == kMoved
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  QStringList moved;
  if (r != nullptr) {
    for (const std::string& t : r->moved_vs_winner) moved << QString::fromStdString(t);
  }
  if (role == Qt::ToolTipRole) {
    if (r == nullptr) {
      return column == kStatus && index.row() == running_ ? QVariant(running_status_) : QVariant();
    }
    if (column == kStatus && !r->status.is_ok()) return QString::fromStdString(r->status.message());
    if (column == kMoved || column == kMovedCount) return moved.join(QLatin1Char('\n'));
    if (column == kVsWinner) {
      return QStringLiteral("simulated iteration against the winner's; TorchRec rating %1")
          .arg(r->rating_vs_winner ? format_percent(*r->rating_vs_winner) : QStringLiteral("-"));
    }
    return {};
  }
  if (role == RawValueRole) {
    switch (column) {
      case kNumber:
        return index.row() + 1;
      case kConfiguration:
        return QString::fromStdString(labels_[static_cast<size_t>(index.row())]);
      case kStatus:
        return r == nullptr ? QVariant() : QVariant(r->status.is_ok());
      case kTorchRecRating:
        return r ? raw(r->torchrec_rating_ms) : QVariant();
      case kIterationMs:
        return r ? raw(r->iteration_ms) : QVariant();
      case kVsWinner:
        return r ? raw(r->iteration_vs_winner) : QVariant();
      case kPeakHbm:
        return r ? raw(r->peak_hbm_bytes) : QVariant();
      case kImbalance:
        return r ? raw(r->imbalance) : QVariant();
      case kMovedCount:
        return r && r->iteration_vs_winner ? QVariant(static_cast<int>(r->moved_vs_winner.size()))
                                           : QVariant();
      case kProposals:
        return r ? QVariant(r->num_proposals) : QVariant();
      case kPlanSeconds:
        return r ? QVariant(r->plan_seconds) : QVariant();
      case kMoved:
        return moved.join(QStringLiteral(", "));
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  const QString dash = QStringLiteral("-");
  switch (column) {
    case kNumber:
      return index.row() + 1;
    case kConfiguration:
      return QString::fromStdString(labels_[static_cast<size_t>(index.row())]);
    case kStatus:
      if (r == nullptr) {
        if (index.row() == running_) return running_status_;
        return cancelled_ ? QStringLiteral("cancelled") : QStringLiteral("waiting");
      }
      if (!r->status.is_ok()) return QString::fromStdString(data::error_type_name(r->status));
      return winner ? QStringLiteral("ok, winner") : QStringLiteral("ok");
    case kTorchRecRating:
      return r && r->torchrec_rating_ms ? QString::number(*r->torchrec_rating_ms, 'f', 5) : dash;
    case kIterationMs:
      return r && r->iteration_ms ? QString::number(*r->iteration_ms, 'f', 5) : dash;
    case kVsWinner:
      if (winner_ < 0) return dash;
      return r && r->iteration_vs_winner
                 ? (winner ? QStringLiteral("winner") : format_percent(*r->iteration_vs_winner))
                 : dash;
    case kPeakHbm:
      return r && r->peak_hbm_bytes ? format_bytes(static_cast<double>(*r->peak_hbm_bytes)) : dash;
    case kImbalance:
      return r && r->imbalance ? QString::number(*r->imbalance, 'f', 3) : dash;
    case kMovedCount:
      return r && r->iteration_vs_winner && winner_ >= 0
                 ? QVariant(static_cast<int>(r->moved_vs_winner.size()))
                 : QVariant(dash);
    case kProposals:
      return r ? QVariant(r->num_proposals) : QVariant(dash);
    case kPlanSeconds:
      return r ? QString::number(r->plan_seconds, 'f', 3) : dash;
    case kMoved:
      return moved.join(QStringLiteral(", "));
    default:
      return {};
  }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kNumColumns) return {};
  static const char* const kHeaders[] = {"#",
                                         "Configuration (proposer + partitioner + rated by)",
                                         "Status",
                                         "TorchRec rating (ms)",
                                         "Simulated iteration (ms)",
                                         "vs winner",
                                         "Peak HBM",
                                         "Imbalance",
                                         "Tables moved",
                                         "Proposals",
                                         "Plan time (s)",
                                         "Tables placed differently from the winner"};
  static const char* const kTips[] = {
      "Row of the comparison (the same numbering as shardlab compare)",
      "The planner configuration: proposer ('scenario': the scenario's own list), partitioner, and "
      "the model that rated the plans it chose between; 'optimized': the optimizer's plan, "
      "searched from that configuration's plan (Optimize)",
      "ok, or why the row has no plan or no simulated time",
      "TorchRec's rating of the row's plan (max over ranks of summed shard perf), whatever model "
      "chose it",
      "The row's plan simulated: steady-state iteration time",
      "Simulated iteration time against the winner's (the lowest)",
      "Largest HBM of one rank's shards",
      "Max / mean of the per-rank TorchRec perf",
      "Tables whose sharding type, kernel or ranks differ from the winner's plan",
      "Proposals the planner evaluated",
      "Wall time of planning",
      "Tables whose sharding type, kernel or ranks differ from the winner's plan"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  static_assert(sizeof(kTips) / sizeof(kTips[0]) == kNumColumns);
  if (role == Qt::DisplayRole) return QString::fromLatin1(kHeaders[section]);
  if (role == Qt::ToolTipRole) return QString::fromLatin1(kTips[section]);
  return {};
}

CompareRanksModel::CompareRanksModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareRanksModel::reset(const CompareOutcome& outcome) {
  beginResetModel();
  rows_ = outcome.comparison.rows;
  ranks_ = 0;
  for (const sim::CompareRow& r : rows_)
    ranks_ = std::max(ranks_, static_cast<int>(r.ranks.size()));
  // The scenario as configured against the winner, unless the user chose others.
  const int rows = static_cast<int>(rows_.size());
  if (!chosen_ || a_ >= rows || b_ >= rows) {
    chosen_ = false;
    a_ = rows > 0 ? 0 : -1;
    b_ = outcome.complete && outcome.comparison.winner >= 0 ? outcome.comparison.winner : a_;
  }
  endResetModel();
}

void CompareRanksModel::clear() {
  beginResetModel();
  rows_.clear();
  a_ = b_ = -1;
  chosen_ = false;
  ranks_ = 0;
  endResetModel();
}

void CompareRanksModel::set_rows(int a, int b) {
  const int rows = static_cast<int>(rows_.size());
  beginResetModel();
  chosen_ = true;
  a_ = std::clamp(a, -1, rows - 1);
  b_ = std::clamp(b, -1, rows - 1);
  endResetModel();
}

const sim::CompareRow* CompareRanksModel::plan_row(int r) const {
  return r >= 0 && r < static_cast<int>(rows_.size()) && rows_[static_cast<size_t>(r)].plan
             ? &rows_[static_cast<size_t>(r)]
             : nullptr;
}

int CompareRanksModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ranks_;
}

int CompareRanksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || ranks_ == 0 ? 0 : kDelta + 1;
}

QVariant CompareRanksModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != RawValueRole && role != Qt::ToolTipRole) return {};
  const size_t rank = static_cast<size_t>(index.row());
  const auto busiest = [rank](const sim::CompareRow* r) -> std::optional<double> {
    if (r == nullptr || !r->iteration_ms || rank >= r->ranks.size()) return std::nullopt;
    return std::max(r->ranks[rank].busy_compute_ms, r->ranks[rank].busy_comm_ms);
  };
  QVariant value;
  bool bytes = false;
  if (index.column() == kDelta) {
    const std::optional<double> a = busiest(plan_row(a_));
    const std::optional<double> b = busiest(plan_row(b_));
    if (a && b) value = *b - *a;
  } else {
    const sim::CompareRow* r = plan_row(index.column() < kNumWhat ? a_ : b_);
    if (r == nullptr || rank >= r->ranks.size()) return {};
    const sim::CompareRank& k = r->ranks[rank];
    switch (index.column() % kNumWhat) {
      case kPerf:
        value = k.torchrec_perf_ms;
        break;
      case kHbm:
        value = QVariant::fromValue<qint64>(k.shard_hbm);
        bytes = true;
        break;
      case kBusyCompute:
        if (r->iteration_ms) value = k.busy_compute_ms;
        break;
      case kBusyComm:
        if (r->iteration_ms) value = k.busy_comm_ms;
        break;
    }
  }
  if (role == RawValueRole || !value.isValid()) return value;
  if (bytes) {
    return role == Qt::ToolTipRole ? QString::number(value.toLongLong()) + QStringLiteral(" bytes")
                                   : format_bytes(static_cast<double>(value.toLongLong()));
  }
  if (role == Qt::ToolTipRole) return format_ms(value.toDouble());
  const QString text = QString::number(value.toDouble(), 'f', 4);
  return index.column() == kDelta && value.toDouble() > 0 ? QLatin1Char('+') + text : text;
}

QVariant CompareRanksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    if (role != Qt::DisplayRole || section < 0 || section >= ranks_) return {};
    return QStringLiteral("r%1").arg(section);
  }
  if (section < 0 || section > kDelta) return {};
  if (role == Qt::ToolTipRole) {
    if (section == kDelta) {
      return QStringLiteral("Busiest simulated stream per iteration: #%1 minus #%2")
          .arg(b_ + 1)
          .arg(a_ + 1);
    }
    const sim::CompareRow* r = plan_row(section < kNumWhat ? a_ : b_);
    return r ? QString::fromStdString(r->label) : QVariant();
  }
  if (role != Qt::DisplayRole) return {};
  if (section == kDelta) return QStringLiteral("d busiest (ms)");
  static const char* const kWhat[] = {"TorchRec perf (ms)", "shard HBM", "sim compute (ms)",
                                      "sim comm (ms)"};
  return QStringLiteral("#%1 ").arg((section < kNumWhat ? a_ : b_) + 1) +
         QString::fromLatin1(kWhat[section % kNumWhat]);
}

}  // namespace shardlab::gui
