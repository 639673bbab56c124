// shardlab presets: the GPU presets a scenario's topology.gpu may name and the
// system presets its topology.system may name, with every number's source
// (docs/presets.md).

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli_common.h"
#include "shardlab/data/calibration_json.h"
#include "shardlab/data/gpu_presets.h"

namespace shardlab::cli {
namespace {

struct PresetsArgs {
  std::string show;   // a preset name: its values and sources
  bool json = false;  // --json, the old spelling of --format json
  std::string format = "text";
  bool profile = false;
};

constexpr double kGbPerBytesPerMs = 1e-6;      // bytes/ms -> GB/s
constexpr double kTflopsPerFlopsPerMs = 1e-9;  // FLOP/ms -> TFLOP/s

// A value as the presets file writes it ("80 GB").
std::string written(const data::GpuPreset& g, std::string_view field) {
  for (const data::PresetValue& v : g.values) {
    if (v.field == field) return v.value;
  }
  return "";
}

std::string peaks(const planner::GpuSpec& g) {
  std::string out;
  for (int p = 0; p < planner::kNumPrecisions; ++p) {
    const double peak = g.peak_flops[static_cast<size_t>(p)];
    if (peak <= 0.0) continue;
    out += fmt::format("{}{} {:g}", out.empty() ? "" : ", ",
                       planner::to_string(static_cast<planner::Precision>(p)),
                       peak * kTflopsPerFlopsPerMs);
  }
  return out;
}

void print_table(const data::PresetCatalog& c) {
  std::cout << fmt::format("{:<16} {:>11} {:>9} {:>10} {:>9}  {}\n", "preset", "HBM", "HBM GB/s",
                           "link GB/s", "NIC GB/s", "peak TFLOP/s (dense)");
  for (const data::GpuPreset& g : c.gpus) {
    std::cout << fmt::format("{:<16} {:>11} {:>9.0f} {:>10.0f} {:>9.0f}  {}\n", g.name,
                             written(g, "hbm_cap"), g.hbm_mem_bw * kGbPerBytesPerMs,
                             g.intra_host_bw * kGbPerBytesPerMs, g.inter_host_bw * kGbPerBytesPerMs,
                             peaks(g.spec));
  }
  std::cout << "(link: GPU-to-GPU per direction; NIC: per GPU in the usual 8-GPU system.)\n\n";
  std::cout << fmt::format("{:<16} {:<16} {:>5} {:>9} {:>5} {:>9} {:>7}  {:<5}  {}\n", "system",
                           "gpu", "GPUs", "per host", "NICs", "NIC GB/s", "NVLink", "SHARP",
                           "rails");
  for (const data::SystemPreset& s : c.systems) {
    const std::string rails = !s.rail_optimized ? std::string("no")
                              : s.rail_group_size > 0
                                  ? "units of " + std::to_string(s.rail_group_size) + " hosts"
                                  : std::string("yes");
    std::cout << fmt::format("{:<16} {:<16} {:>5} {:>9} {:>5} {:>9.0f} {:>7}  {:<5}  {}\n", s.name,
                             s.gpu, s.gpus, s.gpus_per_host, s.nics_per_host,
                             s.nic_bw * kGbPerBytesPerMs, s.nvlink_domain_size,
                             s.sharp ? "yes" : "no", rails);
  }
  std::cout << "(a scenario's topology.system with topology.nodes; NICs per host, NVLink: GPUs "
               "per NVLink domain. 'shardlab presets show NAME' lists every number of a GPU or a "
               "system with its source.)\n";
}

void print_values(const data::PresetCatalog& c, const std::string& name,
                  const std::string& description, const std::vector<data::PresetValue>& values) {
  std::cout << fmt::format("{}: {}\n", name, description);
  std::cout << fmt::format("  {:<34} {:<18} {}\n", "field", "value", "source");
  for (const data::PresetValue& v : values) {
    std::cout << fmt::format("  {:<34} {:<18} {}{}\n", v.field, v.value, v.source,
                             v.note.empty() ? "" : " (" + v.note + ")");
  }
  std::cout << "sources:\n";
  for (const data::PresetSource& s : c.sources) {
    bool cited = false;
    for (const data::PresetValue& v : values) cited = cited || v.source == s.id;
    if (cited) std::cout << fmt::format("  {}: {}\n    {}\n", s.id, s.title, s.url);
  }
}

int run_presets(const PresetsArgs& args) {
  const Result<data::PresetCatalog>& catalog = data::builtin_gpu_presets();
  if (!catalog.is_ok()) {
    print_error(catalog.status().message());
    return kExitInternal;
  }
  const data::GpuPreset* preset = nullptr;
  const data::SystemPreset* system = nullptr;
  if (!args.show.empty()) {
    preset = catalog->find(args.show);
    system = catalog->find_system(args.show);
    if (preset == nullptr && system == nullptr) {
      print_error("unknown preset '" + args.show + "': expected a GPU (" + catalog->names() +
                  ") or a system (" + catalog->system_names() + ")");
      return kExitInvalid;
    }
    if (system != nullptr && (args.profile || args.json || args.format == "json")) {
      print_error("'" + args.show + "' is a system preset: --profile and --format json take a GPU");
      return kExitInvalid;
    }
  }
  if (system != nullptr) {
    print_values(*catalog, system->name, system->description, system->values);
    return kExitOk;
  }
  if (args.profile) {
    if (preset == nullptr) {
      print_error("--profile needs a preset: shardlab presets show NAME --profile");
      return kExitInvalid;
    }
    std::cout << data::calibration_to_json(data::preset_calibration(*preset, preset->hbm_mem_bw))
              << "\n";
    return kExitOk;
  }
  if (args.json || args.format == "json") {
    std::cout << data::presets_to_json(*catalog, preset) << "\n";
    return kExitOk;
  }
  if (preset != nullptr) {
    print_values(*catalog, preset->name, preset->description, preset->values);
  } else {
    print_table(*catalog);
  }
  return kExitOk;
}

}  // namespace

void add_presets_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<PresetsArgs>();
  CLI::App* cmd =
      app.add_subcommand("presets",
                         "List the GPU presets a scenario's topology.gpu may name, and the system "
                         "presets (whole nodes\nand racks) its topology.system may name.\n"
                         "A preset fills the topology fields a scenario leaves out (HBM capacity "
                         "and bandwidth, the GPU link,\n"
                         "the NIC) and gives the simulator the GPU's peak FLOP rates, GEMM and HBM "
                         "efficiencies and NCCL\n"
                         "constants; every number cites its public source (docs/presets.md).");
  // One spelling across verbs: --format text|json; --json stays as an alias.
  const auto add_format = [&](CLI::App* c, const char* what) {
    c->add_option("--format", args->format,
                  std::string("'text' or 'json': ") + what + " (default: text)")
        ->check(CLI::IsMember({"text", "json"}))
        ->type_name("FORMAT");
    c->add_flag("--json", args->json, "The old spelling of --format json");
  };
  add_format(cmd, "JSON gives the presets with every value and source");
  CLI::App* show = cmd->add_subcommand("show", "Print one preset's numbers, each with its source");
  show->add_option("name", args->show, "Preset name, a GPU (h100-sxm) or a system (dgx-h100)")
      ->required();
  add_format(show, "JSON gives the preset with every value and source");
  show->add_flag("--profile", args->profile,
                 "Print the preset's default calibration profile instead (the format 'shardlab "
                 "calibrate' writes; "
                 "docs/calibration.md)");
  cmd->footer(
      example_footer("  shardlab presets\n"
                     "  shardlab presets show h100-sxm\n"
                     "  shardlab presets show gb200-nvl72\n"
                     "  shardlab presets show a100-sxm4-80gb --profile > a100.json"));
  verbs.add(cmd, [args] { return run_presets(*args); });
}

}  // namespace shardlab::cli
