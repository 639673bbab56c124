#include "shard_layout.h"

#include <algorithm>
#include <cmath>

#include "divisors.h"

namespace shardlab::planner {

std::vector<Shard> row_wise_split(int64_t rows, int64_t cols, int64_t n) {
  // TorchRec computes the block as ceil of a double division; exact for the
  // row counts a scenario can hold (< 2^53).
  const auto block =
      static_cast<int64_t>(std::ceil(static_cast<double>(rows) / static_cast<double>(n)));
  const int64_t full = rows / block;
  const int64_t last = rows - block * full;
  std::vector<Shard> shards(static_cast<size_t>(n));
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = i < full ? block : (i == full ? last : 0);
    shards[i] = Shard{.rows = r, .row_offset = offset, .cols = static_cast<int32_t>(cols)};
    offset += r;
  }
  return shards;
}

std::vector<Shard> bucketed_row_wise_split(int64_t rows, int64_t cols, int64_t n, int64_t buckets) {
  const int64_t bucket_rows = rows / buckets;
  const int64_t per_rank = buckets / n;
  const int64_t extra = buckets % n;  // ranks with one more bucket
  std::vector<Shard> shards(static_cast<size_t>(n));
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = bucket_rows * (i < extra ? per_rank + 1 : per_rank);
    shards[i] = Shard{.rows = r, .row_offset = offset, .cols = static_cast<int32_t>(cols)};
    offset += r;
  }
  return shards;
}

int64_t column_wise_block(int64_t cols, std::optional<int64_t> min_partition) {
  const int64_t lower = min_partition.value_or(0) > 0 ? *min_partition : kDefaultMinPartition;
  // TorchRec takes the first i in [lower, cols) with cols % i == 0 and
  // i % 4 == 0. Such an i is 4·d with d a divisor of cols / 4, so the search
  // is for the smallest divisor of cols / 4 that is at least ceil(lower / 4).
  if (lower >= cols || cols % 4 != 0) return cols;
  const uint64_t quarter = static_cast<uint64_t>(cols) / 4;
  const uint64_t at_least =
      std::max<uint64_t>(1, static_cast<uint64_t>(lower / 4 + (lower % 4 != 0 ? 1 : 0)));
  return 4 * static_cast<int64_t>(internal::smallest_divisor_at_least(quarter, at_least));
}

std::vector<Shard> column_wise_split(int64_t rows, int64_t cols,
                                     std::optional<int64_t> min_partition) {
  const int64_t block = column_wise_block(cols, min_partition);
  std::vector<Shard> shards;
  shards.reserve(static_cast<size_t>(cols / block));
  for (int64_t k = 0; k < cols / block; ++k) {
    shards.push_back(Shard{.rows = rows,
                           .cols = static_cast<int32_t>(block),
                           .col_offset = static_cast<int32_t>(k * block)});
  }
  return shards;
}

std::vector<Shard> make_shards(ShardingType type, int64_t rows, int64_t cols, int world_size,
                               int group_size, std::optional<int64_t> min_partition,
                               std::optional<int64_t> buckets) {
  const Shard whole{.rows = rows, .cols = static_cast<int32_t>(cols)};
  switch (type) {
    case ShardingType::kDataParallel:
      return std::vector<Shard>(static_cast<size_t>(world_size), whole);
    case ShardingType::kTableWise:
      return {whole};
    case ShardingType::kRowWise:
      if (buckets) return bucketed_row_wise_split(rows, cols, world_size, *buckets);
      return row_wise_split(rows, cols, world_size);
    case ShardingType::kTableRowWise:
      return row_wise_split(rows, cols, group_size);
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      return column_wise_split(rows, cols, min_partition);
    case ShardingType::kGridShard: {
      // Column-block-major: for each column block, its row shards over the
      // group (_calculate_grid_shard_sizes_and_offsets).
      const std::vector<Shard> blocks = column_wise_split(rows, cols, min_partition);
      const std::vector<Shard> row_shards = row_wise_split(rows, cols, group_size);
      std::vector<Shard> shards;
      shards.reserve(blocks.size() * row_shards.size());
      for (const Shard& b : blocks) {
        for (const Shard& r : row_shards) {
          shards.push_back(Shard{.rows = r.rows,
                                 .row_offset = r.row_offset,
                                 .cols = b.cols,
                                 .col_offset = b.col_offset});
        }
      }
      return shards;
    }
  }
  return {};
}

}  // namespace shardlab::planner
