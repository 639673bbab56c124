// Per-rank use of the shown plan: memory against capacity, the cost model's
// time split, and the simulation's busy time. Numbers come from the core
// (planner::PlanSummary, sim::SimResult); display values are GiB and ms,
// RawValueRole holds bytes (qint64) or ms (double).
//
// Consecutive columns form the charts' stacks: kHbmShards..kHbmMargin add up
// to the HBM capacity when the plan fits, kDdrShards..kDdrFree to the DDR
// capacity, kFwdCompute..kPrefetch to the rank's TorchRec perf.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "shardlab/planner/plan_summary.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::gui {

class RankUsageModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kRank,
    kHbmShards,
    kHbmDense,
    kHbmKjt,
    kHbmFree,
    kHbmMargin,
    kDdrShards,
    kDdrFree,
    kFwdCompute,
    kBwdCompute,
    kFwdComms,
    kBwdComms,
    kPrefetch,
    kPerfTotal,
    kHbmOverflow,
    kDdrOverflow,
    kBusyCompute,
    kBusyComm,
    kNumColumns
  };

  explicit RankUsageModel(QObject* parent = nullptr);

  void reset(const planner::PlanSummary& summary);
  // Busy columns from `simulation` (null clears them).
  void reset_simulation(const sim::SimResult* simulation);
  void clear();

  const std::vector<planner::RankSummary>& ranks() const { return ranks_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVariant raw(int row, int column) const;

  std::vector<planner::RankSummary> ranks_;
  std::vector<double> busy_compute_;  // per rank, empty without simulation
  std::vector<double> busy_comm_;
};

}  // namespace shardlab::gui
