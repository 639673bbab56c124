// shardlab optimize through the real binary: the plan it writes re-rates
// with plan --from-plan and simulates to the time it reports, runs are
// recorded as a start/result pair that runs diff compares, the same seed
// writes the same file, and bad input fails with the usual error JSON.

#include <string>
#include <vector>

#include "cli_fixture.h"

namespace shardlab_cli_test {
namespace {

const std::string kTwoHosts =
    std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/two_host_criteo_kaggle.json";

class OptimizeCliTest : public CliTest {};

// Bounded by evaluations only: deterministic and quick.
std::vector<std::string> bounded(std::vector<std::string> args) {
  for (const char* a : {"--time-limit", "0", "--max-evaluations", "12"}) args.emplace_back(a);
  return args;
}

TEST_F(OptimizeCliTest, WritesAPlanThatReRatesAndSimulatesToTheReportedTime) {
  const std::string db = path("runs.db");
  CliRun r = run(bounded({"optimize", kTwoHosts, "-o", path("fast.json"), "--db", db}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("simulated iteration:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TorchRec rating:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("vs TorchRec's plan"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tables moved:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recorded runs 1 (plan) and 2 (optimize)"), std::string::npos) << r.err;
  const Json plan = Json::parse(read_file(path("fast.json")));
  const double optimized_ms = plan["perf_rating_ms"].get<double>();
  for (const auto& d : plan["devices"]) {
    EXPECT_LE(d["hbm_used"].get<int64_t>(), d["hbm_available"].get<int64_t>());
    EXPECT_LE(d["ddr_used"].get<int64_t>(), d["ddr_available"].get<int64_t>());
  }

  // Re-rated by the simulated perf model, the plan costs what optimize said.
  r = run({"plan", kTwoHosts, "--from-plan", path("fast.json"), "--perf-model", "simulated", "-o",
           path("rated.json"), "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(read_file(path("rated.json")))["perf_rating_ms"].get<double>(),
            optimized_ms);
  r = run({"simulate", kTwoHosts, "--plan", path("fast.json"), "-o", path("sim.json"), "-q",
           "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(read_file(path("sim.json")))["iteration_ms"].get<double>(), optimized_ms);
  // And beats TorchRec's plan.
  r = run({"simulate", kTwoHosts, "-o", path("torchrec_sim.json"), "-q", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(optimized_ms,
            Json::parse(read_file(path("torchrec_sim.json")))["iteration_ms"].get<double>());

  // The pair of runs: the start plan, and the result derived from it.
  r = run({"runs", "list", "--db", db, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json runs = Json::parse(r.out);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["kind"], "optimize");
  EXPECT_EQ(runs[1]["kind"], "plan");
  EXPECT_EQ(runs[0]["summary"]["iteration_ms"].get<double>(), optimized_ms);
  EXPECT_LT(runs[0]["summary"]["iteration_ms"].get<double>(),
            runs[0]["summary"]["start_iteration_ms"].get<double>());
  EXPECT_EQ(runs[1]["summary"]["role"], "optimize start");
  r = run({"runs", "diff", "2", "--db", db, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json diff = Json::parse(r.out);
  EXPECT_EQ(diff["a"], 1);
  EXPECT_EQ(diff["b"], 2);
  EXPECT_FALSE(diff["placements"].empty());
  r = run({"runs", "diff", "1", "--db", db});
  EXPECT_EQ(r.exit_code, 2);  // run 1 came from no other run
  expect_no_temp_files();
}

TEST_F(OptimizeCliTest, SameSeedWritesTheSameFileAndTorchRecFormatReads) {
  CliRun a = run(
      bounded({"optimize", kTwoHosts, "-o", path("a.json"), "--seed", "5", "-q", "--no-record"}));
  CliRun b = run(
      bounded({"optimize", kTwoHosts, "-o", path("b.json"), "--seed", "5", "-q", "--no-record"}));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.err, "");  // -q: no progress, no summary
  EXPECT_EQ(read_file(path("a.json")), read_file(path("b.json")));

  CliRun t = run(bounded({"optimize", kTwoHosts, "--format", "torchrec", "-o", path("t.json"),
                          "--seed", "5", "-q", "--no-record"}));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(Json::parse(read_file(path("t.json")))["format"], "torchrec.ShardingPlan");
  CliRun rated =
      run({"plan", kTwoHosts, "--from-plan", path("t.json"), "-o", path("r.json"), "--no-record"});
  ASSERT_EQ(rated.exit_code, 0) << rated.err;
  // Both formats hold the same plan: TorchRec's model rates them alike.
  CliRun rated_a =
      run({"plan", kTwoHosts, "--from-plan", path("a.json"), "-o", path("ra.json"), "--no-record"});
  ASSERT_EQ(rated_a.exit_code, 0) << rated_a.err;
  EXPECT_EQ(Json::parse(read_file(path("r.json")))["perf_rating_ms"],
            Json::parse(read_file(path("ra.json")))["perf_rating_ms"]);
}

TEST_F(OptimizeCliTest, StartsFromAGivenPlanAndRefusesBadOnes) {
  CliRun r = run({"plan", kTwoHosts, "-o", path("torchrec.json"), "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run(bounded({"optimize", kTwoHosts, "--from-plan", path("torchrec.json"), "-o",
                   path("fast.json"), "--no-record", "--objective", "torchrec"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("objective torchrec"), std::string::npos) << r.err;
  const double start =
      Json::parse(read_file(path("torchrec.json")))["perf_rating_ms"].get<double>();
  EXPECT_LE(Json::parse(read_file(path("fast.json")))["perf_rating_ms"].get<double>(), start);

  write("broken.json", "{\"tables\": {\"nope\": {}}}");
  r = run(bounded({"optimize", kTwoHosts, "--from-plan", path("broken.json"), "-o",
                   path("out.json"), "--no-record"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
  const Json error = Json::parse(read_file(path("out.json")));
  EXPECT_EQ(error["error"]["type"], "invalid_scenario");

  r = run({"optimize", path("missing.json"), "--no-record"});
  EXPECT_EQ(r.exit_code, 2);
}

// --torchrec-version picks the model the start plan, the search space and
// the records come from, as on plan.
TEST_F(OptimizeCliTest, TorchRecVersionPicksThePlannerModel) {
  const std::string db = path("runs.db");
  const CliRun planned = run({"plan", kTwoHosts, "--torchrec-version", "2024-02", "-o",
                              path("plan.json"), "--no-record", "-q"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const CliRun r = run(bounded({"optimize", kTwoHosts, "--torchrec-version", "2024-02", "-o",
                                path("fast.json"), "--db", db, "-q"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(read_file(path("fast.json")))["torchrec_version"], "2024-02");
  const Json runs = Json::parse(run({"runs", "list", "--db", db, "--format", "json"}).out);
  ASSERT_EQ(runs.size(), 2u);
  for (const Json& run : runs) EXPECT_EQ(run["torchrec_version"], "2024-02") << run.dump();
  // The start is TorchRec 2024-02's plan, rated as plan rates it.
  EXPECT_EQ(runs[1]["summary"]["rating_ms"],
            Json::parse(read_file(path("plan.json")))["perf_rating_ms"]);
  const CliRun bad = run({"optimize", kTwoHosts, "--torchrec-version", "2025"});
  EXPECT_EQ(bad.exit_code, 2);
}

// 1,000 tables on 128 ranks: TorchRec's planner takes well over a millisecond
// (and, in optimize's set-up, over 0.3 s with the simulated objective).
std::string thousand_tables_on_128_ranks() {
  std::string text = R"({"name": "big", "topology": {"world_size": 128, "local_world_size": 8,
                          "hbm_cap": "80 GiB"}, "tables": [)";
  for (int t = 0; t < 1000; ++t) {
    text += (t == 0 ? "" : ",") + std::string(R"({"name": "t)") + std::to_string(t) +
            R"(", "num_embeddings": )" + std::to_string(1000 + 7919 * (t % 397)) +
            R"(, "embedding_dim": 64, "feature_names": ["f)" + std::to_string(t) + R"("]})";
  }
  return text + "]}";
}

// Ctrl-C is handled from the verb's first step: one sent while the start
// plan is still being made (1,000 tables on 128 ranks plan for over a second;
// the signal comes after 0.3 s) stops the search before it moves, and the
// best plan so far, the start plan, is written, with exit 0 and a note on
// stderr. Before, the default action killed the process with nothing written.
TEST_F(OptimizeCliTest, CtrlCWhileStartingWritesTheStartPlan) {
  const std::string scenario = write("big.json", thousand_tables_on_128_ranks());
  const std::string script = quote(SHARDLAB_CLI_PATH) + " optimize " + quote(scenario) + " -o " +
                             quote(path("plan.json")) + " --time-limit 0 --no-record 2> " +
                             quote(path("stderr.txt")) + " & pid=$!; sleep 0.3; kill -INT $pid; " +
                             "wait $pid; echo $? > " + quote(path("rc.txt"));
  ASSERT_EQ(std::system(("sh -c " + quote(script)).c_str()), 0);
  const std::string err = read_file(path("stderr.txt"));
  EXPECT_EQ(read_file(path("rc.txt")), "0\n") << err;
  EXPECT_NE(err.find("Ctrl-C: stopping; the best plan so far is written"), std::string::npos)
      << err;
  EXPECT_NE(err.find("stopped on cancelled"), std::string::npos) << err;
  const Json plan = Json::parse(read_file(path("plan.json")));
  EXPECT_EQ(plan["tables"].size(), 1000u);
  expect_no_temp_files();
}

// --time-limit bounds the whole run: a limit that runs out while TorchRec's
// start plan is still being made (1,000 tables on 128 ranks take far more
// than a millisecond to plan) ends the run with exit 2, saying so, and
// writes nothing.
TEST_F(OptimizeCliTest, TheTimeLimitBoundsTheStartPlanToo) {
  const std::string scenario = write("big.json", thousand_tables_on_128_ranks());
  const CliRun r =
      run({"optimize", scenario, "--time-limit", "0.001", "--no-record", "-o", path("plan.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the time limit (0.001 s) ran out while TorchRec's planner was making "
                       "the start plan"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("raise the time limit, or 0 for no limit"), std::string::npos) << r.err;
}

TEST_F(OptimizeCliTest, HelpTeaches) {
  const CliRun r = run({"optimize", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s :
       {"--time-limit", "--max-evaluations", "--seed", "--plan", "--objective", "--calibration",
        "--db", "--no-record", "Ctrl-C", "docs/optimize.md", "runs diff", "Example:"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace shardlab_cli_test
