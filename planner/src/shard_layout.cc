#include "shardlab/planner/shard_layout.h"

#include <cmath>

namespace shardlab::planner {

std::vector<Shard> row_wise_split(int64_t rows, int64_t cols, int64_t n) {
  // TorchRec computes the block as ceil of a double division; exact for the
  // row counts a scenario can hold (< 2^53).
  const auto block = static_cast<int64_t>(std::ceil(static_cast<double>(rows) / static_cast<double>(n)));
  const int64_t full = rows / block;
  const int64_t last = rows - block * full;
  std::vector<Shard> shards(static_cast<size_t>(n));
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = i < full ? block : (i == full ? last : 0);
    shards[i] = Shard{.rows = r, .cols = cols, .row_offset = offset, .col_offset = 0};
    offset += r;
  }
  return shards;
}

std::vector<Shard> column_wise_split(int64_t rows, int64_t cols, std::optional<int64_t> min_partition) {
  const int64_t lower = min_partition.value_or(0) > 0 ? *min_partition : kDefaultMinPartition;
  int64_t block = cols;
  for (int64_t i = lower; i < cols; ++i) {
    if (cols % i == 0 && i % 4 == 0) {
      block = i;
      break;
    }
  }
  std::vector<Shard> shards;
  shards.reserve(static_cast<size_t>(cols / block));
  for (int64_t k = 0; k < cols / block; ++k) {
    shards.push_back(Shard{.rows = rows, .cols = block, .row_offset = 0, .col_offset = k * block});
  }
  return shards;
}

std::vector<Shard> make_shards(ShardingType type, int64_t rows, int64_t cols, int world_size,
                               int local_world_size, std::optional<int64_t> min_partition) {
  switch (type) {
    case ShardingType::kDataParallel:
      return std::vector<Shard>(static_cast<size_t>(world_size), Shard{.rows = rows, .cols = cols});
    case ShardingType::kTableWise:
      return {Shard{.rows = rows, .cols = cols}};
    case ShardingType::kRowWise:
      return row_wise_split(rows, cols, world_size);
    case ShardingType::kTableRowWise:
      return row_wise_split(rows, cols, local_world_size);
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      return column_wise_split(rows, cols, min_partition);
  }
  return {};
}

}  // namespace shardlab::planner
