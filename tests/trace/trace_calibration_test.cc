// read_trace_records and fit_trace_records (trace_calibration.h): a trace of
// matrix products alone fits the GEMMs alone, against the GPU the caller
// chose; without one, or without anything to fit, the errors say why.
#include "shardlab/trace/trace_calibration.h"

#include <gtest/gtest.h>

#include <string>

#include "shardlab/data/gpu_presets.h"
#include "trace_files.h"

namespace shardlab::trace {
namespace {

using TraceCalibrationTest = testing::TraceFilesTest;

// One step of three tf32 matrix products on an A100, no collective.
std::string gemm_trace() {
  std::string events =
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 10000, "tid": 1})";
  const char* const ops[] = {
      R"("ts": 100, "args": {"Input Dims": [[512, 256], [256, 1024]], "Input type": ["float", "float"]})",
      R"("ts": 1100, "args": {"Input Dims": [[4096, 64], [64, 2798]], "Input type": ["float", "float"]})",
      R"("ts": 2100, "args": {"Input Dims": [[2048, 2048], [2048, 4096]], "Input type": ["float", "float"]})"};
  const int us[] = {12, 40, 300};
  for (int i = 0; i < 3; ++i) {
    const std::string c = std::to_string(i + 1);
    const std::string ts = std::to_string(100 + 1000 * i);
    events += R"(, {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "dur": 20, "tid": 1, )" +
              std::string(ops[i]) + "}";
    events += R"(, {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": )" + ts +
              R"(, "dur": 2, "tid": 1, "args": {"correlation": )" + c + "}}";
    events += R"(, {"ph": "X", "cat": "kernel", "name": "cutlass_80_tensorop_s1688gemm", "ts": )" +
              ts + R"(, "dur": )" + std::to_string(us[i]) + R"(, "args": {"correlation": )" + c +
              "}}";
  }
  return R"({"distributedInfo": {"rank": 0, "world_size": 8}, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": [)" +
         events + "]}";
}

TEST_F(TraceCalibrationTest, GemmsAloneAgainstTheChosenGpu) {
  Result<TraceRecords> records = read_trace_records({write("rank-0.json", gemm_trace())}, 8);
  ASSERT_TRUE(records.is_ok()) << records.status().message();
  EXPECT_TRUE(records->measurements.empty());
  ASSERT_EQ(records->gemms.size(), 3u);
  EXPECT_EQ(records->device, "NVIDIA A100-SXM4-80GB");
  const data::GpuPreset* a100 = data::builtin_gpu_presets()->find_device(records->device);
  ASSERT_NE(a100, nullptr);
  Result<TraceCalibration> fitted =
      fit_trace_records(*records, kernels::CalibrationOptions{.holdout_fraction = 0.0}, &a100->spec,
                        a100->name, a100->hbm_mem_bw, "unused");
  ASSERT_TRUE(fitted.is_ok()) << fitted.status().message();
  EXPECT_EQ(fitted->gemm_gpu, "a100-sxm4-80gb");
  ASSERT_EQ(fitted->gemms.size(), 1u);
  const auto tf32 = static_cast<size_t>(planner::Precision::kTf32);
  EXPECT_EQ(fitted->fit.calibration.gemm_efficiency[tf32], fitted->gemms[0].fitted);
  EXPECT_EQ(fitted->fit.calibration.gemm_kernel_ms[tf32], fitted->gemms[0].fitted_kernel_ms);
  EXPECT_EQ(fitted->fit.fit_count, 0);  // no lookup or collective
  // Without a GPU nothing is left to fit: the error says why.
  Result<TraceCalibration> none =
      fit_trace_records(*records, {}, nullptr, "", 0.0, "the traces name no GPU");
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message(),
            "nothing in the traces could be fitted: 3 matrix products not fitted: the traces "
            "name no GPU");
}

TEST_F(TraceCalibrationTest, NothingToReadIsAnError) {
  // A step and nothing in it: no collective with a size, no matrix product.
  Result<TraceRecords> records =
      read_trace_records({write("rank-0.json", R"({"distributedInfo": {"rank": 0, "world_size": 2},
        "traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 9}]})")},
                         8);
  ASSERT_FALSE(records.is_ok());
  EXPECT_EQ(records.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(records.status().message().find("no collective with a recorded size"),
            std::string::npos);
}

}  // namespace
}  // namespace shardlab::trace
