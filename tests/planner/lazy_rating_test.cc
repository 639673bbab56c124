// Lazy rating (lazy_rating.h): the exact rating from a few ranks equals
// rate_plan's, and planning with proposals settled in batches on two threads
// gives what the one-at-a-time loop gives (PlannerOptions::threads = 1),
// proposal log included.

#include "lazy_rating.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../../benchmarks/synthetic_scenario.h"
#include "partitioner.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/proposal_log.h"

namespace shardlab::planner {
namespace {

Topology reserved_topology(const PlannerResult& r) {
  Topology reserved = r.topology;
  for (size_t d = 0; d < reserved.devices.size(); ++d) {
    reserved.devices[d].storage = r.reserved->devices[d];
  }
  return reserved;
}

// Every table's first option.
Proposal first_options(const SearchSpace& space) {
  Proposal proposal;
  for (const std::vector<int>& options : space.options_by_fqn) proposal.push_back(options.front());
  return proposal;
}

// Random proposals on a synthetic space: exact_rating, where it answers,
// equals rate_plan's largest per-rank sum bit for bit, from the plan built
// and from the placement made without one.
TEST(LazyRating, ExactRatingEqualsRatePlan) {
  const Scenario s = bench::synthetic_scenario(120, 64);
  const PlannerResult r = plan(s, PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(r.search_space && r.reserved) << r.error.message();
  const SearchSpace& space = *r.search_space;
  const Topology reserved = reserved_topology(r);
  std::unique_ptr<Partitioner> p = make_partitioner(s.planner.partitioner, s.behaviour());
  std::mt19937 random(7);
  Proposal proposal(space.options_by_fqn.size());
  int answered = 0, placed = 0;
  PartitionedPlan built;
  std::vector<double> device_perf;
  for (int step = 0; step < 400; ++step) {
    for (size_t f = 0; f < proposal.size(); ++f) {
      const std::vector<int>& options = space.options_by_fqn[f];
      // Mostly the table's first options (table-wise and friends), so that
      // few ranks share the largest total; now and then a uniform one.
      const size_t pick = random() % 8 == 0 ? random() % options.size() : random() % 2;
      proposal[f] = options[std::min(pick, options.size() - 1)];
    }
    if (!p->partition(space, proposal, reserved, &built)) continue;
    ++placed;
    double expected = 0.0;
    rate_plan(space, built, reserved.world_size, &device_perf, &expected);
    const int64_t shards = static_cast<int64_t>(built.ranks.size());
    const std::optional<Partitioner::Placement> with_plan = p->last_placement();
    ASSERT_TRUE(with_plan.has_value());
    const std::optional<double> from_plan =
        internal::exact_rating(space, proposal, *with_plan, internal::rating_margin(shards));
    ASSERT_TRUE(p->partition(space, proposal, reserved, nullptr));  // no early stop set
    const std::optional<Partitioner::Placement> without = p->last_placement();
    ASSERT_TRUE(without.has_value());
    const std::optional<double> from_placement =
        internal::exact_rating(space, proposal, *without, internal::rating_margin(shards));
    EXPECT_EQ(from_plan.has_value(), from_placement.has_value()) << "step " << step;
    if (!from_plan) continue;
    ++answered;
    EXPECT_EQ(*from_plan, expected) << "step " << step;
    EXPECT_EQ(*from_placement, expected) << "step " << step;
  }
  EXPECT_GT(placed, 100);
  EXPECT_GT(answered, placed / 2);  // the few-ranks path is the one exercised
}

// Every table data-parallel: every rank holds the same sum, more than 16
// ranks tie, and exact_rating leaves the answer to rate_plan.
TEST(LazyRating, ManyTiedRanksAreLeftToRatePlan) {
  Scenario s = bench::synthetic_scenario(10, 32);
  for (auto& c : s.constraints) {
    c->sharding_types = std::vector{ShardingType::kDataParallel};
    c->compute_kernels = std::vector{ComputeKernel::kDense};
  }
  const PlannerResult r = plan(s, PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(r.search_space && r.reserved) << r.error.message();
  const Topology reserved = reserved_topology(r);
  std::unique_ptr<Partitioner> p = make_partitioner(s.planner.partitioner, s.behaviour());
  const Proposal proposal = first_options(*r.search_space);
  PartitionedPlan built;
  ASSERT_TRUE(p->partition(*r.search_space, proposal, reserved, &built));
  const std::optional<Partitioner::Placement> placed = p->last_placement();
  ASSERT_TRUE(placed.has_value());
  EXPECT_FALSE(
      internal::exact_rating(*r.search_space, proposal, *placed, internal::rating_margin(320))
          .has_value());
}

// A placement stopped early records no placement.
TEST(LazyRating, AnEarlyStoppedPlacementRecordsNone) {
  const Scenario s = bench::synthetic_scenario(60, 16);
  const PlannerResult r = plan(s, PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(r.search_space && r.reserved) << r.error.message();
  const Topology reserved = reserved_topology(r);
  std::unique_ptr<Partitioner> p = make_partitioner(s.planner.partitioner, s.behaviour());
  const Proposal proposal = first_options(*r.search_space);
  p->set_early_stop(0.0);  // settled at once
  ASSERT_TRUE(p->partition(*r.search_space, proposal, reserved, nullptr));
  EXPECT_FALSE(p->last_placement().has_value());
}

void expect_same_planning(const Scenario& s) {
  ProposalLog one_log, batched_log;
  const PlannerResult one_at_a_time =
      plan(s, PlannerOptions{.proposal_log = &one_log, .threads = 1});
  const PlannerResult batched = plan(s, PlannerOptions{.proposal_log = &batched_log, .threads = 2});
  ASSERT_EQ(batched_log.size(), one_log.size());
  int skipped = 0;
  for (size_t i = 0; i < one_log.size(); ++i) {
    const ProposalRecord& a = one_log[i];
    const ProposalRecord& b = batched_log[i];
    EXPECT_EQ(b.proposer, a.proposer) << "record " << i;
    EXPECT_EQ(b.partitioned, a.partitioned) << "record " << i;
    EXPECT_EQ(b.rating_skipped, a.rating_skipped) << "record " << i;
    if (a.rated()) EXPECT_EQ(b.rating, a.rating) << "record " << i;
    EXPECT_EQ(batched_log.proposal(i), one_log.proposal(i)) << "record " << i;
    skipped += a.rating_skipped;
  }
  if (one_at_a_time.ok()) EXPECT_GT(skipped, 0);  // the lazy path ran
  EXPECT_EQ(batched.error.message(), one_at_a_time.error.message());
  EXPECT_EQ(batched.num_proposals, one_at_a_time.num_proposals);
  EXPECT_EQ(batched.num_plans, one_at_a_time.num_plans);
  ASSERT_EQ(batched.best.has_value(), one_at_a_time.best.has_value());
  if (!batched.best) return;
  EXPECT_EQ(batched.perf_rating, one_at_a_time.perf_rating);
  EXPECT_EQ(batched.best->proposal, one_at_a_time.best->proposal);
  EXPECT_EQ(batched.best->ranks, one_at_a_time.best->ranks);
  EXPECT_EQ(batched.device_perf_total, one_at_a_time.device_perf_total);
}

TEST(LazyRating, BatchesOnTwoThreadsPlanAsOneAtATime) {
  for (const int world : {16, 64, 256}) {
    SCOPED_TRACE("world size " + std::to_string(world));
    expect_same_planning(bench::synthetic_scenario(400, world));
  }
}

TEST(LazyRating, BatchesFailAsOneAtATime) {
  // HBM only, and too little of it: every proposal fails, and the reported
  // failure is the last one's.
  Scenario s = bench::synthetic_scenario(300, 16, int64_t{6} << 30);
  for (auto& c : s.constraints) c->compute_kernels = std::vector{ComputeKernel::kFused};
  const PlannerResult r = plan(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.message().find("insufficient storage"), std::string::npos) << r.error.message();
  expect_same_planning(s);
}

}  // namespace
}  // namespace shardlab::planner
