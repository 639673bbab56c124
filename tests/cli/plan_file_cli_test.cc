// Every verb that reads a plan file (plan --from-plan, simulate --plan,
// replay) refuses the layouts TorchRec would not build as written and files
// that are not plans, with exit status 2 and the JSON path, and warns where
// the file's settings differ from the scenario's.
#include "cli_fixture.h"

namespace shardlab_cli_test {
namespace {

constexpr const char* kScenario = R"({
  "name": "cli-plan-files",
  "topology": {"world_size": 2, "hbm_cap": "16 GiB"},
  "tables": [
    {"name": "t0", "num_embeddings": 10000, "embedding_dim": 64, "feature_names": ["f0"]},
    {"name": "t1", "num_embeddings": 5000, "embedding_dim": 32, "feature_names": ["f1"]}
  ],
  "constraints": {"t0": {"sharding_types": ["row_wise"]}, "t1": {"sharding_types": ["table_wise"]}},
  "planner": {"proposers": ["greedy"]}
})";

// The commands that read PLAN for the scenario at `scenario`.
std::vector<std::vector<std::string>> readers(const std::string& scenario,
                                              const std::string& plan) {
  return {{"plan", scenario, "--from-plan", plan, "--no-record", "-q", "-o", "-"},
          {"simulate", scenario, "--plan", plan, "--no-record", "-q"},
          {"replay", scenario, plan, "--iterations", "1", "--warmup", "0", "--no-record", "-q"}};
}

TEST_F(CliTest, PlanFileReadersRefuseLayoutsTorchRecWouldNotBuild) {
  const std::string scenario = write("s.json", kScenario);
  CliRun r =
      run({"plan", scenario, "--format", "torchrec", "-o", path("plan.json"), "-q", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json plan = Json::parse(read_file(path("plan.json")));
  ASSERT_EQ(plan["plan"]["ebc"]["t0"]["sharding_type"], "row_wise");
  ASSERT_EQ(plan["plan"]["ebc"]["t0"]["ranks"], Json::array({0, 1}));

  // Its own plan reads back everywhere, without a warning.
  for (const auto& args : readers(scenario, path("plan.json"))) {
    r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << args[0] << ": " << r.err;
  }

  // Row-wise shards swapped (ranks and placements agree with each other).
  Json permuted = plan;
  Json& t0 = permuted["plan"]["ebc"]["t0"];
  t0["ranks"] = Json::array({1, 0});
  t0["sharding_spec"][0]["placement"] = "rank:1/cuda:1";
  t0["sharding_spec"][1]["placement"] = "rank:0/cuda:0";
  const std::string permuted_path = write("permuted.json", permuted.dump());
  for (const auto& args : readers(scenario, permuted_path)) {
    r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(permuted_path +
                         ": plan.ebc.t0.ranks[0]: TorchRec's row-wise sharding sends the ids of "
                         "row block 0 to rank 0, so shard 0 must be there: got 1, expected rank 0"),
              std::string::npos)
        << args[0] << ": " << r.err;
  }

  // Not a plan file at all: a directory, an endless device.
  for (const std::string& bad : {dir_.string(), std::string("/dev/zero")}) {
    if (!fs::exists(bad)) continue;
    for (const auto& args : readers(scenario, bad)) {
      r = run(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << " " << bad << ": " << r.err;
      EXPECT_NE(r.err.find(bad + ": cannot read plan file: "), std::string::npos)
          << args[0] << ": " << r.err;
    }
  }
}

TEST_F(CliTest, PlanFileReadersWarnWhereTheFileDiffersFromTheScenario) {
  const std::string scenario = write("s.json", kScenario);
  CliRun r =
      run({"plan", scenario, "--format", "torchrec", "-o", path("plan.json"), "-q", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json plan = Json::parse(read_file(path("plan.json")));
  plan["plan"]["ebc"]["t1"]["enforce_hbm"] = true;
  plan["plan"]["ebc"]["t0"]["sharding_spec"][0]["placement"] = "rank:0/cpu";
  const std::string file = write("edited.json", plan.dump());
  for (const auto& args : readers(scenario, file)) {
    r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("shardlab: warning: " + file +
                         ": plan.ebc.t0.sharding_spec[0].placement: places the "
                         "shard on \"rank:0/cpu\""),
              std::string::npos)
        << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("shardlab: warning: " + file +
                         ": plan.ebc.t1.enforce_hbm: is true but the scenario's "
                         "constraint says null"),
              std::string::npos)
        << args[0] << ": " << r.err;
  }
}

// One rule for every reader: a plan that does not fit the scenario's GPUs
// (the same plan, re-read with a tenth of the HBM) is refused with exit 2,
// naming the rank, the bytes and the tables, and nothing is written; with
// --allow-over-capacity it runs, with a warning, and the plan JSON says so.
TEST_F(CliTest, PlanFileReadersRefuseAPlanOverCapacity) {
  const std::string big = write("big.json", kScenario);
  std::string text = kScenario;
  text.replace(text.find("16 GiB"), 6, "1200 KB");
  const std::string small = write("small.json", text);
  ASSERT_EQ(run({"plan", big, "-o", path("plan.json"), "-q", "--no-record"}).exit_code, 0);
  auto all = readers(small, path("plan.json"));
  all.push_back({"optimize", small, "--from-plan", path("plan.json"), "--time-limit", "0",
                 "--max-evaluations", "1", "--no-record", "-q", "-o", path("opt.json")});
  for (const auto& args : all) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("plan.json: the plan does not fit this scenario's GPUs: rank "),
              std::string::npos)
        << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(" B of HBM (tables t0"), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("after the storage reservation"), std::string::npos) << r.err;
    if (args[0] == "optimize") continue;  // its search needs a start that fits
    EXPECT_NE(r.err.find("pass --allow-over-capacity"), std::string::npos) << r.err;

    std::vector<std::string> allowed = args;
    allowed.push_back("--allow-over-capacity");
    r = run(allowed);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("warning: "), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("--allow-over-capacity: run all the same"), std::string::npos) << r.err;
  }
  const CliRun rated = run({"plan", small, "--from-plan", path("plan.json"), "--no-record", "-q",
                            "--allow-over-capacity", "-o", path("rated.json")});
  ASSERT_EQ(rated.exit_code, 0) << rated.err;
  const Json j = Json::parse(read_file(path("rated.json")));
  ASSERT_TRUE(j.contains("over_capacity")) << j.dump().substr(0, 300);
  EXPECT_EQ(j["over_capacity"].get<std::string>().rfind("the plan does not fit", 0), 0u);
  // The plan fits its own scenario: no such key.
  const CliRun own = run(
      {"plan", big, "--from-plan", path("plan.json"), "--no-record", "-q", "-o", path("own.json")});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_FALSE(Json::parse(read_file(path("own.json"))).contains("over_capacity"));
}

}  // namespace
}  // namespace shardlab_cli_test
