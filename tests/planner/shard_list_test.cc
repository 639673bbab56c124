// Shard lists (shard_list.h): the runs give back every shard TorchRec's
// formulas make, and an option's runs do not grow with the world size.
#include "shardlab/planner/shard_list.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "shard_layout.h"

namespace shardlab::planner {
namespace {

// TorchRec's _calculate_rw_shard_sizes_and_offsets, shard by shard
// (docs/cost-model.md §3).
std::vector<Shard> reference_row_split(int64_t rows, int64_t cols, int64_t n) {
  const auto block =
      static_cast<int64_t>(std::ceil(static_cast<double>(rows) / static_cast<double>(n)));
  const int64_t full = rows / block;
  std::vector<Shard> out;
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = i < full ? block : (i == full ? rows - block * full : 0);
    out.push_back(Shard{.rows = r, .row_offset = offset, .cols = static_cast<int32_t>(cols)});
    offset += r;
  }
  return out;
}

std::vector<Shard> as_vector(const ShardList& list) {
  std::vector<Shard> out;
  for (const Shard& s : list) out.push_back(s);
  return out;
}

TEST(ShardList, RowSplitsEqualTorchRecsShardByShardInAtMostThreeRuns) {
  for (int64_t n : {1, 2, 3, 4, 7, 8, 64, 1000, 4096}) {
    for (int64_t rows : {1, 2, 3, 5, 10, 63, 64, 65, 1001, 4095, 4096, 4097, 1000000}) {
      const std::vector<Shard> want = reference_row_split(rows, 128, n);
      const ShardList got = row_wise_split(rows, 128, n);
      ASSERT_EQ(got.size(), want.size()) << rows << " rows over " << n;
      EXPECT_EQ(as_vector(got), want) << rows << " rows over " << n;
      EXPECT_LE(got.runs().size(), 3u) << rows << " rows over " << n;
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "shard " << i << " of " << rows << " rows over " << n;
      }
      EXPECT_EQ(got.front(), want.front());
      EXPECT_EQ(got.back(), want.back());
    }
  }
}

TEST(ShardList, DataParallelAndColumnSplitsAreOneRunWhateverTheWorldSize) {
  for (int w : {1, 8, 4096, 65536}) {
    const ShardList dp = make_shards(ShardingType::kDataParallel, 1000, 64, w, 8, std::nullopt);
    EXPECT_EQ(dp.size(), static_cast<size_t>(w));
    EXPECT_EQ(dp.runs().size(), 1u);
    for (const Shard& s : dp) EXPECT_EQ(s, (Shard{.rows = 1000, .cols = 64}));
  }
  const ShardList cw = make_shards(ShardingType::kColumnWise, 1000, 512, 4096, 8, std::nullopt);
  ASSERT_EQ(cw.size(), 4u);
  EXPECT_EQ(cw.runs().size(), 1u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(cw[k], (Shard{.rows = 1000, .cols = 128, .col_offset = 128 * k}));
  }
}

TEST(ShardList, GridAndBucketedSplitsHoldEveryShardInOrder) {
  // Grid: column-block-major, each block split over the group of 8.
  const ShardList grid = make_shards(ShardingType::kGridShard, 1001, 256, 64, 8, std::nullopt);
  const std::vector<Shard> rows = reference_row_split(1001, 256, 8);
  ASSERT_EQ(grid.size(), 16u);
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 8; ++i) {
      Shard want = rows[static_cast<size_t>(i)];
      want.cols = 128;
      want.col_offset = 128 * b;
      EXPECT_EQ(grid[static_cast<size_t>(8 * b + i)], want) << "block " << b << " shard " << i;
    }
  }
  // Bucketed: 10 buckets of 100 rows over 4 ranks, the first two with 3.
  const ShardList bucketed = make_shards(ShardingType::kRowWise, 1000, 16, 4, 4, std::nullopt, 10);
  const std::vector<int64_t> sizes = {300, 300, 200, 200};
  ASSERT_EQ(bucketed.size(), 4u);
  int64_t offset = 0;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(bucketed[i], (Shard{.rows = sizes[i], .row_offset = offset, .cols = 16}));
    offset += sizes[i];
  }
  EXPECT_EQ(bucketed.runs().size(), 2u);
}

TEST(ShardList, AppendingShardsOneByOneFindsTheRuns) {
  // Any sequence reads back as written; evenly stepping shards of one shape
  // share a run.
  ShardList list;
  std::vector<Shard> want;
  auto add = [&](Shard s) {
    list.push_back(s);
    want.push_back(s);
  };
  for (int k = 0; k < 5; ++k) add(Shard{.rows = 10, .row_offset = 10 * k, .cols = 4});
  add(Shard{.rows = 3, .row_offset = 50, .cols = 4});
  add(Shard{.rows = 3, .row_offset = 60, .cols = 4});  // not the step 3 the shape would take
  add(Shard{.rows = 3, .row_offset = 61, .cols = 4});
  add(Shard{.rows = 3, .row_offset = 62, .cols = 4});
  Shard stored{.rows = 3, .row_offset = 63, .cols = 4};
  stored.storage.hbm = 5;  // another storage: a new run
  add(stored);
  EXPECT_EQ(as_vector(list), want);
  EXPECT_EQ(list.size(), want.size());
  EXPECT_EQ(list.runs().size(), 4u);  // 10 x5; 3 at 50; 3 at 60, 61, 62; the stored one
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(list.storage(i), want[i].storage) << i;

  // The same shards appended as runs compare equal.
  ShardList runs;
  runs.append(Shard{.rows = 10, .cols = 4}, 5, 10);
  runs.append(Shard{.rows = 3, .row_offset = 50, .cols = 4});
  runs.append(Shard{.rows = 3, .row_offset = 60, .cols = 4}, 3, 1);
  runs.append(stored);
  EXPECT_EQ(runs, list);
  EXPECT_FALSE(runs == ShardList{});
}

TEST(ShardList, StorageIsSetPerRun) {
  ShardList list = row_wise_split(1001, 8, 8);  // 126 x7, 119
  int calls = 0;
  list.set_storage([&](const Shard& s) {
    ++calls;
    return Storage{.hbm = s.rows * 8, .ddr = 1, .ssd = 0};
  });
  EXPECT_EQ(calls, 2);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(list.storage(i).hbm, 126 * 8);
  EXPECT_EQ(list.storage(7).hbm, 119 * 8);
  EXPECT_EQ(list[7].storage.hbm, 119 * 8);
}

}  // namespace
}  // namespace shardlab::planner
