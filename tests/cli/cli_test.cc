// Runs the real shardlab binary: exit statuses, the error JSON shapes, atomic
// output files, the verbs' help, and plan -> TorchRec file -> --from-plan.

#include <cstdlib>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace {

using namespace shardlab_cli_test;

// Two tables on two ranks; plans in a few proposals.
constexpr const char* kSmallScenario = R"({
  "name": "cli-small",
  "topology": {"world_size": 2, "hbm_cap": "16 GiB"},
  "tables": [
    {"name": "t0", "num_embeddings": 10000, "embedding_dim": 64, "feature_names": ["f0"]},
    {"name": "t1", "num_embeddings": 5000, "embedding_dim": 32, "feature_names": ["f1"], "is_weighted": true}
  ],
  "planner": {"proposers": ["greedy", "uniform"]}
})";

// Valid, but no plan fits: a 5 GB table that must live in HBM on 1 GiB devices.
constexpr const char* kTooBigScenario = R"({
  "name": "cli-too-big",
  "topology": {"world_size": 2, "hbm_cap": "1 GiB"},
  "tables": [
    {"name": "huge", "num_embeddings": 10000000, "embedding_dim": 128, "feature_names": ["f0"]}
  ],
  "constraints": {"huge": {"compute_kernels": ["fused"]}},
  "planner": {"proposers": ["greedy"]}
})";

// Valid, but the storage reservation fails: 6 x 8 GiB of dense parameters on
// 16 GiB devices.
constexpr const char* kReservationFailsScenario = R"({
  "name": "cli-dense-too-big",
  "topology": {"world_size": 2, "hbm_cap": "16 GiB"},
  "module": {"kind": "embedding_bag_collection", "dense_param_bytes": "8 GiB"},
  "tables": [
    {"name": "t0", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["f0"]}
  ]
})";

// An unknown key: kInvalidArgument.
constexpr const char* kBadScenario = R"({
  "name": "cli-bad",
  "topology": {"world_size": 2},
  "tables": [{"name": "t0", "num_embeddings": 10, "embedding_dim": 8, "feature_names": ["f0"]}],
  "bogus_key": 1
})";

TEST_F(CliTest, HelpOfEveryVerbHasAnExample) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"},
                                               {"plan", "--help"},
                                               {"options", "--help"},
                                               {"validate", "--help"},
                                               {"simulate", "--help"},
                                               {"compare", "--help"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args[0];
    EXPECT_NE(r.out.find("Example"), std::string::npos) << args[0] << ":\n" << r.out;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << args[0];
  }
  const CliRun plan_help = run({"plan", "--help"});
  for (const char* option :
       {"--output", "--stats", "--format", "--plan", "--perf-model", "default"}) {
    EXPECT_NE(plan_help.out.find(option), std::string::npos) << option;
  }
  // The environment every verb reads is named in the main help.
  const CliRun main_help = run({"--help"});
  for (const char* variable : {"SHARDLAB_DB", "SHARDLAB_NO_RECORD", "SHARDLAB_MEMORY_BUDGET",
                               "SHARDLAB_MEMORY_REPORT", "SHARDLAB_CUDA_BACKEND"}) {
    EXPECT_NE(main_help.out.find(variable), std::string::npos) << variable;
  }
}

TEST_F(CliTest, Version) {
  const CliRun r = run({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("shardlab ", 0), 0u) << r.out;
}

TEST_F(CliTest, UsageErrorsExit2) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                               {"frobnicate"},
                                               {"plan"},
                                               {"plan", "x.json", "--format", "yaml"},
                                               {"validate", "x.json", "--no-such-flag"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << (args.empty() ? "<none>" : args[0]);
    EXPECT_NE(r.err.find("shardlab: error:"), std::string::npos) << r.err;
  }
  // A word that names no verb is named, with the verbs.
  const CliRun unknown = run({"frobnicate"});
  EXPECT_NE(
      unknown.err.find("\"frobnicate\" is not a verb; the verbs are: plan, options, validate"),
      std::string::npos)
      << unknown.err;
  EXPECT_NE(unknown.err.find("Run with --help for more information."), std::string::npos)
      << unknown.err;
}

// Names and paths reach the terminal with their control bytes escaped.
TEST_F(CliTest, ErrorsEscapeControlBytes) {
  const CliRun r = run({"validate", path("evil\x1b[2J\a.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\a'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("evil\\x1b[2J\\x07.json"), std::string::npos) << r.err;
}

// The storage reservation's failure is TorchRec's message, then the scenario
// fields it speaks of.
TEST_F(CliTest, ReservationFailureNamesTheFields) {
  const CliRun r = run(
      {"plan", write("hbm1.json", R"({"name": "hbm1", "topology": {"world_size": 2, "hbm_cap": 1},
      "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["f0"]}]})"),
       "--no-record"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("has negative available hbm storage"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Scenario: topology.hbm_cap (1 byte per rank) leaves rank 0 "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("planner.storage_reservation.dense_tensor_estimate) or batch_size ("),
            std::string::npos)
      << r.err;
}

// A run store that cannot be opened where --db names it is the input's fault.
TEST_F(CliTest, StoreInAMissingDirectoryExits2) {
  const CliRun r =
      run({"plan", write("small.json", kSmallScenario), "-q", "--db", path("no/such/dir/runs.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // The store is opened before the work, so the run is refused, not left unrecorded.
  EXPECT_NE(r.err.find("cannot record the run: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no/such/dir"), std::string::npos) << r.err;
}

// On a terminal, plan prints the placement as a table; files and pipes get
// the JSON, and -o - forces it. A terminal comes from script(1) (util-linux).
TEST_F(CliTest, PlanPrintsATableOnATerminal) {
  if (std::system("script -qec true /dev/null > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no script(1) to give the CLI a terminal";
  const std::string tiny = std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json";
  const auto on_terminal = [&](const std::string& extra) {
    const std::string out = path("terminal.txt");
    const std::string cmd =
        quote(SHARDLAB_CLI_PATH) + " plan " + quote(tiny) + " --no-record -q" + extra;
    EXPECT_EQ(std::system(("script -qec " + quote(cmd) + " /dev/null > " + quote(out)).c_str()), 0);
    return read_file(out);
  };
  const std::string table = on_terminal("");
  EXPECT_EQ(table.rfind("table ", 0), 0u) << table;
  EXPECT_NE(table.find("sharding_type"), std::string::npos) << table;
  EXPECT_NE(table.find("tiny_2gpu: 4 tables on 2 ranks, rating "), std::string::npos) << table;
  EXPECT_EQ(table.find('{'), std::string::npos) << table;
  const std::string json = on_terminal(" -o -");
  EXPECT_NE(json.find("\"torchrec_version\""), std::string::npos) << json;
  // Not a terminal: the JSON, as before.
  const CliRun piped = run({"plan", tiny, "--no-record", "-q"});
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_EQ(Json::parse(piped.out)["scenario"], "tiny_2gpu");
}

// options --table / --sharding-type list what was asked for; a table the
// scenario lacks is exit 2, naming it.
TEST_F(CliTest, OptionsFilterByTableAndShardingType) {
  const std::string tiny = std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json";
  const CliRun all = run({"options", tiny, "-q"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const Json every = Json::parse(all.out);
  const std::string table = every["options"][0]["name"].get<std::string>();
  CliRun r = run({"options", tiny, "--table", table, "--sharding-type", "row_wise",
                  "--sharding-type", "table_wise"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json some = Json::parse(r.out);
  size_t want = 0;
  for (const Json& o : every["options"]) {
    want += o["name"] == table &&
            (o["sharding_type"] == "row_wise" || o["sharding_type"] == "table_wise");
  }
  ASSERT_GT(want, 0u);
  ASSERT_EQ(some["options"].size(), want);
  for (const Json& o : some["options"]) {
    EXPECT_EQ(o["name"], table);
    EXPECT_EQ(every["options"][o["index"].get<size_t>()], o);  // the same option, same index
  }
  EXPECT_NE(r.err.find("(" + std::to_string(want) + " listed by --table / --sharding-type)"),
            std::string::npos)
      << r.err;
  r = run({"options", tiny, "--table", "no_such_table"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("table \"no_such_table\": the scenario has no table of that name"),
            std::string::npos)
      << r.err;
  r = run({"options", tiny, "--sharding-type", "rowwise"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(CliTest, ValidateGoodAndBad) {
  CliRun r = run({"validate", write("small.json", kSmallScenario)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok: cli-small (2 tables, 2 ranks)\n");

  r = run({"validate", write("bad.json", kBadScenario)});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("shardlab: error:", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("bogus_key"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  r = run({"validate", path("missing.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;

  // Every member's problem at once, one line each, then how many.
  std::string many = kSmallScenario;
  many.insert(many.find('{') + 1, R"("batch_sise": 2, "batch_size": 0, )");
  const std::string file = write("many.json", many);
  r = run({"validate", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "shardlab: error: " + file +
                       ": <root>: unknown key: got \"batch_sise\", expected one of name, "
                       "topology, batch_size, module, tables, constraints, sharder, planner, "
                       "workload\n"
                       "shardlab: error: " +
                       file +
                       ": batch_size: must be an integer >= 1: got 0\n"
                       "shardlab: error: 2 problems in " +
                       file + "\n");
}

TEST_F(CliTest, InvalidScenarioWritesTheErrorJson) {
  const std::string out = path("plan.json");
  std::ofstream(out) << "previous contents";
  for (const std::string& scenario :
       {write("bad.json", kBadScenario), write("malformed.json", "{\"name\": "),
        path("missing.json")}) {
    const CliRun r = run({"plan", scenario, "-o", out});
    EXPECT_EQ(r.exit_code, 2) << scenario;
    EXPECT_NE(r.err.find("shardlab: error:"), std::string::npos);
    const Json j = Json::parse(read_file(out));
    EXPECT_EQ(keys(j), (Keys{"scenario", "error"})) << j.dump();
    EXPECT_EQ(keys(j["error"]), (Keys{"type", "message"}));
    EXPECT_EQ(j["error"]["type"], "invalid_scenario");
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
  }
  expect_no_temp_files();
}

TEST_F(CliTest, UnwritableOutputFails) {
  const std::string out = path("no/such/dir/plan.json");
  const CliRun r = run({"plan", write("bad.json", kBadScenario), "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_NE(r.err.find("plan.json"), std::string::npos) << r.err;
}

TEST_F(CliTest, PlanWritesThePlan) {
  const std::string scenario = write("small.json", kSmallScenario);
  const std::string out = path("plan.json");
  CliRun r = run({"plan", scenario, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("planned 2 tables on 2 ranks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-> " + out), std::string::npos) << r.err;
  const Json j = Json::parse(read_file(out));
  EXPECT_EQ(keys(j), (Keys{"scenario", "torchrec_version", "perf_rating_ms", "num_proposals",
                           "num_plans", "tables", "devices", "reserved"}));
  EXPECT_EQ(j["scenario"], "cli-small");
  EXPECT_EQ(j["tables"].size(), 2u);
  EXPECT_TRUE(j["tables"].contains("t0"));
  EXPECT_TRUE(j["tables"].contains("t1"));
  EXPECT_EQ(j["tables"]["t1"]["module"], "weighted_ebc");
  EXPECT_EQ(j["devices"].size(), 2u);
  EXPECT_GT(j["num_proposals"].get<int>(), 0);
  expect_no_temp_files();

  // Without -o the JSON goes to stdout; -q silences the summary.
  r = run({"plan", scenario, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(Json::parse(r.out)["perf_rating_ms"], j["perf_rating_ms"]);

  // --stats takes stdout; no JSON is printed.
  r = run({"plan", scenario, "--stats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Planner Statistics"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"perf_rating_ms\""), std::string::npos);
}

TEST_F(CliTest, PlanFailureExits3WithTheErrorShape) {
  const std::string out = path("plan.json");
  CliRun r = run({"plan", write("too_big.json", kTooBigScenario), "-o", out});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("shardlab: error:"), std::string::npos);
  Json j = Json::parse(read_file(out));
  EXPECT_EQ(keys(j), (Keys{"scenario", "error", "num_proposals", "num_plans", "reserved"}))
      << j.dump();
  EXPECT_EQ(j["scenario"], "cli-too-big");
  EXPECT_EQ(j["error"]["type"], "insufficient_storage");
  EXPECT_GT(j["num_proposals"].get<int>(), 0);
  EXPECT_EQ(j["num_plans"], 0);
  ASSERT_TRUE(j["reserved"].is_array());
  EXPECT_EQ(j["reserved"].size(), 2u);

  r = run({"plan", write("dense.json", kReservationFailsScenario), "-o", out});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  j = Json::parse(read_file(out));
  EXPECT_EQ(j["error"]["type"], "insufficient_storage");
  EXPECT_EQ(j["num_proposals"], 0);
  EXPECT_TRUE(j["reserved"].is_null());
  expect_no_temp_files();
}

// One table forced onto UVM: the two TorchRec models rate it differently
// (fused_uvm reads host memory at 51 GiB/s in 2024-02, 32 GiB/s in 2026-08).
constexpr const char* kUvmScenario = R"({
  "name": "cli-uvm",
  "topology": {"world_size": 2},
  "tables": [{"name": "t0", "num_embeddings": 100000, "embedding_dim": 128, "feature_names": ["f0"]}],
  "constraints": {"t0": {"sharding_types": ["table_wise"], "compute_kernels": ["fused_uvm"]}},
  "planner": {"proposers": ["greedy"]}
})";

TEST_F(CliTest, TorchRecVersionChoosesTheModel) {
  const std::string scenario = write("uvm.json", kUvmScenario);
  CliRun r = run({"plan", scenario, "-q", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json newest = Json::parse(r.out);
  EXPECT_EQ(newest["torchrec_version"], "2026-08");  // the default

  r = run({"plan", scenario, "-q", "--no-record", "--torchrec-version", "2024-02"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json old = Json::parse(r.out);
  EXPECT_EQ(old["torchrec_version"], "2024-02");
  const double old_fwd = old["tables"]["t0"]["shards"][0]["perf"]["fwd_compute"].get<double>();
  const double new_fwd = newest["tables"]["t0"]["shards"][0]["perf"]["fwd_compute"].get<double>();
  EXPECT_NEAR(new_fwd / old_fwd, 51.0 / 32.0, 1e-12);

  // The scenario's planner.torchrec_version, and the option over it.
  Json pinned = Json::parse(kUvmScenario);
  pinned["planner"]["torchrec_version"] = "2024-02";
  const std::string pinned_path = write("pinned.json", pinned.dump());
  r = run({"plan", pinned_path, "-q", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out)["perf_rating_ms"], old["perf_rating_ms"]);
  r = run({"options", pinned_path, "-q", "--torchrec-version", "2026-08"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out)["torchrec_version"], "2026-08");

  // The stats table is TorchRec's from its first line (TorchRec's
  // test_embedding_stats_runs reads it); the model's name follows it, and
  // the summary names it too.
  r = run({"plan", scenario, "--no-record", "--stats", "--torchrec-version", "2024-02"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("#####", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("#\nPlanned as TorchRec 2024-02 (commit fe1c2824)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find(" ranks as TorchRec 2024-02 in "), std::string::npos) << r.err;

  // Unknown versions are usage errors, in the file and on the command line.
  r = run({"plan", scenario, "--torchrec-version", "2025-01"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2025-01"), std::string::npos) << r.err;
  pinned["planner"]["torchrec_version"] = "2025-01";
  r = run({"validate", write("bad_version.json", pinned.dump())});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("planner.torchrec_version: unknown TorchRec version"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("2024-02, 2026-08"), std::string::npos) << r.err;
}

// Under a GPU preset the shards are rated with the preset's default profile,
// and every summary says so; the stats table leaves stdout to the plan JSON
// when the plan goes there (-o -).
TEST_F(CliTest, PlanSaysWhatRatesTheShards) {
  const std::string gpu =
      std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/validation/mlperf_dcnv2_h100_sxm.json";
  CliRun r = run({"plan", gpu, "--no-record", "--stats", "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out)["scenario"], "mlperf_dcnv2_h100_sxm");  // JSON only on stdout
  EXPECT_NE(r.err.find("#\nPlanned as TorchRec 2026-08 (commit 376cac6a); preset h100-sxm default "
                       "profile\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("547 plans; preset h100-sxm default profile) -> stdout"), std::string::npos)
      << r.err;
  r = run({"options", gpu, "-o", path("options.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("; preset h100-sxm default profile -> "), std::string::npos) << r.err;

  // --calibration torchrec: TorchRec's constants under the preset, said so, and a
  // different rating than the preset's profile gives.
  const double with_profile =
      Json::parse(read_file(path("options.json")))["options"][0]["total_perf"].get<double>();
  r = run({"options", gpu, "-o", path("torchrec.json"), "--calibration", "torchrec"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("; TorchRec's constants -> "), std::string::npos) << r.err;
  EXPECT_NE(Json::parse(read_file(path("torchrec.json")))["options"][0]["total_perf"].get<double>(),
            with_profile);
  r = run({"simulate", gpu, "--no-record", "--calibration", "torchrec"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(", TorchRec's constants rating "), std::string::npos) << r.out;

  // Without a preset, TorchRec's constants: no note.
  r = run({"plan", write("small.json", kSmallScenario), "--no-record", "-o", path("p.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("profile"), std::string::npos) << r.err;
}

TEST_F(CliTest, Options) {
  CliRun r = run({"options", write("small.json", kSmallScenario)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  EXPECT_EQ(keys(j), (Keys{"scenario", "torchrec_version", "options"}));
  ASSERT_FALSE(j["options"].empty());
  for (const char* k :
       {"name", "fqn", "sharding_type", "compute_kernel", "partition_by", "is_pooled",
        "is_weighted", "input_lengths", "cache_params", "total_perf", "total_storage", "shards"}) {
    EXPECT_TRUE(j["options"][0].contains(k)) << k;
  }
  // weighted_ebc is enumerated before ebc.
  EXPECT_EQ(j["options"][0]["fqn"], "weighted_ebc.t1");

  // Planning would fail, but the enumeration completes: exit 0.
  r = run({"options", write("too_big.json", kTooBigScenario)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Json::parse(r.out)["options"].empty());

  // The reservation fails: the plan's error shape, exit 3.
  r = run({"options", write("dense.json", kReservationFailsScenario)});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  j = Json::parse(r.out);
  EXPECT_EQ(j["error"]["type"], "insufficient_storage");
  EXPECT_TRUE(j["reserved"].is_null());

  // Bad input: exit 2 with the short shape.
  r = run({"options", write("bad.json", kBadScenario)});
  EXPECT_EQ(r.exit_code, 2);
  j = Json::parse(r.out);
  EXPECT_EQ(keys(j), (Keys{"scenario", "error"}));
  EXPECT_EQ(j["error"]["type"], "invalid_scenario");
}

TEST_F(CliTest, TorchrecFormatAndFromPlan) {
  const std::string scenario = write("small.json", kSmallScenario);
  CliRun r = run({"plan", scenario, "-o", path("plan.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json plan = Json::parse(read_file(path("plan.json")));

  r = run({"plan", scenario, "--format", "torchrec", "-o", path("torchrec.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json tr = Json::parse(read_file(path("torchrec.json")));
  EXPECT_EQ(tr["format"], "torchrec.ShardingPlan");
  EXPECT_EQ(tr["version"], 1);
  EXPECT_TRUE(tr["plan"].contains("ebc"));
  EXPECT_TRUE(tr["plan"]["ebc"].contains("t0"));
  EXPECT_TRUE(tr["plan"]["weighted_ebc"].contains("t1"));

  // Re-rating either file gives the planner's own numbers, with no proposals.
  for (const char* file : {"torchrec.json", "plan.json"}) {
    r = run({"plan", scenario, "--from-plan", path(file), "-o", path("rerated.json")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("rated"), std::string::npos) << r.err;
    const Json rerated = Json::parse(read_file(path("rerated.json")));
    EXPECT_EQ(rerated["perf_rating_ms"], plan["perf_rating_ms"]) << file;
    EXPECT_EQ(rerated["tables"], plan["tables"]) << file;
    EXPECT_EQ(rerated["devices"], plan["devices"]) << file;
    EXPECT_EQ(rerated["num_proposals"], 0);
    EXPECT_EQ(rerated["num_plans"], 0);
  }

  // A plan file that does not fit the scenario: exit 2, the file and table named.
  Json broken = tr;
  broken["plan"]["ebc"].erase("t0");
  const std::string broken_path = write("broken.json", broken.dump());
  r = run({"plan", scenario, "--from-plan", broken_path, "-o", path("rerated.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t0"), std::string::npos) << r.err;
  const Json err = Json::parse(read_file(path("rerated.json")));
  EXPECT_EQ(keys(err), (Keys{"scenario", "error"}));
  EXPECT_EQ(err["error"]["type"], "invalid_scenario");
  expect_no_temp_files();
}

}  // namespace
