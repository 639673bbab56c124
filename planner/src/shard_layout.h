// Shard sizes and offsets for each sharding type (docs/cost-model.md §3).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

// A row of a table quantized for inference, as FBGEMM lays it out: `dim`
// columns of `element_bytes` each, packed `cols_per_byte` to a byte for int4
// and int2, then `scale_bias` bytes (the integer types' fp16 scale and bias),
// padded to 16 bytes. bf16 is refused by the loader.
struct QuantizedRow {
  int element_bytes;
  int cols_per_byte;
  int scale_bias;
};
constexpr QuantizedRow quantized_row(DataType type) {
  switch (type) {
    case DataType::kFp32:
      return {4, 1, 0};
    case DataType::kFp16:
    case DataType::kBf16:
      return {2, 1, 0};
    case DataType::kInt8:
      return {1, 1, 4};
    case DataType::kInt4:
      return {1, 2, 4};
    case DataType::kInt2:
      return {1, 4, 4};
  }
  return {4, 1, 0};
}

// Row-wise split of `rows` into `n` shards of ceil(rows / n) rows; trailing
// shards may be short or empty (they are kept). REQUIRES: rows >= 1, n >= 1.
ShardList row_wise_split(int64_t rows, int64_t cols, int64_t n);

// Row-wise split of a bucketed virtual table (TorchRec 2026-08,
// _calculate_rw_shard_sizes_and_offsets with num_buckets): `buckets` buckets
// of rows / buckets rows each, the first buckets mod n shards holding one
// more than the others. REQUIRES: buckets divides rows, buckets >= n >= 1
// (the enumerator raises TorchRec's errors otherwise).
ShardList bucketed_row_wise_split(int64_t rows, int64_t cols, int64_t n, int64_t buckets);

// Width of a column-wise block: the smallest block >= min_partition (128
// when absent or 0) that divides cols and is a multiple of 4, else cols.
int64_t column_wise_block(int64_t cols, std::optional<int64_t> min_partition);

// Column-wise split into equal blocks: the smallest block >= min_partition
// (128 when absent or 0) that divides cols and is a multiple of 4, else one
// block of all columns. The count does not depend on the world size.
ShardList column_wise_split(int64_t rows, int64_t cols, std::optional<int64_t> min_partition);

// Shards of `type` for a rows x cols tensor (storage left zero);
// table-row-wise splits rows over `group_size` (Topology::intra_group_size),
// and grid shards each column block so. Row-wise options of a bucketed
// virtual table are split by `buckets` (bucketed_row_wise_split).
ShardList make_shards(ShardingType type, int64_t rows, int64_t cols, int world_size, int group_size,
                      std::optional<int64_t> min_partition,
                      std::optional<int64_t> buckets = std::nullopt);

}  // namespace shardlab::planner
