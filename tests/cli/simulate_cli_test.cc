// The simulator's verbs through the real binary: simulate (result and trace
// files, --plan, option errors), plan --perf-model simulated, and compare.

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../scoped_env.h"
#include "cli_fixture.h"

namespace {

using namespace shardlab_cli_test;

const std::set<std::string> kPhases = {
    "input_dist",    "fwd_compute",     "output_dist",       "dense_fwd",    "dense_bwd",
    "ddp_allreduce", "bwd_output_dist", "bwd_compute",       "dp_allreduce", "dense_optimizer",
    "prefetch",      "host_sync",       "iteration_overhead"};
const std::set<std::string> kStreams = {"compute", "comm", "host"};

// Two tables on four ranks in two hosts, with a fabric and a dense workload.
constexpr const char* kTwoHostScenario = R"({
  "name": "cli-two-hosts",
  "topology": {"world_size": 4, "local_world_size": 2, "hbm_cap": "16 GiB",
               "fabric": {"nics_per_host": 1, "nic_bw": "25 GB/s", "oversubscription": 2,
                          "hosts": [{"intra_host_bw": "300 GB/s"}, {"nics": 2}]}},
  "workload": {"dense_fwd_ms": 0.05, "dense_bwd_ms": [0.1, 0.1, 0.12, 0.1]},
  "tables": [
    {"name": "t0", "num_embeddings": 100000, "embedding_dim": 64, "feature_names": ["f0"]},
    {"name": "t1", "num_embeddings": 5000, "embedding_dim": 32, "feature_names": ["f1"]}
  ],
  "planner": {"proposers": ["greedy"]}
})";

// The result document of docs/simulation.md "The result file", checked in depth.
void check_result(const Json& j, const std::string& scenario, int iterations, int ranks) {
  EXPECT_EQ(keys(j), (Keys{"scenario", "iterations", "iteration_ms", "total_ms", "host", "ranks",
                           "critical_path", "links", "events", "flows"}));
  // A scenario that names no framework runs TorchRec eagerly (docs/host-model.md).
  const Json& host = j["host"];
  EXPECT_EQ(keys(host), (Keys{"framework", "mode", "profile", "rank", "host_busy_ms",
                              "host_critical_ms", "share", "verdict", "advice"}));
  EXPECT_EQ(host["framework"], "torchrec");
  EXPECT_EQ(host["mode"], "eager");
  EXPECT_EQ(host["profile"], "pytorch-eager-2022");
  EXPECT_GE(host["share"].get<double>(), 0.0);
  EXPECT_LE(host["share"].get<double>(), 1.0);
  EXPECT_LE(host["host_critical_ms"].get<double>(), j["iteration_ms"].get<double>() + 1e-9);
  EXPECT_EQ(j["scenario"], scenario);
  EXPECT_EQ(j["iterations"], iterations);
  EXPECT_GT(j["iteration_ms"].get<double>(), 0.0);
  EXPECT_GE(j["total_ms"].get<double>(), j["iteration_ms"].get<double>());
  EXPECT_GT(j["events"].get<int64_t>(), 0);
  ASSERT_EQ(j["ranks"].size(), static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const Json& rank = j["ranks"][r];
    EXPECT_EQ(keys(rank), (Keys{"rank", "busy_ms", "gpu_waits_host_ms", "phases"}));
    EXPECT_EQ(rank["rank"], r);
    EXPECT_GE(rank["busy_ms"]["compute"].get<double>(), 0.0);
    EXPECT_GE(rank["busy_ms"]["comm"].get<double>(), 0.0);
    ASSERT_FALSE(rank["phases"].empty());
    std::set<int> seen_iterations;
    for (const Json& p : rank["phases"]) {
      EXPECT_EQ(keys(p),
                (Keys{"phase", "stream", "iteration", "start_ms", "end_ms", "bytes", "tables"}));
      EXPECT_TRUE(kPhases.count(p["phase"].get<std::string>())) << p.dump();
      EXPECT_TRUE(kStreams.count(p["stream"].get<std::string>())) << p.dump();
      EXPECT_LE(p["start_ms"].get<double>(), p["end_ms"].get<double>()) << p.dump();
      EXPECT_LE(p["end_ms"].get<double>(), j["total_ms"].get<double>() + 1e-9) << p.dump();
      EXPECT_GE(p["bytes"].get<double>(), 0.0);
      seen_iterations.insert(p["iteration"].get<int>());
    }
    EXPECT_EQ(*seen_iterations.begin(), 0);
    EXPECT_EQ(*seen_iterations.rbegin(), iterations - 1);
  }
  ASSERT_FALSE(j["critical_path"].empty());
  for (const Json& s : j["critical_path"]) {
    EXPECT_EQ(keys(s), (Keys{"rank", "phase", "stream", "iteration", "start_ms", "end_ms"}));
    EXPECT_TRUE(kPhases.count(s["phase"].get<std::string>())) << s.dump();
    EXPECT_TRUE(kStreams.count(s["stream"].get<std::string>())) << s.dump();
    EXPECT_LT(s["rank"].get<int>(), ranks);
  }
  for (const Json& l : j["links"]) {
    EXPECT_EQ(keys(l), (Keys{"name", "bytes", "utilization"}));
    EXPECT_GT(l["bytes"].get<double>(), 0.0);
    EXPECT_GE(l["utilization"].get<double>(), 0.0);
  }
}

// The summary names the host side it simulated: TorchRec eager under the
// default host profile for a scenario that names no framework, CUDA graphs
// for HugeCTR, with workload.iteration_overhead_ms counted in the host's time.
TEST_F(CliTest, SimulateSaysWhetherTheHostSideIsIncluded) {
  const CliRun eager = run({"simulate", kTiny, "--no-record"});
  ASSERT_EQ(eager.exit_code, 0) << eager.err;
  EXPECT_NE(
      eager.out.find("host side: torchrec eager, host profile pytorch-eager-2022; host busy "),
      std::string::npos)
      << eager.out;
  // Microseconds of GPU work against milliseconds of Python: the host sets it.
  EXPECT_NE(eager.out.find("\nhost-bound: the host sets "), std::string::npos) << eager.out;
  EXPECT_NE(eager.out.find("CUDA graphs (workload.cuda_graphs)"), std::string::npos) << eager.out;

  std::string text = kTwoHostScenario;
  const std::string workload = R"("workload": {)";
  text.insert(text.find(workload) + workload.size(),
              R"("iteration_overhead_ms": 0.75, "framework": "hugectr", )");
  const CliRun graphs = run({"simulate", write("overhead.json", text), "--no-record"});
  ASSERT_EQ(graphs.exit_code, 0) << graphs.err;
  EXPECT_NE(graphs.out.find("host side: hugectr CUDA graphs, host profile pytorch-eager-2022"),
            std::string::npos)
      << graphs.out;
  EXPECT_NE(graphs.out.find("(0.75 ms of it workload.iteration_overhead_ms)"), std::string::npos)
      << graphs.out;
  EXPECT_NE(graphs.out.find("under CUDA graphs"), std::string::npos) << graphs.out;
}

// --time-limit bounds planning and simulating: a run past it exits 2, says so
// and writes nothing.
TEST_F(CliTest, SimulateStopsAtItsTimeLimit) {
  const CliRun r = run({"simulate", kTiny, "--iterations", "100000", "--time-limit", "0.05",
                        "--no-record", "-o", path("never.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the time limit (0.05 s) ran out: the simulation was stopped"),
            std::string::npos)
      << r.err;
  EXPECT_NE(read_file(path("never.json")).find("\"error\""), std::string::npos);
}

// SHARDLAB_MEMORY_REPORT: every memory check of the run is said on stderr,
// with its estimate and what the process holds (docs/scenario-format.md
// "Memory"); without it, none.
TEST_F(CliTest, MemoryChecksAreReportedWhenAsked) {
  {
    const shardlab::testing_support::ScopedEnv report("SHARDLAB_MEMORY_REPORT", "1");
    const CliRun r = run({"simulate", kTiny, "--no-record", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("shardlab: memory: planning "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("shardlab: memory: simulating 2 ranks needs about "), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(" budget ("), std::string::npos) << r.err;
  }
  const CliRun quiet = run({"simulate", kTiny, "--no-record", "-q"});
  EXPECT_EQ(quiet.err.find("shardlab: memory:"), std::string::npos) << quiet.err;
}

// A cluster's summary names its NVLink domains and its system preset.
TEST_F(CliTest, SimulateNamesTheClusterItRuns) {
  const std::string tables =
      R"("tables": [{"name": "t", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["f"]}])";
  const CliRun racks =
      run({"simulate",
           write("racks.json", R"({"name": "r", "topology": {"system": "gb200-nvl72",
                                  "nodes": 2}, )" +
                                   tables + "}"),
           "--iterations", "2", "--no-record"});
  ASSERT_EQ(racks.exit_code, 0) << racks.err;
  EXPECT_NE(racks.out.find("r: 144 ranks on 36 hosts in 2 NVLink domains of 72 (gb200-nvl72), 2 "
                           "iterations"),
            std::string::npos)
      << racks.out;
  const CliRun nodes = run({"simulate",
                            write("nodes.json", R"({"name": "n", "topology": {"system": "dgx-h100",
                                  "nodes": 2}, )" + tables +
                                                    "}"),
                            "--iterations", "2", "--no-record"});
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  EXPECT_NE(nodes.out.find("n: 16 ranks on 2 hosts (dgx-h100), 2 iterations"), std::string::npos)
      << nodes.out;
}

// One iteration has no steady state: the summary says what its time includes.
TEST_F(CliTest, SimulateOneIterationIsNotCalledASteadyState) {
  const CliRun one = run({"simulate", kTiny, "--iterations", "1", "--no-record"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find(", 1 iteration (overlap on"), std::string::npos) << one.out;
  EXPECT_NE(
      one.out.find(" ms (one iteration: includes the first input dist, not a steady state)\n"),
      std::string::npos)
      << one.out;
  EXPECT_EQ(one.out.find("(steady state)"), std::string::npos) << one.out;

  const CliRun two = run({"simulate", kTiny, "--iterations", "2", "--no-record"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find(" ms (steady state); 2 iterations end at "), std::string::npos) << two.out;
  EXPECT_EQ(two.out.find("one iteration"), std::string::npos) << two.out;
}

// The printed critical path is one chain: its rows' ms add up to the
// iteration time (to the printed 4 decimals), in time order. The DLRM-DCNv2
// scenario has DDP buckets and an all-to-all that waits for a late peer.
TEST_F(CliTest, SimulateCriticalPathAddsUpToTheIterationTime) {
  const CliRun r = run(
      {"simulate", std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/dlrm_dcnv2_criteo_1tb.json",
       "--no-record", "-o", path("result.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double iteration = Json::parse(read_file(path("result.json")))["iteration_ms"];
  std::istringstream lines(r.out.substr(r.out.find("critical path of the last iteration")));
  std::string line;
  std::getline(lines, line);  // title
  std::getline(lines, line);  // column heads
  double sum = 0.0;
  double previous_end = 0.0;
  int rows = 0;
  while (std::getline(lines, line) && line.rfind("busiest links", 0) != 0) {
    std::istringstream row(line);
    int rank = 0, iteration_index = 0;
    std::string phase, stream;
    double start = 0.0, ms = 0.0;
    ASSERT_TRUE(row >> rank >> phase >> stream >> iteration_index >> start >> ms) << line;
    EXPECT_TRUE(stream == "compute" || stream == "comm" || stream == "host") << line;
    if (rows > 0) {
      EXPECT_NEAR(start, previous_end, 1.5e-4) << line;  // rounded to 4 decimals
    }
    previous_end = start + ms;
    sum += ms;
    ++rows;
  }
  EXPECT_GE(rows, 2);
  EXPECT_NEAR(sum, iteration, 0.5e-4 * rows) << r.out;
  EXPECT_NE(r.out.find("busiest links (top 5 of "), std::string::npos) << r.out;
}

TEST_F(CliTest, SimulateWritesResultAndTrace) {
  const std::string out = path("result.json");
  const std::string trace = path("trace.json");
  const CliRun r = run({"simulate", kTiny, "-o", out, "--trace", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* piece :
       {"iteration time:", "busy per iteration", "critical path", "busiest links"}) {
    EXPECT_NE(r.out.find(piece), std::string::npos) << piece << " in:\n" << r.out;
  }
  const Json result = Json::parse(read_file(out));
  check_result(result, "tiny_2gpu", 4, 2);

  const Json t = Json::parse(read_file(trace));
  EXPECT_EQ(keys(t), (Keys{"traceEvents", "displayTimeUnit"}));
  EXPECT_EQ(t["displayTimeUnit"], "ms");
  size_t complete = 0;
  std::set<std::string> thread_names;
  for (const Json& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name")
      thread_names.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] != "X") continue;
    ++complete;
    EXPECT_EQ(e["pid"], 0);
    EXPECT_LT(e["tid"].get<int>(), 6);  // per GPU: its host thread, compute, comm
  }
  EXPECT_EQ(thread_names, (std::set<std::string>{"cpu0 host", "gpu0 compute", "gpu0 comm",
                                                 "cpu1 host", "gpu1 compute", "gpu1 comm"}));
  size_t phases = 0;
  for (const Json& rank : result["ranks"]) phases += rank["phases"].size();
  EXPECT_EQ(complete, phases);
  expect_no_temp_files();
}

TEST_F(CliTest, SimulateOptions) {
  // -o - takes stdout: the JSON alone goes there, the summary to stderr.
  CliRun r = run({"simulate", kTiny, "-o", "-", "--iterations", "2", "--no-overlap",
                  "--no-contention", "--comm-model", "estimates", "--compact"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  check_result(Json::parse(r.out), "tiny_2gpu", 2, 2);
  EXPECT_NE(r.err.find("overlap off, contention off, comm model estimates"), std::string::npos)
      << r.err;

  // -q: nothing printed.
  r = run({"simulate", kTiny, "-q", "-o", path("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;

  // Fabric and workload sections are simulated.
  r = run({"simulate", write("two_hosts.json", kTwoHostScenario), "-o", path("two.json"),
           "--iterations", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json two = Json::parse(read_file(path("two.json")));
  check_result(two, "cli-two-hosts", 3, 4);
  std::set<std::string> phases;
  for (const Json& p : two["ranks"][2]["phases"]) phases.insert(p["phase"].get<std::string>());
  EXPECT_TRUE(phases.count("dense_fwd") && phases.count("dense_bwd"))
      << two["ranks"][2]["phases"].dump();
}

TEST_F(CliTest, SimulateUsageErrorsExit2) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"simulate", kTiny, "--comm-model", "packets"},
        {"simulate", kTiny, "--iterations", "0"},
        {"simulate", kTiny, "--iterations", "two"},
        {"simulate"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_NE(r.err.find("shardlab: error:"), std::string::npos) << r.err;
  }
  // An invalid fabric: the loader names it, -o gets the error JSON.
  std::string bad = kTwoHostScenario;
  bad.replace(bad.find("\"nics\": 2"), 9, "\"nics\": 0");
  const CliRun r = run({"simulate", write("bad.json", bad), "-o", path("r.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("topology.fabric.hosts[1].nics"), std::string::npos) << r.err;
  const Json j = Json::parse(read_file(path("r.json")));
  EXPECT_EQ(keys(j), (Keys{"scenario", "error"}));
  EXPECT_EQ(j["error"]["type"], "invalid_scenario");
}

TEST_F(CliTest, SimulateAPlanFile) {
  CliRun r = run({"plan", kTiny, "-o", path("plan.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"plan", kTiny, "--format", "torchrec", "-o", path("torchrec.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"simulate", kTiny, "-o", path("planned.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json planned = Json::parse(read_file(path("planned.json")));

  // The planner's own plan read back simulates exactly as planning it again.
  for (const char* file : {"plan.json", "torchrec.json"}) {
    r = run({"simulate", kTiny, "--plan", path(file), "-o", path("from_file.json")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("plan: from " + path(file)), std::string::npos) << r.out;
    const Json from_file = Json::parse(read_file(path("from_file.json")));
    check_result(from_file, "tiny_2gpu", 4, 2);
    EXPECT_EQ(from_file["iteration_ms"], planned["iteration_ms"]) << file;
    EXPECT_EQ(from_file["ranks"], planned["ranks"]) << file;
  }

  // A plan that does not fit the scenario: exit 2, file and table named.
  Json broken = Json::parse(read_file(path("plan.json")));
  broken["tables"].erase("user_id");
  r = run({"simulate", kTiny, "--plan", write("broken.json", broken.dump()), "-o", path("r.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("user_id"), std::string::npos) << r.err;
  EXPECT_EQ(Json::parse(read_file(path("r.json")))["error"]["type"], "invalid_scenario");
  r = run({"simulate", kTiny, "--plan", path("missing.json")});
  EXPECT_EQ(r.exit_code, 2);
  expect_no_temp_files();
}

TEST_F(CliTest, PlanWithTheSimulatedPerfModel) {
  CliRun r = run({"plan", kTiny, "--perf-model", "simulated", "-o", path("plan.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("simulations"), std::string::npos) << r.err;
  const Json plan = Json::parse(read_file(path("plan.json")));
  EXPECT_EQ(plan["tables"].size(), 4u);

  // The rating is the plan's simulated iteration time.
  r = run({"simulate", kTiny, "--plan", path("plan.json"), "-o", path("sim.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json sim = Json::parse(read_file(path("sim.json")));
  EXPECT_DOUBLE_EQ(plan["perf_rating_ms"].get<double>(), sim["iteration_ms"].get<double>());

  // -q silences the count; an unknown model is a usage error.
  r = run({"plan", kTiny, "--perf-model", "simulated", "-q", "-o", path("plan2.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  r = run({"plan", kTiny, "--perf-model", "astrology"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(CliTest, CompareEachTorchRecVersionPutsTheVersionsSideBySide) {
  const CliRun r = run({"compare", kTiny, "-o", path("versions.json"), "--iterations", "1", "-q",
                        "--no-record", "--each-torchrec-version"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(read_file(path("versions.json")));
  ASSERT_EQ(j["rows"].size(), 34u);
  for (size_t i = 0; i < j["rows"].size(); i += 2) {
    const Json& older = j["rows"][i];
    const Json& newer = j["rows"][i + 1];
    EXPECT_EQ(older["torchrec_version"], "2024-02") << i;
    EXPECT_EQ(newer["torchrec_version"], "2026-08") << i;
    EXPECT_EQ(older["proposer"], newer["proposer"]) << i;
    EXPECT_EQ(older["partitioner"], newer["partitioner"]) << i;
    EXPECT_EQ(older["perf_model"], newer["perf_model"]) << i;
  }
  // The first pair is the scenario as configured, planned by each version.
  for (const char* version : {"2024-02", "2026-08"}) {
    const CliRun planned = run({"plan", kTiny, "-q", "--no-record", "--torchrec-version", version,
                                "-o", path(std::string("plan-") + version + ".json")});
    ASSERT_EQ(planned.exit_code, 0) << planned.err;
    const size_t row = std::string(version) == "2024-02" ? 0 : 1;
    EXPECT_EQ(
        j["rows"][row]["perf_rating_ms"].get<double>(),
        Json::parse(read_file(path(std::string("plan-") + version + ".json")))["perf_rating_ms"]
            .get<double>());
  }
  // Without the flag every row is the scenario's own version.
  const CliRun own = run({"compare", kTiny, "-o", "-", "--iterations", "1", "-q", "--no-record"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  const Json own_rows = Json::parse(own.out)["rows"];  // a temporary would die before the loop
  for (const Json& row : own_rows) EXPECT_EQ(row["torchrec_version"], "2026-08");
}

// --time-limit bounds a comparison: the rows done are printed and written,
// and both say it stopped.
TEST_F(CliTest, CompareStopsAtItsTimeLimit) {
  const CliRun r = run({"compare", kTiny, "--time-limit", "0.000001", "--iterations", "2",
                        "--no-record", "-o", path("stopped.json")});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err;
  EXPECT_NE(r.out.find("stopped by the time limit after "), std::string::npos) << r.out;
  const Json j = Json::parse(read_file(path("stopped.json")));
  EXPECT_EQ(j["stopped"], "time_limit");
  EXPECT_LT(j["rows"].size(), 17u);
}

TEST_F(CliTest, CompareWritesOneRowPerConfiguration) {
  const CliRun r = run({"compare", kTiny, "-o", path("compare.json"), "--iterations", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[1/17] scenario + greedy_perf + torchrec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[17/17]"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("sim_iter_ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- winner"), std::string::npos) << r.out;
  const Json j = Json::parse(read_file(path("compare.json")));
  EXPECT_EQ(keys(j), (Keys{"scenario", "iterations", "stopped", "winner", "rows"}));
  EXPECT_TRUE(j["stopped"].is_null());
  EXPECT_EQ(j["scenario"], "tiny_2gpu");
  EXPECT_EQ(j["iterations"], 2);
  ASSERT_EQ(j["rows"].size(), 17u);
  // The first row is the scenario as configured: what `shardlab plan` gives.
  EXPECT_EQ(j["rows"][0]["proposer"], "scenario");
  const CliRun planned = run({"plan", kTiny, "-q", "-o", path("plan.json")});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_EQ(j["rows"][0]["perf_rating_ms"].get<double>(),
            Json::parse(read_file(path("plan.json")))["perf_rating_ms"].get<double>());
  // The winner has the lowest simulated time; each row states its difference.
  ASSERT_TRUE(j["winner"].is_number_integer());
  const Json& winner = j["rows"][j["winner"].get<size_t>()];
  EXPECT_EQ(winner["winner"], true);
  EXPECT_EQ(winner["iteration_vs_winner"].get<double>(), 0.0);
  EXPECT_TRUE(winner["moved_vs_winner"].empty());
  std::set<std::string> configurations;
  int ok = 0;
  for (const Json& row : j["rows"]) {
    EXPECT_EQ(keys(row), (Keys{"label",
                               "proposer",
                               "partitioner",
                               "perf_model",
                               "torchrec_version",
                               "axes",
                               "ok",
                               "applies",
                               "error",
                               "perf_rating_ms",
                               "iteration_ms",
                               "peak_hbm_bytes",
                               "imbalance",
                               "num_proposals",
                               "num_plans",
                               "simulations",
                               "plan_seconds",
                               "winner",
                               "iteration_vs_winner",
                               "rating_vs_winner",
                               "moved_vs_winner",
                               "ranks"}));
    configurations.insert(row["proposer"].get<std::string>() + "/" +
                          row["partitioner"].get<std::string>() + "/" +
                          row["perf_model"].get<std::string>());
    EXPECT_EQ(row["simulations"].get<int>() > 0,
              row["perf_model"] == "simulated" && row["num_plans"] > 0)
        << row.dump();
    if (row["ok"] == true) {
      ++ok;
      EXPECT_TRUE(row["error"].is_null());
      EXPECT_GT(row["perf_rating_ms"].get<double>(), 0.0);
      EXPECT_GT(row["iteration_ms"].get<double>(), 0.0);
      EXPECT_GT(row["peak_hbm_bytes"].get<int64_t>(), 0);
      EXPECT_GE(row["imbalance"].get<double>(), 1.0);
      EXPECT_GE(row["iteration_ms"].get<double>(), winner["iteration_ms"].get<double>());
      const double w = winner["iteration_ms"].get<double>();
      EXPECT_NEAR(row["iteration_vs_winner"].get<double>(),
                  (row["iteration_ms"].get<double>() - w) / w, 1e-12);
      ASSERT_EQ(row["ranks"].size(), 2u);
      double max_perf = 0.0;
      for (const Json& rank : row["ranks"]) {
        max_perf = std::max(max_perf, rank["perf_ms"].get<double>());
        EXPECT_GT(rank["busy_compute_ms"].get<double>(), 0.0);
      }
      EXPECT_EQ(max_perf, row["perf_rating_ms"].get<double>());
    } else {
      EXPECT_TRUE(row["error"].contains("type")) << row.dump();
    }
  }
  EXPECT_EQ(configurations.size(), 17u);
  EXPECT_GT(ok, 0);
  expect_no_temp_files();
}

// --proposers, --partitioners and --perf-models choose the rows; a name no
// row has is refused with the names there are.
TEST_F(CliTest, CompareRunsTheChosenRows) {
  CliRun r = run({"compare", kTiny, "--no-record", "--proposers", "uniform,greedy", "--perf-models",
                  "torchrec", "--partitioners", "memory_balanced"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[1/2] greedy + memory_balanced + torchrec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[2/2] uniform + memory_balanced + torchrec"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[3/"), std::string::npos) << r.err;
  r = run({"compare", kTiny, "--no-record", "--perf-models", "simulate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--perf-models: no row has \"simulate\"; the rows have torchrec, simulated"),
            std::string::npos)
      << r.err;
}

}  // namespace
