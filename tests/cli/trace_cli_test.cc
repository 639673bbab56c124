// shardlab trace summarize through the real binary: text and JSON, folders,
// exit statuses, and its output never over a trace.
#include <fmt/format.h>

#include <string>

#include "../trace/tbe_step_events.h"
#include "cli_fixture.h"

namespace {

using namespace shardlab_cli_test;

// One step of 2 ms whose one kernel (0.5 ms) was launched inside it.
constexpr const char* kTrace = R"({"distributedInfo": {"rank": 3, "world_size": 4},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 100, "dur": 2000},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 150, "dur": 4,
     "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "ts": 300, "dur": 500,
     "args": {"correlation": 9}}]})";

TEST_F(CliTest, TraceSummarizeTextAndJson) {
  const std::string file = write("rank-3.json", kTrace);
  CliRun r = run({"trace", "summarize", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 3 of 4 (" + file + "): 1 step\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("           2       2.000        1        0.500      0.500      0.000"),
            std::string::npos)
      << r.out;

  r = run({"trace", "summarize", path(""), "--format", "json", "-o", path("summary.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(read_file(path("summary.json")));
  ASSERT_EQ(j["ranks"].size(), 1u);  // the folder's one trace; stdout.txt is not a trace
  EXPECT_EQ(j["ranks"][0]["rank"], 3);
  EXPECT_EQ(j["ranks"][0]["steps"][0]["gpu_busy_ms"], 0.5);
  EXPECT_EQ(j["ranks"][0]["steps"][0]["nccl_ms"], 0.5);
}

// A summarized trace is a run of kind trace (its medians), which runs diff
// sets beside a simulation: iteration_ms measured against simulated.
TEST_F(CliTest, TraceSummarizeRecordsATraceRunThatDiffsWithASimulation) {
  const std::string file = write("rank-3.json", kTrace);
  const std::string db = path("runs.db");
  CliRun r = run({"trace", "summarize", file, "--db", db, "-o", path("summary.txt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("recorded run 1 in"), std::string::npos) << r.err;
  r = run({"runs", "list", "--kind", "trace", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("trace "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank-3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iteration 2 ms"), std::string::npos) << r.out;
  r = run({"simulate", kTiny, "--db", db, "-q", "-o", path("sim.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"runs", "diff", "1", "2", "--db", db, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json d = Json::parse(r.out);
  bool compared = false;
  for (const Json& f : d["fields"]) {
    if (f["name"] != "iteration_ms") continue;
    compared = true;
    EXPECT_EQ(f["a"], 2.0);
    EXPECT_TRUE(f["b"].is_number());
  }
  EXPECT_TRUE(compared) << r.out;
  // --no-record records nothing.
  r = run({"trace", "summarize", file, "--db", db, "--no-record", "-o", path("again.txt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"runs", "list", "--kind", "trace", "--db", db, "--format", "json"});
  EXPECT_EQ(Json::parse(r.out).size(), 1u) << r.out;
}

// calibrate --from-trace --scenario fits the traced job's lookups (each
// rank's forward and backward embedding time) beside its collectives.
TEST_F(CliTest, CalibrateFromATraceWithItsScenarioFitsLookups) {
  const std::string trace =
      write("rank-0.json", R"({"distributedInfo": {"rank": 0, "world_size": 2},
    "deviceProperties": [{"id": 0, "name": "Tesla V100-SXM2-16GB"}],
    "traceEvents": [)" + shardlab::trace::testing::tbe_step_events(1, 0, 300, 600) +
                               "]}");
  // Without the scenario there is nothing to fit (no collective has a size).
  CliRun r = run({"calibrate", "--from-trace", trace, "--no-record"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no collective with a recorded size"), std::string::npos) << r.err;
  r = run({"calibrate", "--from-trace", trace, "--scenario", kTiny, "--holdout", "0", "--no-record",
           "-o", path("profile.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the traced job's scenario"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fwd fused"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("collectives not fitted"), std::string::npos) << r.out;
  const Json profile = Json::parse(read_file(path("profile.json")));
  EXPECT_FALSE(profile["parameters"]["compute"].empty()) << profile.dump();
  // --plan needs --scenario.
  r = run({"calibrate", "--from-trace", trace, "--plan", path("plan.json"), "--no-record"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// A step of six tf32 matrix products (CUTLASS's s1688 kernels) on `device`,
// recorded with shapes: what calibrate --from-trace fits the GEMM roofline to.
std::string gemm_trace(const std::string& device) {
  std::string events =
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 100000, "tid": 1})";
  const int64_t shapes[][3] = {{64, 64, 64},       {512, 256, 1024}, {4096, 64, 2798},
                               {1024, 1024, 1024}, {4096, 512, 512}, {2048, 2048, 4096}};
  double ts = 100;
  int corr = 1;
  for (const auto& sh : shapes) {
    // A fixed 8 µs and 60 TFLOP/s.
    const double us = 8.0 + 2.0 * static_cast<double>(sh[0] * sh[1] * sh[2]) / 60e6;
    events += fmt::format(
        R"(, {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": {0}, "dur": 20, "tid": 1, "args": {{"Input Dims": [[{1}, {3}], [{3}, {2}]], "Input type": ["float", "float"]}}}})"
        R"(, {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": {4}, "dur": 2, "tid": 1, "args": {{"correlation": {5}}}}})"
        R"(, {{"ph": "X", "cat": "kernel", "name": "cutlass_80_tensorop_s1688gemm_128x128", "ts": {6}, "dur": {7}, "args": {{"correlation": {5}}}}})",
        ts, sh[0], sh[1], sh[2], ts + 5, corr, ts + 30, us);
    ts += 1000;
    ++corr;
  }
  return R"({"distributedInfo": {"rank": 0, "world_size": 8}, "deviceProperties": [{"id": 0, "name": ")" +
         device + R"("}], "traceEvents": [)" + events + "]}";
}

// calibrate --from-trace fits the dense model's GEMMs to the traced matrix
// products on the preset the device name names, or --gpu's; the profile
// carries them.
TEST_F(CliTest, CalibrateFromATraceFitsItsGemms) {
  const std::string a100 = write("a100.json", gemm_trace("NVIDIA A100-SXM4-80GB"));
  CliRun r = run({"calibrate", "--from-trace", a100, "--no-record", "-o", path("g.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dense GEMMs (6 shapes measured) against the a100-sxm4-80gb roofline"),
            std::string::npos)
      << r.out;
  const Json dense = Json::parse(read_file(path("g.json")))["parameters"]["dense"];
  const double eff = dense["gemm_efficiency"]["tf32"].get<double>();
  EXPECT_GT(eff, 0.0);
  EXPECT_LE(eff, 1.0);
  EXPECT_GE(dense["gemm_kernel_ms"]["tf32"].get<double>(), 0.0);
  r = run({"calibrate", "--from-trace", a100, "--no-record", "--gpu", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpu: no GPU preset named \"nope\""), std::string::npos) << r.err;
  // A device no preset is named after: nothing to fit until --gpu names one.
  const std::string h100 = write("h100.json", gemm_trace("NVIDIA H100 80GB HBM3"));
  r = run({"calibrate", "--from-trace", h100, "--no-record"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("name the GPU with --gpu"), std::string::npos) << r.err;
  r = run({"calibrate", "--from-trace", h100, "--no-record", "--gpu", "h100-sxm"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("against the h100-sxm roofline"), std::string::npos) << r.out;
}

TEST_F(CliTest, TraceSummarizeErrors) {
  const std::string file = write("rank-3.json", kTrace);
  // The output over the trace is refused; the trace is left as it was.
  CliRun r = run({"trace", "summarize", file, "-o", file});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is the same file as"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(file), kTrace);
  // A cut file names the byte where it ends.
  const std::string cut = write("cut.json", std::string(kTrace).substr(0, 120));
  r = run({"trace", "summarize", cut});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cut.json: not a complete trace: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at byte 120 "), std::string::npos) << r.err;
  r = run({"trace", "summarize"});
  EXPECT_EQ(r.exit_code, 2);
  r = run({"trace", "summarize", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("ProfilerStep#N"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Example:"), std::string::npos) << r.out;
}

// simulate --against puts a trace beside the simulation; a rank the
// simulation does not have, or a trace that cannot be read, is refused with
// exit 2 before anything is simulated.
TEST_F(CliTest, SimulateAgainstATrace) {
  const std::string scenario = std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json";
  std::string one = kTrace;
  one.replace(one.find("\"rank\": 3"), 9, "\"rank\": 1");
  const std::string file = write("rank-1.json", one);
  CliRun r = run({"simulate", scenario, "--against", file, "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("against " + file + ": rank 1, medians of 1 step"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  step                      2.000 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  gpu_busy                  0.500 "), std::string::npos) << r.out;

  // The same as JSON for scripts: the measured step 2 ms, GPU busy 0.5 ms.
  r = run({"simulate", scenario, "--against", file, "--against-json", "-", "--no-record", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json json = Json::parse(r.out);
  ASSERT_EQ(json["ranks"].size(), 1u);
  EXPECT_EQ(json["ranks"][0]["rank"], 1);
  EXPECT_EQ(json["ranks"][0]["steps"], 1);
  const Json& step = json["ranks"][0]["rows"][0];
  EXPECT_EQ(step["what"], "step");
  EXPECT_DOUBLE_EQ(step["measured_ms"].get<double>(), 2.0);
  EXPECT_NEAR(step["error"].get<double>(), (step["simulated_ms"].get<double>() - 2.0) / 2.0, 1e-12);
  EXPECT_EQ(json["ranks"][0]["rows"][1]["what"], "gpu_busy");
  r = run({"simulate", scenario, "--against-json", "-", "--no-record"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--against-json writes the comparison with --against's traces"),
            std::string::npos)
      << r.err;

  r = run({"simulate", scenario, "--against", write("rank-3.json", kTrace), "--no-record"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trace rank 3 ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("): the simulation has 2 ranks"), std::string::npos) << r.err;
  r = run({"simulate", scenario, "--against", path("missing.json"), "--no-record"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.json: cannot read"), std::string::npos) << r.err;
}

// calibrate --from-trace fits the collectives of a trace, writes the profile
// and refuses --runs beside it.
TEST_F(CliTest, CalibrateFromATrace) {
  // Rank 0 of 8, one step; all-to-alls of 1 MiB and 4 MiB taking 30 and 90 µs.
  const std::string trace =
      write("rank-0.json", R"({"distributedInfo": {"rank": 0, "world_size": 8},
    "traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 1000},
      {"ph": "X", "cat": "cpu_op", "name": "nccl:all_to_all", "ts": 10, "dur": 5,
       "args": {"Input Dims": [[262144]], "Input type": ["float"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 11, "dur": 1, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "ts": 20, "dur": 30, "args": {"correlation": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "nccl:all_to_all", "ts": 100, "dur": 5,
       "args": {"Input Dims": [[1048576]], "Input type": ["float"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 101, "dur": 1, "args": {"correlation": 2}},
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "ts": 120, "dur": 90, "args": {"correlation": 2}}]})");
  CliRun r = run(
      {"calibrate", "--from-trace", trace, "--holdout", "0", "-o", path("p.json"), "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("calibrated from 1 profiler trace on unknown GPU: 2 measurements"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("comm intra_host"), std::string::npos) << r.out;
  const Json profile = Json::parse(read_file(path("p.json")));
  EXPECT_EQ(profile["name"], "traces");
  // Two points on a line: 20 µs per 3 MiB sent more, 30 µs at 7/8 MiB.
  const double sent_small = 1048576.0 * 7 / 8;
  const double sent_large = 4 * sent_small;
  const double bw = (sent_large - sent_small) / (0.090 - 0.030);
  const Json& comm = profile["parameters"]["comm"]["intra_host"];
  EXPECT_NEAR(comm["bandwidth_bytes_per_ms"].get<double>(), bw, 1e-6 * bw) << profile.dump();
  EXPECT_NEAR(comm["latency_ms"].get<double>(), 0.030 - sent_small / bw, 1e-9);
  r = run({"calibrate", "--from-trace", trace, "--runs", "1", "--no-record"});
  EXPECT_EQ(r.exit_code, 2);
  // Recorded, the calibrate run keeps the records it fitted (the workbench
  // draws them against both models).
  const std::string db = path("cal.db");
  r = run({"calibrate", "--from-trace", trace, "--holdout", "0", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"runs", "list", "--db", db, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json runs = Json::parse(r.out);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["kind"], "calibrate");
  EXPECT_EQ(runs[0]["measurements"], 2);
}

}  // namespace
