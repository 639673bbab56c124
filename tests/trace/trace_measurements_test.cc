// Collective measurements from profiler traces (trace_measurements.h): sizes
// from the ops' recorded inputs, times from the kernels they launched,
// samples grouped across steps; then the A100 traces of ../shared/traces.
#include "shardlab/trace/trace_measurements.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace
}  // namespace shardlab::trace
