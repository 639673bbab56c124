// format_stats on hand-built planner results (docs/cost-model.md §10): the
// parts of the layout the goldens do not pin down on their own.

#include "shardlab/planner/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {
namespace {

std::string padded(const std::string& s, int width) {
  return "# " + s + std::string(static_cast<size_t>(width - 3) - s.size(), ' ') + "#";
}

bool has_line_starting(const std::vector<std::string>& lines, const std::string& prefix) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

// One table "t0" of 1000 x 64 fp32 in module "ebc", a single TW option whose
// shard carries `perf` and `storage`; world size 2. The stats layout is the
// one of `version` (the tests below that do not name one check 2024-02's).
struct Fixture {
  Scenario scenario;
  PlannerResult result;

  Fixture(const Perf& perf, const Storage& storage, bool inference,
          TorchRecVersion version = TorchRecVersion::k2024_02) {
    scenario.batch_size = 512;
    scenario.planner.is_inference = inference;
    scenario.planner.torchrec_version = version;
    TableSpec t;
    t.name = "t0";
    t.num_embeddings = 1000;
    t.embedding_dim = 64;
    t.feature_names = {"f0"};
    scenario.tables = {t};
    scenario.constraints.resize(1);

    TopologySpec spec;
    spec.world_size = 2;
    result.topology = make_topology(spec);
    ReservationResult reserved;
    reserved.kind = ReservationKind::kFixedPercentage;
    reserved.percentage = 0.15;
    result.reserved = reserved;

    SearchSpace space;
    ModuleInfo m;
    m.path = "ebc";
    m.sharder_name = "EmbeddingBagCollectionSharder";
    m.tables = {0};
    space.modules = {m};
    ShardingOption o;
    o.table = 0;
    o.module = 0;
    o.name = "t0";
    o.fqn = "ebc.t0";
    o.sharding_type = ShardingType::kTableWise;
    o.compute_kernel = inference ? ComputeKernel::kQuant : ComputeKernel::kFused;
    o.tensor_rows = 1000;
    o.tensor_cols = 64;
    o.input_lengths = {1.0};
    o.num_poolings = {1.0};
    o.batch_sizes = {512};
    o.shard_perf = perf;
    Shard s;
    s.rows = 1000;
    s.cols = 64;
    s.storage = storage;
    o.shards = {s};
    o.total_perf = perf.total();
    o.total_storage = storage;
    space.options = {o};
    space.fqns = {"ebc.t0"};
    space.options_by_fqn = {{0}};
    space.fqn_of_option = {0};
    result.search_space = space;
    result.num_proposals = 3;
  }

  PartitionedPlan plan_on(int rank) const {
    PartitionedPlan p;
    init_partitioned_plan(*result.search_space, {0}, &p);
    p.ranks = {rank};
    return p;
  }
};

TEST(FormatStats, FailureWithoutDebugHasNoTables) {
  Fixture f(Perf{0.001, 0.001, 0.002, 0.001, 0.0}, Storage{1000, 0}, false);
  f.result.last_proposal = f.plan_on(-1);
  f.result.error = Status::planner(PlannerErrorType::kInsufficientStorage, "no");
  const std::vector<std::string> lines =
      format_stats(f.scenario, f.result, StatsOptions{.debug = false});
  // Without a plan the rank table is not printed, but it is still formatted
  // and sets the width: 9 + 13 + 13 + 36 + 15 + 16 + 11 characters of
  // columns ("0.004 (0.001,0.001,0.002,0.001,0)" is the widest cell), + 8.
  const int w = 121;
  const std::vector<std::string> expected = {
      std::string(w, '#'),
      "#" + std::string(46, ' ') + "--- Planner Statistics ---" + std::string(47, ' ') + "#",
      // 72 characters centred in 119: the odd space goes right.
      "#" + std::string(23, ' ') +
          "--- Evaluated 3 proposal(s), found 0 possible plan(s), ran for 0.00s ---" +
          std::string(24, ' ') + "#",
      "# " + std::string(w - 4, '-') + " #",
      "#" + std::string(w - 2, ' ') + "#",
      padded("Batch Size: 512", w),
      "#" + std::string(w - 2, ' ') + "#",
      padded("World Size: 2", w),
      "#" + std::string(w - 2, ' ') + "#",
      padded("Compute Kernels:", w),
      "#    fused: 1" + std::string(w - 14, ' ') + "#",
      std::string(w, '#'),
  };
  EXPECT_EQ(lines, expected);
}

TEST(FormatStats, FailedShardsWidenTheTableFromTheLastRank) {
  // A perf breakdown long enough to make the rank table wider than 90.
  const Perf big{1234567.0, 2345678.0, 3456789.0, 4567890.0, 0.0};
  Fixture failed(big, Storage{int64_t{1} << 40, 0}, false);
  failed.result.last_proposal = failed.plan_on(-1);
  const std::vector<std::string> failed_lines =
      format_stats(failed.scenario, failed.result, StatsOptions{.debug = false});

  Fixture placed(big, Storage{int64_t{1} << 40, 0}, false);
  placed.result.best = placed.plan_on(1);
  placed.result.num_plans = 1;
  const std::vector<std::string> placed_lines =
      format_stats(placed.scenario, placed.result, StatsOptions{.debug = false});

  ASSERT_FALSE(failed_lines.empty());
  ASSERT_FALSE(placed_lines.empty());
  EXPECT_GT(placed_lines[0].size(), 90u);
  // docs/cost-model.md O28: rank -1 is Python's last rank; the table is not printed but sets the
  // width.
  EXPECT_EQ(failed_lines[0].size(), placed_lines[0].size());
  EXPECT_FALSE(has_line_starting(failed_lines, "#      Rank"));
  EXPECT_TRUE(has_line_starting(placed_lines, "#      Rank"));
}

TEST(FormatStats, InferenceBackwardMaximaAreIntegers) {
  Fixture f(Perf{0.004, 0.0005, 0.0, 0.0, 0.0}, Storage{1 << 20, 0}, true);
  f.result.best = f.plan_on(0);
  f.result.num_plans = 1;
  const std::vector<std::string> lines = format_stats(f.scenario, f.result);
  // TorchRec's inference TW perf has int 0 backward terms; rank 1 holds
  // nothing, so its accumulators are still int 0 too.
  EXPECT_TRUE(has_line_starting(lines, "# Maximum of Backward Compute: 0 ms on ranks 0-1 "));
  EXPECT_TRUE(has_line_starting(lines, "# Maximum of Backward Comms: 0 ms on ranks 0-1 "));
  EXPECT_TRUE(has_line_starting(lines, "# Maximum of Prefetch Compute: 0.0 ms on ranks 0-1 "));
  EXPECT_TRUE(has_line_starting(lines, "# Maximum of Forward Compute: 0.004 ms on rank 0 "));
  // A fixed-percentage reservation prints no dense/KJT sections.
  EXPECT_FALSE(has_line_starting(lines, "# Dense Storage"));
  EXPECT_TRUE(has_line_starting(lines, "#    Percent of Total HBM: 85% "));
}

TEST(FormatStats, InferenceBackwardMaximaAreFloatsIn2026) {
  // TorchRec 2026-08's inference evaluators return 0.0 backward terms: only
  // rank 1, which holds nothing, keeps int accumulators, and Python's max
  // returns rank 0's float.
  Fixture f(Perf{0.004, 0.0005, 0.0, 0.0, 0.0}, Storage{1 << 20, 0}, true,
            TorchRecVersion::k2026_08);
  f.result.best = f.plan_on(0);
  f.result.num_plans = 1;
  const std::vector<std::string> lines = format_stats(f.scenario, f.result);
  EXPECT_TRUE(has_line_starting(lines, "# Maximum of Backward Compute: 0.0 ms on ranks 0-1 "));
  EXPECT_TRUE(has_line_starting(lines, "# Maximum of Forward Compute: 0.004 ms on rank 0 "));
  // Rank totals 0.0045 and 0: the mean is half the maximum.
  EXPECT_TRUE(has_line_starting(lines, "# Max Total Perf is 100% greater than the mean "));
  // The reserved 15% of 32 GiB, and (for every reservation in 2026-08) the
  // dense and KJT storage.
  EXPECT_TRUE(has_line_starting(lines, "#    HBM: 4.8 GB "));
  EXPECT_TRUE(has_line_starting(lines, "# Dense Storage (per rank): "));
}

TEST(FormatStats, FailureSectionsIn2026) {
  Fixture f(Perf{0.001, 0.001, 0.002, 0.001, 0.0}, Storage{1000, 0}, false,
            TorchRecVersion::k2026_08);
  f.result.last_proposal = f.plan_on(-1);
  f.result.error = Status::planner(PlannerErrorType::kInsufficientStorage, "no");
  const std::vector<std::string> lines =
      format_stats(f.scenario, f.result, StatsOptions{.debug = false});
  ASSERT_GE(lines.size(), 2u);
  const int w = static_cast<int>(lines.front().size());
  const std::vector<std::string> tail = {
      padded("Batch Size: 512", w),
      "#" + std::string(w - 2, ' ') + "#",
      padded("World Size: 2", w),
      "#" + std::string(w - 2, ' ') + "#",
      padded("Compute Kernels Count:", w),
      "#    fused: 1" + std::string(w - 14, ' ') + "#",
      "#" + std::string(w - 2, ' ') + "#",
      padded("Compute Kernels Embedding Weights:", w),
      // 1000 x 64 x 4 bytes.
      "#    fused: 0.0 GB" + std::string(w - 19, ' ') + "#",
      "#" + std::string(w - 2, ' ') + "#",
      padded("Compute Kernels Optimizer State:", w),
      "#    fused: 0.0 GB" + std::string(w - 19, ' ') + "#",
      "#" + std::string(w - 2, ' ') + "#",
      padded("Compute Kernels Total Estimated Memory (weights + optimizer + IO + pipeline):", w),
      "#    fused: HBM: 0.0 GB, DDR: 0.0 GB, SSD: 0.0 GB" + std::string(w - 50, ' ') + "#",
      "#" + std::string(w - 2, ' ') + "#",
      padded("Compute Kernel Constraints:", w),
      "#    Hardcoded: 0, Auto-selected: 1" + std::string(w - 36, ' ') + "#",
      std::string(w, '#'),
  };
  ASSERT_GE(lines.size(), tail.size());
  EXPECT_EQ(std::vector<std::string>(lines.end() - static_cast<long>(tail.size()), lines.end()),
            tail);
}

TEST(FormatStats, NothingWithoutAProposal) {
  Fixture f(Perf{}, Storage{}, false);
  EXPECT_TRUE(format_stats(f.scenario, f.result).empty());
}

}  // namespace
}  // namespace shardlab::planner
