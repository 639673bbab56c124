// The replay's input streams: fixed and Poisson bag lengths, uniform and Zipf
// ids, and the keys that keep shards and iterations apart.

#include "shardlab/kernels/replay_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "shardlab/kernels/embedding_bag.h"

namespace shardlab::kernels {
namespace {

TEST(ReplayInputsTest, FixedPoolingGivesLengthsWithinOneThatSumToTheTotal) {
  const InputDraw draw{.seed = 1};
  for (double pooling : {0.0, 1.0, 2.5, 3.3, 20.0}) {
    BagBatch b;
    draw_batch(draw, 17, 1000, pooling, 100, false, b);
    EXPECT_EQ(b.offsets.back(), static_cast<int64_t>(std::floor(1000 * pooling))) << pooling;
    for (int64_t i = 0; i < b.bags(); ++i) {
      const int64_t len = b.offsets[i + 1] - b.offsets[i];
      EXPECT_TRUE(len == static_cast<int64_t>(std::floor(pooling)) ||
                  len == static_cast<int64_t>(std::ceil(pooling)))
          << pooling << " bag " << i << " len " << len;
    }
  }
}

TEST(ReplayInputsTest, PoissonLengthsHaveThePoolingFactorAsMeanAndVariance) {
  const InputDraw draw{.seed = 2, .poisson = true};
  for (double pooling : {4.0, 30.0, 100.0}) {
    constexpr int kBags = 20000;
    double sum = 0.0, sq = 0.0;
    std::set<int64_t> distinct;
    for (int b = 0; b < kBags; ++b) {
      const double len = static_cast<double>(draw_shard_bag_length(draw, 5, b, pooling));
      sum += len;
      sq += len * len;
      distinct.insert(static_cast<int64_t>(len));
    }
    const double mean = sum / kBags;
    const double var = sq / kBags - mean * mean;
    EXPECT_NEAR(mean, pooling, 4 * std::sqrt(pooling / kBags) + 0.01) << pooling;
    EXPECT_NEAR(var / pooling, 1.0, 0.06) << pooling;
    EXPECT_GT(distinct.size(), 5u);
  }
}

TEST(ReplayInputsTest, UniformIdsCoverTheRowsEvenly) {
  const InputDraw draw{.seed = 3};
  constexpr int64_t kRows = 100;
  std::vector<int> count(kRows, 0);
  for (int j = 0; j < 100000; ++j) ++count[draw_shard_id(draw, 9, j, kRows)];
  for (int c : count) EXPECT_NEAR(c, 1000, 150);
}

TEST(ReplayInputsTest, ZipfIdsConcentrateOnFewRows) {
  constexpr int64_t kRows = 10000;
  constexpr int kIds = 200000;
  auto top_share = [&](bool zipf) {
    const InputDraw draw{.seed = 4, .zipf = zipf, .alpha = 1.2};
    std::vector<int> count(kRows, 0);
    for (int j = 0; j < kIds; ++j) {
      const int64_t r = draw_shard_id(draw, 21, j, kRows);
      EXPECT_GE(r, 0);
      EXPECT_LT(r, kRows);
      ++count[r];
    }
    std::sort(count.begin(), count.end(), std::greater<>());
    return static_cast<double>(std::accumulate(count.begin(), count.begin() + 100, 0)) / kIds;
  };
  // The 1% most popular rows: about 1% of lookups when uniform, most of them under Zipf(1.2).
  EXPECT_LT(top_share(false), 0.02);
  EXPECT_GT(top_share(true), 0.5);
}

TEST(ReplayInputsTest, KeysSeparateRanksShardsAndIterations) {
  std::set<uint64_t> keys;
  for (uint64_t rank = 0; rank < 8; ++rank) {
    for (uint64_t shard = 0; shard < 8; ++shard) {
      for (uint64_t it = 0; it < 8; ++it) keys.insert(shard_key(rank, shard, it));
      keys.insert(table_key(rank, shard));
    }
  }
  EXPECT_EQ(keys.size(), 8u * 8u * 9u);
  // The definition the CUDA backend codes against (semantics shared by both backends).
  EXPECT_EQ(shard_key(3, 2, 5), mix64(mix64(3) * 1000003ull + mix64(2) + 5 * 0x100000001B3ull));
  EXPECT_EQ(table_key(3, 2), mix64(3) ^ mix64(1002));
}

TEST(ReplayInputsTest, ValuesAreExactMultiplesOfTheirGrid) {
  for (int j = 0; j < 10000; ++j) {
    const float w = draw_initial_weight(1, 2, j, 0, 1);
    EXPECT_GE(w, -1.0f / 16);
    EXPECT_LT(w, 1.0f / 16);
    EXPECT_EQ(std::ldexp(w, 15), std::round(std::ldexp(w, 15)));
    const float g = draw_shard_gradient(1, 2, j, 0, 1);
    EXPECT_GE(g, -1.0f / 64);
    EXPECT_LT(g, 1.0f / 64);
    EXPECT_EQ(std::ldexp(g, 17), std::round(std::ldexp(g, 17)));
  }
}

}  // namespace
}  // namespace shardlab::kernels
