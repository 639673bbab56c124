// Host-side pieces of the CUDA backend that need no GPU, so they run in CI:
// the row-to-lane layout the kernels are instantiated for. (How an mpirun
// launch is recognised is tested with kernels/, tests/kernels.)

#include <gtest/gtest.h>

#include "lane_layout.h"

namespace shardlab::kernels::cuda {
namespace {

TEST(LaneLayoutTest, PicksVectorsGroupsAndPassesForTypicalDims) {
  struct Case {
    int64_t dim;
    Precision precision;
    int vec, group, per_lane;
  };
  const Case cases[] = {
      {128, Precision::kFp32, 4, 32, 1},   // one float4 per lane, a warp per bag
      {32, Precision::kFp32, 4, 8, 1},     // four bags per warp
      {4, Precision::kFp32, 4, 1, 1},      // one lane per bag
      {1024, Precision::kFp32, 4, 32, 8},  // eight float4 per lane
      {7, Precision::kFp32, 1, 8, 1},      // not a multiple of 4: scalar
      {64, Precision::kFp16, 8, 8, 1},     // 8 halves per 16-byte load
      {1024, Precision::kFp16, 8, 32, 4}, {4, Precision::kFp16, 1, 4, 1},  // fp16 below 8: scalar
  };
  for (const Case& c : cases) {
    const LaneLayout l = choose_layout(c.dim, c.precision);
    EXPECT_EQ(l.vec, c.vec) << c.dim;
    EXPECT_EQ(l.group, c.group) << c.dim;
    EXPECT_EQ(l.per_lane, c.per_lane) << c.dim;
  }
}

TEST(LaneLayoutTest, EveryDimIsCoveredWithoutWastingHalfTheLanes) {
  for (Precision p : {Precision::kFp32, Precision::kFp16}) {
    for (int64_t dim = 1; dim <= 4096; ++dim) {
      const LaneLayout l = choose_layout(dim, p);
      ASSERT_EQ(dim % l.vec, 0) << dim;
      ASSERT_TRUE(l.group >= 1 && l.group <= 32 && (l.group & (l.group - 1)) == 0) << dim;
      ASSERT_TRUE(l.per_lane == 1 || l.per_lane == 2 || l.per_lane == 4 || l.per_lane == 8) << dim;
      const int64_t vectors = dim / l.vec;
      const int64_t pass = static_cast<int64_t>(l.group) * l.per_lane;  // vectors per column pass
      if (vectors > 256) continue;  // several passes of 256 vectors
      // One pass whenever eight vectors per lane suffice (fp32 dims <= 1024 in float4s),
      // and not more than twice as wide as needed (lanes mostly busy).
      ASSERT_GE(pass, vectors) << dim;
      ASSERT_LT(pass, 2 * vectors + 1) << dim;
    }
  }
}

}  // namespace
}  // namespace shardlab::kernels::cuda
