// simulation_to_json and chrome_trace_json on a hand-built SimResult: the
// output parses, has exactly the documented shape, and gives every value back.
#include "shardlab/data/sim_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "shardlab/sim/simulation.h"

namespace shardlab::data {
namespace {

using Json = nlohmann::ordered_json;
using sim::Phase;
using sim::PhaseRecord;
using sim::SimResult;
using sim::Stream;
using Keys = std::vector<std::string>;

Keys keys(const Json& j) {
  Keys out;
  for (const auto& [k, v] : j.items()) out.push_back(k);
  return out;
}

// Three ranks on two hosts (local_world_size 2), two iterations, values that
// are not round in binary so a lossy number format would show.
SimResult sample_result() {
  SimResult r;
  r.scenario = "hand \"built\"";
  r.iterations = 2;
  r.local_world_size = 2;
  r.iteration_ms = 1.2345678901234567;
  r.total_ms = 2.5000000000000004;
  r.events = 123456789012ULL;
  r.flows = 42;
  for (int rank = 0; rank < 3; ++rank) {
    sim::RankResult rr;
    rr.rank = rank;
    rr.host = rank / 2;
    rr.busy_compute_ms = 0.1 * (rank + 1);
    rr.busy_comm_ms = 0.3 / (rank + 1);
    for (int it = 0; it < 2; ++it) {
      const double base = it * 1.25 + rank * 1e-3;
      rr.phases.push_back({.phase = Phase::kFwdCompute,
                           .stream = Stream::kCompute,
                           .iteration = it,
                           .start_ms = base,
                           .end_ms = base + 0.1,
                           .bytes = 0.0,
                           .tables = 3});
      rr.phases.push_back({.phase = Phase::kOutputDist,
                           .stream = Stream::kComm,
                           .iteration = it,
                           .start_ms = base + 0.1,
                           .end_ms = base + 0.35,
                           .bytes = 1048576.0 + rank,
                           .tables = 2});
      rr.phases.push_back({.phase = Phase::kDpAllreduce,
                           .stream = Stream::kComm,
                           .iteration = it,
                           .start_ms = base + 0.4,
                           .end_ms = base + 0.5,
                           .bytes = 1536.25,
                           .tables = 1});
    }
    r.ranks.push_back(std::move(rr));
  }
  r.critical_path = {
      {.rank = 2, .phase = Phase::kFwdCompute, .iteration = 1, .start_ms = 1.252, .end_ms = 1.352},
      {.rank = 2,
       .phase = Phase::kOutputDist,
       .stream = Stream::kComm,
       .iteration = 1,
       .start_ms = 1.352,
       .end_ms = 1.602},
  };
  r.links = {
      {.name = "host0/gpu1->host0/fabric", .bytes = 4194304.0, .utilization = 0.4200000000000001},
      {.name = "host1/nic0->host1/leaf", .bytes = 0.5, .utilization = 0.0}};
  return r;
}

TEST(SimulationJson, ShapeAndEveryValue) {
  const SimResult r = sample_result();
  for (bool compact : {false, true}) {
    SCOPED_TRACE(compact ? "compact" : "indented");
    const std::string text = simulation_to_json(r, compact);
    EXPECT_EQ(text.find('\n') == std::string::npos, compact);
    const Json j = Json::parse(text);
    EXPECT_EQ(keys(j), (Keys{"scenario", "iterations", "iteration_ms", "total_ms", "ranks",
                             "critical_path", "links", "events", "flows"}));
    EXPECT_EQ(j["scenario"], r.scenario);
    EXPECT_EQ(j["iterations"], 2);
    EXPECT_EQ(j["iteration_ms"].get<double>(), r.iteration_ms);
    EXPECT_EQ(j["total_ms"].get<double>(), r.total_ms);
    EXPECT_EQ(j["events"].get<uint64_t>(), r.events);
    EXPECT_EQ(j["flows"].get<uint64_t>(), r.flows);

    ASSERT_EQ(j["ranks"].size(), r.ranks.size());
    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
      const sim::RankResult& rr = r.ranks[i];
      const Json& jr = j["ranks"][i];
      EXPECT_EQ(keys(jr), (Keys{"rank", "busy_ms", "phases"}));
      EXPECT_EQ(jr["rank"], rr.rank);
      EXPECT_EQ(keys(jr["busy_ms"]), (Keys{"compute", "comm"}));
      EXPECT_EQ(jr["busy_ms"]["compute"].get<double>(), rr.busy_compute_ms);
      EXPECT_EQ(jr["busy_ms"]["comm"].get<double>(), rr.busy_comm_ms);
      ASSERT_EQ(jr["phases"].size(), rr.phases.size());
      for (std::size_t p = 0; p < rr.phases.size(); ++p) {
        const PhaseRecord& pr = rr.phases[p];
        const Json& jp = jr["phases"][p];
        EXPECT_EQ(keys(jp),
                  (Keys{"phase", "stream", "iteration", "start_ms", "end_ms", "bytes", "tables"}));
        EXPECT_EQ(jp["phase"], std::string(sim::to_string(pr.phase)));
        EXPECT_EQ(jp["stream"], std::string(sim::to_string(pr.stream)));
        EXPECT_EQ(jp["iteration"], pr.iteration);
        EXPECT_EQ(jp["start_ms"].get<double>(), pr.start_ms);
        EXPECT_EQ(jp["end_ms"].get<double>(), pr.end_ms);
        EXPECT_EQ(jp["bytes"].get<double>(), pr.bytes);
        EXPECT_EQ(jp["tables"], pr.tables);
      }
    }
    // Whole byte counts are integers, fractional ones stay exact doubles.
    EXPECT_TRUE(j["ranks"][1]["phases"][1]["bytes"].is_number_integer());
    EXPECT_EQ(j["ranks"][1]["phases"][1]["bytes"], 1048577);
    EXPECT_TRUE(j["ranks"][0]["phases"][2]["bytes"].is_number_float());

    ASSERT_EQ(j["critical_path"].size(), r.critical_path.size());
    for (std::size_t i = 0; i < r.critical_path.size(); ++i) {
      const sim::CriticalStep& s = r.critical_path[i];
      const Json& js = j["critical_path"][i];
      EXPECT_EQ(keys(js), (Keys{"rank", "phase", "stream", "iteration", "start_ms", "end_ms"}));
      EXPECT_EQ(js["rank"], s.rank);
      EXPECT_EQ(js["phase"], std::string(sim::to_string(s.phase)));
      EXPECT_EQ(js["stream"], std::string(sim::to_string(s.stream)));
      EXPECT_EQ(js["iteration"], s.iteration);
      EXPECT_EQ(js["start_ms"].get<double>(), s.start_ms);
      EXPECT_EQ(js["end_ms"].get<double>(), s.end_ms);
    }

    ASSERT_EQ(j["links"].size(), r.links.size());
    for (std::size_t i = 0; i < r.links.size(); ++i) {
      const Json& jl = j["links"][i];
      EXPECT_EQ(keys(jl), (Keys{"name", "bytes", "utilization"}));
      EXPECT_EQ(jl["name"], r.links[i].name);
      EXPECT_EQ(jl["bytes"].get<double>(), r.links[i].bytes);
      EXPECT_EQ(jl["utilization"].get<double>(), r.links[i].utilization);
    }
  }
}

TEST(SimulationJson, EmptyResultAndNonFiniteNumbers) {
  SimResult r;
  r.scenario = "empty";
  r.iteration_ms = std::numeric_limits<double>::infinity();
  r.total_ms = std::numeric_limits<double>::quiet_NaN();
  const Json j = Json::parse(simulation_to_json(r));
  EXPECT_TRUE(j["ranks"].is_array() && j["ranks"].empty());
  EXPECT_TRUE(j["critical_path"].is_array() && j["critical_path"].empty());
  EXPECT_TRUE(j["links"].is_array() && j["links"].empty());
  EXPECT_TRUE(j["iteration_ms"].is_null());
  EXPECT_TRUE(j["total_ms"].is_null());

  const Json t = Json::parse(chrome_trace_json(r));
  EXPECT_EQ(keys(t), (Keys{"traceEvents", "displayTimeUnit"}));
  EXPECT_TRUE(t["traceEvents"].empty());
}

TEST(ChromeTrace, ProcessesThreadsAndCompleteEvents) {
  const SimResult r = sample_result();
  const std::string text = chrome_trace_json(r);
  const Json j = Json::parse(text);
  EXPECT_EQ(keys(j), (Keys{"traceEvents", "displayTimeUnit"}));
  EXPECT_EQ(j["displayTimeUnit"], "ms");

  std::map<int, std::string> process_names;
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<std::pair<int, int>, int> thread_sort;
  std::vector<Json> complete;
  for (const Json& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph")) << e.dump();
    if (e["ph"] == "M") {
      EXPECT_EQ(keys(e), (Keys{"name", "ph", "pid", "tid", "args"})) << e.dump();
      const int pid = e["pid"];
      const int tid = e["tid"];
      if (e["name"] == "process_name") process_names[pid] = e["args"]["name"];
      if (e["name"] == "thread_name") thread_names[{pid, tid}] = e["args"]["name"];
      if (e["name"] == "thread_sort_index") thread_sort[{pid, tid}] = e["args"]["sort_index"];
    } else {
      EXPECT_EQ(e["ph"], "X");
      complete.push_back(e);
    }
  }
  EXPECT_EQ(process_names, (std::map<int, std::string>{{0, "host0"}, {1, "host1"}}));
  // Per GPU: its host thread (none here: no host model), compute, comm.
  const std::map<std::pair<int, int>, std::string> expected_threads = {
      {{0, 1}, "gpu0 compute"}, {{0, 2}, "gpu0 comm"},    {{0, 4}, "gpu1 compute"},
      {{0, 5}, "gpu1 comm"},    {{1, 1}, "gpu2 compute"}, {{1, 2}, "gpu2 comm"}};
  EXPECT_EQ(thread_names, expected_threads);
  for (const auto& [pt, name] : expected_threads) EXPECT_EQ(thread_sort[pt], pt.second) << name;

  // Every phase once, in the result's order, with its values in microseconds.
  std::size_t next = 0;
  int critical = 0;
  for (const sim::RankResult& rr : r.ranks) {
    for (const PhaseRecord& p : rr.phases) {
      ASSERT_LT(next, complete.size());
      const Json& e = complete[next++];
      EXPECT_EQ(keys(e), (Keys{"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"}))
          << e.dump();
      EXPECT_EQ(e["name"], std::string(sim::to_string(p.phase)));
      EXPECT_EQ(e["cat"], std::string(sim::to_string(p.stream)));
      EXPECT_EQ(e["ts"].get<double>(), p.start_ms * 1000.0);
      EXPECT_EQ(e["dur"].get<double>(), (p.end_ms - p.start_ms) * 1000.0);
      EXPECT_EQ(e["pid"], rr.host);
      EXPECT_EQ(e["tid"], (rr.rank % 2) * 3 + (p.stream == Stream::kComm ? 2 : 1));
      EXPECT_EQ(e["args"]["iteration"], p.iteration);
      EXPECT_EQ(e["args"]["bytes"].get<double>(), p.bytes);
      EXPECT_EQ(e["args"]["tables"], p.tables);
      EXPECT_EQ(e["args"]["rank"], rr.rank);
      const bool on_path = rr.rank == 2 && p.iteration == 1 &&
                           (p.phase == Phase::kFwdCompute || p.phase == Phase::kOutputDist);
      if (on_path) {
        ++critical;
        EXPECT_EQ(keys(e["args"]), (Keys{"iteration", "bytes", "tables", "rank", "critical"}));
        EXPECT_EQ(e["args"]["critical"], true);
      } else {
        EXPECT_EQ(keys(e["args"]), (Keys{"iteration", "bytes", "tables", "rank"}));
      }
    }
  }
  EXPECT_EQ(next, complete.size());
  EXPECT_EQ(critical, 2);
}

}  // namespace
}  // namespace shardlab::data
