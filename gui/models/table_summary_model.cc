#include "models/table_summary_model.h"

#include <QStringList>
#include <algorithm>

#include "models/model_roles.h"
#include "models/units.h"

namespace shardlab::gui {
namespace {

QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// TorchRec's rank list shortening: a consecutive ascending run as "a-b".
QString rank_text(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  bool consecutive = ranks.size() > 1;
  for (size_t i = 1; i < ranks.size() && consecutive; ++i)
    consecutive = ranks[i] == ranks[i - 1] + 1;
  if (consecutive) return QStringLiteral("%1-%2").arg(ranks.front()).arg(ranks.back());
  QStringList out;
  for (int r : ranks) out << QString::number(r);
  return out.join(QLatin1Char(','));
}

}  // namespace

TableSummaryModel::TableSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void TableSummaryModel::reset(const planner::PlanSummary& summary) {
  beginResetModel();
  tables_ = summary.tables;
  endResetModel();
}

void TableSummaryModel::clear() {
  beginResetModel();
  tables_.clear();
  endResetModel();
}

int TableSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(tables_.size());
}

int TableSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant TableSummaryModel::raw(const planner::TableSummary& t, int column) const {
  switch (column) {
    case kPerf:
      return t.perf.total();
    case kHbm:
      return QVariant::fromValue<qint64>(t.storage.hbm);
    case kDdr:
      return QVariant::fromValue<qint64>(t.storage.ddr);
    case kCacheLoadFactor:
      return t.cache_load_factor ? QVariant(*t.cache_load_factor) : QVariant();
    case kPoolingFactor:
      return t.pooling_factor;
    case kNumPoolings:
      return t.num_poolings;
    case kFeatures:
      return t.num_inputs;
    case kEmbDim:
      return QVariant::fromValue<qint64>(t.embedding_dim);
    case kHashSize:
      return QVariant::fromValue<qint64>(t.hash_size);
    default:
      return display(t, column);
  }
}

QVariant TableSummaryModel::display(const planner::TableSummary& t, int column) const {
  switch (column) {
    case kFqn:
      return QString::fromStdString(t.fqn);
    case kSharding:
      return str(planner::abbreviation(t.sharding_type));
    case kKernel:
      return str(planner::to_string(t.compute_kernel));
    case kPerf:
      return QStringLiteral("%1 (%2, %3, %4, %5, %6)")
          .arg(t.perf.total(), 0, 'f', 4)
          .arg(t.perf.fwd_compute, 0, 'g', 3)
          .arg(t.perf.fwd_comms, 0, 'g', 3)
          .arg(t.perf.bwd_compute, 0, 'g', 3)
          .arg(t.perf.bwd_comms, 0, 'g', 3)
          .arg(t.perf.prefetch_compute, 0, 'g', 3);
    case kHbm:
      return format_bytes(static_cast<double>(t.storage.hbm));
    case kDdr:
      return format_bytes(static_cast<double>(t.storage.ddr));
    case kCacheLoadFactor:
      return t.cache_load_factor ? QString::number(*t.cache_load_factor) : QStringLiteral("None");
    case kPoolingFactor:
      return QString::number(t.pooling_factor, 'g', 6);
    case kNumPoolings:
      return QString::number(t.num_poolings, 'g', 6);
    case kOutput:
      return t.pooled ? QStringLiteral("pooled") : QStringLiteral("sequence");
    case kWeighting:
      return t.weighted ? QStringLiteral("weighted") : QStringLiteral("unweighted");
    case kSharder:
      return QString::fromStdString(t.sharder);
    case kFeatures:
      return t.num_inputs;
    case kEmbDim:
      return t.column_shard_dim
                 ? QStringLiteral("%1 (%2)").arg(t.embedding_dim).arg(*t.column_shard_dim)
                 : QString::number(t.embedding_dim);
    case kHashSize:
      return QString::number(t.hash_size);
    case kRanks:
      return rank_text(t.ranks);
    default:
      return {};
  }
}

QVariant TableSummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const planner::TableSummary& t = tables_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return display(t, index.column());
    case RawValueRole:
      return raw(t, index.column());
    case ShardingTypeRole:
      return str(planner::to_string(t.sharding_type));
    case ComputeKernelRole:
      return str(planner::to_string(t.compute_kernel));
    case TableNameRole:
      return QString::fromStdString(t.name);
    case Qt::ToolTipRole:
      if (index.column() == kPerf) {
        return QStringLiteral(
            "total (fwd compute, fwd comms, bwd compute, bwd comms, prefetch), ms");
      }
      return {};
    default:
      return {};
  }
}

QVariant TableSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {
      "FQN",      "Sharding",          "Compute Kernel", "Perf (ms)",        "HBM",
      "DDR",      "Cache Load Factor", "Pooling Factor", "Num Poolings",     "Output",
      "Weighing", "Sharder",           "Features",       "Emb Dim (CW Dim)", "Hash Size",
      "Ranks"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
