// GPU presets (docs/presets.md): the built-in file, the reader's refusals, and
// what `topology.gpu` does to a scenario: fill only the fields left out,
// derive the backward multiplier from the optimizer, bring the default
// calibration profile; and `workload.dense` with its checks.
#include "shardlab/data/gpu_presets.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "loader_test_helpers.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::data {
namespace {

using testing::error_of;
using testing::load_ok;

constexpr double kGBps = 1e9 / 1e3;  // GB/s in bytes/ms

const PresetCatalog& catalog() {
  const Result<PresetCatalog>& c = builtin_gpu_presets();
  EXPECT_TRUE(c.is_ok()) << c.status().message();
  return *c;
}

TEST(GpuPresets, BuiltInFileHasEveryPresetWithSourcedNumbers) {
  const PresetCatalog& c = catalog();
  for (const char* name :
       {"a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm", "h100-pcie", "h200-sxm", "b200"}) {
    const GpuPreset* g = c.find(name);
    ASSERT_NE(g, nullptr) << name;
    EXPECT_FALSE(g->values.empty());
    for (const PresetValue& v : g->values) {
      const PresetSource* s = c.source(v.source);
      ASSERT_NE(s, nullptr) << name << " " << v.field;
      EXPECT_FALSE(s->url.empty());
    }
  }
  const GpuPreset& h100 = *c.find("h100-sxm");
  EXPECT_EQ(h100.hbm_cap, int64_t{81559} << 20);  // driver-reported, not the data sheet's 80 GB
  EXPECT_DOUBLE_EQ(h100.hbm_mem_bw, 3.35e12 / 1e3);
  EXPECT_DOUBLE_EQ(h100.intra_host_bw, 450 * kGBps);
  EXPECT_DOUBLE_EQ(h100.inter_host_bw, 50 * kGBps);
  EXPECT_DOUBLE_EQ(h100.spec.peak_flops[static_cast<size_t>(planner::Precision::kBf16)],
                   989.4e12 / 1e3);
  EXPECT_TRUE(h100.spec.nvls);
  EXPECT_EQ(h100.spec.gemm.sm_count, 132);
  // NCCL 2.30's ring LL latencies in ms.
  const planner::CollLatency& ll = h100.spec.collectives.latency[0][0];
  EXPECT_DOUBLE_EQ(ll.base_ms, 0.0066);
  EXPECT_DOUBLE_EQ(ll.intra_step_ms, 0.0006);
  // The A100 has no fp8 and no NVLS; the PCIe H100 has no LL128 (not an NVLink path).
  EXPECT_EQ(
      c.find("a100-sxm4-80gb")->spec.peak_flops[static_cast<size_t>(planner::Precision::kFp8)],
      0.0);
  EXPECT_FALSE(c.find("a100-sxm4-80gb")->spec.nvls);
  EXPECT_EQ(c.find("h100-pcie")->spec.collectives.protocol_factor[0][1], 0.0);
  EXPECT_DOUBLE_EQ(c.find("h100-pcie")->spec.collectives.latency[0][2].intra_step_ms, 0.0057);
}

// A minimal presets document with one GPU; `gpu_extra` is spliced into it.
std::string presets_text(std::string_view gpu_extra = "", std::string_view source = "s") {
  std::string t = R"({"format": "shardlab-gpu-presets", "version": 1,
    "sources": {"s": {"title": "T", "url": "https://example.org"}},
    "nccl": {"latency_us": {"base": {"ring": [1, 2, 3], "tree": [1, 2, 3], "nvls": [0, 0, 0], "collnet": [0, 0, 0], "nvls_tree": [0, 0, 0]},
                            "nvlink_step": {"ring": [1, 2, 3], "tree": [1, 2, 3], "nvls": [0, 0, 1], "collnet": [0, 0, 1], "nvls_tree": [0, 0, 1]},
                            "pci_step": {"ring": [1, 2, 3], "tree": [1, 2, 3], "nvls": [0, 0, 0], "collnet": [0, 0, 0], "nvls_tree": [0, 0, 0]},
                            "network_step": {"ring": [1, 2, 3], "tree": [1, 2, 3], "nvls": [0, 0, 1], "collnet": [0, 0, 1], "nvls_tree": [0, 0, 1]},
                            "source": "s"},
             "protocol_factor": {"ring": [0.5, 0.9, 1], "tree": [0.5, 0.9, 1], "nvls": [0, 0, 1], "collnet": [0, 0, 1], "nvls_tree": [0, 0, 1], "source": "s"},
             "p2p_ll_threshold_bytes": {"value": 16384, "source": "s"}},
    "gpus": [{"name": "g", "description": "G",
      "hbm_cap": {"value": "8 GB", "source": "s"}, "hbm_mem_bw": {"value": "1 TB/s", "source": "s"},
      "intra_host_bw": {"value": "100 GB/s", "source": "s"}, "intra_host_link": {"value": "nvlink", "source": "s"},
      "inter_host_bw": {"value": "10 GB/s", "source": "s"}, "host_link_bw": {"value": "10 GB/s", "source": "s"},
      "peak_tflops": {"fp32": {"value": 10, "source": "s"}},
      "sm_count": {"value": 10, "source": ")";
  t += source;
  t += R"("}, "gemm_efficiency": {"fp32": {"value": 0.9, "source": "s"}},
      "gemm_tile": {"value": [128, 128], "source": "s"}, "hbm_efficiency": {"value": 0.8, "source": "s"},
      "embedding_efficiency": {"value": 0.8, "source": "s"}, "nvls": {"value": false, "source": "s"},
      "collectives": {"all_reduce_fraction": {"value": 0.8, "source": "s"}, "ring_fraction": {"value": 0.8, "source": "s"},
                      "p2p_fraction": {"value": 0.8, "source": "s"}, "network_fraction": {"value": 0.9, "source": "s"},
                      "nvls_fraction": {"value": 0, "source": "s"}, "ll_max_bw": {"value": "50 GB/s", "source": "s"}})";
  t += gpu_extra;
  t += "}]}";
  return t;
}

// presets --json gives the parsed numbers in base units beside the values as
// written, for scripts.
TEST(GpuPresets, JsonCarriesTheNumbersInBaseUnits) {
  const PresetCatalog& c = *builtin_gpu_presets();
  const nlohmann::json all = nlohmann::json::parse(presets_to_json(c));
  ASSERT_EQ(all["gpus"].size(), c.gpus.size());
  const nlohmann::json h100 = nlohmann::json::parse(presets_to_json(c, c.find("h100-sxm")));
  ASSERT_EQ(h100["gpus"].size(), 1u);
  const nlohmann::json& n = h100["gpus"][0]["numbers"];
  EXPECT_EQ(n["hbm_cap_bytes"].get<int64_t>(), int64_t{81559} << 20);
  EXPECT_DOUBLE_EQ(n["hbm_mem_bw_bytes_per_s"].get<double>(), 3.35e12);
  EXPECT_DOUBLE_EQ(n["intra_host_bw_bytes_per_s"].get<double>(), 450e9);
  EXPECT_DOUBLE_EQ(n["peak_flop_per_s"]["bf16"].get<double>(), 989.4e12);
  EXPECT_DOUBLE_EQ(n["peak_flop_per_s"]["fp8"].get<double>(), 1978.9e12);
  EXPECT_EQ(n["sm_count"], 132);
  // A precision the GPU lacks is absent, not 0.
  const nlohmann::json a100 = nlohmann::json::parse(presets_to_json(c, c.find("a100-sxm4-80gb")));
  EXPECT_FALSE(a100["gpus"][0]["numbers"]["peak_flop_per_s"].contains("fp8"));
}

// The presets document with `systems` (a JSON list) added.
std::string with_systems(std::string_view systems) {
  std::string t = presets_text();
  t.insert(t.rfind('}'), std::string(R"(, "systems": )") + std::string(systems));
  return t;
}

std::string system_entry(std::string_view gpu, int gpus, int per_host, int domain) {
  const auto sourced = [](const std::string& v) {
    return R"({"value": )" + v + R"(, "source": "s"})";
  };
  return R"({"name": "box", "description": "a box", "gpu": )" +
         sourced("\"" + std::string(gpu) + "\"") + R"(, "gpus": )" + sourced(std::to_string(gpus)) +
         R"(, "gpus_per_host": )" + sourced(std::to_string(per_host)) + R"(, "nics_per_host": )" +
         sourced("2") + R"(, "nic_bw": )" + sourced("\"50 GB/s\"") + R"(, "nvlink_domain_size": )" +
         sourced(std::to_string(domain)) + R"(, "sharp": )" + sourced("false") + "}";
}

TEST(GpuPresets, SystemsNameAGpuAndWholeHosts) {
  const std::string gpu = "g";  // the document's GPU
  auto ok = parse_gpu_presets(with_systems("[" + system_entry(gpu, 8, 4, 8) + "]"), "p.json");
  ASSERT_TRUE(ok.is_ok()) << ok.status().message();
  ASSERT_NE(ok->find_system("box"), nullptr);
  EXPECT_EQ(ok->find_system("box")->nvlink_domain_size, 8);
  EXPECT_DOUBLE_EQ(ok->find_system("box")->nic_bw, 50e9 / 1e3);
  EXPECT_EQ(ok->system_names(), "box");

  auto unknown_gpu =
      parse_gpu_presets(with_systems("[" + system_entry("z100", 8, 4, 8) + "]"), "p.json");
  ASSERT_FALSE(unknown_gpu.is_ok());
  EXPECT_NE(unknown_gpu.status().message().find(
                "p.json: systems[0].gpu.value: not a GPU preset of this file: got \"z100\""),
            std::string::npos)
      << unknown_gpu.status().message();
  auto uneven = parse_gpu_presets(with_systems("[" + system_entry(gpu, 8, 3, 6) + "]"), "p.json");
  ASSERT_FALSE(uneven.is_ok());
  EXPECT_NE(uneven.status().message().find("systems[0].gpus_per_host.value: must divide gpus (8)"),
            std::string::npos)
      << uneven.status().message();
  auto domain = parse_gpu_presets(with_systems("[" + system_entry(gpu, 8, 4, 6) + "]"), "p.json");
  ASSERT_FALSE(domain.is_ok());
  EXPECT_NE(
      domain.status().message().find("systems[0].nvlink_domain_size.value: must be whole hosts"),
      std::string::npos)
      << domain.status().message();
  auto twice = parse_gpu_presets(
      with_systems("[" + system_entry(gpu, 8, 4, 8) + ", " + system_entry(gpu, 8, 4, 8) + "]"),
      "p.json");
  ASSERT_FALSE(twice.is_ok());
  EXPECT_NE(twice.status().message().find("systems[1].name: duplicate preset name"),
            std::string::npos);
}

TEST(GpuPresets, BuiltinSystemsUseBuiltinGpus) {
  const PresetCatalog& c = *builtin_gpu_presets();
  ASSERT_NE(c.find_system("dgx-h100"), nullptr);
  for (const SystemPreset& s : c.systems) {
    EXPECT_NE(c.find(s.gpu), nullptr) << s.name;
    EXPECT_EQ(s.gpus % s.gpus_per_host, 0) << s.name;
    EXPECT_GT(s.nic_bw, 0.0) << s.name;
  }
}

TEST(GpuPresets, ReaderRefusesWithThePath) {
  auto ok = parse_gpu_presets(presets_text(), "p.json");
  ASSERT_TRUE(ok.is_ok()) << ok.status().message();
  EXPECT_EQ(ok->gpus.at(0).spec.gemm.sm_count, 10);

  auto unlisted = parse_gpu_presets(presets_text("", "nowhere"), "p.json");
  ASSERT_FALSE(unlisted.is_ok());
  EXPECT_EQ(unlisted.status().message(),
            "p.json: gpus[0].sm_count.source: not a source listed in \"sources\": got \"nowhere\"");

  auto unknown =
      parse_gpu_presets(presets_text(R"(, "tdp": {"value": 700, "source": "s"})"), "p.json");
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.status().message().find("p.json: gpus[0]: unknown key: got \"tdp\""),
            std::string::npos)
      << unknown.status().message();

  std::string bad_fraction = presets_text();
  bad_fraction.replace(bad_fraction.find("\"value\": 0.9, \"source\": \"s\"}},"), 12,
                       "\"value\": 1.5");
  auto fraction = parse_gpu_presets(bad_fraction, "p.json");
  ASSERT_FALSE(fraction.is_ok());
  EXPECT_NE(fraction.status().message().find("gpus[0].gemm_efficiency.fp32.value"),
            std::string::npos)
      << fraction.status().message();
}

// One fp32 table of width 128 looked up once per sample, on 2 ranks.
std::string scenario(std::string_view topology_extra, std::string_view rest = "") {
  std::string s = R"({"topology": {"world_size": 2)";
  s += topology_extra;
  s +=
      R"(}, "tables": [{"name": "t", "num_embeddings": 1000, "embedding_dim": 128, "feature_names": ["f"]}])";
  s += rest;
  s += "}";
  return s;
}

TEST(GpuPresets, FillsOnlyWhatTheFileLeavesOut) {
  const planner::Scenario plain = load_ok(scenario(""));
  EXPECT_FALSE(plain.gpu);
  EXPECT_FALSE(plain.preset_calibration);
  EXPECT_EQ(plain.topology.hbm_mem_bw, planner::kDefaultHbmMemBw);

  const planner::Scenario h100 = load_ok(scenario(R"(, "gpu": "h100-sxm", "hbm_cap": "40 GiB")"));
  ASSERT_TRUE(h100.gpu);
  EXPECT_EQ(h100.gpu->name, "h100-sxm");
  EXPECT_EQ(h100.topology.hbm_cap, int64_t{40} << 30);  // explicit wins
  EXPECT_FALSE(h100.preset_fills.hbm_cap);
  EXPECT_DOUBLE_EQ(h100.topology.hbm_mem_bw, 3.35e9);
  EXPECT_DOUBLE_EQ(h100.topology.intra_host_bw, 450 * kGBps);
  EXPECT_DOUBLE_EQ(h100.topology.inter_host_bw, 50 * kGBps);
  EXPECT_DOUBLE_EQ(h100.topology.ddr_mem_bw, 64 * kGBps);         // the PCIe Gen5 link
  EXPECT_DOUBLE_EQ(h100.topology.hbm_to_ddr_mem_bw, 64 * kGBps);  // UVM in the 2026-08 model
  EXPECT_FALSE(h100.topology.ddr_cap);                            // TorchRec's default stays
  EXPECT_TRUE(h100.preset_fills.hbm_mem_bw);
  // The default calibration profile: fused/full lookups at 0.8 of 3.35 TB/s.
  ASSERT_TRUE(h100.preset_calibration);
  EXPECT_DOUBLE_EQ(
      *h100.preset_calibration->bandwidth(planner::ComputeKernel::kFused, planner::DimClass::kFull),
      0.8 * 3.35e9);
  EXPECT_DOUBLE_EQ(*h100.preset_calibration->bandwidth(planner::ComputeKernel::kFused,
                                                       planner::DimClass::kNarrow),
                   0.8 * 3.35e9);

  EXPECT_ERROR_CONTAINS(
      scenario(R"(, "gpu": "h1000")"),
      "topology.gpu: unknown GPU preset: got \"h1000\", expected one of a100-sxm4-40gb, "
      "a100-sxm4-80gb, h100-sxm, h100-pcie, h200-sxm, b200");
}

TEST(GpuPresets, BackwardMultiplierFollowsTheOptimizersBytes) {
  // Per id of a 1000-row, 128-wide fp32 table (512-byte rows), one id per bag:
  //   forward  8 + 512 + 512 = 1032
  //   backward 2 radix passes (log2 1000 < 16) x 2 x 12 + 512 + 2·512·(1 + μ)
  //          = 560 + 1024·(1 + μ)
  const auto multiplier = [](std::string_view optimizer) {
    return load_ok(scenario(R"(, "gpu": "a100-sxm4-80gb")",
                            std::string(R"(, "sharder": {"optimizer": ")") +
                                std::string(optimizer) + "\"}"))
        .topology.bwd_compute_multiplier;
  };
  EXPECT_DOUBLE_EQ(multiplier("sgd"), 1584.0 / 1032.0);
  EXPECT_DOUBLE_EQ(multiplier("rowwise_adagrad"), (560.0 + 1024.0 * (1.0 + 1.0 / 128)) / 1032.0);
  EXPECT_DOUBLE_EQ(multiplier("adagrad"), 2608.0 / 1032.0);
  EXPECT_DOUBLE_EQ(multiplier("adam"), 3632.0 / 1032.0);
  // An explicit multiplier wins.
  EXPECT_EQ(load_ok(scenario(R"(, "gpu": "h100-sxm", "bwd_compute_multiplier": 2.5)"))
                .topology.bwd_compute_multiplier,
            2.5);
}

TEST(GpuPresets, WrittenScenarioKeepsPresetFieldsImplicit) {
  const planner::Scenario s = load_ok(scenario(R"(, "gpu": "b200", "inter_host_bw": "25 GB/s")"));
  const std::string text = scenario_to_json(s);
  EXPECT_NE(text.find("\"gpu\": \"b200\""), std::string::npos);
  EXPECT_EQ(text.find("hbm_mem_bw"), std::string::npos);
  EXPECT_NE(text.find("inter_host_bw"), std::string::npos);
  const planner::Scenario again = load_ok(text);
  EXPECT_EQ(again.topology.hbm_mem_bw, s.topology.hbm_mem_bw);
  EXPECT_EQ(again.topology.inter_host_bw, s.topology.inter_host_bw);
  EXPECT_EQ(again.topology.bwd_compute_multiplier, s.topology.bwd_compute_multiplier);
}

constexpr std::string_view kDense =
    R"(, "workload": {"dense": {"dense_features": 13, "bottom_mlp": [512, 128],
    "interaction": {"kind": "dcn", "layers": 2, "low_rank": 64}, "top_mlp": [256, 1], "precision": "bf16"}})";

TEST(DenseWorkload, ReadsTheModelAndDerivesItsParameterBytes) {
  const planner::Scenario s = load_ok(scenario(R"(, "gpu": "h100-sxm")", kDense));
  ASSERT_TRUE(s.workload.dense);
  const planner::DenseSpec& d = *s.workload.dense;
  EXPECT_EQ(d.bottom_mlp, (std::vector<int64_t>{512, 128}));
  EXPECT_EQ(d.interaction.kind, planner::InteractionKind::kDcn);
  EXPECT_EQ(d.interaction.low_rank, 64);
  EXPECT_EQ(d.precision, planner::Precision::kBf16);
  // bottom 13·512+512 + 512·128+128, dcn on 128+128: 2 x (2·256·64 + 256),
  // top 256·256+256 + 256+1; four bytes each.
  const int64_t params = (7168 + 65664) + 2 * (32768 + 256) + (65792 + 257);
  EXPECT_EQ(s.module.dense_param_bytes, 4 * params);
  EXPECT_TRUE(s.module.dense_param_bytes_derived);
  // An explicit value stays.
  const planner::Scenario given = load_ok(
      scenario(R"(, "gpu": "h100-sxm")",
               std::string(R"(, "module": {"dense_param_bytes": 1000})") + std::string(kDense)));
  EXPECT_EQ(given.module.dense_param_bytes, 1000);
  // Without a dense model nothing is derived.
  EXPECT_EQ(load_ok(scenario("")).module.dense_param_bytes, 0);
}

TEST(DenseWorkload, Refusals) {
  // Times need a GPU preset, or both overrides.
  EXPECT_ERROR_CONTAINS(scenario("", kDense),
                        "s.json: workload.dense: timing the dense model needs a GPU preset");
  EXPECT_NE(
      load_ok(
          scenario(
              "",
              R"(, "workload": {"dense_fwd_ms": 1, "dense_bwd_ms": 2, "dense": {"interaction": {"kind": "cat"}, "top_mlp": [1]}})"))
          .workload.dense,
      std::nullopt);
  EXPECT_ERROR_CONTAINS(
      scenario(R"(, "gpu": "a100-sxm4-80gb")",
               R"(, "workload": {"dense": {"interaction": {"kind": "cat"}, "precision": "fp8"}})"),
      "s.json: workload.dense.precision: the GPU preset a100-sxm4-80gb has no such arithmetic");
  EXPECT_ERROR_CONTAINS(
      scenario(R"(, "gpu": "h100-sxm")",
               R"(, "workload": {"dense": {"interaction": {"kind": "dot", "layers": 2}}})"),
      "s.json: workload.dense.interaction.layers: only a dcn interaction takes it");
  EXPECT_ERROR_CONTAINS(scenario(R"(, "gpu": "h100-sxm")",
                                 R"(, "workload": {"dense": {"interaction": {"kind": "dcn"}}})"),
                        "s.json: workload.dense.interaction.layers: missing required key");
  EXPECT_ERROR_CONTAINS(
      scenario(R"(, "gpu": "h100-sxm")",
               R"(, "workload": {"dense": {"dense_features": 4, "bottom_mlp": [64],
                                       "interaction": {"kind": "dot"}}})"),
      "workload.dense.interaction.kind: a dot interaction needs every pooled embedding as wide as "
      "the bottom MLP's output (64)");
  EXPECT_ERROR_CONTAINS(
      scenario(R"(, "gpu": "h100-sxm")", R"(, "workload": {"ddp_bucket_cap": 0})"),
      "s.json: workload.ddp_bucket_cap: must be at least 1 byte");
}

// A CUDA device name as a profiler trace writes it names its preset.
TEST(GpuPresets, DeviceNamesFindTheirPreset) {
  const Result<PresetCatalog>& c = builtin_gpu_presets();
  ASSERT_TRUE(c.is_ok());
  ASSERT_NE(c->find_device("NVIDIA A100-SXM4-80GB"), nullptr);
  EXPECT_EQ(c->find_device("NVIDIA A100-SXM4-80GB")->name, "a100-sxm4-80gb");
  ASSERT_NE(c->find_device("Tesla V100-SXM2-16GB"), nullptr);
  EXPECT_EQ(c->find_device("Tesla V100-SXM2-16GB")->name, "v100-sxm2-16gb");
  EXPECT_EQ(c->find_device("NVIDIA A100-PG509-200"), nullptr);
  EXPECT_EQ(c->find_device("NVIDIA H100 80GB HBM3"), nullptr);
  EXPECT_EQ(c->find_device(""), nullptr);
}

// The preset a GEMM fit uses: the one named, else the scenario's, else the
// device's; none, with the reason; a name no preset has is an error.
TEST(GpuPresets, TheGemmFitPresetAndWhyNone) {
  const Result<PresetCatalog>& c = builtin_gpu_presets();
  ASSERT_TRUE(c.is_ok());
  std::string why;
  Result<const GpuPreset*> p = c->gemm_fit_preset("h100-sxm", "a100-sxm4-80gb", "x", &why);
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ((*p)->name, "h100-sxm");
  p = c->gemm_fit_preset("", "a100-sxm4-80gb", "Tesla V100-SXM2-16GB", &why);
  EXPECT_EQ((*p)->name, "a100-sxm4-80gb");
  p = c->gemm_fit_preset("", "", "Tesla V100-SXM2-16GB", &why);
  EXPECT_EQ((*p)->name, "v100-sxm2-16gb");
  p = c->gemm_fit_preset("", "", "NVIDIA A100-PG509-200", &why);
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ(*p, nullptr);
  EXPECT_EQ(why, "no GPU preset is named \"NVIDIA A100-PG509-200\"");
  p = c->gemm_fit_preset("", "", "", &why);
  EXPECT_EQ(*p, nullptr);
  EXPECT_EQ(why, "the traces name no GPU");
  p = c->gemm_fit_preset("nope", "", "", &why);
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("no GPU preset named \"nope\"; presets: a100"),
            std::string::npos);
}

}  // namespace
}  // namespace shardlab::data
