#include "shardlab/planner/hugectr_layout.h"

#include <algorithm>
#include <string>

#include "enumerator.h"
#include "shardlab/planner/estimators.h"

namespace shardlab::planner {

Result<ShardingOption> hugectr_row_split(const ShardingOption& base, ShardingType type,
                                         int num_shards, int local_world_size) {
  if (type != ShardingType::kRowWise && type != ShardingType::kTableRowWise) {
    return Status::invalid_argument(
        "a HugeCTR layout splits by rows: row_wise or table_row_wise, "
        "not " +
        std::string(to_string(type)));
  }
  if (num_shards < 1) {
    return Status::invalid_argument("table " + base.name + ": no ranks to split its " +
                                    std::to_string(base.tensor_rows) + " rows over");
  }
  if (type == ShardingType::kTableRowWise &&
      (local_world_size < 1 || num_shards % local_world_size != 0)) {
    return Status::invalid_argument("table " + base.name + ": a HugeCTR table_row_wise split " +
                                    "covers whole hosts of " + std::to_string(local_world_size) +
                                    " ranks, not " + std::to_string(num_shards));
  }
  ShardingOption o = base;
  o.sharding_type = type;
  o.hugectr_rows = true;
  o.shards.clear();
  const int64_t block = (o.tensor_rows + num_shards - 1) / num_shards;
  for (int i = 0; i < num_shards; ++i) {
    Shard s;
    s.row_offset = std::min<int64_t>(int64_t{i} * block, o.tensor_rows);
    s.rows = std::min<int64_t>(block, o.tensor_rows - s.row_offset);
    s.cols = static_cast<int32_t>(o.tensor_cols);
    o.shards.push_back(s);
  }
  o.shard_perf = Perf{};
  o.total_perf = 0.0;
  o.total_storage = Storage{};
  return o;
}

Status estimate_hugectr_rows(const Scenario& scenario, const Topology& topology,
                             const CostCalibration* calibration, ShardingOption* option) {
  const OptionEstimator estimator(scenario, topology, calibration);
  // The perf of one shard: the whole table's terms with the shard's share
  // of the ids. A row-wise shard gets its partial sums out as a table-wise
  // shard sends its outputs; a table-row-wise shard is TorchRec's with its
  // host's share of the ids.
  ShardingOption view = *option;
  view.hugectr_rows = false;
  const bool by_host = option->sharding_type == ShardingType::kTableRowWise;
  const int local = std::max(1, topology.local_world_size);
  const double share =
      by_host ? static_cast<double>(local) / option->num_shards() : 1.0 / option->num_shards();
  if (!by_host) {
    view.sharding_type = ShardingType::kTableWise;
    view.shards = ShardList{Shard{.rows = option->tensor_rows, .cols = option->tensor_cols}};
  }
  for (double& l : view.input_lengths) l *= share;
  if (Status st = estimator.estimate(&view); !st) return st;
  option->shard_perf = view.shard_perf;
  // Storage of the real shards.
  ShardingOption stored = *option;
  if (Status st = estimator.estimate(&stored); !st) return st;
  option->shards = stored.shards;
  option->total_storage = stored.total_storage;
  option->total_perf = option->shard_perf.total() * option->num_shards();
  return Status::ok();
}

}  // namespace shardlab::planner
