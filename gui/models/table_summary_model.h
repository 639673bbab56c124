// The stats table's per-table rows (planner::TableSummary) of the shown plan:
// FQN, sharding, kernel, perf, storage, cache load factor, pooling, output,
// weighting, sharder, features, dim (CW dim), hash size, ranks.
// RawValueRole gives numbers for sorting (ms, bytes); ShardingTypeRole,
// ComputeKernelRole and TableNameRole feed TableFilterProxy.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "shardlab/planner/plan_summary.h"

namespace shardlab::gui {

class TableSummaryModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kFqn,
    kSharding,
    kKernel,
    kPerf,
    kHbm,
    kDdr,
    kCacheLoadFactor,
    kPoolingFactor,
    kNumPoolings,
    kOutput,
    kWeighting,
    kSharder,
    kFeatures,
    kEmbDim,
    kHashSize,
    kRanks,
    kNumColumns
  };

  explicit TableSummaryModel(QObject* parent = nullptr);

  void reset(const planner::PlanSummary& summary);
  void clear();
  const planner::TableSummary& table(int row) const { return tables_[static_cast<size_t>(row)]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVariant display(const planner::TableSummary& t, int column) const;
  QVariant raw(const planner::TableSummary& t, int column) const;

  std::vector<planner::TableSummary> tables_;
};

}  // namespace shardlab::gui
