// Every proposal the planner evaluated (planner::ProposalLog), in evaluation
// order: proposer, whether it partitioned, its rating and its difference to
// the best plan's. The best plan's row and the rows tying with it are marked
// (TieRole); ties_text() says how the planner breaks the tie.
//
// What a proposal places where, its peak HBM and its why-not overflow are
// computed when it is selected (planner::place_proposal, Workbench::
// select_proposal), not for every row: the log stays cheap at tens of
// thousands of proposals.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>
#include <vector>

#include "models/planning_job.h"

namespace shardlab::gui {

class ProposalsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kIndex, kProposer, kPartitioned, kRating, kVsBest, kNote, kNumColumns };

  explicit ProposalsModel(QObject* parent = nullptr);

  void reset(const PlanOutcome& outcome);
  void clear();

  const planner::ProposalRecord& record(int row) const {
    return records_[static_cast<size_t>(row)];
  }
  // Row of the planner's best plan, or -1.
  int best_row() const { return best_row_; }
  // Rows (besides best_row) whose rating equals the best rating.
  const std::vector<int>& tie_rows() const { return ties_; }
  int skipped_count() const { return skipped_; }
  int failed_count() const { return failed_; }
  // How the planner chose among equal ratings, and what "not rated" means;
  // empty without a best plan.
  QString ties_text() const;
  // "rank 3: HBM +2.10 GiB" lines of a placement's overflow; empty when it fits.
  static QStringList why_not(const std::vector<planner::Storage>& overflow);
  // What `to` places differently from `from`, one line per moved table
  // (planner::diff_plans): "t1: table_wise fused on r3 -> row_wise fused on r0-r7".
  static QStringList differences(const planner::PlanSummary& from, const planner::PlanSummary& to);
  // "r0-r3, r6" for a list of ranks.
  static QString rank_ranges(std::vector<int> ranks);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<planner::ProposalRecord> records_;
  std::vector<QString> proposer_names_;  // by proposer index
  std::vector<char> tie_;                // per row: rating equals the best's
  std::vector<int> ties_;
  int best_row_ = -1;
  double best_rating_ = 0.0;
  int skipped_ = 0;
  int failed_ = 0;
};

}  // namespace shardlab::gui
