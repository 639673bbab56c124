// The greedy perf partitioner's early stop (Partitioner::set_early_stop): a
// call without a plan that stops early gives the full placement's answer
// (whether the proposal partitions) and a bound of its largest device perf
// total that is at least the threshold and at most the full placement's, on
// walks of proposals over tight and roomy devices, both sort orders, and
// thresholds below, at and above the full placement's total. And a
// partitioner given a fixed topology answers as one that reads it each call.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "partitioner.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {
namespace {

// 40 tables on 16 ranks (4 hosts of 4), rows from 1,000 to about 28 million.
Scenario scenario(int64_t hbm_cap, SortBy sort_by) {
  Scenario s;
  s.name = "early_stop";
  s.topology.world_size = 16;
  s.topology.local_world_size = 4;
  s.topology.hbm_cap = hbm_cap;
  s.planner.proposers = default_proposers();
  s.planner.partitioner.sort_by = sort_by;
  const int dims[] = {16, 32, 64, 128, 256};
  for (int i = 0; i < 40; ++i) {
    TableSpec t;
    t.name = "t";
    t.name += std::to_string(i);
    t.num_embeddings = static_cast<int64_t>(1000 * std::pow(1.3, i));
    t.embedding_dim = dims[(i * 7) % 5];
    t.feature_names = {t.name};
    s.tables.push_back(t);
  }
  s.constraints.resize(s.tables.size());
  return s;
}

// The topology the planner loop partitions on: storage after reservations.
Topology reserved_topology(const PlannerResult& r) {
  Topology reserved = r.topology;
  for (size_t d = 0; d < reserved.devices.size(); ++d) {
    reserved.devices[d].storage = r.reserved->devices[d];
  }
  return reserved;
}

// The scenario's partitioner, without the detailed errors a failure builds.
std::unique_ptr<Partitioner> quiet_partitioner(const Scenario& s) {
  std::unique_ptr<Partitioner> p = make_partitioner(s.planner.partitioner, s.behaviour());
  p->set_detailed_errors(false);
  return p;
}

// A proposal of one random option per table, redrawn a table at a time.
struct RandomProposal {
  RandomProposal(const SearchSpace& s, uint32_t seed)
      : space(s), random(seed), proposal(s.options_by_fqn.size()) {
    for (size_t f = 0; f < num_fqns(); ++f) pick(f);
  }
  size_t num_fqns() const { return space.options_by_fqn.size(); }
  void pick(size_t f) {
    const std::vector<int>& options = space.options_by_fqn[f];
    proposal[f] = options[random() % options.size()];
  }
  const SearchSpace& space;
  std::mt19937 random;
  Proposal proposal;
};

struct Counts {
  int proposals = 0;
  int fits = 0;
  int stopped = 0;  // the bound is below the full placement's largest total
};

// Walks proposals that change one table at a time (every 25th step, all of
// them), partitioning each fully with one partitioner and without a plan,
// under a threshold, with another.
Counts walk(const Scenario& s, uint32_t seed) {
  Counts counts;
  const PlannerResult r = plan(s, PlannerOptions{.enumerate_only = true});
  EXPECT_TRUE(r.search_space.has_value() && r.reserved.has_value()) << r.error.message();
  if (!r.search_space || !r.reserved) return counts;
  const SearchSpace& space = *r.search_space;
  Topology reserved = reserved_topology(r);
  std::unique_ptr<Partitioner> full = quiet_partitioner(s);
  std::unique_ptr<Partitioner> lazy = quiet_partitioner(s);

  RandomProposal draw(space, seed);
  const size_t num_fqns = draw.num_fqns();
  Proposal& proposal = draw.proposal;
  std::mt19937& random = draw.random;
  auto pick = [&](size_t f) { draw.pick(f); };
  PartitionedPlan plan;
  for (int step = 0; step < 300; ++step) {
    if (step % 25 == 0) {
      for (size_t f = 0; f < num_fqns; ++f) pick(f);
    } else {
      pick(random() % num_fqns);
    }
    const bool fits = full->partition(space, proposal, reserved, &plan).is_ok();
    const double largest = fits ? full->max_device_perf().value() : 1.0;
    const double thresholds[] = {0.0, largest / 2, largest, std::nextafter(largest, INFINITY),
                                 std::numeric_limits<double>::infinity()};
    const double threshold = thresholds[step % 5];
    lazy->set_early_stop(threshold);
    const bool lazy_fits = lazy->partition(space, proposal, reserved, nullptr).is_ok();
    ++counts.proposals;
    EXPECT_EQ(lazy_fits, fits) << "step " << step;
    if (!fits || !lazy_fits) continue;
    ++counts.fits;
    const double bound = lazy->max_device_perf().value();
    EXPECT_LE(bound, largest) << "step " << step;
    if (bound != largest) {
      ++counts.stopped;
      EXPECT_GE(bound, threshold) << "step " << step;
    }
  }
  return counts;
}

TEST(EarlyStop, AnswersAsTheFullPlacement) {
  Counts all;
  int some_fail = 0;  // configurations where some proposals do not fit
  for (const int64_t cap_mib : {2400, 4800, 9600, 20000, 80 * 1024}) {
    for (const SortBy sort_by : {SortBy::kStorage, SortBy::kPerf}) {
      std::string trace = "hbm_cap (MiB) ";
      trace += std::to_string(cap_mib);
      trace += sort_by == SortBy::kPerf ? ", sort_by perf" : ", sort_by storage";
      SCOPED_TRACE(trace);
      const Counts c = walk(scenario(cap_mib << 20, sort_by), static_cast<uint32_t>(cap_mib));
      all.proposals += c.proposals;
      all.fits += c.fits;
      all.stopped += c.stopped;
      some_fail += c.fits < c.proposals;
    }
  }
  // Both outcomes and the early stop itself were exercised.
  EXPECT_GT(some_fail, 0);
  EXPECT_GT(all.fits, all.proposals / 4);
  EXPECT_GT(all.stopped, all.fits / 4);
}

// Partitioner::set_fixed_topology: a partitioner that keeps what it
// derives from the promised topology answers as one that reads it on every
// call, with and without a plan, and a new promise after the devices change
// takes the change into account.
TEST(FixedTopology, AnswersAsReadingTheTopologyEachCall) {
  const Scenario s = scenario(int64_t{4800} << 20, SortBy::kStorage);
  const PlannerResult r = plan(s, PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(r.search_space.has_value() && r.reserved.has_value()) << r.error.message();
  const SearchSpace& space = *r.search_space;
  Topology reserved = reserved_topology(r);
  std::unique_ptr<Partitioner> each = quiet_partitioner(s);
  std::unique_ptr<Partitioner> fixed = quiet_partitioner(s);

  RandomProposal draw(space, 7);
  const size_t num_fqns = draw.num_fqns();
  Proposal& proposal = draw.proposal;
  std::mt19937& random = draw.random;
  auto pick = [&](size_t f) { draw.pick(f); };
  int fits[2] = {0, 0};  // per round: proposals that fit
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "as reserved" : "every device's hbm halved");
    if (round == 1) {
      for (Device& d : reserved.devices) d.storage.hbm /= 2;
    }
    fixed->set_fixed_topology(&reserved);  // again after the change
    for (int step = 0; step < 200; ++step) {
      pick(random() % num_fqns);
      PartitionedPlan a;
      PartitionedPlan b;
      const bool with_plan = step % 2 == 0;
      const bool a_fits =
          each->partition(space, proposal, reserved, with_plan ? &a : nullptr).is_ok();
      const bool b_fits =
          fixed->partition(space, proposal, reserved, with_plan ? &b : nullptr).is_ok();
      ASSERT_EQ(a_fits, b_fits) << "step " << step;
      if (!a_fits) continue;
      ++fits[round];
      EXPECT_EQ(each->max_device_perf(), fixed->max_device_perf()) << "step " << step;
      if (with_plan) {
        EXPECT_EQ(a.ranks, b.ranks) << "step " << step;
      }
    }
  }
  // Halving the devices changed which proposals fit (a stale copy would not).
  EXPECT_GT(fits[0], 0);
  EXPECT_LT(fits[1], fits[0]);
}

}  // namespace
}  // namespace shardlab::planner
