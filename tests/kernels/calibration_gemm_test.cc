// fit_gemm_efficiency (calibration.h): records made from a chosen GEMM model
// on the A100 80GB preset come back with that model's efficiency and kernel
// time; the preset's own model is the "before"; its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "shardlab/data/gpu_presets.h"
#include "shardlab/kernels/calibration.h"
#include "shardlab/sim/dense_model.h"

namespace shardlab::kernels {
namespace {

using planner::Precision;

const data::GpuPreset& a100() {
  const data::GpuPreset* g = data::builtin_gpu_presets()->find("a100-sxm4-80gb");
  EXPECT_NE(g, nullptr);
  return *g;
}

// Shapes from 64 to 8192 on each side (compute- and memory-bound ones),
// timed by the roofline with efficiency `eff` and kernel time `kernel_ms`.
std::vector<GemmRecord> records(Precision p, double eff, double kernel_ms) {
  planner::GpuSpec gpu = a100().spec;
  gpu.gemm.max_efficiency[static_cast<size_t>(p)] = eff;
  gpu.gemm.kernel_ms = kernel_ms;
  std::vector<GemmRecord> out;
  for (int64_t m : {64, 512, 4096}) {
    for (int64_t n : {100, 1024, 8192}) {
      for (int64_t k : {64, 2798}) {
        GemmRecord r{.op = "aten::mm", .gemm = {.m = m, .n = n, .k = k}, .precision = p};
        r.timing = summarize({sim::gemm_time_ms(gpu, a100().hbm_mem_bw, p, r.gemm)});
        out.push_back(r);
      }
    }
  }
  return out;
}

TEST(GemmFit, RecoversTheModelThatMadeTheRecords) {
  std::vector<std::string> notes;
  Result<std::vector<GemmFit>> fits = fit_gemm_efficiency(
      records(Precision::kTf32, 0.42, 0.008), a100().spec, a100().hbm_mem_bw, {}, &notes);
  ASSERT_TRUE(fits.is_ok()) << fits.status().message();
  ASSERT_EQ(fits->size(), 1u);
  const GemmFit& f = fits->front();
  EXPECT_EQ(f.precision, Precision::kTf32);
  EXPECT_NEAR(f.fitted, 0.42, 0.42 * 0.01);
  EXPECT_NEAR(f.fitted_kernel_ms, 0.008, 0.008 * 0.02);
  EXPECT_DOUBLE_EQ(f.preset,
                   a100().spec.gemm.max_efficiency[static_cast<size_t>(Precision::kTf32)]);
  EXPECT_DOUBLE_EQ(f.preset_kernel_ms, 0.0);
  EXPECT_EQ(f.fit_count + f.held_out, 18);
  EXPECT_EQ(f.held_out, 4);  // round(0.2 · 18)
  ASSERT_TRUE(f.mape_after && f.mape_before);
  EXPECT_LT(*f.mape_after, 1.0);
  EXPECT_GT(*f.mape_before, 20.0);  // the preset's model is far from these records
}

TEST(GemmFit, OneFitPerArithmeticAndNoneHeldOutWhenAsked) {
  std::vector<GemmRecord> all = records(Precision::kFp32, 0.9, 0.0);
  for (const GemmRecord& r : records(Precision::kBf16, 0.6, 0.005)) all.push_back(r);
  Result<std::vector<GemmFit>> fits =
      fit_gemm_efficiency(all, a100().spec, a100().hbm_mem_bw, {}, nullptr);
  ASSERT_TRUE(fits.is_ok()) << fits.status().message();
  ASSERT_EQ(fits->size(), 2u);
  EXPECT_EQ((*fits)[0].precision, Precision::kFp32);
  EXPECT_EQ((*fits)[1].precision, Precision::kBf16);
  EXPECT_NEAR((*fits)[1].fitted, 0.6, 0.006);
  // Nothing held out: the errors are the training residual's only.
  fits = fit_gemm_efficiency(all, a100().spec, a100().hbm_mem_bw,
                             CalibrationOptions{.holdout_fraction = 0.0}, nullptr);
  ASSERT_TRUE(fits.is_ok());
  EXPECT_FALSE((*fits)[0].mape_after.has_value());
  EXPECT_TRUE((*fits)[0].fit_mape_after.has_value());
}

TEST(GemmFit, ErrorsAndWhatIsLeftOut) {
  std::vector<std::string> notes;
  // fp8 has no peak on an A100: left out, said; nothing else to fit.
  Result<std::vector<GemmFit>> fits = fit_gemm_efficiency(
      records(Precision::kFp8, 0.5, 0.0), a100().spec, a100().hbm_mem_bw, {}, &notes);
  ASSERT_FALSE(fits.is_ok());
  EXPECT_EQ(fits.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(fits.status().message().find("no matrix product to fit"), std::string::npos);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("has no fp8 peak"), std::string::npos) << notes[0];
  fits = fit_gemm_efficiency(records(Precision::kTf32, 0.5, 0.0), a100().spec, 0.0, {}, nullptr);
  ASSERT_FALSE(fits.is_ok());
  EXPECT_EQ(fits.status().code(), StatusCode::kInvalidArgument);
  fits = fit_gemm_efficiency(records(Precision::kTf32, 0.5, 0.0), a100().spec, a100().hbm_mem_bw,
                             CalibrationOptions{.holdout_fraction = 1.0}, nullptr);
  ASSERT_FALSE(fits.is_ok());
  EXPECT_NE(fits.status().message().find("holdout fraction"), std::string::npos);
}

// The fitted GEMM terms are parameters as the report and the workbench list
// them, one row each, with no TorchRec value (TorchRec has no dense model).
TEST(GemmFit, ItsTermsAreParameterRows) {
  planner::CostCalibration c;
  c.gemm_efficiency[static_cast<size_t>(Precision::kTf32)] = 0.42;
  c.gemm_kernel_ms[static_cast<size_t>(Precision::kTf32)] = 0.007;
  const std::vector<CalibrationParameter> rows = calibration_parameters(c, {}, {});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "gemm tf32 efficiency");
  EXPECT_EQ(rows[0].unit, CalibrationParameter::Unit::kRatio);
  EXPECT_FALSE(rows[0].torchrec.has_value());
  EXPECT_EQ(rows[0].fitted, 0.42);
  EXPECT_EQ(rows[1].name, "gemm tf32 kernel time");
  EXPECT_EQ(rows[1].unit, CalibrationParameter::Unit::kMs);
  EXPECT_EQ(rows[1].fitted, 0.007);
}

}  // namespace
}  // namespace shardlab::kernels
