// The dense model against hand-computed answers: FLOPs and parameters of an
// MLP, DCN-v2 layers (full and low rank) and a dot interaction; GEMM times on
// every preset where the roofline is compute-bound and where it is
// memory-bound; DDP's buckets.
#include "shardlab/sim/dense_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "shardlab/data/gpu_presets.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/traffic_builder.h"

namespace shardlab::sim {
namespace {

using planner::DenseSpec;
using planner::InteractionKind;
using planner::Precision;

void expect_rel(double actual, double expected, double rel = 1e-12) {
  EXPECT_NEAR(actual, expected, rel * std::abs(expected)) << "expected " << expected;
}

double total_fwd_flops(const DenseArchitecture& a) {
  double f = 0.0;
  for (const DenseLayer& l : a.layers) f += l.fwd_flops();
  return f;
}

double total_bwd_flops(const DenseArchitecture& a) {
  double f = 0.0;
  for (const DenseLayer& l : a.layers) f += l.bwd_flops();
  return f;
}

const data::GpuPreset& preset(const std::string& name) {
  const Result<data::PresetCatalog>& c = data::builtin_gpu_presets();
  EXPECT_TRUE(c.is_ok()) << c.status().message();
  const data::GpuPreset* p = c->find(name);
  EXPECT_NE(p, nullptr) << name;
  return *p;
}

TEST(DenseModel, MlpFlopsAndParameters) {
  // 13 -> 512 -> 256 at batch 4, no interaction, no top MLP.
  DenseSpec spec;
  spec.dense_features = 13;
  spec.bottom_mlp = {512, 256};
  spec.interaction.kind = InteractionKind::kNone;
  auto a = dense_architecture(spec, {}, 4);
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  ASSERT_EQ(a->layers.size(), 2u);
  // (13·512 + 512) + (512·256 + 256)
  EXPECT_EQ(a->params, 7168 + 131328);
  EXPECT_EQ(dense_param_bytes(*a), 4 * (7168 + 131328));
  // Forward 2·B·K·N per layer: 2·4·13·512 + 2·4·512·256.
  expect_rel(total_fwd_flops(*a), 53248.0 + 1048576.0);
  // Backward: the first layer's input needs no gradient (wgrad only,
  // 2·512·13·4); the second has dgrad and wgrad (2 · 2·4·256·512).
  expect_rel(total_bwd_flops(*a), 53248.0 + 2.0 * 1048576.0);
  EXPECT_EQ(a->layers[0].bwd_gemms.size(), 1u);
  EXPECT_EQ(a->layers[1].bwd_gemms.size(), 2u);
}

TEST(DenseModel, DcnFullAndLowRank) {
  // Two pooled embeddings of width 4 and no dense part: x0 is 8 wide.
  DenseSpec spec;
  spec.interaction.kind = InteractionKind::kDcn;
  spec.interaction.layers = 1;
  auto full = dense_architecture(spec, {4, 4}, 2);
  ASSERT_TRUE(full.is_ok()) << full.status().message();
  EXPECT_EQ(full->interaction_width, 8);
  EXPECT_EQ(full->interaction_output, 8);
  EXPECT_EQ(full->params, 8 * 8 + 8);                         // W (8x8) and bias
  expect_rel(total_fwd_flops(*full), 2.0 * 2 * 8 * 8);        // GEMM (B=2, 8, 8)
  expect_rel(total_bwd_flops(*full), 2.0 * 2.0 * 2 * 8 * 8);  // dgrad and wgrad

  spec.interaction.low_rank = 2;
  auto low = dense_architecture(spec, {4, 4}, 2);
  ASSERT_TRUE(low.is_ok());
  EXPECT_EQ(low->params, 2 * 8 * 2 + 8);  // V (8x2), U (2x8), bias
  // GEMMs (B, r, W) and (B, W, r): 2·2·2·8 each.
  expect_rel(total_fwd_flops(*low), 64.0 + 64.0);
  expect_rel(total_bwd_flops(*low), 4 * 64.0);

  spec.interaction.layers = 3;
  auto three = dense_architecture(spec, {4, 4}, 2);
  ASSERT_TRUE(three.is_ok());
  EXPECT_EQ(three->params, 3 * (2 * 8 * 2 + 8));
}

// Embedding dims have no cap of their own (their byte products do), so the
// interaction's width is bounded where it is summed: no overflow, a message
// naming the field.
TEST(DenseModel, InteractionWiderThanAnMlpLayerIsRefused) {
  DenseSpec spec;
  spec.interaction.kind = InteractionKind::kCat;
  auto fits = dense_architecture(spec, {int64_t{1} << 23, int64_t{1} << 23}, 2);
  ASSERT_TRUE(fits.is_ok()) << fits.status().message();
  EXPECT_EQ(fits->interaction_width, int64_t{1} << 24);
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{int64_t{1} << 24, 1}, std::vector<int64_t>{INT64_MAX, INT64_MAX}}) {
    auto wide = dense_architecture(spec, dims, 2);
    ASSERT_FALSE(wide.is_ok());
    EXPECT_EQ(wide.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(wide.status().message().starts_with("workload.dense.interaction: "))
        << wide.status().message();
  }
}

TEST(DenseModel, DotInteraction) {
  // Bottom MLP 3 -> 4 and three features of width 4: n = 4 vectors.
  DenseSpec spec;
  spec.dense_features = 3;
  spec.bottom_mlp = {4};
  spec.interaction.kind = InteractionKind::kDot;
  auto a = dense_architecture(spec, {4, 4, 4}, 5);
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  EXPECT_EQ(a->interaction_vectors, 4);
  EXPECT_EQ(a->interaction_output, 4 + 6);  // dense vector and 4·3/2 pairs
  const DenseLayer& dot = a->layers[1];
  EXPECT_EQ(dot.params, 0);
  expect_rel(dot.fwd_flops(), 2.0 * 5 * 4 * 4 * 4);  // B · (n x D)·(D x n)
  expect_rel(dot.bwd_flops(), 2.0 * 2.0 * 5 * 4 * 4 * 4);

  spec.interaction.self_interaction = true;
  auto self = dense_architecture(spec, {4, 4, 4}, 5);
  ASSERT_TRUE(self.is_ok());
  EXPECT_EQ(self->interaction_output, 4 + 10);

  // A dot interaction needs equal widths.
  auto bad = dense_architecture(spec, {4, 8, 4}, 5);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("workload.dense.interaction.kind"), std::string::npos);
}

TEST(DenseModel, MlperfDcnV2ParametersMatchTheReferenceModel) {
  // MLPerf DLRM-DCNv2: 26 features of width 128, 13 dense features.
  DenseSpec spec;
  spec.dense_features = 13;
  spec.bottom_mlp = {512, 256, 128};
  spec.interaction.kind = InteractionKind::kDcn;
  spec.interaction.layers = 3;
  spec.interaction.low_rank = 512;
  spec.top_mlp = {1024, 1024, 512, 256, 1};
  auto a = dense_architecture(spec, std::vector<int64_t>(26, 128), 6912);
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->interaction_width, 3456);
  // bottom 171,392 + DCN 3 x 3,542,400 + top 5,245,953
  EXPECT_EQ(a->params, 16044545);
  EXPECT_EQ(dense_param_bytes(*a), 64178180);  // the reference model's module.dense_param_bytes
}

// 8192³ in bf16 on every preset: 4096 tiles of 128x128 in ceil(4096 / SMs)
// waves, far above the ridge; 8192 x 1 x 8192 (a GEMV): 64 tiles split in K,
// reading 2 bytes per matrix element at the preset's streaming fraction.
TEST(DenseModel, GemmRooflineOnEveryPreset) {
  struct Case {
    std::string preset;
    double compute_ms;
    double memory_ms;
  };
  // Computed by hand from each preset's peak, MAMF efficiency, SM count,
  // HBM bandwidth and streaming fraction (docs/presets.md):
  //   compute: 2·8192³ / (peak · eff · 4096 / (ceil(4096 / SMs) · SMs))
  //   memory:  (8192² + 2·8192) · 2 / (HBM · hbm_efficiency)
  const Case cases[] = {
      {"a100-sxm4-40gb", 4.063243602372312, 0.10791840514469453},
      {"a100-sxm4-80gb", 4.063243602372312, 0.08230167729279059},
      {"h100-sxm", 1.4271720664246492, 0.05009346865671642},
      {"h100-pcie", 1.8147211044298168, 0.08236226748466258},
      {"h200-sxm", 1.4271720664246492, 0.034961066666666665},
      {"b200", 0.6371114144696449, 0.02097664},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.preset);
    const data::GpuPreset& p = preset(c.preset);
    const Gemm square{.m = 8192, .n = 8192, .k = 8192};
    const Gemm gemv{.m = 8192, .n = 1, .k = 8192};
    expect_rel(gemm_time_ms(p.spec, p.hbm_mem_bw, Precision::kBf16, square), c.compute_ms, 1e-9);
    expect_rel(gemm_time_ms(p.spec, p.hbm_mem_bw, Precision::kBf16, gemv), c.memory_ms, 1e-9);
    // The first is bound by the FLOP rate, the second by bytes.
    EXPECT_GT(square.flops() / gemm_flop_rate(p.spec, Precision::kBf16, square),
              (3.0 * 8192 * 8192 * 2) / (p.hbm_mem_bw * p.spec.hbm_efficiency));
    EXPECT_LT(gemv.flops() / gemm_flop_rate(p.spec, Precision::kBf16, gemv), c.memory_ms);
  }
}

// A calibration's GEMM terms (kernels::fit_gemm_efficiency) replace the
// preset's in the simulated dense layers: a kernel time adds itself to every
// forward GEMM, a lower efficiency slows them; the planner's rating is
// untouched.
TEST(DenseModel, ACalibrationsGemmTermsReachTheSimulatedDenseLayers) {
  Result<planner::Scenario> scenario =
      data::load_scenario_file(SHARDLAB_SOURCE_DIR "/data/scenarios/dlrm_dcnv2_criteo_1tb.json");
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  const planner::PlannerResult planned = planner::plan(*scenario);
  ASSERT_TRUE(planned.ok());
  const auto fwd_ms = [&](const planner::CostCalibration* c) {
    Result<TrafficBuilder> b = TrafficBuilder::create(*scenario, c);
    EXPECT_TRUE(b.is_ok());
    Result<IterationTraffic> t = b->build(*planned.search_space, *planned.best);
    EXPECT_TRUE(t.is_ok()) << t.status().message();
    return t->ranks[0].dense_fwd_ms;
  };
  const double preset_ms = fwd_ms(nullptr);
  Result<DenseArchitecture> arch =
      dense_architecture(*scenario->workload.dense, feature_dims(*scenario), scenario->batch_size);
  ASSERT_TRUE(arch.is_ok());
  size_t gemms = 0;
  for (const DenseLayer& l : arch->layers) gemms += l.fwd_gemms.size();
  ASSERT_GT(gemms, 0u);
  const auto bf16 = static_cast<size_t>(Precision::kBf16);
  planner::CostCalibration c;
  c.gemm_kernel_ms[bf16] = 0.01;
  expect_rel(fwd_ms(&c), preset_ms + 0.01 * static_cast<double>(gemms), 1e-9);
  c.gemm_kernel_ms[bf16].reset();
  c.gemm_efficiency[bf16] = scenario->gpu->gemm.max_efficiency[bf16] / 2;
  EXPECT_GT(fwd_ms(&c), preset_ms * 1.2);
  // Another arithmetic's terms leave this bf16 model alone.
  planner::CostCalibration other;
  other.gemm_efficiency[static_cast<size_t>(Precision::kTf32)] = 0.1;
  EXPECT_EQ(fwd_ms(&other), preset_ms);
}

TEST(DenseModel, DdpBucketsInReverseOrderWithTheFirstCappedSmall) {
  // 4 -> 1024 -> 1024 -> 1: gradients ready top layer first.
  DenseSpec spec;
  spec.dense_features = 4;
  spec.bottom_mlp = {1024, 1024, 1};
  spec.interaction.kind = InteractionKind::kNone;
  auto a = dense_architecture(spec, {}, 8);
  ASSERT_TRUE(a.is_ok());
  // Equal backward time per layer: layer 2 ends at 1/3, layer 1 at 2/3, layer 0 at 1.
  const std::vector<double> bwd = {1.0, 1.0, 1.0};
  // Caps: the first bucket 1 byte (closes after its first tensor), then 4 MiB.
  const std::vector<GradientBucket> b = gradient_buckets(*a, bwd, 4, 1, int64_t{4} << 20);
  // Tensors in order: l2 bias (1), l2 weight (1024), l1 bias (1024),
  // l1 weight (1024²: 4 MiB, closes its bucket), l0 bias, l0 weight.
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].params, 1);
  expect_rel(b[0].ready_fraction, 1.0 / 3.0);
  EXPECT_EQ(b[1].params, 1024 + 1024 + 1024 * 1024);
  expect_rel(b[1].ready_fraction, 2.0 / 3.0);
  expect_rel(b[1].bytes, 4.0 * (1024 + 1024 + 1024 * 1024));
  EXPECT_EQ(b[2].params, 1024 + 4 * 1024);  // l0: bias and weight, the last bucket
  expect_rel(b[2].ready_fraction, 1.0);
}

}  // namespace
}  // namespace shardlab::sim
