// `topology.gpu` (docs/presets.md) and the checks of the simulator's sections
// that need the whole scenario. A preset fills only the topology fields the
// file leaves out; without `topology.gpu` and `workload.dense` nothing here
// changes a scenario.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "scenario_sections.h"
#include "shardlab/data/gpu_presets.h"
#include "shardlab/sim/dense_model.h"

namespace shardlab::data::internal {
namespace {

// Bytes of one index in the lookup's input (int64), as TorchRec counts them.
constexpr double kIndexBytes = 8.0;

// TorchRec's optimizer state per weight element (its storage estimator):
// Adam two moments, Adagrad one, row-wise Adagrad one per row, SGD none.
double optimizer_state(planner::OptimizerKind o, double dim) {
  switch (o) {
    case planner::OptimizerKind::kNone:
    case planner::OptimizerKind::kSgd:
      return 0.0;
    case planner::OptimizerKind::kAdam:
      return 2.0;
    case planner::OptimizerKind::kRowwiseAdagrad:
      return 1.0 / dim;
    case planner::OptimizerKind::kAdagrad:
    case planner::OptimizerKind::kOther:
      return 1.0;
  }
  return 1.0;
}

// Bytes of one (index, position) pair FBGEMM's backward radix-sorts: an
// int64 row index and an int32 position in the batch.
constexpr double kSortPairBytes = 12.0;
constexpr double kRadixBits = 8.0;  // one pass per 8-bit digit of the row index

// Backward over forward bytes of the scenario's embedding lookups with its
// optimizer (docs/presets.md "Embedding backward"). Per id of a table of
// width d, element size w and R rows: forward reads the index and the row,
// and writes each bag's pooled row once; backward radix-sorts the ids by row
// (each pass reads and writes an index-position pair, ceil(log2 R / 8)
// passes), reads the bag's gradient once, and reads and writes the row and
// the optimizer's state. Summed over the tables by their ids per sample.
double optimizer_bwd_multiplier(const planner::Scenario& s) {
  double fwd = 0.0;
  double bwd = 0.0;
  for (size_t i = 0; i < s.tables.size(); ++i) {
    const planner::TableSpec& t = s.tables[i];
    const double d = static_cast<double>(t.embedding_dim);
    // Training stores fp32 tables in fp32, every other type in fp16.
    const double w = t.data_type == planner::DataType::kFp32 ? 4.0 : 2.0;
    std::vector<double> pooling = {1.0};
    if (s.constraints[i] && s.constraints[i]->pooling_factors)
      pooling = *s.constraints[i]->pooling_factors;
    const double ids = std::accumulate(pooling.begin(), pooling.end(), 0.0);
    const double bags = static_cast<double>(pooling.size());
    const double row = d * w;
    const double passes = std::max(
        1.0, std::ceil(std::log2(static_cast<double>(std::max<int64_t>(t.num_embeddings, 2))) /
                       kRadixBits));
    fwd += ids * (kIndexBytes + row) + bags * row;
    bwd += ids * (2.0 * kSortPairBytes * passes + row +
                  2.0 * row * (1.0 + optimizer_state(s.sharder.optimizer, d)));
  }
  return fwd > 0.0 ? bwd / fwd : planner::kDefaultBwdComputeMultiplier;
}

}  // namespace

Status read_system_preset(const ObjectReader& topology, planner::TopologySpec& t,
                          planner::FabricSpec& fabric, std::string& gpu_name) {
  const Json* value = topology.find("system");
  if (value == nullptr) {
    if (const Json* nodes = topology.find("nodes")) {
      return invalid_at(topology.path_of("nodes"), "counts the nodes of a system preset", nodes,
                        "topology.system beside it, or world_size alone");
    }
    return Status::ok();
  }
  const Result<PresetCatalog>& catalog = builtin_gpu_presets();
  if (!catalog.is_ok()) return Status::internal("presets: " + catalog.status().message());
  std::string name;
  SHARDLAB_RETURN_IF_ERROR(topology.read("system", name, StringValue{.non_empty = true}));
  const SystemPreset* system = catalog->find_system(name);
  if (system == nullptr) {
    return invalid_at(topology.path_of("system"), "unknown system preset", value,
                      "one of " + catalog->system_names());
  }
  // nodes x GPUs stays a rank count the planner takes.
  int nodes = 1;
  SHARDLAB_RETURN_IF_ERROR(topology.read(
      "nodes", nodes, IntValue{.min = 1, .max = planner::kMaxWorldSize / system->gpus}));
  SHARDLAB_RETURN_IF_ERROR(
      topology.read("world_size", t.world_size, IntValue{.min = 1, .max = planner::kMaxWorldSize}));
  const int system_ranks = nodes * system->gpus;
  if (topology.find("world_size") == nullptr) {
    t.world_size = system_ranks;
  } else if (topology.find("nodes") != nullptr && t.world_size != system_ranks) {
    return invalid_at(topology.path_of("world_size"),
                      "differs from nodes x the " + system->name + "'s " +
                          std::to_string(system->gpus) + " GPUs (" + std::to_string(system_ranks) +
                          ")",
                      topology.find("world_size"), "one of the two");
  }
  t.local_world_size = std::min(system->gpus_per_host, t.world_size);
  fabric.system = system->name;
  fabric.nics_per_host = system->nics_per_host;
  fabric.nic_bw = system->nic_bw;
  fabric.nvlink_domain_size =
      system->nvlink_domain_size > system->gpus_per_host ? system->nvlink_domain_size : 0;
  fabric.sharp = system->sharp;
  fabric.rail_optimized = system->rail_optimized;
  fabric.rail_group_size = system->rail_group_size;
  gpu_name = system->gpu;
  return Status::ok();
}

Status read_gpu_preset(const ObjectReader& topology, planner::TopologySpec& t,
                       std::optional<planner::GpuSpec>& gpu, planner::PresetFills& fills,
                       const std::string& default_gpu) {
  // What the file leaves out: a preset fills it, and an edit that sets a
  // preset later (data/scenario_edit.h) must know it too.
  const auto absent = [&](std::string_view key) { return topology.find(key) == nullptr; };
  fills.hbm_cap = absent("hbm_cap");
  fills.hbm_mem_bw = absent("hbm_mem_bw");
  fills.ddr_mem_bw = absent("ddr_mem_bw");
  fills.hbm_to_ddr_mem_bw = absent("hbm_to_ddr_mem_bw");
  fills.intra_host_bw = absent("intra_host_bw");
  fills.inter_host_bw = absent("inter_host_bw");
  fills.bwd_compute_multiplier = absent("bwd_compute_multiplier");
  const Json* value = topology.find("gpu");
  if (value == nullptr && default_gpu.empty()) return Status::ok();
  const Result<PresetCatalog>& catalog = builtin_gpu_presets();
  if (!catalog.is_ok()) return Status::internal("GPU presets: " + catalog.status().message());
  std::string name = default_gpu;
  SHARDLAB_RETURN_IF_ERROR(topology.read("gpu", name, StringValue{.non_empty = true}));
  const GpuPreset* preset = catalog->find(name);
  if (preset == nullptr) {
    return invalid_at(topology.path_of("gpu"), "unknown GPU preset", value,
                      "one of " + catalog->names());
  }
  // Explicit fields win: fill only what the file leaves out.
  if (fills.hbm_cap) t.hbm_cap = preset->hbm_cap;
  if (fills.hbm_mem_bw) t.hbm_mem_bw = preset->hbm_mem_bw;
  // UVM reads host memory across the GPU's host link (TorchRec 2024-02 costs
  // it at ddr_mem_bw, 2026-08 at hbm_to_ddr_mem_bw).
  if (fills.ddr_mem_bw) t.ddr_mem_bw = preset->host_link_bw;
  if (fills.hbm_to_ddr_mem_bw) t.hbm_to_ddr_mem_bw = preset->host_link_bw;
  if (fills.intra_host_bw) t.intra_host_bw = preset->intra_host_bw;
  if (fills.inter_host_bw) t.inter_host_bw = preset->inter_host_bw;
  // bwd_compute_multiplier needs the tables and the optimizer: finish_simulator_sections.
  gpu = preset->spec;
  return Status::ok();
}

Status finish_simulator_sections(const ObjectReader& root, planner::Scenario& s) {
  if (s.gpu) {
    if (s.preset_fills.bwd_compute_multiplier)
      s.topology.bwd_compute_multiplier = optimizer_bwd_multiplier(s);
    // After the topology is final: the profile follows the scenario's HBM bandwidth.
    if (std::optional<CalibrationProfile> profile = default_calibration(s))
      s.preset_calibration = profile->parameters;
  }
  if (!s.workload.dense) return Status::ok();

  const ObjectReader workload(*root.find("workload"), root.path_of("workload"));
  const JsonPath path = workload.path_of("dense");
  const Json* dense_json = workload.find("dense");
  const planner::DenseSpec& dense = *s.workload.dense;
  if (!s.gpu && (s.workload.dense_fwd_ms.empty() || s.workload.dense_bwd_ms.empty())) {
    return invalid_at(
        path,
        "timing the dense model needs a GPU preset (topology.gpu), or give workload.dense_fwd_ms "
        "and dense_bwd_ms",
        dense_json);
  }
  if (s.gpu && s.gpu->peak_flops[static_cast<size_t>(dense.precision)] <= 0.0) {
    const ObjectReader d(*dense_json, path);
    return invalid_at(d.path_of("precision"),
                      "the GPU preset " + s.gpu->name + " has no such arithmetic",
                      d.find("precision"), "a precision the GPU supports (docs/presets.md)");
  }
  auto arch = sim::dense_architecture(dense, sim::feature_dims(s), s.batch_size);
  if (!arch) return arch.status();
  // The model's parameters for the storage reservation, unless the file
  // gives them.
  const Json* module = root.find("module");
  if (module == nullptr || !module->is_object() ||
      module->find("dense_param_bytes") == module->end()) {
    s.module.dense_param_bytes = sim::dense_param_bytes(*arch);
    s.module.dense_param_bytes_derived = true;
  }
  return Status::ok();
}

}  // namespace shardlab::data::internal
