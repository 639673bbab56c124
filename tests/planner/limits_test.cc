// The scenario limits (limits.h) on scenarios built in code, the sums that
// saturate instead of overflowing, and the column-wise block search that
// replaced TorchRec's linear scan.
#include "shardlab/planner/limits.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "shard_layout.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {
namespace {

Scenario one_table(int world_size, int64_t rows, int64_t dim) {
  Scenario s;
  s.name = "limits";
  s.topology.world_size = world_size;
  s.tables.push_back(TableSpec{
      .name = "t0", .num_embeddings = rows, .embedding_dim = dim, .feature_names = {"f0"}});
  s.constraints.resize(1);
  s.planner.proposers = default_proposers();
  return s;
}

std::string error_of(const Scenario& s) {
  const Status st = check_limits(s);
  EXPECT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  return st.message();
}

TEST(Limits, OrdinaryScenarioIsInside) {
  Scenario s = one_table(8, 1000000, 128);
  s.constraints[0] = ConstraintSpec{.pooling_factors = std::vector<double>{20.0}};
  EXPECT_TRUE(check_limits(s).is_ok()) << check_limits(s).message();
}

// The example: a pooling factor of 1e19 planned with exit 0 and a
// negative hbm_used. It is refused naming the field, with the largest value
// that would pass.
TEST(Limits, HugePoolingFactorIsRefusedNamingIt) {
  Scenario s = one_table(8, 100000, 64);
  s.constraints[0] = ConstraintSpec{.pooling_factors = std::vector<double>{1e19}};
  const std::string msg = error_of(s);
  EXPECT_TRUE(msg.starts_with("constraints.t0.pooling_factors[0]: makes table \"t0\" need up to "))
      << msg;
  EXPECT_NE(msg.find("beyond the limit of 2^61 bytes: got 1e+19, expected at most "),
            std::string::npos)
      << msg;

  // plan() refuses it too, before any arithmetic.
  const PlannerResult r = plan(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(r.search_space.has_value());
}

// Every value from 2^53 to 2^64 of the fields that multiply into byte counts.
TEST(Limits, ProductFieldsFrom2To53To2To64) {
  for (int e = 53; e <= 64; ++e) {
    const double big = std::ldexp(1.0, e);
    SCOPED_TRACE(e);
    Scenario s = one_table(8, 1000, 16);
    s.constraints[0] = ConstraintSpec{.pooling_factors = std::vector<double>{big}};
    EXPECT_TRUE(error_of(s).starts_with("constraints.t0.pooling_factors[0]: "));

    s.constraints[0] = ConstraintSpec{.num_poolings = std::vector<double>{big}};
    EXPECT_TRUE(error_of(s).starts_with("constraints.t0.num_poolings[0]: "));

    if (e < 63) {
      s.constraints[0] = ConstraintSpec{.batch_sizes = std::vector<int64_t>{int64_t{1} << e}};
      EXPECT_TRUE(error_of(s).starts_with("constraints.t0.batch_sizes[0]: "));
      s.constraints[0].reset();
      s.batch_size = int64_t{1} << e;
      EXPECT_TRUE(error_of(s).starts_with("batch_size: "));
      s.batch_size = kDefaultBatchSize;
      Scenario wide = one_table(8, 1000, int64_t{1} << e);
      EXPECT_TRUE(error_of(wide).starts_with("tables[0].embedding_dim: "));
    }
  }
  Scenario s = one_table(8, 1000, 16);
  s.batch_size = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(error_of(s).starts_with("batch_size: ")) << error_of(s);
}

TEST(Limits, WeightsBlameTheLargerCount) {
  // 2^40 rows x 2^20 columns x 4 bytes = 2^62: rows are the larger count.
  EXPECT_TRUE(error_of(one_table(1, int64_t{1} << 40, int64_t{1} << 20))
                  .starts_with("tables[0].num_embeddings: "));
  EXPECT_TRUE(
      error_of(one_table(1, 1000, int64_t{1} << 60)).starts_with("tables[0].embedding_dim: "));
  // An optimizer with state triples the weights.
  Scenario s = one_table(1, int64_t{1} << 40, int64_t{1} << 18);  // 2^60 bytes of weights
  EXPECT_TRUE(check_limits(s).is_ok());
  s.sharder.optimizer = OptimizerKind::kAdam;
  EXPECT_TRUE(error_of(s).starts_with("tables[0].num_embeddings: "));
}

TEST(Limits, HugeCacheLoadFactorIsRefusedWhereGiven) {
  Scenario s = one_table(1, int64_t{1} << 40, 64);
  s.constraints[0] = ConstraintSpec{.cache_params = CacheParams{.load_factor = 1e300}};
  EXPECT_TRUE(error_of(s).starts_with("constraints.t0.cache_params.load_factor: ")) << error_of(s);
  s.constraints[0].reset();
  s.sharder.has_fused_params = true;
  s.sharder.cache_load_factor = 1e300;
  EXPECT_TRUE(error_of(s).starts_with("sharder.fused_params.cache_load_factor: ")) << error_of(s);
  // A load factor above 1 with HBM slower than DDR would drive the caching
  // kernels' bandwidth to zero or below.
  s = one_table(1, 1000, 64);
  s.topology.hbm_mem_bw = 1.0;
  s.topology.ddr_mem_bw = 1000.0;
  s.constraints[0] = ConstraintSpec{.cache_params = CacheParams{.load_factor = 2.0}};
  EXPECT_NE(error_of(s).find("caching kernels a bandwidth of"), std::string::npos) << error_of(s);
}

TEST(Limits, SumOfTablesAndReservations) {
  // Each table alone fits; together they pass 2^61 bytes on one rank.
  Scenario s = one_table(1, int64_t{1} << 40, int64_t{1} << 17);  // 2^59 bytes each
  for (int i = 1; i < 5; ++i) {
    s.tables.push_back(s.tables[0]);
    s.tables.back().name = "t" + std::to_string(i);
  }
  s.constraints.resize(s.tables.size());
  const std::string msg = error_of(s);
  EXPECT_TRUE(msg.starts_with("tables[3]: with table \"t3\" the tables need up to ")) << msg;

  // KJT reservation: 20 x 8 bytes per id over all tables.
  s = one_table(1, 1000, 4);
  // 4e13 ids per sample x 512: inside the table's footprint, not the KJT's.
  s.constraints[0] = ConstraintSpec{.pooling_factors = std::vector<double>{4e13}};
  EXPECT_TRUE(error_of(s).starts_with(
      "constraints.t0.pooling_factors[0]: makes the KJT storage reservation"))
      << error_of(s);
  s.planner.storage_reservation.kind =
      ReservationKind::kFixedPercentage;  // computes no KJT reservation
  EXPECT_TRUE(check_limits(s).is_ok());

  // Dense reservation: the multiplier times the dense and table bytes.
  s = one_table(1, 1000, 4);
  s.module.dense_param_bytes = int64_t{1} << 50;
  s.planner.storage_reservation.parameter_multiplier = 1e6;
  EXPECT_TRUE(error_of(s).starts_with("planner.storage_reservation.parameter_multiplier: "))
      << error_of(s);
}

TEST(Limits, SingleValuesOfScenariosBuiltInCode) {
  Scenario s = one_table(0, 1, 1);
  EXPECT_TRUE(error_of(s).starts_with("topology.world_size: out of range: got 0"));
  s = one_table(1, 1, 1);
  s.topology.hbm_mem_bw = 1e-320;
  EXPECT_TRUE(error_of(s).starts_with("topology.hbm_mem_bw: out of range"));
  s.topology.hbm_mem_bw = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(error_of(s).starts_with("topology.hbm_mem_bw: out of range"));
  s = one_table(1, 1, 1);
  s.fabric.intra_host_latency_ms = 1e308;
  EXPECT_TRUE(error_of(s).starts_with("topology.fabric.intra_host_latency_ms: out of range"));
  s = one_table(1, 1, 1);
  s.workload.dense_fwd_ms = {1e308};
  EXPECT_TRUE(error_of(s).starts_with("workload.dense_fwd_ms: out of range"));
  s = one_table(1, 1, 1);
  s.tables[0].name = "a.b";
  s.constraints[0] = ConstraintSpec{.pooling_factors = std::vector<double>{-1}};
  EXPECT_TRUE(error_of(s).starts_with("constraints[\"a.b\"].pooling_factors[0]: out of range"))
      << error_of(s);
}

// At the edge of the limits an option's total over thousands of shards passes
// int64: it saturates, the plan fails as TorchRec's does (insufficient
// storage), and no byte count comes out negative.
TEST(Limits, TotalsSaturateInsteadOfWrapping) {
  Scenario s = one_table(4096, int64_t{1} << 53, 16);  // 2^59 bytes of weights
  s.constraints[0] = ConstraintSpec{
      .sharding_types = std::vector{ShardingType::kDataParallel, ShardingType::kRowWise}};
  s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kGreedy}};
  ASSERT_TRUE(check_limits(s).is_ok()) << check_limits(s).message();
  const PlannerResult r = plan(s);
  ASSERT_TRUE(r.search_space.has_value());
  for (const ShardingOption& o : r.search_space->options) {
    EXPECT_GE(o.total_storage.hbm, 0);
    EXPECT_GE(o.total_storage.ddr, 0);
    if (o.sharding_type == ShardingType::kDataParallel) {
      EXPECT_EQ(o.total_storage.hbm, std::numeric_limits<int64_t>::max());
    }
  }
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.planner_error(), PlannerErrorType::kInsufficientStorage) << r.error.message();
  EXPECT_EQ(r.error.message().find("= -"), std::string::npos) << r.error.message();
}

// TorchRec's rule, scanned the way TorchRec scans it.
int64_t scanned_block(int64_t cols, std::optional<int64_t> min_partition) {
  const int64_t lower = min_partition.value_or(0) > 0 ? *min_partition : kDefaultMinPartition;
  for (int64_t i = lower; i < cols; ++i) {
    if (cols % i == 0 && i % 4 == 0) return i;
  }
  return cols;
}

TEST(ColumnWiseBlock, MatchesTorchRecsScan) {
  for (int64_t cols = 1; cols <= 3000; ++cols) {
    for (std::optional<int64_t> mp :
         {std::optional<int64_t>{}, std::optional<int64_t>{0}, std::optional<int64_t>{1},
          std::optional<int64_t>{3}, std::optional<int64_t>{4}, std::optional<int64_t>{5},
          std::optional<int64_t>{33}, std::optional<int64_t>{128}, std::optional<int64_t>{1000},
          std::optional<int64_t>{5000}}) {
      ASSERT_EQ(column_wise_block(cols, mp), scanned_block(cols, mp))
          << cols << " " << mp.value_or(-1);
    }
  }
  EXPECT_EQ(column_wise_block(10000000, std::nullopt), 128);  // TorchRec's test_never_fit dim
}

// Dims far beyond what a scan could cover: primes and products of large primes.
TEST(ColumnWiseBlock, HugeDimsAreAnsweredAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  // 4 * p with p = 2^58 - 27 prime: its multiples of 4 dividing it are 4 and itself.
  constexpr int64_t kPrime = (int64_t{1} << 58) - 27;
  EXPECT_EQ(column_wise_block(4 * kPrime, std::nullopt), 4 * kPrime);
  EXPECT_EQ(column_wise_block(4 * kPrime, 4), 4);
  // 4 * p * q with p < q large primes: the block is 4 * p, or 4 * q above it.
  constexpr int64_t kP = 1000003;
  constexpr int64_t kQ = 1000000007;
  EXPECT_EQ(column_wise_block(4 * kP * kQ, std::nullopt), 4 * kP);
  EXPECT_EQ(column_wise_block(4 * kP * kQ, 4 * kP + 1), 4 * kQ);
  EXPECT_EQ(column_wise_block(4 * kP * kQ, 4 * kQ + 1), 4 * kP * kQ);
  // 4 * q^2, and a power of two.
  EXPECT_EQ(column_wise_block(4 * kQ * kQ, 8), 4 * kQ);
  EXPECT_EQ(column_wise_block(int64_t{1} << 60, 1000), 1024);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

}  // namespace
}  // namespace shardlab::planner
