// Messages that help, through the real binary: an unknown verb is named with
// the verbs, option ranges are short and refuse NaN and infinities, a
// directory given as a file says so, TorchRec's reservation error names the
// scenario field, and names echoed from files cannot reach the terminal raw.

#include <string>
#include <vector>

#include "cli_fixture.h"

namespace {

using namespace shardlab_cli_test;

class MessagesTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    ::setenv("SHARDLAB_NO_RECORD", "1", 1);
  }
};

TEST_F(MessagesTest, AnUnknownVerbIsNamedWithTheVerbs) {
  CliRun r = run({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("\"frobnicate\" is not a verb; the verbs are: plan, options, validate, "),
            std::string::npos)
      << r.err;
  for (const char* verb : {"simulate", "compare", "runs", "replay", "bench-kernels", "calibrate"}) {
    EXPECT_NE(r.err.find(std::string(", ") + verb), std::string::npos) << verb << ": " << r.err;
  }
  r = run({"runs", "frob"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("\"frob\" is not a verb of runs; the verbs of runs are: list, show"),
            std::string::npos)
      << r.err;
  r = run({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no verb given; the verbs are: plan"), std::string::npos) << r.err;
  // Control bytes in the word are escaped.
  r = run({"fro\x1b[2Jb"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
}

TEST_F(MessagesTest, OptionRangesAreShortAndRefuseNonFiniteNumbers) {
  ASSERT_EQ(run({"plan", kTiny, "-o", path("plan.json"), "-q"}).exit_code, 0);
  const std::string plan = path("plan.json");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"replay", kTiny, plan, "--max-rows", "-1"}, "--max-rows: -1 is below 0"},
      {{"replay", kTiny, plan, "--lr", "nan"}, "--lr: nan is not a finite number"},
      {{"replay", kTiny, plan, "--lr", "-inf"}, "--lr: -inf is not a finite number"},
      {{"replay", kTiny, plan, "--ids", "zipf", "--zipf-alpha", "inf"},
       "--zipf-alpha: inf is not a finite number"},
      {{"replay", kTiny, plan, "--zipf-alpha", "0"}, "--zipf-alpha: 0 is not above 0"},
      {{"replay", kTiny, plan, "--iterations", "0"}, "--iterations: 0 is not in 1..1000000"},
      {{"simulate", kTiny, "--iterations", "1e400"}, "--iterations: 1e400 is not a finite number"},
      {{"compare", kTiny, "--iterations", "-3"}, "--iterations: -3 is not in 1..100000"},
      {{"bench-kernels", "--pooling", "1,nan"}, "--pooling: nan is not a finite number"},
      {{"bench-kernels", "--bags", "0"}, "--bags: 0 is below 1"},
      {{"calibrate", "--holdout", "inf"}, "--holdout: inf is not a finite number"},
      {{"runs", "list", "--limit", "-1"}, "--limit: -1 is below 0"},
  };
  for (const Case& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message;
    EXPECT_NE(r.err.find("shardlab: error: " + c.message + "\n"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 200u) << "a short message: " << r.err;
  }
}

TEST_F(MessagesTest, ReplayRanksAreCheckedBeforeTheyAreExpanded) {
  ASSERT_EQ(run({"plan", kTiny, "-o", path("plan.json"), "-q"}).exit_code, 0);
  // 2147483647 looped forever (signed overflow); 0-2000000000 took 7 GB.
  for (const std::string& ranks :
       {std::string("2147483647"), std::string("0-2000000000"), std::string("1,0-2147483647")}) {
    const CliRun r = run({"replay", kTiny, path("plan.json"), "--ranks", ranks});
    EXPECT_EQ(r.exit_code, 2) << ranks;
    EXPECT_NE(r.err.find("is not in 0..1 (tiny_2gpu has 2 ranks)"), std::string::npos) << r.err;
  }
  for (const std::string& ranks : {std::string("99999999999999999999"), std::string("-1"),
                                   std::string("1-0"), std::string("0,,1"), std::string("0-")}) {
    const CliRun r = run({"replay", kTiny, path("plan.json"), "--ranks", ranks});
    EXPECT_EQ(r.exit_code, 2) << ranks;
    EXPECT_NE(r.err.find("is not a rank or a range FIRST-LAST"), std::string::npos)
        << ranks << ": " << r.err;
  }
}

TEST_F(MessagesTest, PlanFilesHaveTheScenarioLoadersLimits) {
  const CliRun dir = run({"plan", kTiny, "--from-plan", dir_.string()});
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_NE(dir.err.find(dir_.string() + ": cannot read plan file: is a directory"),
            std::string::npos)
      << dir.err;
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    if (!fs::exists(device)) continue;
    const CliRun r = run({"simulate", kTiny, "--plan", device});
    EXPECT_EQ(r.exit_code, 2) << device;
    EXPECT_NE(r.err.find(std::string(device) + ": cannot read plan file: not a regular file"),
              std::string::npos)
        << r.err;
  }
}

TEST_F(MessagesTest, ScenarioFieldsTheLoaderRefuses) {
  const auto scenario = [&](const std::string& name, const std::string& topology,
                            const std::string& sharder) {
    return write(name, R"({"name": "m", "topology": )" + topology + R"(, "sharder": )" + sharder +
                           R"(, "tables": [{"name": "t0", "num_embeddings": 100, "embedding_dim": 8,
                                           "feature_names": ["f0"]}]})");
  };
  CliRun r = run(
      {"validate", scenario("o.json", R"({"world_size": 2})", R"({"optimizer": "5 parsecs"})")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(
          "sharder.optimizer: not an optimizer name: got \"5 parsecs\", expected none, sgd, adam, "
          "rowwise_adagrad, adagrad, or another"),
      std::string::npos)
      << r.err;
  // Another optimizer (TorchRec sizes any optimizer class).
  r = run({"validate", scenario("w.json", R"({"world_size": 2})", R"({"optimizer": "adamw"})")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run({"validate", scenario("l.json", R"({"world_size": 2, "local_world_size": 8})", "{}")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(
          "topology.local_world_size: more ranks per host than the world has: got 8, expected at "
          "most world_size (2)"),
      std::string::npos)
      << r.err;
}

TEST_F(MessagesTest, TheReservationFailureNamesTheScenarioField) {
  const std::string s =
      write("h.json", R"({"name": "h", "topology": {"world_size": 2, "hbm_cap": 1},
    "tables": [{"name": "t0", "num_embeddings": 100, "embedding_dim": 8,
                "feature_names": ["f0"]}]})");
  const CliRun r = run({"plan", s, "-o", path("out.json")});
  EXPECT_EQ(r.exit_code, 3);
  // TorchRec's error, and the field.
  EXPECT_NE(r.err.find("has negative available hbm storage"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Scenario: topology.hbm_cap (1 byte per rank) leaves rank 0 "),
            std::string::npos)
      << r.err;
  const Json j = Json::parse(read_file(path("out.json")));
  EXPECT_EQ(j["error"]["type"], "insufficient_storage");
  EXPECT_NE(j["error"]["message"].get<std::string>().find("topology.hbm_cap"), std::string::npos);
}

TEST_F(MessagesTest, NamesAndPathsAreEscaped) {
  // A scenario name with an escape sequence (valid JSON: \u001b).
  const std::string s =
      write("esc.json", R"({"name": "evil\u001b[2J\u0007", "topology": {"world_size": 2},
    "tables": [{"name": "t0", "num_embeddings": 100, "embedding_dim": 8,
                "feature_names": ["f0"]}]})");
  CliRun r = run({"validate", s});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok: evil\\x1b[2J\\x07 (1 tables, 2 ranks)\n");
  r = run({"simulate", s});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  // A path with control bytes, in errors and in the summary line.
  const std::string odd = path("odd\x1b[31m\x01.json");
  r = run({"plan", odd});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("odd\\x1b[31m\\x01.json"), std::string::npos) << r.err;
  r = run({"plan", s, "-o", odd});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
}

TEST_F(MessagesTest, UsageErrorsSayWhatIsExpected) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"runs", "show", "abc"},
       "id: \"abc\" is not a run id (a whole number >= 1; 'shardlab runs list' shows the ids)"},
      {{"runs", "export", "0"}, "id: \"0\" is not a run id"},
      {{"runs", "diff", "1", "x"}, "ids: \"x\" is not a run id"},
      {{"runs", "diff", "1", "2", "3"},
       "runs diff compares two runs (A B) or one run with the run it was derived from (ID); got "
       "3 ids: 1 2 3"},
      {{"--db", "x.db", "plan", kTiny},
       "--db is an option of 'plan', not of shardlab itself: put it after the verb (shardlab plan "
       "--db ...)"},
      {{"--db=x.db", "runs", "list"},
       "--db is an option of 'runs list', not of shardlab itself: put it after the verb (shardlab "
       "runs list --db ...)"},
      {{"replay", kTiny, "plan.json", "--ids", "zipf", "--zipf-alpha", "1"},
       "--zipf-alpha: 1 is not allowed: the Zipf sampler divides by 1 - alpha"},
      {{"replay", kTiny, "plan.json", "--zipf-alpha", "2"},
       "--zipf-alpha: applies to --ids zipf only; these ids are uniform"},
      {{"compare", kTiny, "--torchrec-version", "2024-02", "--each-torchrec-version"},
       "--torchrec-version excludes --each-torchrec-version"},
  };
  for (const Case& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message;
    EXPECT_NE(r.err.find("shardlab: error: " + c.message), std::string::npos) << r.err;
  }
  // A top-level option stays CLI11's to judge; a verb's option after the verb works.
  EXPECT_EQ(run({"--version"}).exit_code, 0);
  const CliRun unknown = run({"--frob", "plan", kTiny});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.find("put it after the verb"), std::string::npos) << unknown.err;
}

// Combinations that cannot apply to the scenario (their planning evaluated
// no proposal while other rows did) are left out of the table and said
// under it, once per distinct reason; the JSON keeps them with
// "applies": false.
TEST_F(MessagesTest, CompareLeavesOutWhatCannotApplyAndSaysWhy) {
  const std::string two_hosts =
      std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/two_host_criteo_kaggle.json";
  const CliRun r =
      run({"compare", two_hosts, "--iterations", "1", "-q", "-o", path("compare.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rows #10-13: left out, grid_search cannot apply to this scenario: its "
                       "proposer proposed nothing for this scenario (TorchRec: \"Planner "
                       "evaluated 0 proposals\"); TorchRec's grid search proposes nothing when "
                       "the product of the tables' option counts passes its max_proposals\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("rows #14-17: left out, embedding_offload_scaleup cannot apply to this "
                       "scenario: EmbeddingOffloadScaleupProposer: table t_cat_0 starts from a "
                       "fused_uvm_caching option without cache parameters"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("give the table a constraint with cache_params"), std::string::npos)
      << r.out;
  // No table row for them.
  EXPECT_EQ(r.out.find("grid_search    "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n 10  "), std::string::npos) << r.out;
  const Json j = Json::parse(read_file(path("compare.json")));
  ASSERT_EQ(j["rows"].size(), 17u);
  for (size_t i = 0; i < 17; ++i) EXPECT_EQ(j["rows"][i]["applies"], i < 9) << i;
}

// An unknown option close to one of the verb's (two edits, or a prefix) is
// answered with the option it probably meant; a far one is not guessed at.
TEST_F(MessagesTest, AnUnknownOptionGetsADidYouMean) {
  const std::string tiny = std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json";
  CliRun r = run({"simulate", tiny, "--iteration", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown option --iteration: did you mean --iterations?\nRun with --help"),
            std::string::npos)
      << r.err;
  r = run({"runs", "list", "--limt", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean --limit?"), std::string::npos) << r.err;
  r = run({"plan", tiny, "--stat"});
  EXPECT_NE(r.err.find("did you mean --stats?"), std::string::npos) << r.err;
  r = run({"plan", tiny, "--zzzzzzzz"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

// presets speaks --format like every other verb; --json stays as its alias.
TEST_F(MessagesTest, PresetsTakeFormatJsonAndTheOldJsonFlag) {
  const CliRun format = run({"presets", "--format", "json"});
  const CliRun json = run({"presets", "--json"});
  ASSERT_EQ(format.exit_code, 0) << format.err;
  EXPECT_EQ(format.out, json.out);
  EXPECT_TRUE(Json::parse(format.out).contains("gpus"));
  const CliRun show = run({"presets", "show", "h100-sxm", "--format", "json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out, run({"presets", "show", "h100-sxm", "--json"}).out);
  EXPECT_EQ(run({"presets", "--format", "yaml"}).exit_code, 2);
  // System presets: listed, shown with their sources, refused where a GPU is needed.
  const CliRun list = run({"presets"});
  EXPECT_NE(list.out.find("gb200-nvl72      gb200"), std::string::npos) << list.out;
  const CliRun system = run({"presets", "show", "dgx-h100"});
  EXPECT_EQ(system.exit_code, 0);
  EXPECT_NE(system.out.find("nvlink_domain_size"), std::string::npos) << system.out;
  EXPECT_NE(system.out.find("nvidia-dgx-basepod-components"), std::string::npos);
  const CliRun json_system = run({"presets", "show", "dgx-h100", "--format", "json"});
  EXPECT_EQ(json_system.exit_code, 2);
  EXPECT_NE(json_system.err.find("'dgx-h100' is a system preset"), std::string::npos);
  const CliRun unknown = run({"presets", "show", "dgx-h9000"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown preset 'dgx-h9000': expected a GPU ("), std::string::npos);
}

// One spelling for the plan file across verbs: `--plan`; `--from-plan`, the
// old spelling of plan and optimize, still works, says so, and is not in
// --help.
TEST_F(MessagesTest, ThePlanFileIsPlanEverywhere) {
  const std::string tiny = std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json";
  ASSERT_EQ(run({"plan", tiny, "-q", "--no-record", "-o", path("p.json")}).exit_code, 0);
  const CliRun now = run({"plan", tiny, "--plan", path("p.json"), "-q", "--no-record"});
  ASSERT_EQ(now.exit_code, 0) << now.err;
  EXPECT_EQ(now.err, "");
  const CliRun old = run({"plan", tiny, "--from-plan", path("p.json"), "-q", "--no-record"});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_EQ(old.out, now.out);
  EXPECT_NE(old.err.find("note: --from-plan is the old spelling of --plan; it keeps working"),
            std::string::npos)
      << old.err;
  for (const char* verb : {"plan", "optimize", "simulate"}) {
    const CliRun help = run({verb, "--help"});
    EXPECT_NE(help.out.find("--plan FILE"), std::string::npos) << verb;
    EXPECT_EQ(help.out.find("--from-plan"), std::string::npos) << verb;
  }
}

}  // namespace
