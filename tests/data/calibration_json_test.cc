// Calibration profiles: write then read gives every value back bit for bit;
// every bad field is refused with the file, the JSON path and the value.

#include "shardlab/data/calibration_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace shardlab::data {
namespace {

using planner::ComputeKernel;
using planner::DimClass;

// Values that are not round in binary, so a lossy number format would show.
CalibrationProfile sample() {
  CalibrationProfile p;
  p.name = "h100 \"lab\"";
  p.created = "2025-02-03T04:05:06Z";
  p.device = "cuda: NVIDIA H100 80GB HBM3";
  p.source_runs = {3, 5, 6, 7};
  auto& c = p.parameters;
  c.bandwidth(ComputeKernel::kFused, DimClass::kNarrow) = 123456789.123;
  c.bandwidth(ComputeKernel::kFused, DimClass::kFull) = 7.1e8 / 3;
  c.overhead(ComputeKernel::kFused) = 0.1 + 0.2;
  c.overhead(ComputeKernel::kFusedUvm) = 0.0;  // an overhead without any bandwidth
  c.bwd_multiplier_of(ComputeKernel::kFused) = 9.25;
  c.bwd_multiplier_of(ComputeKernel::kQuant) = 1.5;  // a multiplier alone
  c.bandwidth(ComputeKernel::kDense, DimClass::kHalf) = 1e-3;
  c.bwd_multiplier = 2.0 / 3.0;
  c.intra_host = {.bandwidth_bytes_per_ms = 1.5e8, .latency_ms = 1e-5};
  c.inter_host = {.bandwidth_bytes_per_ms = std::nullopt, .latency_ms = 0.07};
  p.fit_count = 120;
  p.held_out = 30;
  p.mape_before = 812.5;
  p.mape_after = 3.25;
  p.fit_mape_before = 790.0;
  p.fit_mape_after = 2.75;
  p.groups.push_back({.name = "fwd fused/narrow",
                      .fit_count = 40,
                      .held_out = 10,
                      .fitted = true,
                      .mape_before = 93.0,
                      .mape_after = 1.0 / 3.0,
                      .fit_mape_before = 91.5,
                      .fit_mape_after = 0.25});
  p.groups.push_back({.name = "comm inter_host", .fit_count = 1, .held_out = 0, .fitted = false});
  p.notes = {"comm inter_host: 1 fit record, too few; TorchRec's bandwidth kept"};
  return p;
}

void expect_same(const CalibrationProfile& a, const CalibrationProfile& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.created, b.created);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.source_runs, b.source_runs);
  EXPECT_EQ(a.parameters.fwd_bandwidth, b.parameters.fwd_bandwidth);
  EXPECT_EQ(a.parameters.overhead_ms, b.parameters.overhead_ms);
  EXPECT_EQ(a.parameters.bwd_multiplier, b.parameters.bwd_multiplier);
  EXPECT_EQ(a.parameters.kernel_bwd_multiplier, b.parameters.kernel_bwd_multiplier);
  EXPECT_EQ(a.parameters.intra_host.bandwidth_bytes_per_ms,
            b.parameters.intra_host.bandwidth_bytes_per_ms);
  EXPECT_EQ(a.parameters.intra_host.latency_ms, b.parameters.intra_host.latency_ms);
  EXPECT_EQ(a.parameters.inter_host.bandwidth_bytes_per_ms,
            b.parameters.inter_host.bandwidth_bytes_per_ms);
  EXPECT_EQ(a.parameters.inter_host.latency_ms, b.parameters.inter_host.latency_ms);
  EXPECT_EQ(a.fit_count, b.fit_count);
  EXPECT_EQ(a.held_out, b.held_out);
  EXPECT_EQ(a.mape_before, b.mape_before);
  EXPECT_EQ(a.mape_after, b.mape_after);
  EXPECT_EQ(a.fit_mape_before, b.fit_mape_before);
  EXPECT_EQ(a.fit_mape_after, b.fit_mape_after);
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].name, b.groups[i].name);
    EXPECT_EQ(a.groups[i].fit_count, b.groups[i].fit_count);
    EXPECT_EQ(a.groups[i].held_out, b.groups[i].held_out);
    EXPECT_EQ(a.groups[i].fitted, b.groups[i].fitted);
    EXPECT_EQ(a.groups[i].mape_before, b.groups[i].mape_before);
    EXPECT_EQ(a.groups[i].mape_after, b.groups[i].mape_after);
    EXPECT_EQ(a.groups[i].fit_mape_before, b.groups[i].fit_mape_before);
    EXPECT_EQ(a.groups[i].fit_mape_after, b.groups[i].fit_mape_after);
  }
  EXPECT_EQ(a.notes, b.notes);
}

TEST(CalibrationJson, RoundTripIndentedAndCompact) {
  const CalibrationProfile p = sample();
  for (int indent : {2, -1}) {
    const std::string text = calibration_to_json(p, indent);
    auto back = parse_calibration(text, "profile.json");
    ASSERT_TRUE(back.is_ok()) << back.status().message() << "\n" << text;
    expect_same(p, *back);
    // Writing what was read gives the same document.
    EXPECT_EQ(calibration_to_json(*back, indent), text);
  }
  EXPECT_EQ(calibration_to_json(p, -1).find('\n'), std::string::npos);
}

TEST(CalibrationJson, DocumentShape) {
  const std::string text = calibration_to_json(sample(), -1);
  EXPECT_EQ(
      text.rfind("{\"format\":\"shardlab-calibration\",\"version\":1,\"name\":\"h100 \\\"lab\\\"\"",
                 0),
      0u)
      << text;
  // fused has two classes (each carrying the kernel's overhead), fused_uvm an
  // overhead-only entry, dense one class without overhead.
  EXPECT_NE(
      text.find("{\"kernel\":\"dense\",\"dim_class\":\"half\",\"bandwidth_bytes_per_ms\":0.001}"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "{\"kernel\":\"fused\",\"dim_class\":\"narrow\",\"bandwidth_bytes_per_ms\":123456789.123,"
          "\"overhead_ms\":0.30000000000000004,\"bwd_multiplier\":9.25}"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("{\"kernel\":\"fused_uvm\",\"overhead_ms\":0.0}"), std::string::npos) << text;
  EXPECT_NE(text.find("{\"kernel\":\"quant\",\"bwd_multiplier\":1.5}"), std::string::npos) << text;
  EXPECT_NE(
      text.find(
          "\"comm\":{\"intra_host\":{\"bandwidth_bytes_per_ms\":150000000.0,\"latency_ms\":1e-05},"
          "\"inter_host\":{\"latency_ms\":0.07}}"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("\"fit_mape_after\":null}"), std::string::npos) << text;
}

TEST(CalibrationJson, MinimalHandWrittenProfile) {
  auto p = parse_calibration(R"({"format": "shardlab-calibration", "version": 1, "name": "by hand",
      "parameters": {"compute": [{"kernel": "fused", "dim_class": "full", "bandwidth_bytes_per_ms": 5e8}],
                     "bwd_multiplier": null}})",
                             "hand.json");
  ASSERT_TRUE(p.is_ok()) << p.status().message();
  EXPECT_EQ(p->parameters.bandwidth(ComputeKernel::kFused, DimClass::kFull), 5e8);
  EXPECT_FALSE(p->parameters.overhead(ComputeKernel::kFused).has_value());
  EXPECT_FALSE(p->parameters.bwd_multiplier.has_value());
  EXPECT_FALSE(p->mape_after.has_value());
  EXPECT_TRUE(p->source_runs.empty());
}

// The dense model's GEMM terms (from a trace's matrix products): read per
// arithmetic, written back only where set, and checked like every number.
TEST(CalibrationJson, DenseGemmTermsByArithmetic) {
  const std::string head = R"({"format": "shardlab-calibration", "version": 1, "name": "gemms",
      "parameters": {"compute": [], "dense": )";
  auto p = parse_calibration(
      head +
          R"({"gemm_efficiency": {"tf32": 0.42, "fp32": 0.7}, "gemm_kernel_ms": {"tf32": 0.008}}}})",
      "g.json");
  ASSERT_TRUE(p.is_ok()) << p.status().message();
  const auto at = [](planner::Precision x) { return static_cast<size_t>(x); };
  EXPECT_EQ(p->parameters.gemm_efficiency[at(planner::Precision::kTf32)], 0.42);
  EXPECT_EQ(p->parameters.gemm_efficiency[at(planner::Precision::kFp32)], 0.7);
  EXPECT_FALSE(p->parameters.gemm_efficiency[at(planner::Precision::kBf16)].has_value());
  EXPECT_EQ(p->parameters.gemm_kernel_ms[at(planner::Precision::kTf32)], 0.008);
  EXPECT_FALSE(p->parameters.empty());
  const std::string text = calibration_to_json(*p, -1);
  EXPECT_NE(
      text.find(
          R"("dense":{"gemm_efficiency":{"fp32":0.7,"tf32":0.42},"gemm_kernel_ms":{"tf32":0.008}})"),
      std::string::npos)
      << text;
  EXPECT_EQ(calibration_to_json(sample(), -1).find("\"dense\":{"),
            std::string::npos);  // none fitted
  auto bad = parse_calibration(head + R"({"gemm_efficiency": {"tf32": 0}}}})", "g.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().message(),
            "g.json: parameters.dense.gemm_efficiency.tf32: must be a number in (0, 1]: got 0");
  bad = parse_calibration(head + R"({"gemm_efficiency": {"int8": 0.5}}}})", "g.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("parameters.dense.gemm_efficiency"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("int8"), std::string::npos) << bad.status().message();
  bad = parse_calibration(head + R"({"gemm": {}}}})", "g.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

// Replaces the first occurrence of `from` in the sample's compact JSON.
std::string sample_with(const std::string& from, const std::string& to) {
  std::string text = calibration_to_json(sample(), -1);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string error_of(const std::string& text) {
  auto p = parse_calibration(text, "bad.json");
  EXPECT_FALSE(p.is_ok()) << text;
  if (p.is_ok()) return "";
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  return p.status().message();
}

TEST(CalibrationJson, BadFieldsAreNamedWithFilePathAndValue) {
  const struct {
    std::string from, to, message;
  } cases[] = {
      {"\"format\":\"shardlab-calibration\"", "\"format\":\"scenario\"",
       "bad.json: format: not a calibration profile: got \"scenario\", expected "
       "\"shardlab-calibration\""},
      {"\"version\":1", "\"version\":2",
       "bad.json: version: unsupported profile version: got 2, expected 1"},
      {"\"name\":\"h100 \\\"lab\\\"\"", "\"name\":\"\"",
       "bad.json: name: must be a non-empty string: got \"\""},
      {"\"source_runs\":[3", "\"source_runs\":[0",
       "bad.json: source_runs[0]: must be an integer >= 1: got 0"},
      {"\"bandwidth_bytes_per_ms\":0.001", "\"bandwidth_bytes_per_ms\":-4",
       "bad.json: parameters.compute[0].bandwidth_bytes_per_ms: must be a number in [0.001, "
       "1e+15]: got -4"},
      {"\"kernel\":\"dense\"", "\"kernel\":\"sparse\"",
       "bad.json: parameters.compute[0].kernel: unknown compute kernel: got \"sparse\", expected "
       "one of dense, "
       "fused, fused_uvm, fused_uvm_caching, quant, quant_uvm, quant_uvm_caching"},
      // TorchRec 2026-08's key-value kernel has no replay to calibrate it from.
      {"\"kernel\":\"dense\"", "\"kernel\":\"key_value\"",
       "bad.json: parameters.compute[0].kernel: unknown compute kernel: got \"key_value\", "
       "expected one of dense, fused, fused_uvm, fused_uvm_caching, quant, quant_uvm, "
       "quant_uvm_caching"},
      {"\"dim_class\":\"half\"", "\"dim_class\":\"wide\"",
       "bad.json: parameters.compute[0].dim_class: unknown dim class: got \"wide\", expected one "
       "of narrow, half, "
       "full"},
      {"\"dim_class\":\"full\"", "\"dim_class\":\"narrow\"",
       "bad.json: parameters.compute[2].dim_class: a second entry for fused/narrow: got "
       "\"narrow\""},
      {"\"overhead_ms\":0.30000000000000004,\"bwd_multiplier\":9.25},{\"kernel\":\"fused_uvm\"",
       "\"overhead_ms\":0.5,\"bwd_multiplier\":9.25},{\"kernel\":\"fused_uvm\"",
       "bad.json: parameters.compute[2].overhead_ms: differs from an earlier fused entry's "
       "overhead_ms: got 0.5, "
       "expected 0.30000000000000004"},
      {"\"bwd_multiplier\":9.25},{\"kernel\":\"fused_uvm\"",
       "\"bwd_multiplier\":9.5},{\"kernel\":\"fused_uvm\"",
       "bad.json: parameters.compute[2].bwd_multiplier: differs from an earlier fused entry's "
       "bwd_multiplier: got 9.5, "
       "expected 9.25"},
      {"{\"kernel\":\"quant\",\"bwd_multiplier\":1.5}", "{\"kernel\":\"quant\"}",
       "bad.json: parameters.compute[4].overhead_ms: missing required key, expected ms >= 0, or "
       "bwd_multiplier, in an "
       "entry without dim_class"},
      {"\"bwd_multiplier\":0.6666666666666666", "\"bwd_multiplier\":-1",
       "bad.json: parameters.bwd_multiplier: must be a number in [0, 1000000]: got -1"},
      {"\"latency_ms\":0.07", "\"latency_ms\":\"fast\"",
       "bad.json: parameters.comm.inter_host.latency_ms: must be a number in [0, 1000000000]: got "
       "\"fast\""},
      {"\"intra_host\":{", "\"intra_host\":{\"jitter\":1,",
       "bad.json: parameters.comm.intra_host: unknown key: got \"jitter\", expected one of "
       "bandwidth_bytes_per_ms, "
       "latency_ms"},
      {"{\"kernel\":\"dense\",\"dim_class\":\"half\",", "{\"kernel\":\"dense\",",
       "bad.json: parameters.compute[0].dim_class: missing required key, expected narrow, half or "
       "full for the "
       "entry's bandwidth"},
      {"\"count\":120", "\"count\":-1",
       "bad.json: fit.count: must be an integer in [0, 2147483647]: got -1"},
      {"\"mape_after\":3.25", "\"mape_after\":true",
       "bad.json: fit.mape_after: must be a number >= 0: got true"},
      {"\"groups\":[{\"name\":\"fwd fused/narrow\"", "\"groups\":[{\"name\":7",
       "bad.json: fit.groups[0].name: must be a non-empty string: got 7"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(error_of(sample_with(c.from, c.to)), c.message) << c.from << " -> " << c.to;
  }
  EXPECT_EQ(error_of(R"({"format": "shardlab-calibration", "version": 1, "name": "x"})"),
            "bad.json: parameters: missing required key, expected an object with compute, "
            "bwd_multiplier and comm");
  EXPECT_EQ(
      error_of(
          R"({"format": "shardlab-calibration", "version": 1, "name": "x", "parameters": {}, "x": 1})"),
      "bad.json: <root>: unknown key: got \"x\", expected one of format, version, name, created, "
      "device, "
      "source_runs, parameters, fit");
  EXPECT_NE(error_of("{\"format\": ").find("bad.json: malformed JSON at line 1"),
            std::string::npos);
}

TEST(CalibrationJson, LoadsFilesAndNamesMissingOnes) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("shardlab_calibration_json_test_" + std::to_string(::getpid()) + ".json"))
          .string();
  std::ofstream(path) << calibration_to_json(sample());
  auto p = load_calibration_file(path);
  std::remove(path.c_str());
  ASSERT_TRUE(p.is_ok()) << p.status().message();
  expect_same(sample(), *p);

  auto missing = load_calibration_file(path);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message().rfind(path + ": cannot read calibration profile: ", 0), 0u)
      << missing.status().message();
}

TEST(CalibrationJson, ProfileOfAFit) {
  kernels::CalibrationFit fit;
  fit.calibration.bwd_multiplier = 3.0;
  fit.fit_count = 8;
  fit.held_out_count = 2;
  fit.mape_before = 50.0;
  fit.mape_after = 5.0;
  fit.groups.push_back({.name = "bwd fused/full", .fit_count = 8, .held_out = 2, .fitted = true});
  fit.notes = {"n"};
  const CalibrationProfile p = make_profile(fit, "n1", "t", "cpu", {4});
  EXPECT_EQ(p.parameters.bwd_multiplier, 3.0);
  EXPECT_EQ(p.fit_count, 8);
  EXPECT_EQ(p.held_out, 2);
  EXPECT_EQ(p.mape_after, 5.0);
  EXPECT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.source_runs, (std::vector<int64_t>{4}));
  EXPECT_EQ(p.notes, fit.notes);
}

}  // namespace
}  // namespace shardlab::data
