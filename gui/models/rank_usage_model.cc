#include "models/rank_usage_model.h"

#include "models/model_roles.h"
#include "models/units.h"

namespace shardlab::gui {
namespace {

bool is_bytes(int column) {
  return (column >= RankUsageModel::kHbmShards && column <= RankUsageModel::kDdrFree) ||
         column == RankUsageModel::kHbmOverflow || column == RankUsageModel::kDdrOverflow;
}

}  // namespace

RankUsageModel::RankUsageModel(QObject* parent) : QAbstractTableModel(parent) {}

void RankUsageModel::reset(const planner::PlanSummary& summary) {
  beginResetModel();
  ranks_ = summary.ranks;
  if (busy_compute_.size() != ranks_.size()) {
    busy_compute_.clear();
    busy_comm_.clear();
  }
  endResetModel();
}

void RankUsageModel::reset_simulation(const sim::SimResult* simulation) {
  busy_compute_.clear();
  busy_comm_.clear();
  if (simulation != nullptr && simulation->ranks.size() == ranks_.size()) {
    for (const sim::RankResult& r : simulation->ranks) {
      busy_compute_.push_back(r.busy_compute_ms);
      busy_comm_.push_back(r.busy_comm_ms);
    }
  }
  if (!ranks_.empty()) emit dataChanged(index(0, kBusyCompute), index(rowCount() - 1, kBusyComm));
}

void RankUsageModel::clear() {
  beginResetModel();
  ranks_.clear();
  busy_compute_.clear();
  busy_comm_.clear();
  endResetModel();
}

int RankUsageModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(ranks_.size());
}

int RankUsageModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant RankUsageModel::raw(int row, int column) const {
  const planner::RankSummary& r = ranks_[static_cast<size_t>(row)];
  const auto bytes = [](int64_t b) { return QVariant::fromValue<qint64>(b); };
  const size_t i = static_cast<size_t>(row);
  switch (column) {
    case kRank:
      return r.rank;
    case kHbmShards:
      return bytes(r.shards.hbm);
    case kHbmDense:
      return bytes(r.dense.hbm);
    case kHbmKjt:
      return bytes(r.kjt.hbm);
    case kHbmFree:
      return bytes(r.free().hbm);
    case kHbmMargin:
      return bytes(r.margin().hbm);
    case kDdrShards:
      return bytes(r.shards.ddr);
    case kDdrFree:
      return bytes(r.free().ddr);
    case kFwdCompute:
      return r.perf.fwd_compute;
    case kBwdCompute:
      return r.perf.bwd_compute;
    case kFwdComms:
      return r.perf.fwd_comms;
    case kBwdComms:
      return r.perf.bwd_comms;
    case kPrefetch:
      return r.perf.prefetch_compute;
    case kPerfTotal:
      return r.perf_total;
    case kHbmOverflow:
      return bytes(r.overflow().hbm);
    case kDdrOverflow:
      return bytes(r.overflow().ddr);
    case kBusyCompute:
      return i < busy_compute_.size() ? QVariant(busy_compute_[i]) : QVariant();
    case kBusyComm:
      return i < busy_comm_.size() ? QVariant(busy_comm_[i]) : QVariant();
    default:
      return {};
  }
}

QVariant RankUsageModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const int column = index.column();
  const QVariant value = raw(index.row(), column);
  switch (role) {
    case RawValueRole:
      return value;
    case Qt::DisplayRole:
      // Charts read DisplayRole: numbers in GiB / ms. A missing simulation
      // stays empty rather than 0.
      if (!value.isValid()) return {};
      if (is_bytes(column)) return to_gib(value.toLongLong());
      return value;
    case Qt::ToolTipRole:
      if (!value.isValid()) return QStringLiteral("not simulated");
      if (is_bytes(column)) return format_bytes(static_cast<double>(value.toLongLong()));
      if (column == kRank) return {};
      return format_ms(value.toDouble());
    case OverflowRole:
      return ranks_[static_cast<size_t>(index.row())].overflow() > planner::Storage{};
    case Qt::TextAlignmentRole:
      return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
  }
}

QVariant RankUsageModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) {
    return section >= 0 && section < rowCount() ? QVariant(QStringLiteral("r%1").arg(section))
                                                : QVariant();
  }
  static const char* const kHeaders[] = {"Rank",
                                         "HBM shards (GiB)",
                                         "HBM dense (GiB)",
                                         "HBM KJT (GiB)",
                                         "HBM free (GiB)",
                                         "HBM margin (GiB)",
                                         "DDR shards (GiB)",
                                         "DDR free (GiB)",
                                         "Fwd compute (ms)",
                                         "Bwd compute (ms)",
                                         "Fwd comms (ms)",
                                         "Bwd comms (ms)",
                                         "Prefetch (ms)",
                                         "Perf total (ms)",
                                         "HBM overflow (GiB)",
                                         "DDR overflow (GiB)",
                                         "Busy compute (ms)",
                                         "Busy comm (ms)"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
