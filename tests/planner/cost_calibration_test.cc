// The calibrated perf model (cost_calibration.h): per-shard terms computed by
// hand for TW, RW, TWRW and DP shards on one and two hosts; TorchRec's terms
// without a calibration; an empty calibration gives TorchRec's bits exactly;
// missing parameters fall back term by term; the planner carries the
// calibration into enumeration.

#include "shardlab/planner/cost_calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "enumerator.h"
#include "shardlab/planner/estimators.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {
namespace {

// One table: 4 ids per bag, 512 bags per rank, fp32, `rows` x `dim`, a single
// shard `dim` columns wide (all the formulas read).
ShardingOption make_option(ShardingType type, ComputeKernel kernel, int64_t dim,
                           int64_t rows = 1000) {
  ShardingOption o;
  o.name = "t";
  o.fqn = "ebc.t";
  o.sharding_type = type;
  o.compute_kernel = kernel;
  o.tensor_rows = rows;
  o.tensor_cols = dim;
  o.element_size = 4;
  o.tensor_bytes = rows * dim * 4;
  o.input_lengths = {4.0};
  o.num_poolings = {1.0};
  o.batch_sizes = {512};
  o.shards.push_back(Shard{.rows = rows, .cols = static_cast<int32_t>(dim)});
  return o;
}

Topology topology(int world_size, int local_world_size) {
  return make_topology(
      TopologySpec{.world_size = world_size, .local_world_size = local_world_size});
}

// The expected values below are TorchRec 2024-02's formulas unless a test
// names another version.
Perf estimate(const Topology& t, ShardingOption o, const CostCalibration* cal,
              TorchRecVersion version = TorchRecVersion::k2024_02) {
  EstimatorContext ctx;
  ctx.topology = &t;
  ctx.behaviour = &torchrec_behaviour(version);
  ctx.calibration = cal;
  EXPECT_TRUE(estimate_perf(ctx, &o).is_ok());
  return o.shard_perf;
}

// Parameters far from TorchRec's, every one set.
CostCalibration full_calibration() {
  CostCalibration c;
  c.bandwidth(ComputeKernel::kFused, DimClass::kNarrow) = 1.0e8;
  c.bandwidth(ComputeKernel::kFused, DimClass::kHalf) = 2.0e8;
  c.bandwidth(ComputeKernel::kFused, DimClass::kFull) = 3.0e8;
  c.bandwidth(ComputeKernel::kDense, DimClass::kHalf) = 0.5e8;
  c.overhead(ComputeKernel::kFused) = 0.01;
  c.overhead(ComputeKernel::kDense) = 0.02;
  c.bwd_multiplier_of(ComputeKernel::kFused) = 2.5;
  c.bwd_multiplier_of(ComputeKernel::kDense) = 1.5;
  c.bwd_multiplier = 7.0;  // kernels without their own (none here)
  c.intra_host = {.bandwidth_bytes_per_ms = 1.5e8, .latency_ms = 0.03};
  c.inter_host = {.bandwidth_bytes_per_ms = 1.0e7, .latency_ms = 0.05};
  return c;
}

// S_in = 4·1·512 = 2048 ids, S_pb = 512 bags (docs/cost-model.md §4.2).
constexpr double kIds = 2048, kBags = 512;
const double kHbm = kDefaultHbmMemBw;

TEST(CostCalibration, DimClassesMatchTorchRecBlockPenalties) {
  EXPECT_EQ(dim_class(1), DimClass::kNarrow);
  EXPECT_EQ(dim_class(63), DimClass::kNarrow);
  EXPECT_EQ(dim_class(64), DimClass::kHalf);
  EXPECT_EQ(dim_class(127), DimClass::kHalf);
  EXPECT_EQ(dim_class(128), DimClass::kFull);
  EXPECT_EQ(block_penalty(ShardingType::kTableWise, 32), 1.75);
  EXPECT_EQ(block_penalty(ShardingType::kColumnWise, 64), 1.15);
  EXPECT_EQ(block_penalty(ShardingType::kTableColumnWise, 128), 1.0);
  EXPECT_EQ(block_penalty(ShardingType::kRowWise, 32), 1.0);
  EXPECT_EQ(block_penalty(ShardingType::kDataParallel, 32), 1.0);
  for (DimClass c : {DimClass::kNarrow, DimClass::kHalf, DimClass::kFull}) {
    EXPECT_EQ(parse_dim_class(to_string(c)), c);
  }
  EXPECT_FALSE(parse_dim_class("wide").has_value());
  EXPECT_TRUE(CostCalibration{}.empty());
  EXPECT_FALSE(full_calibration().empty());
  CostCalibration latency_only;
  latency_only.inter_host.latency_ms = 0.0;
  EXPECT_FALSE(latency_only.empty());
}

TEST(CostCalibration, TableWiseTwoHosts) {
  const Topology t = topology(4, 2);
  const CostCalibration cal = full_calibration();
  const int64_t d = 64;
  // I = ceil(S_in·W·8), K = S_in·W·max(d,32)·4, Of = Ob = S_pb·W·d·4.
  const double in = std::ceil(kIds * 4 * 8), k = kIds * 4 * d * 4, out = kBags * 4 * d * 4;
  const double fwd_bytes = in + k + out;
  EXPECT_DOUBLE_EQ(
      fwd_compute_bytes(EstimatorContext{.topology = &t},
                        make_option(ShardingType::kTableWise, ComputeKernel::kFused, d)),
      fwd_bytes);

  const Perf p = estimate(t, make_option(ShardingType::kTableWise, ComputeKernel::kFused, d), &cal);
  const double fwd = 0.01 + fwd_bytes / 2.0e8;  // the half-class bandwidth replaces bw_dev / 1.15
  EXPECT_DOUBLE_EQ(p.fwd_compute, fwd);
  EXPECT_DOUBLE_EQ(p.bwd_compute, 2.5 * fwd);
  EXPECT_DOUBLE_EQ(p.fwd_comms, 0.05 + out / 1.0e7);  // W > Lw: inter-host scope
  EXPECT_DOUBLE_EQ(p.bwd_comms, 0.05 + out / 1.0e7);
  EXPECT_EQ(p.prefetch_compute, 0.0);

  // TorchRec's terms without a calibration (§4.3).
  const Perf q =
      estimate(t, make_option(ShardingType::kTableWise, ComputeKernel::kFused, d), nullptr);
  EXPECT_DOUBLE_EQ(q.fwd_compute, fwd_bytes * 1.15 / kHbm);
  EXPECT_DOUBLE_EQ(q.bwd_compute, 2.0 * q.fwd_compute);
  EXPECT_DOUBLE_EQ(q.fwd_comms, out / kDefaultInterHostBw);
  EXPECT_DOUBLE_EQ(q.bwd_comms, out / kDefaultInterHostBw);
}

TEST(CostCalibration, TableWiseWeightedAndNarrowOneHost) {
  const Topology t = topology(2, 2);
  const CostCalibration cal = full_calibration();
  ShardingOption o = make_option(ShardingType::kTableWise, ComputeKernel::kFused, 16);
  o.is_weighted = true;
  // Weighted: I doubles; d = 16 reads max(d, 32) columns.
  const double in = 2 * std::ceil(kIds * 2 * 8), k = kIds * 2 * 32 * 4, out = kBags * 2 * 16 * 4;
  const Perf p = estimate(t, o, &cal);
  const double fwd = 0.01 + (in + k + out) / 1.0e8;
  EXPECT_DOUBLE_EQ(p.fwd_compute, fwd);
  EXPECT_DOUBLE_EQ(p.bwd_compute, fwd * 2.5 + fwd * 1.1);  // weighted term unchanged
  EXPECT_DOUBLE_EQ(p.fwd_comms, 0.03 + out / 1.5e8);       // one host: intra-host scope
}

TEST(CostCalibration, RowWiseTwoHosts) {
  const Topology t = topology(4, 2);
  const CostCalibration cal = full_calibration();
  const int64_t d = 128;
  // S' = S_in / W = 512; So = S_pb = 512 (pooled, reduce-scatter sizes).
  const double s = kIds / 4;
  const double in = std::ceil(s * 4 * 8), k = s * 4 * d * 4, out = kBags * 4 * d * 4;
  const Perf p = estimate(t, make_option(ShardingType::kRowWise, ComputeKernel::kFused, d), &cal);
  const double fwd = 0.01 + (in + k + out) / 3.0e8;
  EXPECT_DOUBLE_EQ(p.fwd_compute, fwd);
  EXPECT_DOUBLE_EQ(p.bwd_compute, 2.5 * fwd);
  EXPECT_DOUBLE_EQ(p.fwd_comms, 0.05 + out / 1.0e7);
  // The batched copy term stays TorchRec's (bw_dev = HBM for fused).
  EXPECT_DOUBLE_EQ(p.bwd_comms, 0.05 + out / 1.0e7 + out * 2.455 / kHbm);

  const Perf q =
      estimate(t, make_option(ShardingType::kRowWise, ComputeKernel::kFused, d), nullptr);
  EXPECT_DOUBLE_EQ(q.fwd_compute, (in + k + out) / kHbm);
  EXPECT_DOUBLE_EQ(q.bwd_comms, out / kDefaultInterHostBw + out * 2.455 / kHbm);
}

TEST(CostCalibration, TableRowWiseTwoHosts) {
  const Topology t = topology(4, 2);
  const CostCalibration cal = full_calibration();
  const int64_t d = 32;
  // S' = S_in / Lw = 1024; So = 512; inter-host all-to-all (So·W·d·4)·(Lw/W).
  const double s = kIds / 2;
  const double in = std::ceil(s * 4 * 8), k = s * 4 * d * 4, out = kBags * 4 * d * 4;
  const double inter = out * (2.0 / 4.0);
  const Perf p =
      estimate(t, make_option(ShardingType::kTableRowWise, ComputeKernel::kFused, d), &cal);
  const double fwd = 0.01 + (in + k + out) / 1.0e8;
  EXPECT_DOUBLE_EQ(p.fwd_compute, fwd);
  EXPECT_DOUBLE_EQ(p.bwd_compute, 2.5 * fwd);
  EXPECT_DOUBLE_EQ(p.fwd_comms, (0.03 + out / 1.5e8) + (0.05 + inter / 1.0e7));
  EXPECT_DOUBLE_EQ(p.bwd_comms, 0.03 + out / 1.5e8 + out * 2.455 / kHbm);

  const Perf q =
      estimate(t, make_option(ShardingType::kTableRowWise, ComputeKernel::kFused, d), nullptr);
  EXPECT_DOUBLE_EQ(q.fwd_compute, (in + k + out) / kHbm);  // TWRW has no block penalty
  EXPECT_DOUBLE_EQ(q.fwd_comms, out / kDefaultIntraHostBw + inter / kDefaultInterHostBw);

  // 2026-08: the hosts exchange So·hosts·d·4 bytes both ways, each with the
  // inter-host scope's latency and bandwidth.
  const double between_hosts = kBags * 2 * d * 4;
  const Perf r = estimate(t, make_option(ShardingType::kTableRowWise, ComputeKernel::kFused, d),
                          &cal, TorchRecVersion::k2026_08);
  EXPECT_DOUBLE_EQ(r.fwd_compute, fwd);
  EXPECT_DOUBLE_EQ(r.fwd_comms, (0.03 + out / 1.5e8) + (0.05 + between_hosts / 1.0e7));
  EXPECT_DOUBLE_EQ(r.bwd_comms,
                   ((0.05 + between_hosts / 1.0e7) + (0.03 + out / 1.5e8)) + out * 2.455 / kHbm);
}

TEST(CostCalibration, DataParallelIsARingAllReduce) {
  const CostCalibration cal = full_calibration();
  const int64_t d = 64, rows = 1000;
  const double table = rows * d * 4.0;
  const double in = std::ceil(kIds * 8), k = kIds * d * 4, out = kBags * d * 4;
  const double bw_dev = 0.5 * kHbm;  // dense on cuda
  for (const auto& [w, lw] : {std::pair{4, 2}, std::pair{2, 2}}) {
    SCOPED_TRACE("W=" + std::to_string(w) + " Lw=" + std::to_string(lw));
    const Topology t = topology(w, lw);
    const Perf p =
        estimate(t, make_option(ShardingType::kDataParallel, ComputeKernel::kDense, d, rows), &cal);
    const double fwd = 0.02 + (in + k + out) / 0.5e8;
    EXPECT_DOUBLE_EQ(p.fwd_compute, fwd);
    EXPECT_DOUBLE_EQ(p.bwd_compute, 1.5 * fwd);  // dense's own multiplier
    EXPECT_EQ(p.fwd_comms, 0.0);
    const planner::CommCalibration& scope = w > lw ? cal.inter_host : cal.intra_host;
    const double ring =
        *scope.latency_ms + 2.0 * (w - 1) / w * table / *scope.bandwidth_bytes_per_ms;
    EXPECT_DOUBLE_EQ(p.bwd_comms, ring + table * 9.22 / bw_dev);

    // TorchRec (§4.6): ((T·(2nn-1))/nn) / (bw_inter·Lw), always inter-host.
    const Perf q = estimate(
        t, make_option(ShardingType::kDataParallel, ComputeKernel::kDense, d, rows), nullptr);
    const double nn = std::min(static_cast<double>(w) / lw, 2.0);
    EXPECT_DOUBLE_EQ(q.bwd_comms, table * (2 * nn - 1) / nn / (kDefaultInterHostBw * lw) +
                                      table * 9.22 / bw_dev);
    EXPECT_DOUBLE_EQ(q.fwd_compute, (in + k + out) / bw_dev);
  }
}

TEST(CostCalibration, MissingParametersFallBackTermByTerm) {
  const Topology t = topology(4, 2);
  CostCalibration cal;
  cal.overhead(ComputeKernel::kFused) = 0.01;  // no bandwidth for any class
  cal.inter_host.latency_ms = 0.05;            // no inter-host bandwidth
  const int64_t d = 64;
  const double in = std::ceil(kIds * 4 * 8), k = kIds * 4 * d * 4, out = kBags * 4 * d * 4;
  const Perf p = estimate(t, make_option(ShardingType::kTableWise, ComputeKernel::kFused, d), &cal);
  EXPECT_DOUBLE_EQ(p.fwd_compute,
                   0.01 + (in + k + out) * 1.15 / kHbm);  // TorchRec's bw_dev / penalty
  EXPECT_DOUBLE_EQ(p.bwd_compute, 2.0 * p.fwd_compute);   // topology multiplier
  cal.bwd_multiplier = 3.0;                               // for kernels without their own
  const Perf with_global =
      estimate(t, make_option(ShardingType::kTableWise, ComputeKernel::kFused, d), &cal);
  EXPECT_DOUBLE_EQ(with_global.bwd_compute, 3.0 * with_global.fwd_compute);
  cal.bwd_multiplier_of(ComputeKernel::kFused) = 4.0;
  const Perf with_own =
      estimate(t, make_option(ShardingType::kTableWise, ComputeKernel::kFused, d), &cal);
  EXPECT_DOUBLE_EQ(with_own.bwd_compute, 4.0 * with_own.fwd_compute);
  cal.bwd_multiplier.reset();
  cal.bwd_multiplier_of(ComputeKernel::kFused).reset();
  EXPECT_DOUBLE_EQ(p.fwd_comms, 0.05 + out / kDefaultInterHostBw);

  // DP without a calibrated bandwidth: TorchRec's all-reduce plus the latency.
  const Perf dp =
      estimate(t, make_option(ShardingType::kDataParallel, ComputeKernel::kDense, d), &cal);
  const double table = 1000 * d * 4.0;
  EXPECT_DOUBLE_EQ(dp.bwd_comms,
                   0.05 + table * 3 / 2 / (kDefaultInterHostBw * 2) + table * 9.22 / (0.5 * kHbm));
}

// A scenario with every sharding type and kernel on two hosts, weighted and
// unweighted tables, and a codec registry.
Scenario mixed_scenario() {
  Scenario s;
  s.name = "mixed";
  s.topology = TopologySpec{.world_size = 4, .local_world_size = 2};
  s.sharder.qcomm_forward = CommPrecision::kFp16;
  s.sharder.qcomm_backward = CommPrecision::kBf16;
  s.planner.proposers = default_proposers();
  const int64_t dims[] = {16, 64, 96, 128, 256, 512};
  for (int i = 0; i < 6; ++i) {
    TableSpec table;
    table.name = "t" + std::to_string(i);
    table.num_embeddings = 1000 * (i + 1);
    table.embedding_dim = dims[i];
    table.feature_names = {"f" + std::to_string(i)};
    table.is_weighted = i % 2 == 1;
    s.tables.push_back(table);
    ConstraintSpec c;
    c.pooling_factors = std::vector<double>{1.0 + i};
    s.constraints.push_back(c);
  }
  return s;
}

TEST(CostCalibration, EmptyCalibrationKeepsTorchRecBitsForEveryOption) {
  const Scenario s = mixed_scenario();
  const Topology t = make_topology(s.topology);
  const CostCalibration empty;
  auto plain = enumerate_options(s, t, build_modules(s));
  auto calibrated = enumerate_options(s, t, build_modules(s), &empty);
  ASSERT_TRUE(plain.is_ok()) << plain.status().message();
  ASSERT_TRUE(calibrated.is_ok());
  ASSERT_EQ(plain->options.size(), calibrated->options.size());
  ASSERT_GT(plain->options.size(), 30u);
  for (size_t i = 0; i < plain->options.size(); ++i) {
    EXPECT_EQ(plain->options[i].shard_perf, calibrated->options[i].shard_perf)
        << plain->options[i].fqn;
    EXPECT_EQ(plain->options[i].total_perf, calibrated->options[i].total_perf);
  }
}

TEST(CostCalibration, PlannerCarriesTheCalibrationIntoEnumeration) {
  const Scenario s = mixed_scenario();
  const CostCalibration cal = full_calibration();
  const PlannerResult plain = plan(s, PlannerOptions{.enumerate_only = true});
  const PlannerResult calibrated =
      plan(s, PlannerOptions{.enumerate_only = true, .calibration = &cal});
  ASSERT_TRUE(plain.search_space && calibrated.search_space);
  const Topology t = make_topology(s.topology);
  EstimatorContext ctx = estimator_context(s, t);
  ctx.calibration = &cal;
  int changed = 0;
  for (size_t i = 0; i < calibrated.search_space->options.size(); ++i) {
    ShardingOption o = calibrated.search_space->options[i];
    const Perf got = o.shard_perf;
    ASSERT_TRUE(estimate_perf(ctx, &o).is_ok());
    EXPECT_EQ(got, o.shard_perf) << o.fqn;
    if (!(got == plain.search_space->options[i].shard_perf)) ++changed;
  }
  EXPECT_EQ(changed, static_cast<int>(calibrated.search_space->options.size()));

  const PlannerResult best = plan(s, PlannerOptions{.calibration = &cal});
  const PlannerResult torchrec = plan(s);
  ASSERT_TRUE(best.ok() && torchrec.ok());
  EXPECT_NE(best.perf_rating, torchrec.perf_rating);
}

}  // namespace
}  // namespace shardlab::planner
