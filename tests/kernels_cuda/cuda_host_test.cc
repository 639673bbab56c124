// Host-side pieces of the CUDA backend that need no GPU, so they run in CI:
// the row-to-lane layout the kernels are instantiated for, and how an mpirun
// launch is recognised.

#include <gtest/gtest.h>

#include <cstdlib>

#include "lane_layout.h"
#include "mpi_bootstrap.h"
#include "shardlab/kernels/cuda_backend.h"

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
      {1024, Precision::kFp16, 8, 32, 4},
      {4, Precision::kFp16, 1, 4, 1},      // fp16 below 8: scalar
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

class LaunchEnvironment : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_SIZE",
                             "PMI_RANK", "MPI_LOCALRANKID"}) {
      unsetenv(name);
    }
  }
};

TEST_F(LaunchEnvironment, OneProcessWithoutALauncher) {
  TearDown();
  const ProcessLaunch l = detect_launch();
  EXPECT_EQ(l.size, 1);
  EXPECT_EQ(l.rank, 0);
  EXPECT_EQ(l.local_rank, 0);
  EXPECT_EQ(cuda_process_rank(), 0);
}

TEST_F(LaunchEnvironment, OpenMpiVariablesNameTheProcess) {
  setenv("OMPI_COMM_WORLD_SIZE", "16", 1);
  setenv("OMPI_COMM_WORLD_RANK", "11", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  const ProcessLaunch l = detect_launch();
  EXPECT_EQ(l.size, 16);
  EXPECT_EQ(l.rank, 11);
  EXPECT_EQ(l.local_rank, 3);
  EXPECT_EQ(cuda_process_rank(), 11);
}

TEST_F(LaunchEnvironment, PmiVariablesServeOtherLaunchers) {
  setenv("PMI_SIZE", "4", 1);
  setenv("PMI_RANK", "2", 1);
  const ProcessLaunch l = detect_launch();
  EXPECT_EQ(l.size, 4);
  EXPECT_EQ(l.rank, 2);
  EXPECT_EQ(l.local_rank, 2);  // no local rank given: the global one
}

}  // namespace
}  // namespace shardlab::kernels::cuda
