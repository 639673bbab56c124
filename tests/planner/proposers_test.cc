// Proposers (docs/cost-model.md §7): exact proposal sequences on hand-built
// search spaces, including the tie-breaking that reproducing TorchRec needs.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proposer.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"

namespace shardlab::planner {
namespace {

using Sequence = std::vector<Proposal>;

// Builds a SearchSpace option by option, keeping the bookkeeping fields
// (fqns, options_by_fqn, fqn_of_option, totals) consistent.
class SpaceBuilder {
 public:
  // Adds an option of `fqn` with one shard per entry of `storages`, every
  // shard with perf total `shard_total`. Returns the option index.
  int add(const std::string& fqn, ShardingType type, double shard_total,
          const std::vector<Storage>& storages) {
    ShardingOption option;
    option.fqn = fqn;
    option.name = fqn;
    option.sharding_type = type;
    // total() adds the other (zero) components to fwd_compute exactly.
    option.shard_perf.fwd_compute = shard_total;
    for (const Storage& s : storages) {
      option.shards.push_back(Shard{.rows = 1, .cols = 1, .storage = s});
      option.total_perf += shard_total;
      option.total_storage += s;
    }
    int f = 0;
    while (f < static_cast<int>(space_.fqns.size()) && space_.fqns[f] != fqn) ++f;
    if (f == static_cast<int>(space_.fqns.size())) {
      space_.fqns.push_back(fqn);
      space_.options_by_fqn.emplace_back();
    }
    const int index = static_cast<int>(space_.options.size());
    space_.options.push_back(std::move(option));
    space_.options_by_fqn[f].push_back(index);
    space_.fqn_of_option.push_back(f);
    return index;
  }

  // Shorthand: a table-wise option with one shard of `hbm` bytes.
  int add(const std::string& fqn, double score, int64_t hbm) {
    return add(fqn, ShardingType::kTableWise, score, {Storage{.hbm = hbm}});
  }

  const SearchSpace& space() const { return space_; }

 private:
  SearchSpace space_;
};

// "t<f>". Appending (rather than "t" + std::to_string(f)) avoids a GCC 12
// -Wrestrict false positive.
std::string table_name(size_t f) {
  std::string name = "t";
  name += std::to_string(f);
  return name;
}

using Rater = std::function<std::optional<double>(int call)>;

// Drives `proposer` like the planner loop: propose, feed back, repeat.
// Every proposal is reported partitionable with `rater`'s rating (none by
// default).
Sequence drain(Proposer& proposer, const SearchSpace& space, const Rater& rater = nullptr,
               size_t limit = 100000) {
  proposer.load(space);
  Sequence seen;
  const std::vector<Storage> reserved{Storage{.hbm = int64_t{1} << 40}};
  while (std::optional<Proposal> p = proposer.propose()) {
    PartitionedPlan plan;
    plan.proposal = *p;
    const int call = static_cast<int>(seen.size());
    seen.push_back(std::move(*p));
    if (seen.size() > limit) break;
    proposer.feedback(true, &plan, rater ? rater(call) : std::nullopt, reserved);
  }
  return seen;
}

std::unique_ptr<Proposer> greedy(bool use_depth = true, std::optional<int64_t> threshold = {}) {
  return make_proposer(
      {.kind = ProposerKind::kGreedy, .use_depth = use_depth, .threshold = threshold});
}
std::unique_ptr<Proposer> uniform(bool use_depth = true) {
  return make_proposer({.kind = ProposerKind::kUniform, .use_depth = use_depth});
}
std::unique_ptr<Proposer> grid(int64_t max_proposals = 10000, bool use_depth = true) {
  return make_proposer(
      {.kind = ProposerKind::kGridSearch, .use_depth = use_depth, .max_proposals = max_proposals});
}
std::unique_ptr<Proposer> scaleup(bool use_depth = true) {
  return make_proposer({.kind = ProposerKind::kEmbeddingOffloadScaleup, .use_depth = use_depth});
}

std::unique_ptr<Proposer> dynamic_programming(int64_t bins_per_device = 100) {
  return make_proposer(
      {.kind = ProposerKind::kDynamicProgramming, .hbm_bins_per_device = bins_per_device});
}

// ---------------------------------------------------------------- scores

TEST(OptionScoreTest, DepthIsShardTotalAndSumIsRunningSum) {
  SpaceBuilder b;
  b.add("t", ShardingType::kRowWise, 0.1, std::vector<Storage>(10, Storage{.hbm = 1}));
  const ShardingOption& option = b.space().options[0];
  EXPECT_EQ(option_score(option, /*use_depth=*/true), 0.1);
  // A running sum from 0 in shard order (as Python's sum()) gives
  // 0.9999999999999999 here, not 10 * 0.1 = 1.0.
  double expected = 0.0;
  for (int j = 0; j < 10; ++j) expected += 0.1;
  EXPECT_EQ(option_score(option, /*use_depth=*/false), expected);
  EXPECT_NE(expected, 10 * 0.1);
}

TEST(OptionScoreTest, UsesTorchRecComponentOrder) {
  ShardingOption option;
  option.shard_perf = Perf{.fwd_compute = 1e16, .fwd_comms = 1.0, .bwd_compute = -1e16};
  option.shards.push_back(Shard{});
  // (fc + bc) + fm: the huge terms cancel first, so the 1.0 survives.
  EXPECT_EQ(option_score(option, true), 1.0);
}

TEST(OptionScoreTest, ZeroShardsScoreZero) {
  ShardingOption option;
  option.shard_perf.fwd_compute = 5.0;
  EXPECT_EQ(option_score(option, true), 0.0);
  EXPECT_EQ(option_score(option, false), 0.0);
}

// ---------------------------------------------------------------- greedy

// A: a0 (score 3, 100 B), a1 (1, 50 B), a2 (2, 10 B) -> sorted a1, a2, a0.
// B: b0 (1, 80 B), b1 (5, 5 B).
// C: c0 (1, two shards of 30 B: key (30, 60)), c1 (2, 1 B).
TEST(GreedyProposerTest, AdvancesTableWithLargestCurrentStorage) {
  SpaceBuilder b;
  const int a0 = b.add("A", 3.0, 100);
  const int a1 = b.add("A", 1.0, 50);
  const int a2 = b.add("A", 2.0, 10);
  const int b0 = b.add("B", 1.0, 80);
  const int b1 = b.add("B", 5.0, 5);
  const int c0 = b.add("C", ShardingType::kRowWise, 1.0, {{.hbm = 30}, {.hbm = 30}});
  const int c1 = b.add("C", 2.0, 1);

  auto p = greedy();
  const Sequence expected{
      {a1, b0, c0},  // then B (80) beats A (50) and C (30, 60)
      {a1, b1, c0},  // B is at its last option; A (50) beats C (30)
      {a2, b1, c0},  // C (30) beats A (10)
      {a2, b1, c1},  // only A can move
      {a0, b1, c1},  // nothing can move: stop
  };
  EXPECT_EQ(drain(*p, b.space()), expected);
}

TEST(GreedyProposerTest, StorageKeyIsLexicographic) {
  // Keys of the first options: A (40, 40, 0, 0), B (40, 40, 5, 5),
  // C (40, 80, 0, 0). C goes first on summed hbm, then B on ddr, then A.
  SpaceBuilder b;
  const int a0 = b.add("A", 1.0, 40);
  const int a1 = b.add("A", 2.0, 1);
  const int b0 = b.add("B", ShardingType::kTableWise, 1.0, {{.hbm = 40, .ddr = 5}});
  const int b1 = b.add("B", 2.0, 1);
  const int c0 = b.add("C", ShardingType::kRowWise, 1.0, {{.hbm = 40}, {.hbm = 40}});
  const int c1 = b.add("C", 2.0, 1);

  auto p = greedy();
  const Sequence expected{{a0, b0, c0}, {a0, b0, c1}, {a0, b1, c1}, {a1, b1, c1}};
  EXPECT_EQ(drain(*p, b.space()), expected);
}

TEST(GreedyProposerTest, StorageTieAdvancesEarliestTable) {
  SpaceBuilder b;
  const int a0 = b.add("A", 1.0, 40);
  const int a1 = b.add("A", 2.0, 7);
  const int b0 = b.add("B", 1.0, 40);
  const int b1 = b.add("B", 2.0, 7);
  auto p = greedy();
  const Sequence expected{{a0, b0}, {a1, b0}, {a1, b1}};
  EXPECT_EQ(drain(*p, b.space()), expected);
}

TEST(GreedyProposerTest, ZeroStorageOptionIsNeverAdvanced) {
  // docs/cost-model.md O22: A's current option has key (0, 0, 0, 0), never strictly above the
  // starting maximum, so A stays at a0 and the walk ends early (2 proposals,
  // not 1 + 1 + 1). A ddr-only footprint does count (C).
  SpaceBuilder b;
  const int a0 = b.add("A", ShardingType::kTableWise, 1.0, {{.hbm = 0, .ddr = 0}});
  b.add("A", 2.0, 10);
  const int b0 = b.add("B", 1.0, 5);
  const int b1 = b.add("B", 2.0, 5);
  auto p = greedy();
  const Sequence expected{{a0, b0}, {a0, b1}};
  EXPECT_EQ(drain(*p, b.space()), expected);

  SpaceBuilder d;
  const int c0 = d.add("C", ShardingType::kTableWise, 1.0, {{.hbm = 0, .ddr = 7}});
  const int c1 = d.add("C", 2.0, 0);
  auto q = greedy();
  EXPECT_EQ(drain(*q, d.space()), (Sequence{{c0}, {c1}}));
}

TEST(GreedyProposerTest, UseDepthFalseSortsBySum) {
  // x: two shards of 3 ms (depth 3, sum 6); y: one shard of 5 ms (depth 5, sum 5).
  SpaceBuilder b;
  const int x = b.add("A", ShardingType::kRowWise, 3.0, {{.hbm = 9}, {.hbm = 9}});
  const int y = b.add("A", 5.0, 8);
  auto depth = greedy(true);
  EXPECT_EQ(drain(*depth, b.space()), (Sequence{{x}, {y}}));
  auto sum = greedy(false);
  EXPECT_EQ(drain(*sum, b.space()), (Sequence{{y}, {x}}));
}

TEST(GreedyProposerTest, EqualScoresKeepEnumerationOrder) {
  // Scores 2, 1, 1, 2: a stable ascending sort gives o1, o2, o0, o3.
  SpaceBuilder b;
  const int o0 = b.add("A", 2.0, 4);
  const int o1 = b.add("A", 1.0, 4);
  const int o2 = b.add("A", 1.0, 4);
  const int o3 = b.add("A", 2.0, 4);
  auto p = greedy();
  EXPECT_EQ(drain(*p, b.space()), (Sequence{{o1}, {o2}, {o0}, {o3}}));
}

TEST(GreedyProposerTest, ThresholdStopsAfterTooManyInferiorRatings) {
  SpaceBuilder b;
  for (int i = 0; i < 20; ++i) b.add("A", static_cast<double>(i), 10);
  // Ratings: 10 (best), 0.0 (falsy: ignored), none (ignored), 11 (1 inferior),
  // 10 (equal is not better: 2), 12 (3 > threshold 2: stop).
  const std::vector<std::optional<double>> ratings{10.0, 0.0, std::nullopt, 11.0, 10.0, 12.0};
  auto rater = [&](int call) { return ratings.at(call); };
  auto p = greedy(true, 2);
  EXPECT_EQ(drain(*p, b.space(), rater).size(), 6u);

  // An improvement resets the streak: 10, 11, 12, 9, 11, 12, 13 -> stop at 13.
  const std::vector<std::optional<double>> improving{10.0, 11.0, 12.0, 9.0, 11.0, 12.0, 13.0};
  auto q = greedy(true, 2);
  EXPECT_EQ(drain(*q, b.space(), [&](int call) { return improving.at(call); }).size(), 7u);
}

TEST(GreedyProposerTest, ThresholdZeroMeansNone) {
  SpaceBuilder b;
  for (int i = 0; i < 20; ++i) b.add("A", static_cast<double>(i), 10);
  auto worse_each_time = [](int call) { return std::optional<double>(10.0 + call); };
  auto p = greedy(true, 0);
  EXPECT_EQ(drain(*p, b.space(), worse_each_time).size(), 20u);
  auto q = greedy(true, std::nullopt);
  EXPECT_EQ(drain(*q, b.space(), worse_each_time).size(), 20u);
}

TEST(GreedyProposerTest, IgnoresPartitionability) {
  SpaceBuilder b;
  const int a0 = b.add("A", 1.0, 10);
  const int a1 = b.add("A", 2.0, 10);
  auto p = greedy();
  p->load(b.space());
  EXPECT_EQ(p->propose(), (Proposal{a0}));
  p->feedback(false, nullptr, std::nullopt, {});
  EXPECT_EQ(p->propose(), (Proposal{a1}));
  p->feedback(false, nullptr, std::nullopt, {});
  EXPECT_EQ(p->propose(), std::nullopt);
}

TEST(GreedyProposerTest, CountIsOnePlusSumOfGroupSizesMinusOne) {
  SpaceBuilder b;
  const std::vector<int> sizes{1, 4, 2, 3, 1, 5};
  int expected = 1;
  for (size_t f = 0; f < sizes.size(); ++f) {
    for (int i = 0; i < sizes[f]; ++i) {
      // Scores and storages vary so the walk interleaves tables.
      b.add(table_name(f), static_cast<double>((i * 7 + f) % 5),
            static_cast<int64_t>(1 + (i * 13 + f * 5) % 17));
    }
    expected += sizes[f] - 1;
  }
  auto p = greedy();
  EXPECT_EQ(drain(*p, b.space()).size(), static_cast<size_t>(expected));
}

TEST(GreedyProposerTest, ThousandTablesOfSixteenOptions) {
  SpaceBuilder b;
  for (int f = 0; f < 1000; ++f) {
    for (int i = 0; i < 16; ++i) b.add(table_name(f), 1.0 + i, 1 + (f * 31 + i) % 97);
  }
  auto p = greedy();
  p->load(b.space());
  size_t count = 0;
  while (p->propose()) {
    ++count;
    p->feedback(true, nullptr, 1.0, {});
  }
  EXPECT_EQ(count, 1u + 1000u * 15u);
}

TEST(GreedyProposerTest, LoadResetsState) {
  SpaceBuilder b;
  const int a0 = b.add("A", 1.0, 10);
  b.add("A", 2.0, 10);
  auto p = greedy();
  EXPECT_EQ(drain(*p, b.space()).size(), 2u);
  p->load(b.space());
  EXPECT_EQ(p->propose(), (Proposal{a0}));
}

TEST(GreedyProposerTest, EmptySpaceProposesNothing) {
  SearchSpace empty;
  auto p = greedy();
  EXPECT_TRUE(drain(*p, empty).empty());
}

// ---------------------------------------------------------------- uniform

TEST(UniformProposerTest, OneProposalPerTypeEveryTableHas) {
  // Types appear as TW, RW, CW. B has no RW, so RW is skipped.
  SpaceBuilder b;
  b.add("A", ShardingType::kTableWise, 2.0, {{.hbm = 1}});
  b.add("A", ShardingType::kRowWise, 1.0, {{.hbm = 1}});
  const int a_cw = b.add("A", ShardingType::kColumnWise, 3.0, {{.hbm = 1}});
  const int a_tw = b.add("A", ShardingType::kTableWise, 1.0, {{.hbm = 1}});
  const int b_cw = b.add("B", ShardingType::kColumnWise, 1.0, {{.hbm = 1}});
  const int b_tw = b.add("B", ShardingType::kTableWise, 4.0, {{.hbm = 1}});
  b.add("B", ShardingType::kColumnWise, 1.0, {{.hbm = 1}});  // ties b_cw, comes later

  auto p = uniform();
  const Sequence expected{{a_tw, b_tw}, {a_cw, b_cw}};
  EXPECT_EQ(drain(*p, b.space()), expected);
}

TEST(UniformProposerTest, UseDepthFalseSortsBySum) {
  SpaceBuilder b;
  const int x = b.add("A", ShardingType::kRowWise, 3.0, {{.hbm = 1}, {.hbm = 1}});
  const int y = b.add("A", ShardingType::kRowWise, 5.0, {{.hbm = 1}});
  auto depth = uniform(true);
  EXPECT_EQ(drain(*depth, b.space()), (Sequence{{x}}));
  auto sum = uniform(false);
  EXPECT_EQ(drain(*sum, b.space()), (Sequence{{y}}));
}

TEST(UniformProposerTest, NoSharedTypeProposesNothing) {
  SpaceBuilder b;
  b.add("A", ShardingType::kTableWise, 1.0, {{.hbm = 1}});
  b.add("B", ShardingType::kRowWise, 1.0, {{.hbm = 1}});
  auto p = uniform();
  EXPECT_TRUE(drain(*p, b.space()).empty());
}

// ---------------------------------------------------------------- grid search

TEST(GridSearchProposerTest, LastTableVariesFastest) {
  // Sorted groups: A [a1, a0], B [b0], C [c1, c2, c0].
  SpaceBuilder b;
  const int a0 = b.add("A", 2.0, 1);
  const int a1 = b.add("A", 1.0, 1);
  const int b0 = b.add("B", 1.0, 1);
  const int c0 = b.add("C", 3.0, 1);
  const int c1 = b.add("C", 1.0, 1);
  const int c2 = b.add("C", 2.0, 1);
  const Sequence expected{{a1, b0, c1}, {a1, b0, c2}, {a1, b0, c0},
                          {a0, b0, c1}, {a0, b0, c2}, {a0, b0, c0}};
  auto p = grid(6);  // exactly max_proposals combinations is allowed
  EXPECT_EQ(drain(*p, b.space()), expected);
}

TEST(GridSearchProposerTest, SkipsWhenOverMaxProposals) {
  SpaceBuilder b;
  for (int i = 0; i < 2; ++i) b.add("A", 1.0, 1);
  for (int i = 0; i < 3; ++i) b.add("B", 1.0, 1);
  auto p = grid(5);
  EXPECT_TRUE(drain(*p, b.space()).empty());
}

TEST(GridSearchProposerTest, HugeProductDoesNotOverflow) {
  // 2^70 combinations: more than int64 holds.
  SpaceBuilder b;
  for (int f = 0; f < 70; ++f) {
    for (int i = 0; i < 2; ++i) b.add(table_name(f), 1.0, 1);
  }
  auto p = grid();
  EXPECT_TRUE(drain(*p, b.space()).empty());
  auto q = grid(std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(drain(*q, b.space()).empty());
}

TEST(GridSearchProposerTest, AlwaysSortsByDepthAndKeepsTies) {
  // x: depth 3, sum 6; y: depth 5, sum 5; z ties x on depth, enumerated later.
  SpaceBuilder b;
  const int y = b.add("A", 5.0, 1);
  const int x = b.add("A", ShardingType::kRowWise, 3.0, {{.hbm = 1}, {.hbm = 1}});
  const int z = b.add("A", 3.0, 1);
  auto p = grid(10000, /*use_depth=*/false);
  EXPECT_EQ(drain(*p, b.space()), (Sequence{{x}, {z}, {y}}));
}

TEST(GridSearchProposerTest, DefaultMaxProposalsBoundary) {
  // 10 * 10 * 10 * 10 = 10,000 is allowed; one more option is not.
  SpaceBuilder b;
  for (int f = 0; f < 4; ++f) {
    for (int i = 0; i < 10; ++i) b.add(table_name(f), 1.0, 1);
  }
  auto p = grid();
  EXPECT_EQ(drain(*p, b.space()).size(), 10000u);
  b.add("t3", 1.0, 1);
  auto q = grid();
  EXPECT_TRUE(drain(*q, b.space()).empty());
}

// ---------------------------------------------------------------- scale-up

TEST(EmbeddingOffloadScaleupProposerTest, ProposesBestOptionsOnceThenStops) {
  SpaceBuilder b;
  b.add("A", 2.0, 1);
  const int a1 = b.add("A", 1.0, 1);
  b.add("A", 1.0, 1);  // ties a1, comes later
  const int b0 = b.add("B", 1.0, 1);
  auto p = scaleup();
  p->load(b.space());
  EXPECT_EQ(p->propose(), (Proposal{a1, b0}));
  EXPECT_EQ(p->propose(), (Proposal{a1, b0}));  // unchanged until feedback
  PartitionedPlan plan;
  plan.proposal = {a1, b0};
  p->feedback(true, &plan, 3.0, {Storage{.hbm = 1000}});
  EXPECT_EQ(p->propose(), std::nullopt);
}

TEST(EmbeddingOffloadScaleupProposerTest, StopsWhenStartingPlanNotPartitionable) {
  SpaceBuilder b;
  const int a0 = b.add("A", 1.0, 1);
  auto p = scaleup();
  EXPECT_EQ(drain(*p, b.space()), (Sequence{{a0}}));
  p->load(b.space());
  EXPECT_EQ(p->propose(), (Proposal{a0}));
  p->feedback(false, nullptr, std::nullopt, {Storage{.hbm = 1000}});
  EXPECT_EQ(p->propose(), std::nullopt);
}

TEST(EmbeddingOffloadScaleupProposerTest, UseDepthFalseSortsBySum) {
  SpaceBuilder b;
  b.add("A", ShardingType::kRowWise, 3.0, {{.hbm = 1}, {.hbm = 1}});
  const int y = b.add("A", 5.0, 1);
  auto p = scaleup(false);
  EXPECT_EQ(drain(*p, b.space()), (Sequence{{y}}));
}

// ---------------------------------------------------------------- registry

TEST(MakeProposerTest, DefaultListProposesInTorchRecOrder) {
  SpaceBuilder b;
  const int x = b.add("A", ShardingType::kRowWise, 3.0, {{.hbm = 1}, {.hbm = 1}});
  const int y = b.add("A", ShardingType::kTableWise, 5.0, {{.hbm = 1}});
  const std::vector<Sequence> expected{
      {{x}, {y}},  // grid search (depth)
      {{x}, {y}},  // greedy, depth
      {{y}, {x}},  // greedy, sum
      {{x}, {y}},  // uniform: one per type, RW (first seen) then TW
  };
  const std::vector<ProposerSpec> specs = default_proposers();
  ASSERT_EQ(specs.size(), expected.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    auto p = make_proposer(specs[i]);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(drain(*p, b.space()), expected[i]) << "proposer " << i;
  }
}

// The knapsack worked by hand (drain's one device of 2^40 bytes, 100 bins):
// HBM in bins A: a0 10.5, a1 60.5; B: b0 5.5, b1 30.5; perf a0 5, a1 1,
// b0 4, b1 2. Tables go in order of their lowest-HBM option (B, then A).
// Bins reached after B: 5 (perf 4), 30 (2); after A: 16 (a0 b0, 9), 41
// (a0 b1, 7), 66 (a1 b0, 5), 91 (a1 b1, 3). First each table's lowest-HBM
// option, then the bins from the highest down.
TEST(DynamicProgrammingProposerTest, ProposesEveryReachedBinFromTheMostHbm) {
  const double bin = static_cast<double>(int64_t{1} << 40) / 100;
  auto at = [&](double bins) { return static_cast<int64_t>(bins * bin); };
  SpaceBuilder b;
  const int a0 = b.add("A", 5.0, at(10.5));
  const int a1 = b.add("A", 1.0, at(60.5));
  const int b0 = b.add("B", 4.0, at(5.5));
  const int b1 = b.add("B", 2.0, at(30.5));
  auto p = dynamic_programming();
  const Sequence expected{{a0, b0}, {a1, b1}, {a1, b0}, {a0, b1}, {a0, b0}};
  EXPECT_EQ(drain(*p, b.space()), expected);
  ASSERT_NE(p->table_order(), nullptr);
  EXPECT_EQ(*p->table_order(), (std::vector<int>{1, 0}));
  EXPECT_TRUE(p->failure().is_ok());
  // One bin: every pair lands in bin 0, and the fastest (strictly less
  // perf replaces) is the only plan after the first proposal.
  auto coarse = dynamic_programming(1);
  EXPECT_EQ(drain(*coarse, b.space()), (Sequence{{a0, b0}, {a1, b1}}));
}

// Without reserved HBM (cpu) the bin size is 0: TorchRec divides by zero in
// its first feedback, which ends planning.
TEST(DynamicProgrammingProposerTest, NoHbmFailsAtTheFirstFeedback) {
  SpaceBuilder b;
  b.add("A", 1.0, 0);
  auto p = dynamic_programming();
  p->load(b.space());
  ASSERT_TRUE(p->propose().has_value());
  EXPECT_TRUE(p->failure().is_ok());
  p->feedback(true, nullptr, std::nullopt, {Storage{}});
  EXPECT_EQ(p->failure().code(), StatusCode::kPlanner);
  EXPECT_EQ(p->failure().planner_error(), PlannerErrorType::kOther);
  EXPECT_NE(p->failure().message().find("ZeroDivisionError"), std::string::npos);
}

}  // namespace
}  // namespace shardlab::planner
