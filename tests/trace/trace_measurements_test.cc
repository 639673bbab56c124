// Collective measurements from profiler traces (trace_measurements.h): sizes
// from the ops' recorded inputs, times from the kernels they launched,
// samples grouped across steps; then the A100 traces of ../shared/traces.
#include "shardlab/trace/trace_measurements.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "../shared_dir.h"
#include "shardlab/kernels/calibration.h"
#include "trace_files.h"

namespace shardlab::trace {
namespace {

namespace fs = std::filesystem;

using TraceMeasurementsTest = testing::TraceFilesTest;

// Rank 0 of 16 on an A100, two steps of 1 ms each. Each step issues an
// all-to-all of 1,024 floats (an annotation, as PyTorch 2 records them) and
// an all-reduce of 256 halves (a cpu_op); the all-to-all's kernel takes 40 µs
// in step 1 and 60 in step 2, the all-reduce's 10 and 30 (two kernels of 5
// and 5, then one of 30). An op without recorded dims is skipped.
constexpr const char* kTrace = R"({"distributedInfo": {"rank": 0, "world_size": 16},
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}],
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 1000, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_to_all", "ts": 1100, "dur": 20,
     "args": {"Input Dims": [[8, 128]], "Input type": ["float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1110, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "ts": 1200, "dur": 40, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "ts": 1500, "dur": 30,
     "args": {"Input Dims": [[256], []], "Input type": ["c10::Half", "Scalar"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1505, "dur": 2, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1510, "dur": 2, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "ts": 1600, "dur": 5, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "ts": 1610, "dur": 5, "args": {"correlation": 3}},
    {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "ts": 1700, "dur": 30, "args": {}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 2000, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_to_all", "ts": 2100, "dur": 20,
     "args": {"Input Dims": [[8, 128]], "Input type": ["float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2110, "dur": 2, "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "ts": 2200, "dur": 60, "args": {"correlation": 4}},
    {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "ts": 2500, "dur": 30,
     "args": {"Input Dims": [[256], []], "Input type": ["c10::Half", "Scalar"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2505, "dur": 2, "args": {"correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "ts": 2600, "dur": 30, "args": {"correlation": 5}}]})";

TEST_F(TraceMeasurementsTest, SizesTimesAndSteps) {
  Result<TraceMeasurements> r = trace_measurements({write("rank-0.json", kTrace)}, 8);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->device, "NVIDIA A100-SXM4-80GB");
  ASSERT_EQ(r->measurements.size(), 2u);
  const kernels::Measurement& a2a = r->measurements[0];
  EXPECT_EQ(a2a.collective_kind, sim::CollectiveKind::kAllToAll);
  EXPECT_EQ(a2a.members, 16);
  EXPECT_TRUE(a2a.inter_host);  // 16 ranks on hosts of 8
  EXPECT_DOUBLE_EQ(a2a.bytes, 4096.0 * 15 / 16);
  EXPECT_EQ(a2a.timing.samples, 2);
  EXPECT_DOUBLE_EQ(a2a.timing.min_ms, 0.040);
  const kernels::Measurement& ar = r->measurements[1];
  EXPECT_EQ(ar.collective_kind, sim::CollectiveKind::kAllReduce);
  EXPECT_DOUBLE_EQ(ar.bytes, 2.0 * 15 / 16 * 512);
  EXPECT_EQ(ar.timing.samples, 2);
  EXPECT_DOUBLE_EQ(ar.timing.min_ms, 0.010);  // the two kernels of step 1
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_EQ(r->notes[0], "1 op skipped: no recorded size or no kernel");
  // On hosts of 16 the same collectives stay inside one.
  EXPECT_FALSE(trace_measurements({write("rank-0b.json", kTrace)}, 16)->measurements[0].inter_host);
}

// Matrix products, one step [1000, 2000) and one [2000, 3000), thread 1:
//   an addmm (bias, [32, 128], [128, 64]) whose tf32 kernel (CUTLASS's
//   s1688) takes 20 µs, then 40 in step 2; a kernel another thread launched
//   meanwhile (500 µs) is not its;
//   an mm of the same shape on fp32 SIMT (ampere_sgemm), 30 µs: its own record;
//   a bmm ([4, 16, 8], [4, 8, 2]) of bfloat16, 10 µs;
//   an mm outside every step, an mm whose inner dims disagree (not a
//   product), and one of doubles (a type the simulator does not model).
constexpr const char* kGemms = R"({"distributedInfo": {"rank": 2, "world_size": 4},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 1000, "dur": 1000, "tid": 1},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "ts": 1100, "dur": 50, "tid": 1,
     "args": {"Input Dims": [[64], [32, 128], [128, 64], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1110, "dur": 2, "tid": 1, "args": {"correlation": 10}},
    {"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>", "ts": 1200, "dur": 20, "args": {"correlation": 10}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1120, "dur": 2, "tid": 2, "args": {"correlation": 11}},
    {"ph": "X", "cat": "kernel", "name": "other_thread", "ts": 1300, "dur": 500, "args": {"correlation": 11}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1400, "dur": 30, "tid": 1,
     "args": {"Input Dims": [[32, 128], [128, 64]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1410, "dur": 2, "tid": 1, "args": {"correlation": 12}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "ts": 1450, "dur": 30, "args": {"correlation": 12}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "ts": 1500, "dur": 30, "tid": 1,
     "args": {"Input Dims": [[4, 16, 8], [4, 8, 2]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1510, "dur": 2, "tid": 1, "args": {"correlation": 13}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16", "ts": 1550, "dur": 10, "args": {"correlation": 13}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1600, "dur": 30, "tid": 1,
     "args": {"Input Dims": [[2, 3], [4, 5]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1700, "dur": 30, "tid": 1,
     "args": {"Input Dims": [[2, 3], [3, 5]], "Input type": ["double", "double"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1710, "dur": 2, "tid": 1, "args": {"correlation": 14}},
    {"ph": "X", "cat": "kernel", "name": "dgemm", "ts": 1750, "dur": 10, "args": {"correlation": 14}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 2000, "dur": 1000, "tid": 1},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "ts": 2100, "dur": 50, "tid": 1,
     "args": {"Input Dims": [[64], [32, 128], [128, 64], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2110, "dur": 2, "tid": 1, "args": {"correlation": 20}},
    {"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>", "ts": 2200, "dur": 40, "args": {"correlation": 20}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 3100, "dur": 30, "tid": 1,
     "args": {"Input Dims": [[32, 128], [128, 64]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 3110, "dur": 2, "tid": 1, "args": {"correlation": 30}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "ts": 3150, "dur": 30, "args": {"correlation": 30}}]})";

TEST_F(TraceMeasurementsTest, GemmsFromTheirShapesAndTheirThreadsKernels) {
  // No collective, but matrix products: not an error even when collectives are required.
  Result<TraceMeasurements> r = trace_measurements({write("rank-2.json", kGemms)}, 8);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_TRUE(r->measurements.empty());
  ASSERT_EQ(r->gemms.size(), 3u);
  const kernels::GemmRecord& addmm = r->gemms[0];
  EXPECT_EQ(addmm.rank, 2);
  EXPECT_EQ(addmm.op, "aten::addmm");
  EXPECT_EQ(addmm.gemm.m, 32);
  EXPECT_EQ(addmm.gemm.k, 128);
  EXPECT_EQ(addmm.gemm.n, 64);
  EXPECT_EQ(addmm.gemm.batch, 1);
  EXPECT_EQ(addmm.precision, planner::Precision::kTf32);
  EXPECT_EQ(addmm.timing.samples, 2);
  EXPECT_DOUBLE_EQ(addmm.timing.min_ms, 0.020);  // not the other thread's 500 µs
  const kernels::GemmRecord& mm = r->gemms[1];
  EXPECT_EQ(mm.precision, planner::Precision::kFp32);
  EXPECT_EQ(mm.timing.samples, 1);  // the one outside the steps is not a sample
  EXPECT_DOUBLE_EQ(mm.timing.median_ms, 0.030);
  const kernels::GemmRecord& bmm = r->gemms[2];
  EXPECT_EQ(bmm.precision, planner::Precision::kBf16);
  EXPECT_EQ(bmm.gemm.batch, 4);
  EXPECT_EQ(bmm.gemm.m, 16);
  EXPECT_EQ(bmm.gemm.k, 8);
  EXPECT_EQ(bmm.gemm.n, 2);
  bool doubles = false;
  for (const std::string& n : r->notes)
    doubles =
        doubles || n.find("of a type the simulator does not model (double)") != std::string::npos;
  EXPECT_TRUE(doubles);
}

TEST_F(TraceMeasurementsTest, Refusals) {
  std::string no_world = kTrace;
  no_world.replace(no_world.find(", \"world_size\": 16"), 18, "");
  Result<TraceMeasurements> r = trace_measurements({write("r.json", no_world)}, 8);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(
      r.status().message().find(": no distributedInfo.world_size: cannot tell how many ranks"),
      std::string::npos);
  r = trace_measurements({write("s.json", R"({"distributedInfo": {"rank": 0, "world_size": 2},
      "traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 9}]})")},
                         8);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("no collective with a recorded size"), std::string::npos);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(trace_measurements({write("t.json", kTrace)}, 0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(trace_measurements({(dir_ / "missing.json").string()}, 8).status().code(),
            StatusCode::kInvalidArgument);
}

fs::path traces_root() { return testing_support::shared_traces_dir(); }

// The 8-rank production trace: one host; its embedding all-to-all sends 7/8
// of an [8, 1024, 8816] float buffer. A calibration fits the host's
// collectives and reports its held-out error.
TEST(RealTraceMeasurements, A100EightRanks) {
  const fs::path dir = traces_root() / "a100_8rank_prod";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not found";
  Result<TraceMeasurements> r = trace_measurements({dir.string()}, 8);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->device, "NVIDIA A100-PG509-200");
  bool found = false;
  for (const kernels::Measurement& m : r->measurements) {
    EXPECT_FALSE(m.inter_host);
    EXPECT_EQ(m.members, 8);
    EXPECT_GT(m.timing.median_ms, 0.0);
    if (m.collective_kind == sim::CollectiveKind::kAllToAll &&
        m.bytes == 8.0 * 1024 * 8816 * 4 * 7 / 8)
      found = true;
  }
  EXPECT_TRUE(found);
  Result<kernels::CalibrationFit> fit = kernels::fit_calibration(r->measurements);
  ASSERT_TRUE(fit.is_ok()) << fit.status().message();
  EXPECT_TRUE(fit->calibration.intra_host.bandwidth_bytes_per_ms.has_value());
  ASSERT_TRUE(fit->mape_after.has_value());
  EXPECT_GT(fit->held_out_count, 0);
}

// The matrix products of every real trace that records shapes, against an
// independent reading of the whole document: per file, each aten::mm, addmm
// and bmm cpu_op launched inside a step, its time the kernels its own
// thread launched while it ran (a DOM and plain loops, not the library's
// stream). Samples and summed medians agree.
TEST(RealTraceMeasurements, GemmsMatchAnIndependentReading) {
  using Json = nlohmann::json;
  const fs::path root = traces_root();
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " not found";
  int files_with_gemms = 0;
  for (const fs::directory_entry& folder : fs::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    for (const fs::directory_entry& file : fs::directory_iterator(folder.path())) {
      const std::string path = file.path().string();
      if (path.find(".json") == std::string::npos) continue;
      Result<TraceMeasurements> r = trace_measurements({path}, 8, {}, false);
      ASSERT_TRUE(r.is_ok()) << r.status().message();
      const Json doc = Json::parse(testing::read_trace_text(file.path()));
      std::vector<std::pair<double, double>> steps;
      std::map<int64_t, double> kernel_us;                         // by correlation
      std::vector<std::tuple<double, int64_t, int64_t>> launches;  // ts, tid, correlation
      for (const Json& e : doc["traceEvents"]) {
        const std::string cat = e.value("cat", ""), name = e.value("name", "");
        if (name.rfind("ProfilerStep#", 0) == 0 && cat.rfind("gpu_", 0) != 0)
          steps.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
        if (!e.contains("args") || !e["args"].contains("correlation")) continue;
        const int64_t c = e["args"]["correlation"].get<int64_t>();
        if (cat == "kernel") kernel_us[c] += e["dur"].get<double>();
        if (cat == "cuda_runtime" || cat == "cuda_driver")
          launches.emplace_back(e["ts"].get<double>(), e.value("tid", int64_t{-1}), c);
      }
      int samples = 0;
      for (const Json& e : doc["traceEvents"]) {
        const std::string name = e.value("name", "");
        if (e.value("cat", "") != "cpu_op" ||
            (name != "aten::mm" && name != "aten::addmm" && name != "aten::bmm"))
          continue;
        if (!e["args"].contains("Input Dims")) continue;
        const double ts = e["ts"].get<double>(), end = ts + e["dur"].get<double>();
        const bool in_step = std::any_of(steps.begin(), steps.end(), [&](const auto& s) {
          return ts >= s.first && ts < s.second;
        });
        if (!in_step) continue;
        double us = 0.0;
        for (const auto& [lts, tid, c] : launches) {
          if (lts >= ts && lts <= end && tid == e.value("tid", int64_t{-1}) && kernel_us.count(c))
            us += kernel_us[c];
        }
        const Json& t = e["args"]["Input type"];
        const std::string type = t[name == "aten::addmm" ? 1 : 0].get<std::string>();
        const bool modelled = type == "float" || type == "c10::Half" || type == "c10::BFloat16";
        if (us > 0.0 && modelled) ++samples;
      }
      int got = 0;
      for (const kernels::GemmRecord& g : r->gemms) got += g.timing.samples;
      EXPECT_EQ(got, samples) << path;
      files_with_gemms += samples > 0 ? 1 : 0;
    }
  }
  EXPECT_GE(files_with_gemms, 3) << "the A100 traces record shapes";
}

}  // namespace
}  // namespace shardlab::trace
