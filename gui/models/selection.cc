#include "models/selection.h"

namespace shardlab::gui {

void Selection::select_rank(int rank) {
  if (rank == rank_) return;
  rank_ = rank;
  emit changed();
}

void Selection::select_table(int table) {
  if (table == table_) return;
  table_ = table;
  emit changed();
}

void Selection::fit(const planner::Scenario& scenario) {
  const bool table_gone = table_ >= static_cast<int>(scenario.tables.size());
  const bool rank_gone = rank_ >= scenario.topology.world_size;
  if (table_gone) table_ = -1;
  if (rank_gone) rank_ = -1;
  if (table_gone || rank_gone) emit changed();
}

}  // namespace shardlab::gui
