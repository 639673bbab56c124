// HugeCTR's placements (docs/validation.md "HugeCTR's placements"): the
// MLPerf DLRM-DCNv2 submissions split a table by rows over any set of GPUs
// (a few GPUs of one node, or whole nodes), which no TorchRec sharding type
// builds. A plan file marks such a table `"layout": "hugectr"`
// (docs/outputs.md); the option it makes is flagged hugectr_rows and never
// written in TorchRec's format.
//
//   row_wise        any ranks, one shard each: a shard looks up the ids of its
//                   rows and sends its partial sums of every sample to that
//                   sample's rank (HugeCTR's Uniform communication), which
//                   adds them up.
//   table_row_wise  whole hosts (the ranks of each host in local order): the
//                   partial sums are reduced inside each host, then sent
//                   across hosts among the ranks of one local index
//                   (HugeCTR's Hierarchical communication), a table-row-wise
//                   table that may span hosts.
//
// Rows are split into even blocks, ceil(rows / shards) each, the last taking
// what is left, as HugeCTR splits them; a table of fewer rows than shards
// leaves the last shards empty (HugeCTR's hier_auto splits even a 3-row
// table over a node's 8 GPUs).
#pragma once

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

// A copy of `base` (any option of the table) of `type` split into
// `num_shards` row blocks of full width, flagged hugectr_rows; its perf and
// storage are left for estimate_hugectr_rows. Errors (invalid_argument): a
// type other than row_wise or table_row_wise, num_shards < 1, table_row_wise
// with num_shards not a multiple of `local_world_size`.
Result<ShardingOption> hugectr_row_split(const ShardingOption& base, ShardingType type,
                                         int num_shards, int local_world_size);

// Fills the option's shard perf and storage. Perf: TorchRec's table-wise terms
// (row_wise) or table-row-wise terms (table_row_wise) for a shard that sees
// 1/num_shards of the table's ids (1/hosts of a table-row-wise table's);
// storage: TorchRec's estimator on the shards. `calibration` null: the
// scenario's preset profile, as enumeration uses. Errors as estimate_perf's.
Status estimate_hugectr_rows(const Scenario& scenario, const Topology& topology,
                             const CostCalibration* calibration, ShardingOption* option);

}  // namespace shardlab::planner
