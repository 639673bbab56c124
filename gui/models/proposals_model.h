// Every proposal the planner evaluated (planner::ProposalRecord), in
// evaluation order: proposer, whether it partitioned, its rating, its peak
// HBM and, for one that did not fit, which ranks overflow by how much.
#pragma once

#include <vector>

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>

#include "models/planning_job.h"

namespace shardlab::gui {

class ProposalsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kIndex, kProposer, kPartitioned, kRating, kPeakHbm, kOverflow, kWhyNot, kNumColumns };

  explicit ProposalsModel(QObject* parent = nullptr);

  void reset(const PlanOutcome& outcome);
  void clear();

  const planner::ProposalRecord& record(int row) const { return records_[static_cast<size_t>(row)]; }
  // Row of the planner's best plan, or -1.
  int best_row() const { return best_row_; }
  // "rank 3: HBM +2.10 GiB" lines of a record's overflow; empty when it fits.
  static QStringList why_not(const planner::ProposalRecord& record);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<planner::ProposalRecord> records_;
  std::vector<QString> proposer_names_;  // by proposer index
  int best_row_ = -1;
};

}  // namespace shardlab::gui
