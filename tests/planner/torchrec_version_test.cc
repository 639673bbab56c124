// The modelled differences between TorchRec 2024-02 and 2026-08
// (torchrec_version.h, docs/torchrec-versions.md): one test per
// TorchRecBehaviour field. Each plans or estimates the same scenario under
// both versions and checks the number that field changes, as each TorchRec
// computes it, so a test fails when its field is switched to the other
// version's rule.

#include "shardlab/planner/torchrec_version.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "enumerator.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/stats.h"
#include "shardlab/planner/storage_reservation.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {
namespace {

constexpr TorchRecVersion k2024 = TorchRecVersion::k2024_02;
constexpr TorchRecVersion k2026 = TorchRecVersion::k2026_08;

// `tables` fp32 tables "t0", "t1", ... of `rows` x `dim`, one input each of
// pooling factor `pooling`, on `world_size` GPUs, `local_world_size` per host.
Scenario scenario(int world_size, int local_world_size, int tables = 1, int64_t rows = 100000,
                  int64_t dim = 128, double pooling = 2.0) {
  Scenario s;
  s.name = "versions";
  s.topology.world_size = world_size;
  s.topology.local_world_size = local_world_size;
  s.planner.proposers = default_proposers();
  for (int i = 0; i < tables; ++i) {
    TableSpec t;
    t.name = "t";
    t.name += std::to_string(i);
    t.num_embeddings = rows;
    t.embedding_dim = dim;
    t.feature_names = {t.name};
    s.tables.push_back(t);
    ConstraintSpec c;
    c.pooling_factors = std::vector<double>{pooling};
    s.constraints.emplace_back(c);
  }
  return s;
}

Scenario with_version(Scenario s, TorchRecVersion v) {
  s.planner.torchrec_version = v;
  return s;
}

// The enumerated search space of `s` under `v`.
SearchSpace options_of(const Scenario& s, TorchRecVersion v) {
  PlannerResult r = plan(with_version(s, v), PlannerOptions{.enumerate_only = true});
  EXPECT_TRUE(r.search_space.has_value()) << r.error.message();
  return r.search_space ? std::move(*r.search_space) : SearchSpace{};
}

// The option of table `name` with `type` and `kernel`.
const ShardingOption& option(const SearchSpace& space, const std::string& name, ShardingType type,
                             ComputeKernel kernel) {
  for (const ShardingOption& o : space.options) {
    if (o.name == name && o.sharding_type == type && o.compute_kernel == kernel) return o;
  }
  ADD_FAILURE() << "no option " << name << "/" << to_string(type) << "/" << to_string(kernel);
  static const ShardingOption kNone;
  return kNone;
}

// Whether a line of `lines` contains `text`.
bool has(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// A feature 2024-02 lacks: planning `s` under it fails before planning,
// as invalid input naming the field (`message`).
void expect_refused_in_2024(const Scenario& s, const std::string& message) {
  const PlannerResult r = plan(with_version(s, k2024));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.error.message().find(message), std::string::npos) << r.error.message();
}

// TorchRecBehaviour::explicit_zero_capacity_kept
TEST(TorchRecVersionTest, ExplicitZeroCapacityIsZeroIn2026) {
  TopologySpec spec;
  spec.world_size = 2;
  spec.hbm_cap = 0;
  spec.ddr_cap = 0;
  const Topology old_topo = make_topology(spec, torchrec_behaviour(k2024));
  const Topology new_topo = make_topology(spec, torchrec_behaviour(k2026));
  EXPECT_EQ(old_topo.devices[0].storage, (Storage{kDefaultHbmCap, kDefaultDdrCap}));
  // 2026-08's devices have an SSD tier (2 TiB unless given); 2024-02's none.
  EXPECT_EQ(new_topo.devices[0].storage, (Storage{0, 0, kDefaultSsdCap}));
  // Absent capacities are TorchRec's defaults in both.
  spec.hbm_cap.reset();
  spec.ddr_cap.reset();
  EXPECT_EQ(make_topology(spec, torchrec_behaviour(k2026)).devices[1].storage,
            (Storage{kDefaultHbmCap, kDefaultDdrCap, kDefaultSsdCap}));
}

// TorchRecBehaviour::mtia_has_hbm
TEST(TorchRecVersionTest, MtiaHasHbmIn2026) {
  Scenario s = scenario(4, 4, 1, 50000, 128, 1.0);
  s.topology.compute_device = ComputeDevice::kMtia;
  EXPECT_EQ(make_topology(with_version(s, k2024)).devices[0].storage.hbm, 0);
  EXPECT_EQ(make_topology(with_version(s, k2026)).devices[0].storage.hbm, kDefaultHbmCap);

  const SearchSpace old_space = options_of(s, k2024);
  const SearchSpace new_space = options_of(s, k2026);
  const ShardingOption& old_tw =
      option(old_space, "t0", ShardingType::kTableWise, ComputeKernel::kFused);
  const ShardingOption& new_tw =
      option(new_space, "t0", ShardingType::kTableWise, ComputeKernel::kFused);
  // The table and its I/O buffers move from DDR to HBM, same bytes.
  EXPECT_EQ(old_tw.total_storage.hbm, 0);
  EXPECT_GT(old_tw.total_storage.ddr, 0);
  EXPECT_EQ(new_tw.total_storage, (Storage{old_tw.total_storage.ddr, 0}));
  // The kernel runs at HBM instead of DDR bandwidth.
  EXPECT_NEAR(new_tw.shard_perf.fwd_compute * kDefaultHbmMemBw,
              old_tw.shard_perf.fwd_compute * kDefaultDdrMemBw,
              1e-9 * old_tw.shard_perf.fwd_compute * kDefaultDdrMemBw);
  // The reservation's KJT storage moves to HBM as well.
  const PlannerResult reserved =
      plan(with_version(s, k2026), PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(reserved.reserved.has_value());
  EXPECT_GT(reserved.reserved->kjt->hbm, 0);
  EXPECT_EQ(reserved.reserved->kjt->ddr, 0);
}

// TorchRecBehaviour::pods
TEST(TorchRecVersionTest, PodsGroupTableRowWiseShardsIn2026AndAreRefusedIn2024) {
  Scenario s = scenario(16, 4);
  s.topology.pod_size = 2;  // two pods of 8 ranks
  EXPECT_EQ(make_topology(with_version(s, k2024)).intra_group_size, 4);
  EXPECT_EQ(make_topology(with_version(s, k2026)).intra_group_size, 8);
  EXPECT_EQ(make_topology(with_version(s, k2026)).num_groups(), 2);
  // 2026-08: table-row-wise splits over the pod's 8 ranks, its inputs are
  // divided by 8, and its reduce-scatter inside the pod (two hosts) runs at
  // the inter-host bandwidth.
  const SearchSpace space = options_of(s, k2026);
  const ShardingOption& twrw =
      option(space, "t0", ShardingType::kTableRowWise, ComputeKernel::kFused);
  ASSERT_EQ(twrw.num_shards(), 8);
  EXPECT_EQ(twrw.shards[0].rows, 12500);
  Scenario no_pod = scenario(16, 4);
  const ShardingOption& host_twrw =
      option(options_of(no_pod, k2026), "t0", ShardingType::kTableRowWise, ComputeKernel::kFused);
  ASSERT_EQ(host_twrw.num_shards(), 4);
  EXPECT_LT(twrw.shard_perf.fwd_compute, host_twrw.shard_perf.fwd_compute);
  const ShardingOption& rw = option(space, "t0", ShardingType::kRowWise, ComputeKernel::kFused);
  // Two groups: the intra-group reduce-scatter costs what row-wise's does
  // (same bytes, inter-host bandwidth), plus the all-to-all between groups.
  EXPECT_GT(twrw.shard_perf.fwd_comms, rw.shard_perf.fwd_comms);
  // 2024-02 has no pods: the key is refused before planning.
  expect_refused_in_2024(s, "topology.pod_size: TorchRec 2024-02 has no pods");
}

// TorchRecBehaviour::grid_shard
TEST(TorchRecVersionTest, GridShardIsOfferedWhenNamedIn2026AndRefusedIn2024) {
  Scenario s = scenario(16, 4, 2, 100000, 256);
  s.constraints[0]->sharding_types =
      std::vector<ShardingType>{ShardingType::kTableWise, ShardingType::kGridShard};
  const SearchSpace space = options_of(s, k2026);
  const ShardingOption& grid = option(space, "t0", ShardingType::kGridShard, ComputeKernel::kFused);
  // Column blocks of 128, each split over a host of 4: block-major.
  ASSERT_EQ(grid.num_shards(), 8);
  EXPECT_EQ(grid.shards[4].col_offset, 128);
  EXPECT_EQ(grid.shards[4].row_offset, 0);
  EXPECT_EQ(grid.shards[5].row_offset, 25000);
  // Estimated as table-row-wise of one block's width.
  const ShardingOption& twrw = option(options_of(scenario(16, 4, 2, 100000, 128), k2026), "t0",
                                      ShardingType::kTableRowWise, ComputeKernel::kFused);
  EXPECT_EQ(grid.shard_perf.fwd_comms, twrw.shard_perf.fwd_comms);
  // Not named: never offered (t1 has no constraint on types).
  for (const ShardingOption& o : space.options) {
    EXPECT_TRUE(o.name == "t0" || o.sharding_type != ShardingType::kGridShard) << o.name;
  }
  expect_refused_in_2024(s, "constraints.t0.sharding_types[1]: TorchRec 2024-02 has no grid_shard");
}

// TorchRecBehaviour::ssd_tier: the devices' SSD, the guarded kernels and
// the key-value storage formula, hand-computed from TorchRec 376cac6a's
// calculate_shard_storages and kernel_bw_lookup
// (tests/golden/data-torchrec-2026-features/kv_l1_cache_and_load_factor_ws4
// is the same table in TorchRec's own output).
TEST(TorchRecVersionTest, SsdTierAndKeyValueKernelsIn2026AndRefusedIn2024) {
  Scenario s = scenario(4, 4, 2, 50000000, 128, 1.0);
  s.sharder.optimizer = OptimizerKind::kAdam;
  s.sharder.has_fused_params = true;
  s.sharder.cache_load_factor = 0.05;
  ConstraintSpec& kv = *s.constraints[0];
  kv.compute_kernels = std::vector<ComputeKernel>{ComputeKernel::kKeyValue};
  kv.key_value_params = KeyValueParams{.max_l1_cache_size = 1024};
  kv.cache_params = CacheParams{.load_factor = 0.5};
  EXPECT_EQ(make_topology(with_version(s, k2026)).devices[3].storage.ssd, kDefaultSsdCap);
  EXPECT_EQ(make_topology(with_version(s, k2024)).devices[3].storage.ssd, 0);

  const SearchSpace space = options_of(s, k2026);
  const ShardingOption& tw =
      option(space, "t0", ShardingType::kTableWise, ComputeKernel::kKeyValue);
  ASSERT_EQ(tw.num_shards(), 1);
  // HBM: the L1 cache, min(1024 MiB, rows x 0.05 (the sharder's factor) x
  // 4 x 128) = 2^30, plus the I/O buffers (512 x 4 x 8 input, 512 x 4 x 128
  // x 4 output).
  EXPECT_EQ(tw.shards.storage(0).hbm, (int64_t{1} << 30) + 16384 + 1048576);
  EXPECT_EQ(tw.shards.storage(0).ddr, 0);
  // SSD: the table (25.6 GB) with Adam's two states, and the cache's state
  // at the constraint's load factor: 50M x (4 + 0.5 x 16).
  EXPECT_EQ(tw.shards.storage(0).ssd, int64_t{25600000000} * 3 + int64_t{50000000} * 12);
  // Forward compute at the SSD's 100 MiB/s: the table-wise bytes (ids 512 x
  // 4 x 8, lookups and outputs 512 x 4 x 128 x 4 each) over 104857.6 bytes/ms.
  EXPECT_DOUBLE_EQ(tw.shard_perf.fwd_compute, 2113536 / kDefaultSsdMemBw);
  // The guarded kernels reach only the table whose constraint names them.
  for (const ShardingOption& o : space.options) {
    EXPECT_TRUE(o.name == "t0" || !is_guarded(o.compute_kernel)) << o.name;
  }
  // Without SSD there is no key_value option; t0 then has none at all.
  Scenario no_ssd = s;
  no_ssd.topology.ssd_cap = 0;
  const PlannerResult none = plan(with_version(no_ssd, k2026));
  EXPECT_EQ(none.error.planner_error(), PlannerErrorType::kNoOptions) << none.error.message();

  expect_refused_in_2024(
      s, "constraints.t0.compute_kernels[0]: TorchRec 2024-02 has no SSD tier, key-value kernels");
  Scenario cap = scenario(4, 4);
  cap.topology.ssd_cap = int64_t{1} << 40;
  expect_refused_in_2024(cap, "topology.ssd_cap: TorchRec 2024-02 has no SSD tier");
}

// Virtual tables: their weights cost no HBM or DDR without an L1 cache, for
// any kernel of a table whose constraint says use_virtual_table, and their
// row-wise layout is by buckets (_calculate_rw_shard_sizes_and_offsets).
TEST(TorchRecVersionTest, VirtualTablesCostTheirBuffersAndSplitByBuckets) {
  Scenario s = scenario(4, 4, 1, 100, 64, 1.0);
  s.constraints[0]->use_virtual_table = true;
  s.tables[0].use_virtual_table = true;
  s.tables[0].total_num_buckets = 10;
  const SearchSpace space = options_of(s, k2026);
  const ShardingOption& tw = option(space, "t0", ShardingType::kTableWise, ComputeKernel::kFused);
  // Only the I/O buffers: 512 x 4 x 8 input and 512 x 4 x 64 x 4 output.
  EXPECT_EQ(tw.shards.storage(0).hbm, 16384 + 524288);
  EXPECT_EQ(tw.shards.storage(0).ddr, 0);
  EXPECT_EQ(tw.shards.storage(0).ssd, 0);
  // 10 buckets of 10 rows over 4 ranks: 3, 3, 2, 2 buckets.
  const ShardingOption& rw = option(space, "t0", ShardingType::kRowWise, ComputeKernel::kFused);
  ASSERT_EQ(rw.num_shards(), 4);
  EXPECT_EQ(rw.shards[0].rows, 30);
  EXPECT_EQ(rw.shards[1].row_offset, 30);
  EXPECT_EQ(rw.shards[3].rows, 20);
  EXPECT_EQ(rw.shards[3].row_offset, 80);
  // Table-row-wise is not bucketed: ceil(100 / 4) rows each.
  EXPECT_EQ(option(space, "t0", ShardingType::kTableRowWise, ComputeKernel::kFused).shards[3].rows,
            25);
  // Fewer buckets than ranks, and buckets that do not divide the rows: the
  // exceptions TorchRec raises inside plan().
  s.tables[0].total_num_buckets = 3;
  PlannerResult r = plan(with_version(s, k2026));
  EXPECT_EQ(r.error.planner_error(), PlannerErrorType::kOther);
  EXPECT_NE(r.error.message().find("Number of buckets (3) must be >= the number of ranks (4)"),
            std::string::npos)
      << r.error.message();
  s.tables[0].total_num_buckets = 8;
  r = plan(with_version(s, k2026));
  EXPECT_EQ(r.error.planner_error(), PlannerErrorType::kOther);
  EXPECT_NE(r.error.message().find("hash_size must be divisible by num_buckets"), std::string::npos)
      << r.error.message();
  expect_refused_in_2024(s, "tables[0].use_virtual_table: TorchRec 2024-02 has no SSD tier");
  // Not in inference, whose modules TorchRec builds with FBGEMM's kernels.
  s.planner.is_inference = true;
  r = plan(with_version(s, k2026));
  EXPECT_EQ(r.error.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.error.message().find("tables[0].use_virtual_table: a virtual table in inference"),
            std::string::npos)
      << r.error.message();
}

// TorchRecBehaviour::dynamic_programming_proposer
TEST(TorchRecVersionTest, DynamicProgrammingProposerIn2026Only) {
  Scenario s = scenario(4, 4, 3);
  s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kDynamicProgramming}};
  const PlannerResult r = plan(with_version(s, k2026));
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_GT(r.num_proposals, 1);
  expect_refused_in_2024(
      s, "planner.proposers[0]: TorchRec 2024-02 has no dynamic_programming proposer");
}

// TorchRecBehaviour::mtia_offers_model_parallel_types
TEST(TorchRecVersionTest, MtiaOffersFiveShardingTypesIn2026) {
  Scenario s = scenario(4, 4);
  s.topology.compute_device = ComputeDevice::kMtia;
  auto types = [&](TorchRecVersion v) {
    std::vector<ShardingType> out;
    for (const ShardingOption& o : options_of(s, v).options) out.push_back(o.sharding_type);
    return out;
  };
  EXPECT_EQ(types(k2024), std::vector<ShardingType>{ShardingType::kTableWise});
  EXPECT_EQ(types(k2026),
            (std::vector<ShardingType>{ShardingType::kTableWise, ShardingType::kColumnWise,
                                       ShardingType::kTableColumnWise, ShardingType::kRowWise,
                                       ShardingType::kTableRowWise}));
}

// TorchRecBehaviour::uvm_over_hbm_to_ddr_link
TEST(TorchRecVersionTest, UvmKernelsUseTheHbmToDdrLinkIn2026) {
  const Scenario s = scenario(2, 2);
  const ShardingOption old_uvm =
      option(options_of(s, k2024), "t0", ShardingType::kTableWise, ComputeKernel::kFusedUvm);
  const ShardingOption new_uvm =
      option(options_of(s, k2026), "t0", ShardingType::kTableWise, ComputeKernel::kFusedUvm);
  // Same bytes over ddr_mem_bw / 10 versus hbm_to_ddr_mem_bw / 10 (51 vs 32 GiB/s).
  EXPECT_NEAR(new_uvm.shard_perf.fwd_compute / old_uvm.shard_perf.fwd_compute, 51.0 / 32.0, 1e-12);
  EXPECT_EQ(new_uvm.shard_perf.fwd_comms, old_uvm.shard_perf.fwd_comms);
  // The link is a topology field: at DDR speed the 2026 model agrees.
  Scenario same = s;
  same.topology.hbm_to_ddr_mem_bw = same.topology.ddr_mem_bw;
  const ShardingOption at_ddr =
      option(options_of(same, k2026), "t0", ShardingType::kTableWise, ComputeKernel::kFusedUvm);
  EXPECT_EQ(at_ddr.shard_perf.fwd_compute, old_uvm.shard_perf.fwd_compute);
  // Only UVM kernels change.
  EXPECT_EQ(option(options_of(s, k2026), "t0", ShardingType::kTableWise, ComputeKernel::kFused)
                .shard_perf,
            option(options_of(s, k2024), "t0", ShardingType::kTableWise, ComputeKernel::kFused)
                .shard_perf);
}

// TorchRecBehaviour::zero_load_factor_kept_in_perf
TEST(TorchRecVersionTest, ZeroLoadFactorIsKeptByThe2026PerfEstimator) {
  Scenario s = scenario(2, 2);
  // The same host bandwidth in both models, so only the load factor rule differs.
  s.topology.hbm_to_ddr_mem_bw = s.topology.ddr_mem_bw;
  s.constraints[0]->cache_params = CacheParams{.load_factor = 0.0};
  const ShardingOption old_cached =
      option(options_of(s, k2024), "t0", ShardingType::kTableWise, ComputeKernel::kFusedUvmCaching);
  const ShardingOption new_cached =
      option(options_of(s, k2026), "t0", ShardingType::kTableWise, ComputeKernel::kFusedUvmCaching);
  const double old_bw = (0.2 * kDefaultHbmMemBw + (1 - 0.2) * kDefaultDdrMemBw) / 10;
  const double new_bw = (0.0 * kDefaultHbmMemBw + (1 - 0.0) * kDefaultDdrMemBw) / 10;
  EXPECT_NEAR(new_cached.shard_perf.fwd_compute / old_cached.shard_perf.fwd_compute,
              old_bw / new_bw, 1e-12);
  // The storage estimator replaces 0 by 0.2 in both versions.
  const int64_t table = 100000 * 128 * 4;
  EXPECT_EQ(new_cached.total_storage.ddr, table);
  EXPECT_EQ(old_cached.total_storage.ddr, table);
}

// TorchRecBehaviour::no_backward_in_inference
TEST(TorchRecVersionTest, InferenceHasNoBackwardForAnyShardingTypeIn2026) {
  Scenario s = scenario(4, 4);
  s.planner.is_inference = true;
  s.tables[0].data_type = DataType::kInt8;
  const SearchSpace old_space = options_of(s, k2024);
  const SearchSpace new_space = options_of(s, k2026);
  const Perf old_rw =
      option(old_space, "t0", ShardingType::kRowWise, ComputeKernel::kQuant).shard_perf;
  const Perf new_rw =
      option(new_space, "t0", ShardingType::kRowWise, ComputeKernel::kQuant).shard_perf;
  EXPECT_GT(old_rw.bwd_compute, 0.0);
  EXPECT_GT(old_rw.bwd_comms, 0.0);
  EXPECT_EQ(new_rw.bwd_compute, 0.0);
  EXPECT_EQ(new_rw.bwd_comms, 0.0);
  EXPECT_EQ(new_rw.fwd_compute, old_rw.fwd_compute);
  EXPECT_EQ(new_rw.fwd_comms, old_rw.fwd_comms);
  // Table-wise had none in either version.
  const Perf old_tw =
      option(old_space, "t0", ShardingType::kTableWise, ComputeKernel::kQuant).shard_perf;
  EXPECT_EQ(old_tw,
            option(new_space, "t0", ShardingType::kTableWise, ComputeKernel::kQuant).shard_perf);
  EXPECT_EQ(old_tw.bwd_compute, 0.0);
}

// FBGEMM's quantized rows, in both versions: columns packed per byte, an
// fp16 scale and bias for the integer types, padded to 16 bytes; the tensor
// is as many columns wide as the padded row has bytes times columns per byte.
TEST(TorchRecVersionTest, QuantizedRowsArePaddedAndPacked) {
  const struct {
    DataType type;
    int64_t dim;
    int64_t cols;
  } cases[] = {
      {DataType::kFp16, 100, 208},  // 200 bytes -> 208
      {DataType::kInt8, 128, 144},  // 128 + 4 -> 144
      {DataType::kInt4, 128, 160},  // 64 + 4 -> 80, 2 columns a byte
      {DataType::kInt2, 128, 192},  // 32 + 4 -> 48, 4 columns a byte
      {DataType::kInt4, 30, 64},    // 15 + 4 -> 32
  };
  for (const auto& c : cases) {
    Scenario s = scenario(2, 2, 1, 100000, c.dim);
    s.planner.is_inference = true;
    s.tables[0].data_type = c.type;
    for (const TorchRecVersion version : {k2024, k2026}) {
      const ShardingOption o =
          option(options_of(s, version), "t0", ShardingType::kTableWise, ComputeKernel::kQuant);
      EXPECT_EQ(o.tensor_cols, c.cols) << static_cast<int>(c.type) << " dim " << c.dim;
    }
  }
}

// TorchRecBehaviour::twrw_two_level_comms
TEST(TorchRecVersionTest, TableRowWiseCommsAreTwoLevelIn2026) {
  // 2 hosts of 4: W = 8, Lw = 4, two host groups.
  const Scenario s = scenario(8, 4, 1, 100000, 128, 2.0);
  const Perf old_p =
      option(options_of(s, k2024), "t0", ShardingType::kTableRowWise, ComputeKernel::kFused)
          .shard_perf;
  const Perf new_p =
      option(options_of(s, k2026), "t0", ShardingType::kTableRowWise, ComputeKernel::kFused)
          .shard_perf;
  const double batch = 512;  // one pooled output per sample
  const double d = 128;
  const double w = 8;
  const double lw = 4;
  const double hosts = 2;
  const double out = batch * w * d * 4;  // reduce-scatter bytes inside the host
  const double copy = out * 2.455 / kDefaultHbmMemBw;
  EXPECT_EQ(old_p.fwd_comms,
            out / kDefaultIntraHostBw + ((batch * w * d * 4) * (lw / w)) / kDefaultInterHostBw);
  EXPECT_EQ(new_p.fwd_comms,
            out / kDefaultIntraHostBw + (batch * hosts * d * 4) / kDefaultInterHostBw);
  EXPECT_EQ(old_p.bwd_comms, out / kDefaultIntraHostBw + copy);
  EXPECT_EQ(new_p.bwd_comms,
            ((batch * hosts * d * 4) / kDefaultInterHostBw + out / kDefaultIntraHostBw) + copy);
  EXPECT_EQ(new_p.fwd_compute, old_p.fwd_compute);
}

// TorchRecBehaviour::pooled_output_capped_by_pooling_factor
TEST(TorchRecVersionTest, PooledOutputsCountMinOfOneAndThePoolingFactorIn2026) {
  // A quarter of the samples have an id: pooling factor 0.25.
  const Scenario s = scenario(2, 2, 1, 100000, 128, 0.25);
  const ShardingOption old_tw =
      option(options_of(s, k2024), "t0", ShardingType::kTableWise, ComputeKernel::kFused);
  const ShardingOption new_tw =
      option(options_of(s, k2026), "t0", ShardingType::kTableWise, ComputeKernel::kFused);
  EXPECT_EQ(new_tw.shard_perf.fwd_comms, old_tw.shard_perf.fwd_comms * 0.25);
  // The output buffer: 512 samples x 2 ranks x 128 x 4 bytes, a quarter of it in 2026.
  const int64_t full_output = 512 * 2 * 128 * 4;
  EXPECT_EQ(old_tw.total_storage.hbm - new_tw.total_storage.hbm, full_output - full_output / 4);
  // Pooling factors of 1 or more are unchanged.
  const Scenario dense = scenario(2, 2, 1, 100000, 128, 3.0);
  EXPECT_EQ(option(options_of(dense, k2024), "t0", ShardingType::kTableWise, ComputeKernel::kFused)
                .shard_perf,
            option(options_of(dense, k2026), "t0", ShardingType::kTableWise, ComputeKernel::kFused)
                .shard_perf);
}

// TorchRecBehaviour::cache_aux_state_in_hbm
TEST(TorchRecVersionTest, CachingKernelsAddAuxiliaryCacheStateIn2026) {
  Scenario s = scenario(4, 4, 1, 100001, 128, 2.0);
  s.constraints[0]->cache_params = CacheParams{.load_factor = 0.3};
  const ShardingOption old_rw =
      option(options_of(s, k2024), "t0", ShardingType::kRowWise, ComputeKernel::kFusedUvmCaching);
  const ShardingOption new_rw =
      option(options_of(s, k2026), "t0", ShardingType::kRowWise, ComputeKernel::kFusedUvmCaching);
  ASSERT_EQ(old_rw.shards.size(), new_rw.shards.size());
  for (size_t j = 0; j < new_rw.shards.size(); ++j) {
    const auto rows = static_cast<double>(new_rw.shards[j].rows);
    EXPECT_EQ(new_rw.shards.storage(j).hbm - old_rw.shards.storage(j).hbm,
              static_cast<int64_t>(std::ceil(rows * (4 + 0.3 * 16))));
    EXPECT_EQ(new_rw.shards.storage(j).ddr, old_rw.shards.storage(j).ddr);
  }
  // Fused options carry no cache.
  EXPECT_EQ(option(options_of(s, k2024), "t0", ShardingType::kRowWise, ComputeKernel::kFused)
                .total_storage,
            option(options_of(s, k2026), "t0", ShardingType::kRowWise, ComputeKernel::kFused)
                .total_storage);
}

// TorchRecBehaviour::fixed_percentage_estimates_kjt
TEST(TorchRecVersionTest, FixedPercentageEstimatesKjtStorageIn2026) {
  Scenario s = scenario(2, 2, 2, 1000, 64, 3.0);
  s.batch_size = 65536;
  s.planner.storage_reservation =
      StorageReservationSpec{.kind = ReservationKind::kFixedPercentage, .percentage = 0.3};
  const PlannerResult old_r = plan(with_version(s, k2024));
  const PlannerResult new_r = plan(with_version(s, k2026));
  ASSERT_TRUE(old_r.ok() && new_r.ok());
  EXPECT_FALSE(old_r.reserved->kjt.has_value());
  // 2 tables x pooling 3 x batch 65536 x 8 bytes, 20 copies: 0.059 GB.
  ASSERT_TRUE(new_r.reserved->kjt.has_value());
  EXPECT_EQ(*new_r.reserved->kjt, (Storage{int64_t{2} * 3 * 65536 * 8 * 20, 0}));
  // Estimated, not reserved: the HBM and DDR left are the same (2026-08 adds SSD).
  ASSERT_EQ(new_r.reserved->devices.size(), old_r.reserved->devices.size());
  for (size_t r = 0; r < new_r.reserved->devices.size(); ++r) {
    EXPECT_EQ(new_r.reserved->devices[r].hbm, old_r.reserved->devices[r].hbm);
    EXPECT_EQ(new_r.reserved->devices[r].ddr, old_r.reserved->devices[r].ddr);
  }
  // The stats print it (and add it to every rank's HBM).
  const std::vector<std::string> new_stats = format_stats(with_version(s, k2026), new_r);
  const auto kjt = std::find_if(new_stats.begin(), new_stats.end(), [](const std::string& l) {
    return l.find("KJT Storage") != std::string::npos;
  });
  ASSERT_NE(kjt, new_stats.end());
  ASSERT_NE(kjt + 1, new_stats.end());
  EXPECT_NE((kjt + 1)->find("HBM: 0.059 GB, DDR: 0.0 GB"), std::string::npos) << *(kjt + 1);
  EXPECT_FALSE(has(format_stats(with_version(s, k2024), old_r), "KJT Storage"));
}

// TorchRecBehaviour::scaleup_starts_from_caching_options
TEST(TorchRecVersionTest, ScaleupStartsFromCachingOptionsIn2026) {
  Scenario s = scenario(2, 2, 2, 2000000, 128, 1.0);
  s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kEmbeddingOffloadScaleup}};
  for (auto& c : s.constraints) c->cache_params = CacheParams{.load_factor = 0.2};
  const PlannerResult old_r = plan(with_version(s, k2024));
  const PlannerResult new_r = plan(with_version(s, k2026));
  ASSERT_TRUE(old_r.ok()) << old_r.error.message();
  ASSERT_TRUE(new_r.ok()) << new_r.error.message();
  EXPECT_EQ(old_r.num_proposals, 1);
  EXPECT_EQ(new_r.num_proposals, 1);
  for (int idx : old_r.best->proposal) {
    EXPECT_NE(old_r.search_space->options[idx].compute_kernel, ComputeKernel::kFusedUvmCaching);
  }
  for (int idx : new_r.best->proposal) {
    EXPECT_EQ(new_r.search_space->options[idx].compute_kernel, ComputeKernel::kFusedUvmCaching);
  }

  // A cached table costing more HBM than the whole table (load factor 0.9
  // plus cache state on a narrow table) is turned into a fused one, an
  // option the enumerator did not list (its load factor is cleared).
  Scenario narrow = scenario(2, 2, 1, 2000000, 4, 1.0);
  narrow.planner.proposers = s.planner.proposers;
  narrow.constraints[0]->cache_params = CacheParams{.load_factor = 0.9};
  narrow.constraints[0]->compute_kernels =
      std::vector<ComputeKernel>{ComputeKernel::kFusedUvmCaching};
  const PlannerResult promoted = plan(with_version(narrow, k2026));
  ASSERT_TRUE(promoted.ok()) << promoted.error.message();
  const ShardingOption& chosen = promoted.search_space->options[promoted.best->proposal[0]];
  EXPECT_EQ(chosen.compute_kernel, ComputeKernel::kFused);
  ASSERT_TRUE(chosen.cache_params.has_value());
  EXPECT_FALSE(chosen.cache_params->load_factor.has_value());
  EXPECT_EQ(promoted.search_space->num_derived, 1u);
  const PlannerResult kept = plan(with_version(narrow, k2024));
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept.search_space->options[kept.best->proposal[0]].compute_kernel,
            ComputeKernel::kFusedUvmCaching);

  // A cached starting option without cache parameters is TorchRec's
  // assertion failure, before any proposal.
  Scenario bare = scenario(2, 2, 1, 2000000, 128, 1.0);
  bare.planner.proposers = s.planner.proposers;
  bare.constraints[0]->compute_kernels =
      std::vector<ComputeKernel>{ComputeKernel::kFusedUvmCaching};
  const PlannerResult failed = plan(with_version(bare, k2026));
  EXPECT_EQ(failed.error.code(), StatusCode::kPlanner);
  EXPECT_EQ(failed.error.planner_error(), PlannerErrorType::kOther);
  EXPECT_NE(failed.error.message().find("t0"), std::string::npos) << failed.error.message();
  EXPECT_EQ(failed.num_proposals, 0);
  EXPECT_TRUE(plan(with_version(bare, k2024)).ok());
}

// TorchRecBehaviour::memory_balanced_bounds_from_default_plan
TEST(TorchRecVersionTest, MemoryBalancedSearchStartsFromTheDefaultPlanIn2026) {
  // Eight table-wise tables on 4 ranks of a huge device: 2024 bisects from
  // the capacity, so one search step (max_search_count 1) lands far above
  // any rank's usage and keeps the default plan; 2026 bisects from the
  // busiest rank and tries a tighter cap.
  Scenario s = scenario(4, 4, 8, 1000, 64, 1.0);
  const int64_t sizes[] = {4000000, 3000000, 2500000, 2000000, 1500000, 1000000, 500000, 250000};
  for (int i = 0; i < 8; ++i) s.tables[i].num_embeddings = sizes[i];
  for (auto& c : s.constraints)
    c->sharding_types = std::vector<ShardingType>{ShardingType::kTableWise};
  s.topology.hbm_cap = int64_t{1} << 40;
  s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kUniform}};
  s.planner.partitioner = PartitionerSpec{
      .kind = PartitionerKind::kMemoryBalanced, .max_search_count = 1, .tolerance = 100.0};
  auto max_rank_hbm = [](const PlannerResult& r) {
    std::vector<int64_t> per_rank(4, 0);
    const PartitionedPlan& p = *r.best;
    for (size_t i = 0; i < p.proposal.size(); ++i) {
      const ShardingOption& o = r.search_space->options[p.proposal[i]];
      for (int j = 0; j < o.num_shards(); ++j)
        per_rank[p.ranks[p.first_shard[i] + j]] += o.shards.storage(j).hbm;
    }
    return *std::max_element(per_rank.begin(), per_rank.end());
  };
  Scenario greedy = s;
  greedy.planner.partitioner =
      PartitionerSpec{.kind = PartitionerKind::kGreedyPerf, .sort_by = SortBy::kPerf};
  const PlannerResult base = plan(with_version(greedy, k2024));
  const PlannerResult old_r = plan(with_version(s, k2024));
  const PlannerResult new_r = plan(with_version(s, k2026));
  ASSERT_TRUE(base.ok() && old_r.ok() && new_r.ok());
  EXPECT_EQ(old_r.best->ranks, base.best->ranks);
  EXPECT_LT(max_rank_hbm(new_r), max_rank_hbm(old_r));
}

// TorchRecBehaviour::stats_layout
TEST(TorchRecVersionTest, StatsLayoutFollowsTheVersion) {
  const Scenario s = scenario(2, 2, 3);
  const Scenario old_s = with_version(s, k2024);
  const Scenario new_s = with_version(s, k2026);
  const std::vector<std::string> old_stats = format_stats(old_s, plan(old_s));
  const std::vector<std::string> new_stats = format_stats(new_s, plan(new_s));
  EXPECT_TRUE(has(old_stats, "# Compute Kernels:"));
  EXPECT_TRUE(has(old_stats, "Storage (HBM, DDR)  "));
  EXPECT_TRUE(has(old_stats, "Usable Memory:"));
  EXPECT_FALSE(has(old_stats, "Compute Kernels Count:"));
  EXPECT_TRUE(has(new_stats, "# Compute Kernels Count:"));
  EXPECT_TRUE(has(new_stats, "Storage (HBM, DDR, SSD)"));
  EXPECT_TRUE(has(new_stats, "Planning Memory:"));
  EXPECT_TRUE(has(new_stats, "Total Perf Imbalance Statistics"));
  EXPECT_FALSE(has(new_stats, "Usable Memory:"));
}

TEST(TorchRecVersionTest, NamesParseAndTheNewestIsTheDefault) {
  EXPECT_EQ(parse_torchrec_version("2024-02"), k2024);
  EXPECT_EQ(parse_torchrec_version("2026-08"), k2026);
  EXPECT_FALSE(parse_torchrec_version("2025-01").has_value());
  EXPECT_EQ(to_string(k2026), "2026-08");
  EXPECT_EQ(torchrec_commit(k2024), "fe1c2824");
  EXPECT_EQ(model_name(k2026), "2026-08 (commit 376cac6a)");
  EXPECT_EQ(Scenario{}.planner.torchrec_version, k2026);
  EXPECT_EQ(kLatestTorchRecVersion, all_torchrec_versions().back());
  EXPECT_EQ(torchrec_behaviour(k2024).version, k2024);
  EXPECT_EQ(torchrec_behaviour(k2026).version, k2026);
}

}  // namespace
}  // namespace shardlab::planner
