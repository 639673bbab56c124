// The Compare view's rows: one planner configuration each (partitioner x
// perf model), with its rating, simulated iteration time, peak HBM and the
// tables that moved against the first configuration with a plan.
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "models/planning_job.h"

namespace shardlab::gui {

class CompareModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kConfiguration,
    kStatus,
    kRating,
    kTorchRecRating,
    kIterationMs,
    kPeakHbm,
    kProposals,
    kPlanMs,
    kMovedCount,
    kMoved,
    kNumColumns
  };

  explicit CompareModel(QObject* parent = nullptr);

  void reset(const CompareOutcome& outcome);
  void clear();
  const CompareRow& row(int r) const { return rows_[static_cast<size_t>(r)]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<CompareRow> rows_;
};

// Per rank, side by side for every configuration with a plan: TorchRec perf
// total and shard HBM, and their difference to the first configuration
// (planner::PlanDiff). Four columns per configuration: perf, HBM, d perf, d HBM,
// headed "#k ..." with k the configuration's row in CompareModel (from 1).
class CompareRanksModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  static constexpr int kColumnsPerPlan = 4;

  explicit CompareRanksModel(QObject* parent = nullptr);

  void reset(const CompareOutcome& outcome);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<CompareRow> plans_;  // rows with a summary
  std::vector<int> numbers_;       // their row in CompareModel, from 1
  int ranks_ = 0;
};

}  // namespace shardlab::gui
