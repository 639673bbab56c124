// The iteration model end to end on the bundled scenarios: TorchRec parity in
// the estimates mode, stream and pipeline invariants, the critical path, and
// effects that must point the right way in the flow model.

#include "shardlab/sim/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"

namespace shardlab::sim {
namespace {

struct Planned {
  planner::Scenario scenario;
  planner::PlannerResult result;
};

Planned plan_bundled(const std::string& name) {
  auto scenario =
      data::load_scenario_file(std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/" + name);
  EXPECT_TRUE(scenario) << scenario.status().message();
  Planned p{*scenario, planner::plan(*scenario)};
  EXPECT_TRUE(p.result.ok()) << p.result.error.message();
  return p;
}

SimResult run(const Planned& p, const SimOptions& options) {
  auto r = simulate(p.scenario, *p.result.search_space, *p.result.best, options);
  EXPECT_TRUE(r) << r.status().message();
  return r ? std::move(r).value() : SimResult{};
}

const std::vector<std::string> kBundled = {"tiny_2gpu.json", "dlrm_criteo_kaggle.json",
                                           "dlrm_dcnv2_criteo_1tb.json",
                                           "large_synthetic_8x8.json"};

// With TorchRec's comm estimates, one stream and no contention, a rank is
// busy exactly for its shards' summed perf: the simulator adds nothing of
// its own and loses nothing. (The dense model's phases and DDP's all-reduce,
// which TorchRec does not rate, are left out of the sum.)
TEST(Simulation, EstimatesWithoutOverlapEqualTorchRecPerRankPerf) {
  for (const std::string& name : kBundled) {
    SCOPED_TRACE(name);
    const Planned p = plan_bundled(name);
    SimOptions o;
    o.overlap = false;
    o.contention = false;
    o.comm_model = CommModel::kEstimates;
    o.iterations = 3;
    const SimResult r = run(p, o);
    ASSERT_EQ(r.ranks.size(), p.result.device_perf_total.size());
    for (const RankResult& rank : r.ranks) {
      const double expected = p.result.device_perf_total[static_cast<size_t>(rank.rank)];
      double busy = rank.busy_compute_ms + rank.busy_comm_ms;
      for (const PhaseRecord& ph : rank.phases) {
        const bool dense = ph.phase == Phase::kDenseFwd || ph.phase == Phase::kDenseBwd ||
                           ph.phase == Phase::kDenseOptimizer || ph.phase == Phase::kDdpAllreduce ||
                           ph.phase == Phase::kIterationOverhead;
        if (dense && ph.iteration == o.iterations - 1) busy -= ph.end_ms - ph.start_ms;
      }
      EXPECT_NEAR(busy, expected, 1e-9 * expected) << "rank " << rank.rank;
    }
  }
}

// Phases of one rank's stream never overlap, and each iteration's phases
// come in pipeline order.
TEST(Simulation, StreamsNeverOverlap) {
  for (const std::string& name : kBundled) {
    SCOPED_TRACE(name);
    const SimResult r = run(plan_bundled(name), SimOptions{});
    EXPECT_GT(r.iteration_ms, 0.0);
    for (const RankResult& rank : r.ranks) {
      std::map<Stream, std::vector<PhaseRecord>> by_stream;
      for (const PhaseRecord& ph : rank.phases) {
        EXPECT_LE(ph.start_ms, ph.end_ms);
        by_stream[ph.stream].push_back(ph);
      }
      for (auto& [stream, phases] : by_stream) {
        std::sort(phases.begin(), phases.end(), [](const PhaseRecord& a, const PhaseRecord& b) {
          return a.start_ms < b.start_ms;
        });
        for (size_t i = 1; i < phases.size(); ++i) {
          EXPECT_LE(phases[i - 1].end_ms, phases[i].start_ms + 1e-12)
              << "rank " << rank.rank << " " << to_string(phases[i - 1].phase) << " overlaps "
              << to_string(phases[i].phase);
        }
      }
    }
  }
}

TEST(Simulation, CriticalPathEndsTheIteration) {
  const SimResult r = run(plan_bundled("dlrm_criteo_kaggle.json"), SimOptions{});
  ASSERT_FALSE(r.critical_path.empty());
  EXPECT_DOUBLE_EQ(r.critical_path.back().end_ms, r.total_ms);
  for (size_t i = 1; i < r.critical_path.size(); ++i) {
    EXPECT_LE(r.critical_path[i - 1].end_ms, r.critical_path[i].start_ms + 1e-9);
  }
}

// Contention can only slow a plan down, and pipelining can only help.
TEST(Simulation, ContentionAndOverlapPointTheRightWay) {
  const Planned p = plan_bundled("large_synthetic_8x8.json");
  SimOptions base;
  base.iterations = 3;
  SimOptions free_links = base;
  free_links.contention = false;
  SimOptions serial = base;
  serial.overlap = false;
  const double with_contention = run(p, base).iteration_ms;
  EXPECT_LE(run(p, free_links).iteration_ms, with_contention * (1 + 1e-12));
  EXPECT_GE(run(p, serial).iteration_ms, with_contention * (1 - 1e-12));
}

TEST(Simulation, SteadyStateIsReached) {
  const Planned p = plan_bundled("dlrm_criteo_kaggle.json");
  SimOptions o;
  o.iterations = 6;
  const double six = run(p, o).iteration_ms;
  o.iterations = 8;
  EXPECT_NEAR(run(p, o).iteration_ms, six, 1e-9 * six);
}

}  // namespace
}  // namespace shardlab::sim
