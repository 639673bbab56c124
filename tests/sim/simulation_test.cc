// The iteration model end to end on the bundled scenarios: TorchRec parity in
// the estimates mode, stream and pipeline invariants, the critical path, and
// effects that must point the right way in the flow model.

#include "shardlab/sim/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../scoped_env.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation_memory.h"

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
    Planned p = plan_bundled(name);
    p.scenario.workload.host.reset();  // TorchRec's estimates are the GPU's side alone
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

// The critical path is one chain that tiles the last iteration
// (docs/simulation.md "Reading the summary"): steps in time order, each
// starting exactly where the one before ended (no gap is allowed: the
// simulator never leaves a chain idle), the first at the previous
// iteration's end, the last at the iteration's end, so their durations add
// up to the iteration time. Each step is a phase its rank ran then, and ends
// no later than the last rank's part of that phase.
void expect_chain(const SimResult& r) {
  ASSERT_FALSE(r.critical_path.empty());
  const double window_start = r.total_ms - r.iteration_ms;
  EXPECT_NEAR(r.critical_path.front().start_ms, window_start, 1e-12 * r.total_ms);
  EXPECT_EQ(r.critical_path.back().end_ms, r.total_ms);
  double sum = 0.0;
  for (size_t i = 0; i < r.critical_path.size(); ++i) {
    const CriticalStep& s = r.critical_path[i];
    SCOPED_TRACE("step " + std::to_string(i) + ": rank " + std::to_string(s.rank) + " " +
                 std::string(to_string(s.phase)));
    EXPECT_LT(s.start_ms, s.end_ms);
    EXPECT_EQ(s.iteration, r.iterations - 1);
    if (i > 0) {
      EXPECT_EQ(s.start_ms, r.critical_path[i - 1].end_ms);
    }
    sum += s.end_ms - s.start_ms;
    bool ran = false;
    double latest_end = 0.0;
    for (const RankResult& rank : r.ranks) {
      for (const PhaseRecord& p : rank.phases) {
        if (p.phase != s.phase || p.iteration != s.iteration) continue;
        latest_end = std::max(latest_end, p.end_ms);
        ran = ran || (rank.rank == s.rank && p.start_ms <= s.start_ms && s.start_ms < p.end_ms);
      }
    }
    EXPECT_TRUE(ran);
    EXPECT_LE(s.end_ms, latest_end);
  }
  EXPECT_LE(sum, r.iteration_ms * (1 + 1e-12));
  EXPECT_NEAR(sum, r.iteration_ms, 1e-12 * r.total_ms);
}

TEST(Simulation, CriticalPathTilesTheLastIteration) {
  SimOptions serial;
  serial.overlap = false;
  SimOptions estimates;
  estimates.comm_model = CommModel::kEstimates;
  SimOptions one;
  one.iterations = 1;
  for (const std::string& name : kBundled) {
    const Planned p = plan_bundled(name);
    for (const auto& [label, options] :
         std::vector<std::pair<std::string, SimOptions>>{{"default", SimOptions{}},
                                                         {"no overlap", serial},
                                                         {"estimates", estimates},
                                                         {"one iteration", one}}) {
      SCOPED_TRACE(name + ", " + label);
      expect_chain(run(p, options));
    }
  }
}

// Two ranks; the table (looked up 200 times a sample) on one of them (the
// planner picks rank 0), so rank 1 joins the output dist early and waits for
// it; rank 1's long dense forward then bounds the iteration, and the table's
// rank waits for it in the backward's all-to-all.
TEST(Simulation, CriticalPathListsACollectiveOnceAsTheLatePeersPart) {
  auto scenario = data::parse_scenario(
      R"({"name": "late_peer", "batch_size": 4096,
          "topology": {"world_size": 2, "gpu": "h100-sxm"},
          "tables": [{"name": "t", "num_embeddings": 1000000, "embedding_dim": 128,
                      "feature_names": ["f"]}],
          "constraints": {"t": {"pooling_factors": [200], "sharding_types": ["table_wise"]}},
          "workload": {"dense_fwd_ms": [0.05, 2.0], "dense_bwd_ms": 0.1}})",
      "late_peer.json");
  ASSERT_TRUE(scenario) << scenario.status().message();
  const planner::PlannerResult plan = planner::plan(*scenario);
  ASSERT_TRUE(plan.ok()) << plan.error.message();
  const int table_rank = plan.best->ranks.front();
  const SimResult r = run(Planned{*scenario, plan}, SimOptions{});
  expect_chain(r);
  const int last = r.iterations - 1;
  auto record = [&](int rank, Phase phase) {
    for (const PhaseRecord& p : r.ranks[static_cast<size_t>(rank)].phases) {
      if (p.phase == phase && p.iteration == last) return p;
    }
    ADD_FAILURE() << "no " << to_string(phase) << " on rank " << rank;
    return PhaseRecord{};
  };
  // Output dist: the table's rank is late; backward: the other rank.
  for (const auto& [phase, late] : {std::pair{Phase::kOutputDist, table_rank},
                                    std::pair{Phase::kBwdOutputDist, 1 - table_rank}}) {
    SCOPED_TRACE(to_string(phase));
    ASSERT_GT(record(1 - late, phase).end_ms - record(1 - late, phase).start_ms,
              2.0 * (record(late, phase).end_ms - record(late, phase).start_ms))
        << "the scenario no longer makes a rank wait";
    std::vector<CriticalStep> steps;
    for (const CriticalStep& s : r.critical_path) {
      if (s.phase == phase) steps.push_back(s);
    }
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].rank, late);
    EXPECT_EQ(steps[0].start_ms, record(late, phase).start_ms);
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

// With a GPU preset and a dense model on two hosts, the all-to-alls and the
// DDP buckets' hierarchical ring all-reduces are solved in closed form: the
// whole simulation must come out exactly as with every message a flow.
TEST(Simulation, ClosedFormsEqualTheFlows) {
  std::ifstream in(std::string(SHARDLAB_SOURCE_DIR) +
                   "/data/scenarios/two_host_criteo_kaggle.json");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  const std::string topology = "\"topology\": {";
  ASSERT_NE(text.find(topology), std::string::npos);
  text.insert(text.find(topology) + topology.size(), "\"gpu\": \"h100-sxm\", ");
  text.insert(text.rfind('}'),
              R"(, "workload": {"dense": {"dense_features": 13, "bottom_mlp": [512, 256, 128],
                   "interaction": {"kind": "dcn", "layers": 3, "low_rank": 512},
                   "top_mlp": [1024, 1024, 512, 256, 1], "precision": "bf16"}})");
  auto scenario = data::parse_scenario(text, "two_host_preset_dense");
  ASSERT_TRUE(scenario) << scenario.status().message();
  const Planned p{*scenario, planner::plan(*scenario)};
  ASSERT_TRUE(p.result.ok()) << p.result.error.message();
  SimOptions closed;
  closed.iterations = 3;
  SimOptions flows = closed;
  flows.closed_form = false;
  const SimResult a = run(p, closed);
  const SimResult b = run(p, flows);
  ASSERT_GT(a.ddp_buckets, 1);
  EXPECT_EQ(a.iteration_ms, b.iteration_ms);
  EXPECT_EQ(a.total_ms, b.total_ms);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].busy_compute_ms, b.ranks[r].busy_compute_ms) << r;
    EXPECT_EQ(a.ranks[r].busy_comm_ms, b.ranks[r].busy_comm_ms) << r;
    ASSERT_EQ(a.ranks[r].phases.size(), b.ranks[r].phases.size()) << r;
    for (size_t i = 0; i < a.ranks[r].phases.size(); ++i) {
      const PhaseRecord& x = a.ranks[r].phases[i];
      const PhaseRecord& y = b.ranks[r].phases[i];
      EXPECT_EQ(x.phase, y.phase) << r << " " << i;
      EXPECT_EQ(x.start_ms, y.start_ms) << r << " " << i;
      EXPECT_EQ(x.end_ms, y.end_ms) << r << " " << i;
      EXPECT_EQ(x.bytes, y.bytes) << r << " " << i;
    }
  }
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t l = 0; l < a.links.size(); ++l) {
    EXPECT_EQ(a.links[l].bytes, b.links[l].bytes) << a.links[l].name;
    EXPECT_EQ(a.links[l].utilization, b.links[l].utilization) << a.links[l].name;
  }
  EXPECT_EQ(a.flows, b.flows);
  // The closed forms ran: far fewer events.
  EXPECT_LT(2 * a.events, b.events);
}

// SimOptions::stop: a flag that reads true stops the event loop, and
// simulate() fails saying so; one that stays false changes nothing.
TEST(Simulation, AStopFlagStopsIt) {
  auto scenario =
      data::load_scenario_file(std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json");
  ASSERT_TRUE(scenario.is_ok());
  const Planned p{*scenario, planner::plan(*scenario)};
  ASSERT_TRUE(p.result.ok());
  std::atomic<bool> stop{true};
  SimOptions options;
  options.iterations = 2000;  // more events than one poll interval
  options.stop = &stop;
  Result<SimResult> stopped = simulate(*scenario, *p.result.search_space, *p.result.best, options);
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(stopped.status().message().find("the simulation was stopped"), std::string::npos);
  stop = false;
  options.iterations = 4;
  Result<SimResult> with_flag =
      simulate(*scenario, *p.result.search_space, *p.result.best, options);
  options.stop = nullptr;
  Result<SimResult> without = simulate(*scenario, *p.result.search_space, *p.result.best, options);
  ASSERT_TRUE(with_flag.is_ok() && without.is_ok());
  EXPECT_EQ(with_flag->iteration_ms, without->iteration_ms);
}

planner::Scenario one_table_on_4096_ranks() {
  planner::Scenario s;
  s.topology.world_size = 4096;
  s.topology.local_world_size = 8;
  s.tables = {planner::TableSpec{
      .name = "t0", .num_embeddings = 1000, .embedding_dim = 64, .feature_names = {"f0"}}};
  s.constraints.resize(1);
  return s;
}

// simulation_memory.h: a simulation that does not fit the memory budget is
// refused before it starts, naming what needs the memory.
TEST(Simulation, AScenarioPastTheMemoryBudgetIsInvalidArgument) {
  const planner::Scenario s = one_table_on_4096_ranks();
  const testing_support::ScopedEnv budget("SHARDLAB_MEMORY_BUDGET", "1 MiB");
  const Status st = check_simulation_memory(s);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("simulating 4096 ranks needs about"), std::string::npos)
      << st.message();
}

// The route cache (4096² routes, about 400 MiB) counts only when collectives
// run as flows: on an oversubscribed fabric with contention, not on a
// non-blocking one or without contention, where closed forms need no route.
TEST(Simulation, TheRouteCacheCountsOnlyWhenCollectivesRunAsFlows) {
  planner::Scenario s = one_table_on_4096_ranks();
  const testing_support::ScopedEnv budget("SHARDLAB_MEMORY_BUDGET", "256 MiB");
  EXPECT_TRUE(check_simulation_memory(s).is_ok());  // non-blocking: closed forms
  s.fabric.oversubscription = 4.0;
  const Status flows = check_simulation_memory(s);
  EXPECT_EQ(flows.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(flows.message().find("as flows (a route between every two ranks) needs about"),
            std::string::npos)
      << flows.message();
  EXPECT_TRUE(check_simulation_memory(s, SimOptions{.contention = false}).is_ok());
}

}  // namespace
}  // namespace shardlab::sim
