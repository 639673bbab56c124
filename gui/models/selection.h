// The rank and the table every view follows: clicking a rank in the
// timeline, the topology or the placement matrix, or a table in the plan,
// selects it everywhere. (Which plan is shown, the best or a proposal, is
// the workbench's displayed plan, not a selection.)
//
// Threading: UI thread only.
#pragma once

#include <QObject>

#include "shardlab/planner/scenario.h"

namespace shardlab::gui {

class Selection : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

  int rank() const { return rank_; }    // -1: none
  int table() const { return table_; }  // index into Scenario::tables, -1: none
  void select_rank(int rank);
  void select_table(int table);
  // Drops a rank or table `scenario` does not have (after an edit that
  // removed it).
  void fit(const planner::Scenario& scenario);

 signals:
  void changed();

 private:
  int rank_ = -1;
  int table_ = -1;
};

}  // namespace shardlab::gui
