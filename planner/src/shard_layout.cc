#include "shard_layout.h"

#include <algorithm>
#include <cmath>

#include "divisors.h"

namespace shardlab::planner {

ShardList row_wise_split(int64_t rows, int64_t cols, int64_t n) {
  // TorchRec computes the block as ceil of a double division; exact for the
  // row counts a scenario can hold (< 2^53).
  const auto block =
      static_cast<int64_t>(std::ceil(static_cast<double>(rows) / static_cast<double>(n)));
  const int64_t full = rows / block;
  const int64_t last = rows - block * full;
  const auto c = static_cast<int32_t>(cols);
  // `full` blocks, then (when full < n) the short block and the empty
  // shards at the table's end; the running sum of rows gives the offsets.
  ShardList shards;
  shards.append(Shard{.rows = block, .cols = c}, full, block);
  if (full < n) {
    shards.append(Shard{.rows = last, .row_offset = block * full, .cols = c});
    if (full + 1 < n) shards.append(Shard{.rows = 0, .row_offset = rows, .cols = c}, n - full - 1);
  }
  return shards;
}

ShardList bucketed_row_wise_split(int64_t rows, int64_t cols, int64_t n, int64_t buckets) {
  const int64_t bucket_rows = rows / buckets;
  const int64_t per_rank = buckets / n;
  const int64_t extra = buckets % n;  // ranks with one more bucket
  const auto c = static_cast<int32_t>(cols);
  const int64_t big = bucket_rows * (per_rank + 1);
  const int64_t small = bucket_rows * per_rank;
  ShardList shards;
  if (extra > 0) shards.append(Shard{.rows = big, .cols = c}, extra, big);
  shards.append(Shard{.rows = small, .row_offset = big * extra, .cols = c}, n - extra, small);
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

ShardList column_wise_split(int64_t rows, int64_t cols, std::optional<int64_t> min_partition) {
  const int64_t block = column_wise_block(cols, min_partition);
  ShardList shards;
  shards.append(Shard{.rows = rows, .cols = static_cast<int32_t>(block)}, cols / block, 0,
                static_cast<int32_t>(block));
  return shards;
}

ShardList make_shards(ShardingType type, int64_t rows, int64_t cols, int world_size, int group_size,
                      std::optional<int64_t> min_partition, std::optional<int64_t> buckets) {
  const Shard whole{.rows = rows, .cols = static_cast<int32_t>(cols)};
  ShardList shards;
  switch (type) {
    case ShardingType::kDataParallel:
      shards.append(whole, world_size);
      return shards;
    case ShardingType::kTableWise:
      shards.append(whole);
      return shards;
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
      const ShardList row_shards = row_wise_split(rows, cols, group_size);
      for (const Shard& b : column_wise_split(rows, cols, min_partition)) {
        for (const ShardList::Run& r : row_shards.runs()) {
          Shard s = r.first;
          s.cols = b.cols;
          s.col_offset = b.col_offset;
          shards.append(s, r.count, r.row_step);
        }
      }
      return shards;
    }
  }
  return shards;
}

}  // namespace shardlab::planner
