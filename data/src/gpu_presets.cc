// The GPU presets document (docs/presets.md "The presets file"): a validating
// reader in the scenario loader's style, the built-in catalog, and the default
// calibration profile of a preset.
#include "shardlab/data/gpu_presets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "gpu_presets_text.h"
#include "json_document.h"
#include "json_input.h"
#include "json_reader.h"
#include "json_writer.h"
#include "message_text.h"
#include "read_document.h"
#include "sourced_reader.h"
#include "system_presets.h"

namespace shardlab::data {
namespace {

using internal::BandwidthValue;
using internal::BoolValue;
using internal::IntValue;
using internal::invalid_at;
using internal::Json;
using internal::JsonPath;
using internal::NumberValue;
using internal::ObjectReader;
using internal::SizeValue;
using internal::SourcedReader;
using internal::StringValue;
using planner::CollAlgorithm;
using planner::CollProtocol;
using planner::Precision;

constexpr std::string_view kFormat = "shardlab-gpu-presets";
constexpr double kFlopsPerTflop = 1e12 / 1e3;  // TFLOP/s -> FLOP/ms
constexpr double kMsPerUs = 1e-3;

const NumberValue kFraction{.min = 0.0, .max = 1.0};
const NumberValue kPositive{.min = 0.0, .min_exclusive = true};
const NumberValue kNonNegative{.min = 0.0};

Status read_sources(const ObjectReader& root, PresetCatalog& c) {
  const Json* sources = root.find("sources");
  if (sources == nullptr) return root.missing("sources", "an object of sources by id");
  ObjectReader obj(*sources, root.path_of("sources"));
  if (!sources->is_object())
    return invalid_at(obj.path(), "must be an object of sources by id", sources);
  for (const auto& [id, value] : sources->items()) {
    ObjectReader entry(value, obj.path_of(id));
    SHARDLAB_RETURN_IF_ERROR(entry.check("a source object", {"title", "url"}));
    PresetSource s;
    s.id = id;
    SHARDLAB_RETURN_IF_ERROR(
        entry.require("title", s.title, StringValue{.non_empty = true}, "a title"));
    SHARDLAB_RETURN_IF_ERROR(entry.require("url", s.url, StringValue{.non_empty = true}, "a URL"));
    c.sources.push_back(std::move(s));
  }
  return Status::ok();
}

// Three numbers per algorithm: [LL, LL128, Simple].
using PerProtocol =
    std::array<std::array<double, planner::kNumCollProtocols>, planner::kNumCollAlgorithms>;

Status read_per_protocol(const ObjectReader& parent, std::string_view key,
                         const NumberValue& element, PerProtocol& out) {
  const Json* v = parent.find(key);
  if (v == nullptr)
    return parent.missing(key,
                          "an object {\"ring\", \"tree\", \"nvls\", \"collnet\", \"nvls_tree\"} of "
                          "[LL, LL128, Simple]");
  ObjectReader obj(*v, parent.path_of(key));
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("an object of [LL, LL128, Simple] per algorithm",
                {"ring", "tree", "nvls", "collnet", "nvls_tree", "source", "note"}));
  for (int i = 0; i < planner::kNumCollAlgorithms; ++i) {
    const auto a = static_cast<CollAlgorithm>(i);
    const std::string_view name = planner::to_string(a);
    const Json* list = obj.find(name);
    if (list == nullptr) return obj.missing(name, "[LL, LL128, Simple]");
    if (!list->is_array() || list->size() != planner::kNumCollProtocols) {
      return invalid_at(obj.path_of(name), "must be a list of 3 numbers", list,
                        "[LL, LL128, Simple]");
    }
    for (int p = 0; p < planner::kNumCollProtocols; ++p) {
      auto x =
          element((*list)[static_cast<size_t>(p)], obj.path_of(name).at(static_cast<size_t>(p)));
      if (!x) return x.status();
      out[static_cast<size_t>(a)][static_cast<size_t>(p)] = *x;
    }
  }
  return Status::ok();
}

// The shared NCCL constants, and the per-link rows of step latencies.
struct NcclConstants {
  PerProtocol base_us{};
  PerProtocol nvlink_step_us{};
  PerProtocol pci_step_us{};
  PerProtocol network_step_us{};
  PerProtocol protocol_factor{};
  double p2p_ll_threshold = 0.0;
};

Status check_group_source(const ObjectReader& group, const PresetCatalog& c) {
  std::string source;
  SHARDLAB_RETURN_IF_ERROR(
      group.require("source", source, StringValue{.non_empty = true}, "a source id"));
  if (c.source(source) == nullptr) {
    return invalid_at(group.path_of("source"), "not a source listed in \"sources\"",
                      group.find("source"));
  }
  return Status::ok();
}

Status read_nccl(const ObjectReader& root, PresetCatalog& c, std::vector<PresetValue>& values,
                 NcclConstants& n) {
  const Json* v = root.find("nccl");
  if (v == nullptr) return root.missing("nccl", "the NCCL constants");
  ObjectReader obj(*v, root.path_of("nccl"));
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("the NCCL constants", {"latency_us", "protocol_factor", "p2p_ll_threshold_bytes"}));
  const Json* lat = obj.find("latency_us");
  if (lat == nullptr) return obj.missing("latency_us", "base and step latencies");
  ObjectReader latency(*lat, obj.path_of("latency_us"));
  SHARDLAB_RETURN_IF_ERROR(latency.check(
      "the NCCL latencies", {"base", "nvlink_step", "pci_step", "network_step", "source", "note"}));
  SHARDLAB_RETURN_IF_ERROR(check_group_source(latency, c));
  SHARDLAB_RETURN_IF_ERROR(read_per_protocol(latency, "base", kNonNegative, n.base_us));
  SHARDLAB_RETURN_IF_ERROR(
      read_per_protocol(latency, "nvlink_step", kNonNegative, n.nvlink_step_us));
  SHARDLAB_RETURN_IF_ERROR(read_per_protocol(latency, "pci_step", kNonNegative, n.pci_step_us));
  SHARDLAB_RETURN_IF_ERROR(
      read_per_protocol(latency, "network_step", kNonNegative, n.network_step_us));
  const Json* f = obj.find("protocol_factor");
  if (f == nullptr) return obj.missing("protocol_factor", "protocol efficiencies");
  ObjectReader factor(*f, obj.path_of("protocol_factor"));
  SHARDLAB_RETURN_IF_ERROR(check_group_source(factor, c));
  SHARDLAB_RETURN_IF_ERROR(read_per_protocol(obj, "protocol_factor", kFraction, n.protocol_factor));
  SourcedReader sourced(c, values);
  SHARDLAB_RETURN_IF_ERROR(sourced.read(obj, "p2p_ll_threshold_bytes",
                                        "nccl.p2p_ll_threshold_bytes", n.p2p_ll_threshold,
                                        kNonNegative));
  return Status::ok();
}

Status read_gpu_collectives(const ObjectReader& gpu, SourcedReader& r,
                            planner::CollectiveTuning& t) {
  const Json* v = gpu.find("collectives");
  if (v == nullptr) return gpu.missing("collectives", "the collective fractions");
  ObjectReader obj(*v, gpu.path_of("collectives"));
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("the collective fractions", {"all_reduce_fraction", "ring_fraction", "p2p_fraction",
                                             "network_fraction", "nvls_fraction", "ll_max_bw"}));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "all_reduce_fraction", "collectives.all_reduce_fraction",
                                  t.all_reduce_fraction, kFraction));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "ring_fraction", "collectives.ring_fraction", t.ring_fraction, kFraction));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "p2p_fraction", "collectives.p2p_fraction", t.p2p_fraction, kFraction));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "network_fraction", "collectives.network_fraction",
                                  t.network_fraction, kFraction));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "nvls_fraction", "collectives.nvls_fraction", t.nvls_fraction, kFraction));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "ll_max_bw", "collectives.ll_max_bw", t.ll_max_bw, BandwidthValue{}));
  return Status::ok();
}

// A preset's memory and links: HBM, the GPU link (nvlink or pci, returned),
// the NIC and the host link.
Result<std::string> read_gpu_links(const ObjectReader& obj, SourcedReader& r, GpuPreset& g) {
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "hbm_cap", "hbm_cap", g.hbm_cap, SizeValue{}));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "hbm_mem_bw", "hbm_mem_bw", g.hbm_mem_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "intra_host_bw", "intra_host_bw", g.intra_host_bw, BandwidthValue{}));
  std::string link;
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "intra_host_link", "intra_host_link", link, StringValue{}));
  if (link != "nvlink" && link != "pci") {
    return invalid_at(obj.path_of("intra_host_link").child("value"), "unknown link kind",
                      &*obj.find("intra_host_link")->find("value"), "nvlink or pci");
  }
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "inter_host_bw", "inter_host_bw", g.inter_host_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "host_link_bw", "host_link_bw", g.host_link_bw, BandwidthValue{}));
  return link;
}

// The GEMM roofline's numbers (docs/presets.md "The GEMM roofline"): peak
// FLOP rates and large-GEMM efficiencies per precision (a precision without
// a peak is not supported, and has no efficiency), SMs and the tile.
Status read_gpu_gemm(const ObjectReader& obj, SourcedReader& r, GpuPreset& g) {
  for (const std::string_view group : {"peak_tflops", "gemm_efficiency"}) {
    const Json* v = obj.find(group);
    if (v == nullptr) return obj.missing(group, "an object by precision");
    ObjectReader per(*v, obj.path_of(group));
    SHARDLAB_RETURN_IF_ERROR(per.check("an object by precision (fp32, tf32, bf16, fp16, fp8)",
                                       {"fp32", "tf32", "bf16", "fp16", "fp8"}));
    for (int p = 0; p < planner::kNumPrecisions; ++p) {
      const std::string_view name = planner::to_string(static_cast<Precision>(p));
      double x = 0.0;
      const bool peak = group == "peak_tflops";
      SHARDLAB_RETURN_IF_ERROR(r.read(per, name, std::string(group) + "." + std::string(name), x,
                                      peak ? kPositive : kFraction, /*required=*/false));
      (peak ? g.spec.peak_flops[static_cast<size_t>(p)]
            : g.spec.gemm.max_efficiency[static_cast<size_t>(p)]) = peak ? x * kFlopsPerTflop : x;
    }
  }
  for (int p = 0; p < planner::kNumPrecisions; ++p) {
    if ((g.spec.peak_flops[static_cast<size_t>(p)] > 0.0) !=
        (g.spec.gemm.max_efficiency[static_cast<size_t>(p)] > 0.0)) {
      return invalid_at(
          obj.path_of("gemm_efficiency"),
          "needs an entry for exactly the precisions peak_tflops has, missing or extra " +
              std::string(planner::to_string(static_cast<Precision>(p))),
          obj.find("gemm_efficiency"));
    }
  }
  int64_t sms = 0;
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "sm_count", "sm_count", sms, IntValue{.min = 1, .max = 100000}));
  g.spec.gemm.sm_count = static_cast<int>(sms);
  std::vector<int64_t> tile;
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "gemm_tile", "gemm_tile", tile,
                                  internal::ListOf{IntValue{.min = 1, .max = 4096}, true}));
  if (tile.size() != 2) {
    return invalid_at(obj.path_of("gemm_tile").child("value"), "must be [tile_m, tile_n]",
                      &*obj.find("gemm_tile")->find("value"));
  }
  g.spec.gemm.tile_m = static_cast<int>(tile[0]);
  g.spec.gemm.tile_n = static_cast<int>(tile[1]);
  // A split-K slice is at least one tile deep (docs/presets.md "The GEMM roofline").
  g.spec.gemm.min_split_k = static_cast<double>(tile[0]);
  return Status::ok();
}

// NCCL's latencies and protocol factors (the catalog's nccl section) for a
// GPU whose link is `pci` or NVLink: NCCL enables LL128 only on NVLink paths.
void apply_nccl(const NcclConstants& nccl, bool pci, planner::CollectiveTuning& t) {
  const PerProtocol& intra = pci ? nccl.pci_step_us : nccl.nvlink_step_us;
  for (int a = 0; a < planner::kNumCollAlgorithms; ++a) {
    for (int p = 0; p < planner::kNumCollProtocols; ++p) {
      planner::CollLatency& l = t.latency[static_cast<size_t>(a)][static_cast<size_t>(p)];
      l.base_ms = nccl.base_us[static_cast<size_t>(a)][static_cast<size_t>(p)] * kMsPerUs;
      l.intra_step_ms = intra[static_cast<size_t>(a)][static_cast<size_t>(p)] * kMsPerUs;
      l.inter_step_ms =
          nccl.network_step_us[static_cast<size_t>(a)][static_cast<size_t>(p)] * kMsPerUs;
      double factor = nccl.protocol_factor[static_cast<size_t>(a)][static_cast<size_t>(p)];
      if (pci && p == static_cast<int>(CollProtocol::kLl128)) factor = 0.0;
      t.protocol_factor[static_cast<size_t>(a)][static_cast<size_t>(p)] = factor;
    }
  }
  t.p2p_ll_threshold_bytes = nccl.p2p_ll_threshold;
}

Status read_gpu(const Json& value, const JsonPath& path, const NcclConstants& nccl,
                const PresetCatalog& c, GpuPreset& g) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("a GPU preset",
                {"name", "description", "hbm_cap", "hbm_mem_bw", "intra_host_bw", "intra_host_link",
                 "inter_host_bw", "host_link_bw", "peak_tflops", "sm_count", "gemm_efficiency",
                 "gemm_tile", "hbm_efficiency", "embedding_efficiency", "nvls", "collectives"}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("name", g.name, StringValue{.non_empty = true}, "the preset's name"));
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("description", g.description, StringValue{.non_empty = true}, "a description"));
  g.spec.name = g.name;
  g.spec.description = g.description;
  SourcedReader r(c, g.values);
  Result<std::string> link = read_gpu_links(obj, r, g);
  if (!link) return link.status();
  SHARDLAB_RETURN_IF_ERROR(read_gpu_gemm(obj, r, g));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "hbm_efficiency", "hbm_efficiency", g.spec.hbm_efficiency, kPositive));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "embedding_efficiency", "embedding_efficiency",
                                  g.embedding_efficiency, kPositive));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "nvls", "nvls", g.spec.nvls, BoolValue{}));
  planner::CollectiveTuning& t = g.spec.collectives;
  SHARDLAB_RETURN_IF_ERROR(read_gpu_collectives(obj, r, t));
  apply_nccl(nccl, *link == "pci", t);
  if (g.spec.nvls && t.nvls_fraction <= 0.0) {
    return invalid_at(obj.path_of("collectives").child("nvls_fraction"),
                      "must be > 0 for a GPU with NVLS",
                      &*obj.find("collectives")->find("nvls_fraction"));
  }
  return Status::ok();
}

Result<PresetCatalog> read_catalog(const Json& doc) {
  const JsonPath root_path;
  ObjectReader root(doc, root_path);
  SHARDLAB_RETURN_IF_ERROR(
      root.check("a GPU presets object",
                 {"format", "version", "about", "sources", "nccl", "gpus", "systems"}));
  std::string format;
  SHARDLAB_RETURN_IF_ERROR(
      root.require("format", format, StringValue{}, "\"shardlab-gpu-presets\""));
  if (format != kFormat) {
    return invalid_at(root.path_of("format"), "not a GPU presets file", root.find("format"),
                      "\"shardlab-gpu-presets\"");
  }
  int64_t version = 0;
  SHARDLAB_RETURN_IF_ERROR(root.require("version", version, IntValue{}, "1"));
  if (version != kGpuPresetsFormatVersion) {
    return invalid_at(root.path_of("version"), "unsupported presets version", root.find("version"),
                      "1");
  }
  PresetCatalog c;
  SHARDLAB_RETURN_IF_ERROR(read_sources(root, c));
  NcclConstants nccl;
  std::vector<PresetValue> nccl_values;
  SHARDLAB_RETURN_IF_ERROR(read_nccl(root, c, nccl_values, nccl));
  const Json* gpus = root.find("gpus");
  if (gpus == nullptr) return root.missing("gpus", "a list of GPU presets");
  if (!gpus->is_array() || gpus->empty()) {
    return invalid_at(root.path_of("gpus"), "must be a non-empty list of GPU presets", gpus);
  }
  for (size_t i = 0; i < gpus->size(); ++i) {
    GpuPreset g;
    SHARDLAB_RETURN_IF_ERROR(read_gpu((*gpus)[i], root.path_of("gpus").at(i), nccl, c, g));
    if (c.find(g.name) != nullptr) {
      return invalid_at(root.path_of("gpus").at(i).child("name"), "duplicate preset name",
                        &(*gpus)[i]["name"]);
    }
    g.values.insert(g.values.end(), nccl_values.begin(), nccl_values.end());
    c.gpus.push_back(std::move(g));
  }
  SHARDLAB_RETURN_IF_ERROR(internal::read_systems(root, c));
  return c;
}

}  // namespace

const GpuPreset* PresetCatalog::find(std::string_view name) const {
  for (const GpuPreset& g : gpus) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

const GpuPreset* PresetCatalog::find_device(std::string_view device_name) const {
  std::string name;
  for (const char c : device_name)
    name += c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string_view vendor : {"nvidia-", "tesla-"}) {
    if (name.rfind(vendor, 0) == 0) name.erase(0, vendor.size());
  }
  return name.empty() ? nullptr : find(name);
}

Result<const GpuPreset*> PresetCatalog::gemm_fit_preset(std::string_view name,
                                                        std::string_view scenario_gpu,
                                                        std::string_view device,
                                                        std::string* why) const {
  if (!name.empty()) {
    const GpuPreset* p = find(name);
    if (p == nullptr) {
      return Status::invalid_argument("no GPU preset named \"" + std::string(name) +
                                      "\"; presets: " + names());
    }
    return p;
  }
  const GpuPreset* p = !scenario_gpu.empty() ? find(scenario_gpu) : find_device(device);
  if (p == nullptr && why != nullptr) {
    *why = device.empty() ? std::string("the traces name no GPU")
                          : "no GPU preset is named \"" + std::string(device) + "\"";
  }
  return p;
}

const PresetSource* PresetCatalog::source(std::string_view id) const {
  for (const PresetSource& s : sources) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

std::string PresetCatalog::names() const {
  std::string out;
  for (const GpuPreset& g : gpus) out += (out.empty() ? "" : ", ") + g.name;
  return out;
}

Result<PresetCatalog> parse_gpu_presets(const std::string& text, const std::string& origin) {
  return internal::read_document(text, origin, nullptr, "presets", read_catalog);
}

const Result<PresetCatalog>& builtin_gpu_presets() {
  static const Result<PresetCatalog> catalog =
      parse_gpu_presets(std::string(internal::kGpuPresetsJson, internal::kGpuPresetsJsonSize),
                        "built-in data/presets/gpus.json");
  return catalog;
}

std::string presets_to_json(const PresetCatalog& catalog, const GpuPreset* only, int indent) {
  internal::JsonWriter w(indent);
  w.begin_object();
  w.member("format", kFormat);
  w.member("version", kGpuPresetsFormatVersion);
  w.key("sources");
  w.begin_array();
  for (const PresetSource& s : catalog.sources) {
    if (only != nullptr && std::none_of(only->values.begin(), only->values.end(),
                                        [&](const PresetValue& v) { return v.source == s.id; })) {
      continue;
    }
    w.begin_object();
    w.member("id", s.id);
    w.member("title", s.title);
    w.member("url", s.url);
    w.end_object();
  }
  w.end_array();
  w.key("gpus");
  w.begin_array();
  for (const GpuPreset& g : catalog.gpus) {
    if (only != nullptr && &g != only) continue;
    w.begin_object();
    w.member("name", g.name);
    w.member("description", g.description);
    // The values parsed, in base units, for scripts.
    w.key("numbers");
    w.begin_object();
    w.member("hbm_cap_bytes", g.hbm_cap);
    w.member("hbm_mem_bw_bytes_per_s", g.hbm_mem_bw * 1e3);
    w.member("intra_host_bw_bytes_per_s", g.intra_host_bw * 1e3);
    w.member("inter_host_bw_bytes_per_s", g.inter_host_bw * 1e3);
    w.member("host_link_bw_bytes_per_s", g.host_link_bw * 1e3);
    w.key("peak_flop_per_s");
    w.begin_object();
    for (int p = 0; p < planner::kNumPrecisions; ++p) {
      const double flops = g.spec.peak_flops[static_cast<size_t>(p)];
      if (flops > 0.0)
        w.member(std::string(planner::to_string(static_cast<planner::Precision>(p))), flops * 1e3);
    }
    w.end_object();
    w.member("sm_count", static_cast<int64_t>(g.spec.gemm.sm_count));
    w.end_object();
    w.key("values");
    w.begin_array();
    for (const PresetValue& v : g.values) {
      w.begin_object();
      w.member("field", v.field);
      w.member("value", v.value);
      w.member("source", v.source);
      if (!v.note.empty()) w.member("note", v.note);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

CalibrationProfile preset_calibration(const GpuPreset& preset, double hbm_mem_bw) {
  CalibrationProfile p;
  p.name = preset.name + "-public";
  p.device = preset.description + " (derived from public benchmarks, not measured)";
  // No published per-width figures: every dim class at the same fraction.
  const double bw = hbm_mem_bw * preset.embedding_efficiency;
  for (const planner::ComputeKernel k :
       {planner::ComputeKernel::kDense, planner::ComputeKernel::kFused}) {
    for (const planner::DimClass c :
         {planner::DimClass::kNarrow, planner::DimClass::kHalf, planner::DimClass::kFull}) {
      p.parameters.bandwidth(k, c) = bw;
    }
  }
  p.notes.push_back("embedding lookups (dense and fused kernels, every dim class) at " +
                    std::to_string(preset.embedding_efficiency) +
                    " of the HBM bandwidth (docs/presets.md)");
  for (const PresetValue& v : preset.values) {
    if (v.field != "embedding_efficiency") continue;
    if (const Result<PresetCatalog>& c = builtin_gpu_presets(); c.is_ok()) {
      if (const PresetSource* s = c->source(v.source))
        p.notes.push_back("source: " + s->title + " <" + s->url + ">");
    }
  }
  return p;
}

std::optional<CalibrationProfile> default_calibration(const planner::Scenario& scenario) {
  if (!scenario.gpu) return std::nullopt;
  const Result<PresetCatalog>& catalog = builtin_gpu_presets();
  if (!catalog.is_ok()) return std::nullopt;
  const GpuPreset* preset = catalog->find(scenario.gpu->name);
  if (preset == nullptr) return std::nullopt;
  return preset_calibration(*preset, scenario.topology.hbm_mem_bw);
}

}  // namespace shardlab::data
