// The Compare view's models, fed from a CompareOutcome (the comparison of
// sim/compare.h that `shardlab compare` prints; partial while it runs).
//
// CompareModel: one row per configuration of the grid, in grid order, from
// the start: rows not run yet say "waiting", the running one what it does.
// Every number comes from the core's row: TorchRec's rating of the row's plan,
// its simulated iteration time, the difference to the winner, peak HBM,
// imbalance, the tables placed differently from the winner, proposals and
// planning time. The winner is marked (WinnerRole, bold, green).
//
// CompareRanksModel: per rank, two rows of the comparison side by side (by
// default the first row, the scenario as configured, and the winner):
// TorchRec perf, shard HBM and simulated busy compute and comm time of each,
// and the difference of the busiest stream (second minus first).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "models/planning_job.h"

namespace shardlab::gui {

class CompareModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kNumber,
    kConfiguration,
    kStatus,
    kTorchRecRating,
    kIterationMs,
    kVsWinner,
    kPeakHbm,
    kImbalance,
    kMovedCount,
    kProposals,
    kPlanSeconds,
    kMoved,
    kNumColumns
  };

  explicit CompareModel(QObject* parent = nullptr);

  void reset(const CompareOutcome& outcome);
  void clear();
  // The core's row `r`, or null while it has not run.
  const sim::CompareRow* row(int r) const;
  int winner() const { return winner_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<std::string> labels_;    // every grid row
  std::vector<sim::CompareRow> rows_;  // rows done
  int winner_ = -1;
  int running_ = -1;
  QString running_status_;
  bool cancelled_ = false;
};

class CompareRanksModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum What { kPerf, kHbm, kBusyCompute, kBusyComm, kNumWhat };
  // Columns: kNumWhat for the first row, kNumWhat for the second, then the difference.
  static constexpr int kDelta = 2 * kNumWhat;

  explicit CompareRanksModel(QObject* parent = nullptr);

  void reset(const CompareOutcome& outcome);
  void clear();
  // Shows rows `a` and `b` of the comparison (clamped to rows done).
  void set_rows(int a, int b);
  int first() const { return a_; }
  int second() const { return b_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  const sim::CompareRow* plan_row(int r) const;

  std::vector<sim::CompareRow> rows_;
  int a_ = -1;
  int b_ = -1;
  bool chosen_ = false;  // set_rows() was called: keep the choice
  int ranks_ = 0;
};

}  // namespace shardlab::gui
