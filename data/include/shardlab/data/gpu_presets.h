// GPU presets (docs/presets.md): named devices whose numbers a scenario's
// `topology.gpu` brings in. The presets are one data file, data/presets/gpus.json,
// compiled into the library, so no tool needs a path at run time; every number
// in it names its public source.
//
// A preset fills the topology fields a scenario leaves out (explicit fields
// always win; without `topology.gpu` nothing changes) and gives the simulator
// its GpuSpec (peak FLOP rates, GEMM and HBM efficiencies, NCCL constants).
// Its default calibration profile (embedding lookups at the preset's achievable
// HBM bandwidth) has the format `shardlab calibrate` writes, and a measured
// profile replaces it.
//
// Errors are kInvalidArgument naming the origin, the JSON path and the value.
// Thread safety: builtin_gpu_presets() parses once (a function-local static)
// and is safe to call from any thread; the rest is reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/data/calibration_json.h"
#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::data {

inline constexpr int kGpuPresetsFormatVersion = 1;

struct PresetSource {
  std::string id;
  std::string title;
  std::string url;
};

// One number of a preset as written, with its source: what `shardlab presets
// show` prints and docs/presets.md tabulates.
struct PresetValue {
  std::string field;   // JSON path inside the preset, e.g. "peak_tflops.bf16"
  std::string value;   // as written ("3.35 TB/s", "989.4", "true")
  std::string source;  // a PresetSource id
  std::string note;    // may be empty
};

struct GpuPreset {
  std::string name;
  std::string description;
  // Topology fields the preset fills (bytes, bytes/ms).
  int64_t hbm_cap = 0;
  double hbm_mem_bw = 0.0;
  double intra_host_bw = 0.0;  // GPU link per direction: NVLink, or PCIe
  double inter_host_bw = 0.0;  // NIC bandwidth per GPU in the usual 8-GPU system
  double host_link_bw = 0.0;   // PCIe to the host per direction: UVM (ddr_mem_bw)
  // Fraction of hbm_mem_bw embedding lookups reach (default calibration).
  double embedding_efficiency = 0.0;
  planner::GpuSpec spec;
  std::vector<PresetValue> values;  // every number, in file order
};

// A whole machine or rack (docs/presets.md "Systems"): the GPU preset it
// holds and how its GPUs connect. A scenario's `topology.system` with
// `topology.nodes` fills world_size, local_world_size, topology.gpu and the
// fabric fields the file leaves out (explicit fields win).
struct SystemPreset {
  std::string name;            // e.g. "dgx-h100", "gb200-nvl72"
  std::string description;     // e.g. "NVIDIA DGX H100: 8 H100 SXM5, NVSwitch, 8x NDR 400 Gb/s"
  std::string gpu;             // a GPU preset of the same catalog
  int gpus = 0;                // GPUs in one system (one node; one rack for NVL72)
  int gpus_per_host = 0;       // GPUs under one operating system (local_world_size)
  int nics_per_host = 0;       // compute NICs per host
  double nic_bw = 0.0;         // one NIC, bytes/ms per direction
  int nvlink_domain_size = 0;  // GPUs sharing one NVLink (NVSwitch) domain
  bool sharp = false;          // the reference network's switches reduce (SHARP)
  // The reference network is rail-optimized, its rail leaves joining groups
  // of rail_group_size hosts (0: all); optional in the file (false, 0).
  bool rail_optimized = false;
  int rail_group_size = 0;
  std::vector<PresetValue> values;  // every number, in file order
};

struct PresetCatalog {
  std::vector<PresetSource> sources;
  std::vector<GpuPreset> gpus;        // file order
  std::vector<SystemPreset> systems;  // file order

  const GpuPreset* find(std::string_view name) const;
  // The preset a CUDA device name names, as a profiler trace or nvidia-smi
  // writes it: lower-cased, a leading "nvidia " or "tesla " dropped, spaces
  // as hyphens ("NVIDIA A100-SXM4-80GB" is a100-sxm4-80gb, "Tesla
  // V100-SXM2-16GB" v100-sxm2-16gb); null when no preset has that name
  // ("NVIDIA H100 80GB HBM3" names none: give the preset).
  const GpuPreset* find_device(std::string_view device_name) const;
  // The preset a fit of measured GEMMs is made against
  // (kernels::fit_gemm_efficiency): `name` when not empty, else
  // `scenario_gpu` (a scenario's topology.gpu) when not empty, else the one
  // `device` (a trace's device name; empty: unknown) names. Null when none, with `why` set
  // ("the traces name no GPU" / "no GPU preset is named \"<device>\"").
  // Errors (kInvalidArgument): a `name` no preset has, naming the presets.
  Result<const GpuPreset*> gemm_fit_preset(std::string_view name, std::string_view scenario_gpu,
                                           std::string_view device, std::string* why) const;
  const SystemPreset* find_system(std::string_view name) const;
  // "dgx-h100, hgx-h200, ..." for messages.
  std::string system_names() const;
  const PresetSource* source(std::string_view id) const;
  // "a100-sxm4-40gb, a100-sxm4-80gb, ..." for messages.
  std::string names() const;
};

// Parses and validates a presets document: every number carries a source
// that the document lists; units as in scenario files.
Result<PresetCatalog> parse_gpu_presets(const std::string& text, const std::string& origin);

// The presets compiled into the library (data/presets/gpus.json).
const Result<PresetCatalog>& builtin_gpu_presets();

// The catalog as JSON for `shardlab presets --json`:
//   {"format": "shardlab-gpu-presets", "version": 1,
//    "sources": [{"id", "title", "url"}],
//    "gpus": [{"name", "description",
//              "numbers": {"hbm_cap_bytes", "hbm_mem_bw_bytes_per_s", "intra_host_bw_bytes_per_s",
//                          "inter_host_bw_bytes_per_s", "host_link_bw_bytes_per_s",
//                          "peak_flop_per_s": {"fp32", ...: the precisions it has}, "sm_count"},
//              "values": [{"field", "value", "source", "note"}]}]}
// "numbers" are the values parsed, in base units; "values" are as the file
// writes them, with their sources.
// `only` set: just that preset (and the sources it cites). `indent` < 0: one line.
std::string presets_to_json(const PresetCatalog& catalog, const GpuPreset* only = nullptr,
                            int indent = 2);

// The preset's default calibration profile: dense and fused embedding
// lookups at embedding_efficiency of `hbm_mem_bw` (the scenario's, which may
// override the preset's), divided by TorchRec's block
// penalty for narrow rows; no backward multipliers (the topology's, which the
// preset derives from the optimizer) and no communication parameters (the
// NCCL-like layer has them). Marked as derived from public benchmarks.
CalibrationProfile preset_calibration(const GpuPreset& preset, double hbm_mem_bw);

// The profile `plan`, `options` and `simulate` use without --calibration: the
// preset's for a scenario with topology.gpu, none otherwise.
std::optional<CalibrationProfile> default_calibration(const planner::Scenario& scenario);

}  // namespace shardlab::data
