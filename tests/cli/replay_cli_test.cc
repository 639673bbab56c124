// shardlab replay and bench-kernels through the real binary: plan tiny_2gpu,
// replay it on the cpu backend, check the result JSON and the recorded run;
// usage errors; a small bench-kernels sweep.

#include <set>
#include <string>
#include <tuple>

#include "cli_fixture.h"

namespace shardlab_cli_test {
namespace {

class ReplayCliTest : public CliTest {
 protected:
  std::string plan_tiny() {
    const CliRun planned = run({"plan", kTiny, "-o", path("plan.json"), "-q", "--no-record"});
    EXPECT_EQ(planned.exit_code, 0) << planned.err;
    return path("plan.json");
  }
};

TEST_F(ReplayCliTest, ReplaysTiny2GpuAndWritesTheResultJson) {
  const std::string plan = plan_tiny();
  const CliRun r = run({"replay", kTiny, plan, "--iterations", "3", "--warmup", "1", "--max-rows",
                        "5000", "-o", path("replay.json"), "--db", path("runs.db")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_no_temp_files();
  // The table: every rank's forward and backward next to the models.
  EXPECT_NE(r.out.find("fwd_compute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bwd_compute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torchrec_ms"), std::string::npos) << r.out;
  // CPU times beside GPU estimates, said to be so.
  EXPECT_NE(r.out.find("cpu backend: threads stand in for GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("replay [4/4]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recorded run 1"), std::string::npos) << r.err;

  const Json j = Json::parse(read_file(path("replay.json")));
  EXPECT_EQ(j["scenario"], "tiny_2gpu");
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["world_size"], 2);
  EXPECT_EQ(j["iterations"], 3);
  EXPECT_EQ(j["warmup"], 1);
  EXPECT_EQ(j["ranks"], Json::parse("[0, 1]"));
  EXPECT_EQ(j["settings"]["optimizer"], "rowwise_adagrad");
  EXPECT_EQ(j["settings"]["max_rows"], 5000);
  EXPECT_GT(j["summary"]["median_iteration_ms"].get<double>(), 0.0);
  EXPECT_GT(j["summary"]["estimated_iteration_ms"].get<double>(), 0.0);
  EXPECT_GT(j["summary"]["simulated_iteration_ms"].get<double>(), 0.0);

  // Both ranks' forward and backward phases measured, with models beside them.
  std::set<std::pair<int, std::string>> phases;
  for (const Json& p : j["phases"]) {
    phases.emplace(p["rank"].get<int>(), p["phase"].get<std::string>());
    if (p["measured"].is_null()) continue;
    EXPECT_LE(p["measured"]["median_ms"].get<double>(), p["measured"]["p90_ms"].get<double>());
    EXPECT_EQ(p["measured"]["samples"], 3);
  }
  for (int rank : {0, 1}) {
    for (const char* phase :
         {"input_dist", "fwd_compute", "output_dist", "bwd_output_dist", "bwd_compute"}) {
      EXPECT_TRUE(phases.count({rank, phase})) << rank << " " << phase;
    }
  }

  // One lookup record per shard and direction; tables of the plan all present.
  std::set<std::string> tables;
  int lookups = 0, collectives = 0;
  for (const Json& m : j["measurements"]) {
    EXPECT_EQ(m["samples"], 3);
    EXPECT_GT(m["median_ms"].get<double>(), 0.0);
    if (m.contains("table")) {
      ++lookups;
      tables.insert(m["table"].get<std::string>());
      EXPECT_GT(m["bytes_per_s"].get<double>(), 0.0);
    } else {
      ++collectives;
      EXPECT_EQ(m["members"], 2);
    }
  }
  EXPECT_EQ(tables, (std::set<std::string>{"user_id", "item_id", "item_category", "user_history"}));
  EXPECT_EQ(j["summary"]["lookups"], lookups);
  EXPECT_EQ(j["summary"]["collectives"], collectives);
  EXPECT_GT(collectives, 0);

  // The run store holds the replay with its measurements.
  const CliRun exported = run({"runs", "export", "1", "--db", path("runs.db")});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const Json stored = Json::parse(exported.out);
  EXPECT_EQ(stored["kind"], "replay");
  EXPECT_EQ(stored["backend"], "cpu");
  EXPECT_EQ(stored["measurements"].size(), j["measurements"].size());
  EXPECT_EQ(stored["summary"]["median_iteration_ms"], j["summary"]["median_iteration_ms"]);
}

TEST_F(ReplayCliTest, ReplaysARankSubset) {
  const std::string plan = plan_tiny();
  const CliRun r = run({"replay", kTiny, plan, "--ranks", "1", "--iterations", "2", "--warmup", "0",
                        "--max-rows", "1000", "--ids", "zipf", "--pooling", "poisson", "-o", "-",
                        "-q", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["ranks"], Json::parse("[1]"));
  EXPECT_EQ(j["devices_used"], 1);
  EXPECT_EQ(j["settings"]["ids"], "zipf");
  for (const Json& m : j["measurements"]) EXPECT_EQ(m["rank"], 1);
}

TEST_F(ReplayCliTest, RefusesBadInput) {
  const std::string plan = plan_tiny();
  const CliRun bad_rank = run({"replay", kTiny, plan, "--ranks", "0,5", "--no-record"});
  EXPECT_EQ(bad_rank.exit_code, 2);
  EXPECT_NE(bad_rank.err.find("rank 5"), std::string::npos) << bad_rank.err;
  const CliRun bad_list = run({"replay", kTiny, plan, "--ranks", "0-x", "--no-record"});
  EXPECT_EQ(bad_list.exit_code, 2);
  EXPECT_NE(bad_list.err.find("0-x"), std::string::npos) << bad_list.err;
  const CliRun no_plan = run({"replay", kTiny, path("missing.json"), "--no-record"});
  EXPECT_EQ(no_plan.exit_code, 2);
  const CliRun alpha =
      run({"replay", kTiny, plan, "--ids", "zipf", "--zipf-alpha", "1", "--no-record"});
  EXPECT_EQ(alpha.exit_code, 2);
  EXPECT_NE(alpha.err.find("zipf-alpha"), std::string::npos) << alpha.err;
  // Ranges are checked against the world size before they are expanded.
  for (const char* ranks : {"2147483647", "0-2000000000", "0-9223372036854775807"}) {
    const CliRun huge = run({"replay", kTiny, plan, "--ranks", ranks, "--no-record"});
    EXPECT_EQ(huge.exit_code, 2) << ranks;
    EXPECT_NE(huge.err.find("is not in 0..1"), std::string::npos) << huge.err;
  }
  const CliRun overflow =
      run({"replay", kTiny, plan, "--ranks", "0-99999999999999999999", "--no-record"});
  EXPECT_EQ(overflow.exit_code, 2);
  EXPECT_NE(overflow.err.find("\"0-99999999999999999999\" is not a rank"), std::string::npos)
      << overflow.err;
  const CliRun lr = run({"replay", kTiny, plan, "--lr", "nan", "--no-record"});
  EXPECT_EQ(lr.exit_code, 2);
  EXPECT_NE(lr.err.find("--lr: nan is not a finite number"), std::string::npos) << lr.err;
  const CliRun inf =
      run({"replay", kTiny, plan, "--ids", "zipf", "--zipf-alpha", "inf", "--no-record"});
  EXPECT_EQ(inf.exit_code, 2);
  EXPECT_NE(inf.err.find("--zipf-alpha: inf is not a finite number"), std::string::npos) << inf.err;
  const CliRun rows = run({"replay", kTiny, plan, "--max-rows", "-1", "--no-record"});
  EXPECT_EQ(rows.exit_code, 2);
  EXPECT_NE(rows.err.find("--max-rows: -1 is below 0"), std::string::npos) << rows.err;
  EXPECT_LT(rows.err.size(), 200u) << rows.err;
#if !defined(SHARDLAB_HAVE_CUDA)
  const CliRun cuda = run({"replay", kTiny, plan, "--backend", "cuda", "--no-record"});
  EXPECT_EQ(cuda.exit_code, 2);
  EXPECT_NE(cuda.err.find("without CUDA"), std::string::npos) << cuda.err;
#endif
}

// The CUDA backend is a module opened only when asked for: without it (or
// without the libraries it needs) --backend cuda is unavailable, naming the
// file and the loader's reason, while the CPU backend works as ever.
TEST_F(ReplayCliTest, TheCudaBackendIsUnavailableWithoutItsModule) {
  const std::string plan = plan_tiny();
  const std::string missing = path("no/libshardlab_cuda_backend.so");
  ::setenv("SHARDLAB_CUDA_BACKEND", missing.c_str(), 1);
  const CliRun cuda = run({"replay", kTiny, plan, "--backend", "cuda", "--no-record"});
  const CliRun cpu = run({"replay", kTiny, plan, "--iterations", "1", "--warmup", "0", "--max-rows",
                          "1000", "--no-record"});
  ::unsetenv("SHARDLAB_CUDA_BACKEND");
  EXPECT_EQ(cuda.exit_code, 2) << cuda.err;
#if defined(SHARDLAB_HAVE_CUDA)
  EXPECT_NE(cuda.err.find("backend 'cuda': cannot load " + missing + ": "), std::string::npos)
      << cuda.err;
  EXPECT_NE(cuda.err.find("No such file"), std::string::npos) << cuda.err;
#else
  EXPECT_NE(cuda.err.find("without CUDA"), std::string::npos) << cuda.err;
#endif
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
}

#if defined(SHARDLAB_HAVE_CUDA)
// The module built beside the CLI loads; on a machine without a GPU the
// backend then says so (exit 2), on one with a GPU the sweep runs.
TEST_F(ReplayCliTest, TheBuiltCudaModuleLoads) {
  const CliRun r = run({"bench-kernels", "--backend", "cuda", "--rows", "1k", "--dims", "16",
                        "--pooling", "1", "--bags", "64", "--iterations", "1", "--warmup", "0"});
  if (r.exit_code == 0) return;  // a GPU ran it
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no CUDA device found"), std::string::npos) << r.err;
}
#endif

TEST_F(ReplayCliTest, BenchKernelsWritesEveryShape) {
  const CliRun r =
      run({"bench-kernels", "--rows", "2k,5000", "--dims", "16,64", "--pooling", "2", "--bags",
           "128", "--iterations", "2", "--warmup", "0", "-o", path("bench.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("copy:"), std::string::npos) << r.out;
  const Json j = Json::parse(read_file(path("bench.json")));
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_GT(j["copy_bytes_per_s"].get<double>(), 0.0);
  ASSERT_EQ(j["rows"].size(), 4u);
  std::set<std::tuple<int64_t, int64_t>> shapes;
  for (const Json& row : j["rows"]) {
    shapes.emplace(row["rows"].get<int64_t>(), row["dim"].get<int64_t>());
    EXPECT_EQ(row["bags"], 128);
    EXPECT_GT(row["forward_bytes_per_s"].get<double>(), 0.0);
    EXPECT_GT(row["backward_bytes_per_s"].get<double>(), 0.0);
    EXPECT_EQ(row["forward"]["samples"], 2);
  }
  EXPECT_EQ(shapes, (std::set<std::tuple<int64_t, int64_t>>{
                        {2000, 16}, {2000, 64}, {5000, 16}, {5000, 64}}));
  const CliRun bad = run({"bench-kernels", "--rows", "lots"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("lots"), std::string::npos) << bad.err;
}

// A replay larger than its memory budget is refused before it allocates, with
// what it needs: one rank with a batch of 20,000,000 (its outputs and
// gradients alone are gigabytes) under a 1 GiB budget. Before, the tables
// alone were checked and a rank's thread died of std::bad_alloc (SIGABRT).
TEST_F(ReplayCliTest, AReplayOverItsMemoryBudgetIsRefusedUpFront) {
  const std::string scenario = write("huge_batch.json", R"({
    "name": "huge-batch", "topology": {"world_size": 1, "hbm_cap": "80 GiB"},
    "batch_size": 20000000,
    "tables": [{"name": "t", "num_embeddings": 1000, "embedding_dim": 64,
                "feature_names": ["f"]}]})");
  ASSERT_EQ(run({"plan", scenario, "-o", path("plan.json"), "--no-record"}).exit_code, 0);
  ::setenv("SHARDLAB_MEMORY_BUDGET", "1 GiB", 1);
  const CliRun r = run({"replay", scenario, path("plan.json"), "--iterations", "1", "--warmup", "0",
                        "--no-record", "-o", path("replay.json")});
  ::unsetenv("SHARDLAB_MEMORY_BUDGET");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the replay of these ranks' tables, batches and buffers needs about "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" left of the memory budget (1.00 GiB, SHARDLAB_MEMORY_BUDGET)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(path("replay.json")) &&
               read_file(path("replay.json")).find("\"records\"") != std::string::npos);
}

// A table no machine here can hold (2 TiB) is refused before any
// measurement, as invalid input naming what it needs and what there is.
TEST_F(ReplayCliTest, BenchKernelsRefusesATableLargerThanMemoryUpFront) {
  const CliRun r = run({"bench-kernels", "--rows", "1G", "--dims", "512", "--pooling", "1",
                        "--iterations", "1", "--warmup", "0", "-o", path("bench.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("kernel benchmark: a table of 1000000000 rows x 512 dims (fp32) needs "
                       "about 1.86 TiB, more than the "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("copy bandwidth"), std::string::npos) << "nothing measured: " << r.err;
  EXPECT_FALSE(fs::exists(path("bench.json")));
}

}  // namespace
}  // namespace shardlab_cli_test
