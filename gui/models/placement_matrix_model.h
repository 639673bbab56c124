// The placement matrix of the shown plan: one row per table (plan order),
// one column per rank; a cell holds the table's shards on that rank.
//   DisplayRole     "TW", "RW", "CW x2" (sharding type, shard count when > 1)
//   ShardCountRole  shards on the rank (int)
//   RawValueRole    HBM of those shards (qint64 bytes)
//   ShardingTypeRole / ComputeKernelRole / TableNameRole  of the row's table
//   OverflowRole    (header, horizontal) the rank overflows (relaxed placement)
// Headers: horizontal "r12" (ToolTipRole "rank 12, host 1"), vertical the table name.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "shardlab/planner/plan_summary.h"

namespace shardlab::gui {

class PlacementMatrixModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit PlacementMatrixModel(QObject* parent = nullptr);

  // `overflow`: per rank, empty when the plan fits. `ranks_per_host`: the
  // topology's local world size, for grouping ranks by host.
  void reset(const planner::PlanSummary& summary, const std::vector<planner::Storage>& overflow,
             int ranks_per_host);
  void clear();

  const planner::TableSummary& table(int row) const { return tables_[static_cast<size_t>(row)]; }
  int shards_at(int row, int rank) const { return cell(row, rank).shards; }
  int ranks_per_host() const { return ranks_per_host_; }
  bool overflows(int rank) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Cell {
    int shards = 0;
    planner::Storage storage;
  };
  const Cell& cell(int row, int rank) const {
    return cells_[static_cast<size_t>(row) * static_cast<size_t>(ranks_) +
                  static_cast<size_t>(rank)];
  }

  std::vector<planner::TableSummary> tables_;
  int ranks_ = 0;
  std::vector<Cell> cells_;                 // row-major, tables x ranks
  std::vector<planner::Storage> overflow_;  // per rank or empty
  int ranks_per_host_ = 1;
};

}  // namespace shardlab::gui
