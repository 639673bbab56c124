#include "models/placement_matrix_model.h"

#include <algorithm>

#include "models/model_roles.h"
#include "models/units.h"

namespace shardlab::gui {
namespace {

QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace

PlacementMatrixModel::PlacementMatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

void PlacementMatrixModel::reset(const planner::PlanSummary& summary,
                                 const std::vector<planner::Storage>& overflow,
                                 int ranks_per_host) {
  beginResetModel();
  ranks_per_host_ = std::max(1, ranks_per_host);
  tables_ = summary.tables;
  ranks_ = static_cast<int>(summary.ranks.size());
  cells_.assign(tables_.size() * static_cast<size_t>(ranks_), Cell{});
  for (size_t t = 0; t < tables_.size(); ++t) {
    const planner::TableSummary& ts = tables_[t];
    for (size_t s = 0; s < ts.ranks.size(); ++s) {
      const int r = ts.ranks[s];
      if (r < 0 || r >= ranks_) continue;
      Cell& c = cells_[t * static_cast<size_t>(ranks_) + static_cast<size_t>(r)];
      ++c.shards;
      c.storage += ts.shards.storage(s);
    }
  }
  overflow_ = overflow;
  endResetModel();
}

bool PlacementMatrixModel::overflows(int rank) const {
  if (rank < 0 || rank >= static_cast<int>(overflow_.size())) return false;
  const planner::Storage& o = overflow_[static_cast<size_t>(rank)];
  return o.hbm > 0 || o.ddr > 0;
}

void PlacementMatrixModel::clear() {
  beginResetModel();
  tables_.clear();
  ranks_ = 0;
  cells_.clear();
  overflow_.clear();
  endResetModel();
}

int PlacementMatrixModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(tables_.size());
}

int PlacementMatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ranks_;
}

QVariant PlacementMatrixModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const planner::TableSummary& t = tables_[static_cast<size_t>(index.row())];
  const Cell& c = cell(index.row(), index.column());
  switch (role) {
    case Qt::DisplayRole: {
      if (c.shards == 0) return QString();
      QString text = str(planner::abbreviation(t.sharding_type));
      if (c.shards > 1) text += QStringLiteral(" x%1").arg(c.shards);
      return text;
    }
    case Qt::ToolTipRole: {
      if (c.shards == 0) return QString();
      return QStringLiteral("%1 on rank %2: %3 %4, %5 of %6 shard(s), HBM %7, DDR %8")
          .arg(QString::fromStdString(t.name))
          .arg(index.column())
          .arg(str(planner::to_string(t.sharding_type)), str(planner::to_string(t.compute_kernel)))
          .arg(c.shards)
          .arg(t.ranks.size())
          .arg(format_bytes(static_cast<double>(c.storage.hbm)),
               format_bytes(static_cast<double>(c.storage.ddr)));
    }
    case ShardCountRole:
      return c.shards;
    case RawValueRole:
      return QVariant::fromValue<qint64>(c.storage.hbm);
    case ShardingTypeRole:
      return str(planner::to_string(t.sharding_type));
    case ComputeKernelRole:
      return str(planner::to_string(t.compute_kernel));
    case TableNameRole:
      return QString::fromStdString(t.name);
    default:
      return {};
  }
}

QVariant PlacementMatrixModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation == Qt::Horizontal) {
    if (section < 0 || section >= ranks_) return {};
    if (role == Qt::DisplayRole) return QStringLiteral("r%1").arg(section);
    if (role == Qt::ToolTipRole)
      return QStringLiteral("rank %1, host %2").arg(section).arg(section / ranks_per_host_);
    if (role == OverflowRole) return overflows(section);
    return {};
  }
  if (section < 0 || section >= static_cast<int>(tables_.size())) return {};
  const planner::TableSummary& t = tables_[static_cast<size_t>(section)];
  if (role == Qt::DisplayRole) return QString::fromStdString(t.name);
  if (role == TableNameRole) return QString::fromStdString(t.name);
  if (role == ShardingTypeRole) return str(planner::to_string(t.sharding_type));
  if (role == ComputeKernelRole) return str(planner::to_string(t.compute_kernel));
  return {};
}

}  // namespace shardlab::gui
