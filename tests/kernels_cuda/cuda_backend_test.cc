// The "cuda" backend end to end: a replay of tiny_2gpu checked against the
// CPU reference (verify), rank subsets and input distributions, a small
// bench-kernels sweep, and the clear failure when no GPU is present.

#include "cuda_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "cuda_test_util.h"
#include "replay_test_helpers.h"
#include "shardlab/kernels/backend.h"
#include "shardlab/kernels/bytes.h"

namespace shardlab::kernels {
namespace {

using testing::expect_sane;

ReplayWorkload tiny_workload() { return testing::tiny_workload(100000); }

TEST(CudaBackendTest, WithoutAGpuTheBackendFailsSayingWhy) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU is present";
  auto backend = make_cuda_backend();
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(backend.status().message().find("no CUDA device found (cudaGetDeviceCount: "),
            std::string::npos)
      << backend.status().message();
  // Through the registry: the module next to this binary's build tree loads, then finds no device.
  auto via_registry = make_backend("cuda");
  ASSERT_FALSE(via_registry);
  EXPECT_EQ(via_registry.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(via_registry.status().message().find("no CUDA device found"), std::string::npos)
      << via_registry.status().message();
  const auto names = available_backends();
  EXPECT_NE(std::find(names.begin(), names.end(), "cuda"), names.end());
}

TEST(CudaBackendTest, ReplaysTiny2GpuAndMatchesTheCpuReference) {
  SHARDLAB_REQUIRE_GPU();
  const ReplayWorkload w = tiny_workload();
  ASSERT_EQ(w.world_size, 2);
  auto backend = make_backend("cuda");
  ASSERT_TRUE(backend) << backend.status().message();
  EXPECT_EQ((*backend)->name(), "cuda");
  ReplayOptions options;
  options.warmup = 1;
  options.iterations = 3;
  options.verify = true;
  int last_done = 0, last_total = 0;
  auto r = (*backend)->replay(w, options, [&](int done, int total, std::string_view) {
    last_done = done;
    last_total = total;
  });
  ASSERT_TRUE(r) << r.status().message();
  const int gpus = cuda_device_count();
  EXPECT_EQ(r->backend, "cuda");
  EXPECT_FALSE(r->device_name.empty());
  EXPECT_EQ(r->world_size, 2);
  EXPECT_EQ(r->devices_used, std::min(2, gpus));
  EXPECT_EQ(last_done, last_total);
  EXPECT_EQ(last_total, (gpus >= 2 ? 1 : 2) * (options.warmup + options.iterations));

  // Every shard of every rank: one forward and one backward record, checked.
  std::set<std::tuple<int, int, int>> lookups;  // (rank, shard index, forward)
  std::set<std::pair<int, int>> collectives;    // (collective, rank)
  for (const Measurement& m : r->measurements) {
    expect_sane(m.timing, options.iterations);
    if (m.collective >= 0) {
      collectives.insert({m.collective, m.rank});
      EXPECT_EQ(m.members, 2);
      EXPECT_FALSE(m.inter_host);  // one process, one host
      continue;
    }
    EXPECT_EQ(m.wrong_elements, 0)
        << m.table << " rank " << m.rank << " phase " << sim::to_string(m.phase);
    EXPECT_GT(m.bytes, 0.0);
    const auto& shards = w.ranks[static_cast<size_t>(m.rank)].shards;
    const auto at = std::find_if(shards.begin(), shards.end(), [&](const ShardWork& s) {
      return s.option == m.option && s.shard == m.shard;
    });
    ASSERT_NE(at, shards.end());
    lookups.insert(
        {m.rank, static_cast<int>(at - shards.begin()), m.phase == sim::Phase::kFwdCompute});
  }
  size_t expected_lookups = 0;
  for (const RankWorkload& rank : w.ranks) expected_lookups += 2 * rank.shards.size();
  EXPECT_EQ(lookups.size(), expected_lookups);
  // Collectives run among the GPUs present: both ranks with two GPUs, none with one.
  size_t expected_collectives = 0;
  for (const sim::CollectiveSpec& c : w.collectives) {
    const bool forward_phase =
        c.phase == sim::Phase::kInputDist || c.phase == sim::Phase::kOutputDist;
    const bool backward_phase =
        c.phase == sim::Phase::kBwdOutputDist || c.phase == sim::Phase::kDpAllreduce;
    if (c.kind == sim::CollectiveKind::kEstimate || c.members.size() < 2) continue;
    if (forward_phase || (backward_phase && w.training)) expected_collectives += c.members.size();
  }
  EXPECT_EQ(collectives.size(), gpus >= 2 ? expected_collectives : 0u);
  EXPECT_FALSE(r->phase_timings.empty());
}

TEST(CudaBackendTest, ZipfIdsAndPoissonBagsReplayCorrectlyOnARankSubset) {
  SHARDLAB_REQUIRE_GPU();
  const ReplayWorkload w = tiny_workload();
  ASSERT_EQ(w.world_size, 2);
  auto backend = make_cuda_backend();
  ASSERT_TRUE(backend) << backend.status().message();
  ReplayOptions options;
  options.warmup = 0;
  options.iterations = 2;
  options.ranks = {1};
  options.ids = IdDistribution::kZipf;
  options.pooling = PoolingDistribution::kPoisson;
  options.verify = true;
  auto r = (*backend)->replay(w, options, nullptr);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->devices_used, 1);
  ASSERT_FALSE(r->measurements.empty());
  for (const Measurement& m : r->measurements) {
    EXPECT_EQ(m.rank, 1);
    EXPECT_LT(m.collective, 0);  // a lone rank has nobody to talk to
    EXPECT_EQ(m.wrong_elements, 0) << m.table;
  }
}

TEST(CudaBackendTest, BadOptionsAreRefused) {
  SHARDLAB_REQUIRE_GPU();
  const ReplayWorkload w = tiny_workload();
  auto backend = make_cuda_backend();
  ASSERT_TRUE(backend);
  ReplayOptions options;
  options.ranks = {5};
  auto r = (*backend)->replay(w, options, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("--ranks"), std::string::npos) << r.status().message();
}

TEST(CudaBackendTest, BenchKernelsSweepsEveryShapeBesideACopy) {
  SHARDLAB_REQUIRE_GPU();
  auto backend = make_cuda_backend();
  ASSERT_TRUE(backend);
  KernelBenchOptions options;
  options.rows = {1 << 14};
  options.dims = {32, 128};
  options.pooling_factors = {1, 8};
  options.bags = 1024;
  options.warmup = 1;
  options.iterations = 3;
  options.optimizer = OptimizerKind::kRowwiseAdagrad;
  auto r = (*backend)->bench_kernels(options, nullptr);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->backend, "cuda");
  EXPECT_GT(r->copy_bytes_per_s, 0.0);
  ASSERT_EQ(r->rows.size(), 4u);
  for (const KernelBenchRow& row : r->rows) {
    expect_sane(row.forward, options.iterations);
    expect_sane(row.backward, options.iterations);
    // Fixed pooling: exactly bags · pooling ids every call.
    const LookupShape shape{.ids = static_cast<int64_t>(row.pooling_factor) * row.bags,
                            .bags = row.bags,
                            .dim = row.dim,
                            .precision = row.precision};
    EXPECT_DOUBLE_EQ(row.forward_bytes, forward_bytes(shape));
    EXPECT_GT(row.backward_bytes, 0.0);
    EXPECT_LE(row.backward_bytes,
              backward_bytes(shape, unique_rows_upper_bound(shape.ids, row.rows),
                             OptimizerKind::kRowwiseAdagrad));
    EXPECT_GT(row.forward_bytes_per_s, 0.0);
    EXPECT_GT(row.backward_bytes_per_s, 0.0);
  }
}

}  // namespace
}  // namespace shardlab::kernels
