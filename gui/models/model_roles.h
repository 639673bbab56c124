// Item data roles shared by the workbench models.
#pragma once

#include <Qt>

namespace shardlab::gui {

enum ModelRole {
  // The core's exact value behind a display number (bytes as qint64, ms as
  // double, enums as their int), for sorting, tests and tooltips.
  RawValueRole = Qt::UserRole + 1,
  // Sharding type / compute kernel names of the row's table ("table_wise",
  // "fused"), for the filter proxy.
  ShardingTypeRole,
  ComputeKernelRole,
  // Table name of the row (tables models) for the filter proxy.
  TableNameRole,
  // True when the row or cell is on the critical path / overflowing / the
  // current selection, for painting.
  CriticalRole,
  OverflowRole,
  SelectedRole,
  // Shards of the row's table on the column's rank (placement matrix).
  ShardCountRole,
  // True for the comparison's winner / proposals tying with the best plan.
  WinnerRole,
  TieRole,
  // An editable cell's allowed values (QStringList) for a drop-down; with
  // MultiChoiceRole true any subset may be chosen (written "a, b").
  ChoicesRole,
  MultiChoiceRole,
};

}  // namespace shardlab::gui
