// The CPU backend end to end: a replay of tiny_2gpu (records for every shard,
// phase and collective member, sane timings), a rank subset, and a small
// bench-kernels sweep; plus the backend registry.

#include "cpu_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <string>
#include <tuple>

#include "replay_test_helpers.h"
#include "shardlab/kernels/backend.h"
#include "shardlab/kernels/bytes.h"

namespace shardlab::kernels {
namespace {

using testing::expect_sane;

ReplayWorkload tiny_workload() { return testing::tiny_workload(4096); }

TEST(CpuBackendTest, ReplaysTiny2GpuEndToEnd) {
  const ReplayWorkload w = tiny_workload();
  ASSERT_EQ(w.world_size, 2);
  auto backend = make_backend("cpu");
  ASSERT_TRUE(backend);
  EXPECT_EQ((*backend)->name(), "cpu");
  std::atomic<int> calls{0};
  int last_done = 0, last_total = 0;
  ReplayOptions options;
  options.warmup = 1;
  options.iterations = 4;
  auto r = (*backend)->replay(w, options, [&](int done, int total, std::string_view) {
    ++calls;
    last_done = done;
    last_total = total;
  });
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->backend, "cpu");
  EXPECT_FALSE(r->device_name.empty());
  EXPECT_EQ(r->world_size, 2);
  EXPECT_EQ(r->devices_used, 2);
  EXPECT_EQ(calls.load(), 5);
  EXPECT_EQ(last_done, 5);
  EXPECT_EQ(last_total, 5);

  // One forward and one backward record per shard.
  std::set<std::tuple<int, int, int, sim::Phase>> lookups;
  std::set<std::pair<int, int>> collectives;  // (collective, rank)
  for (const Measurement& m : r->measurements) {
    expect_sane(m.timing, 4);
    if (m.collective >= 0) {
      EXPECT_TRUE(collectives.emplace(m.collective, m.rank).second);
      const sim::CollectiveSpec& spec = w.collectives[m.collective];
      EXPECT_EQ(m.phase, spec.phase);
      EXPECT_EQ(m.collective_kind, spec.kind);
      EXPECT_EQ(m.members, static_cast<int>(spec.members.size()));
      EXPECT_FALSE(m.inter_host);
      const auto member =
          std::find(spec.members.begin(), spec.members.end(), m.rank) - spec.members.begin();
      EXPECT_EQ(m.bytes, spec.bytes_sent(static_cast<int>(member)));
      continue;
    }
    EXPECT_GT(m.bytes, 0.0);
    EXPECT_TRUE(m.phase == sim::Phase::kFwdCompute || m.phase == sim::Phase::kBwdCompute);
    EXPECT_TRUE(lookups.emplace(m.rank, m.option, m.shard, m.phase).second);
    EXPECT_GT(m.model_bytes, 0.0);
    EXPECT_GT(m.estimated_ms, 0.0);
  }
  int shards = 0;
  for (const RankWorkload& rw : w.ranks) {
    for (const ShardWork& s : rw.shards) {
      ++shards;
      EXPECT_TRUE(lookups.count({rw.rank, s.option, s.shard, sim::Phase::kFwdCompute})) << s.table;
      EXPECT_TRUE(lookups.count({rw.rank, s.option, s.shard, sim::Phase::kBwdCompute})) << s.table;
    }
  }
  EXPECT_EQ(static_cast<int>(lookups.size()), 2 * shards);
  for (size_t c = 0; c < w.collectives.size(); ++c) {
    for (int member : w.collectives[c].members) {
      EXPECT_TRUE(collectives.count({static_cast<int>(c), member}))
          << "collective " << c << " rank " << member;
    }
  }
}

TEST(CpuBackendTest, ForwardBytesFollowBytesH) {
  const ReplayWorkload w = tiny_workload();
  ReplayOptions options;
  options.warmup = 0;
  options.iterations = 1;
  auto r = make_cpu_backend()->replay(w, options, {});
  ASSERT_TRUE(r) << r.status().message();
  for (const Measurement& m : r->measurements) {
    if (m.phase != sim::Phase::kFwdCompute) continue;
    const ShardWork* s = nullptr;
    for (const ShardWork& x : w.ranks[m.rank].shards) {
      if (x.option == m.option && x.shard == m.shard) s = &x;
    }
    ASSERT_NE(s, nullptr);
    // Fixed pooling: the ids are floor(bags · pooling) exactly.
    const auto ids =
        static_cast<int64_t>(std::floor(static_cast<double>(s->bags) * s->pooling_factor));
    const LookupShape shape{.ids = ids,
                            .bags = s->bags,
                            .dim = s->dim,
                            .precision = s->precision,
                            .pooling = s->pooling,
                            .weighted = s->weighted};
    EXPECT_DOUBLE_EQ(m.bytes, forward_bytes(shape)) << m.table;
  }
}

TEST(CpuBackendTest, ReplaysARankSubsetWithZipfIdsAndPoissonBags) {
  const ReplayWorkload w = tiny_workload();
  ReplayOptions options;
  options.warmup = 0;
  options.iterations = 2;
  options.ranks = {1};
  options.ids = IdDistribution::kZipf;
  options.pooling = PoolingDistribution::kPoisson;
  auto r = make_cpu_backend()->replay(w, options, {});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->devices_used, 1);
  EXPECT_FALSE(r->measurements.empty());
  for (const Measurement& m : r->measurements) {
    EXPECT_EQ(m.rank, 1);
    EXPECT_LT(m.collective, 0);  // one replayed rank: nothing to exchange
  }
}

TEST(CpuBackendTest, RefusesBadOptions) {
  const ReplayWorkload w = tiny_workload();
  ReplayOptions bad_rank;
  bad_rank.ranks = {2};
  EXPECT_FALSE(make_cpu_backend()->replay(w, bad_rank, {}));
  ReplayOptions bad_alpha;
  bad_alpha.ids = IdDistribution::kZipf;
  bad_alpha.zipf_alpha = 1.0;
  EXPECT_FALSE(make_cpu_backend()->replay(w, bad_alpha, {}));
  ReplayOptions no_iterations;
  no_iterations.iterations = 0;
  EXPECT_FALSE(make_cpu_backend()->replay(w, no_iterations, {}));
}

TEST(CpuBackendTest, BenchKernelsSweepsEveryShape) {
  KernelBenchOptions o;
  o.rows = {1000, 5000};
  o.dims = {8, 64};
  o.pooling_factors = {1, 4};
  o.bags = 256;
  o.warmup = 1;
  o.iterations = 3;
  o.optimizer = OptimizerKind::kRowwiseAdagrad;
  auto r = make_cpu_backend()->bench_kernels(o, {});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->backend, "cpu");
  EXPECT_GT(r->copy_bytes_per_s, 0.0);
  ASSERT_EQ(r->rows.size(), 8u);
  for (const KernelBenchRow& row : r->rows) {
    expect_sane(row.forward, 3);
    expect_sane(row.backward, 3);
    const auto ids = static_cast<int64_t>(std::floor(256 * row.pooling_factor));
    const LookupShape s{.ids = ids, .bags = 256, .dim = row.dim};
    EXPECT_DOUBLE_EQ(row.forward_bytes, forward_bytes(s));
    // Unique rows lie between 1 and min(ids, rows).
    EXPECT_LE(row.backward_bytes,
              backward_bytes(s, unique_rows_upper_bound(ids, row.rows), o.optimizer));
    EXPECT_GE(row.backward_bytes, backward_bytes(s, 1, o.optimizer));
    EXPECT_NEAR(row.forward_bytes_per_s, row.forward_bytes / (row.forward.median_ms * 1e-3),
                1e-9 * row.forward_bytes_per_s);
  }
  KernelBenchOptions bad = o;
  bad.dims = {0};
  EXPECT_FALSE(make_cpu_backend()->bench_kernels(bad, {}));
}

TEST(BackendRegistryTest, OffersCpuAndExplainsMissingBackends) {
  const auto names = available_backends();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "cpu");
  auto unknown = make_backend("tpu");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.status().message().find("tpu"), std::string::npos);
#if !defined(SHARDLAB_HAVE_CUDA)
  auto cuda = make_backend("cuda");
  ASSERT_FALSE(cuda);
  EXPECT_NE(cuda.status().message().find("without CUDA"), std::string::npos);
#endif
}

}  // namespace
}  // namespace shardlab::kernels
