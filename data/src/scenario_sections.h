// Readers for the sections of a scenario file (docs/scenario-format.md "Fields"). Private
// to the loader: scenario_loader.cc drives them in file-format order and then
// runs the checks that span sections.
//
// Each reader validates its section completely (types, ranges, unknown keys)
// and fills plain planner structs; values are stored as given, TorchRec's
// falsy defaults are left to the planner.
#pragma once

#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "json_document.h"
#include "json_reader.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data::internal {

// The keys each object of a scenario file may hold (docs/scenario-format.md
// "Fields"). The readers check each object against its list; the loader's
// parser refuses any other key as soon as it reads it (scenario_schema()),
// so an unknown key in a large file is reported without reading the rest.
// A key added to the format goes into its list here.
inline constexpr std::string_view kRootKeys[] = {"name",    "topology", "batch_size",
                                                 "module",  "tables",   "constraints",
                                                 "sharder", "planner",  "workload"};
inline constexpr std::string_view kTopologyKeys[] = {"world_size",
                                                     "local_world_size",
                                                     "pod_size",
                                                     "compute_device",
                                                     "hbm_cap",
                                                     "ddr_cap",
                                                     "hbm_mem_bw",
                                                     "ddr_mem_bw",
                                                     "hbm_to_ddr_mem_bw",
                                                     "ssd_cap",
                                                     "ssd_mem_bw",
                                                     "intra_host_bw",
                                                     "inter_host_bw",
                                                     "bwd_compute_multiplier",
                                                     "gpu",
                                                     "system",
                                                     "nodes",
                                                     "fabric"};
inline constexpr std::string_view kFabricKeys[] = {"nics_per_host",
                                                   "nic_bw",
                                                   "oversubscription",
                                                   "intra_host_latency_ms",
                                                   "inter_host_latency_ms",
                                                   "hosts",
                                                   "nvlink_domain_size",
                                                   "sharp",
                                                   "rail_optimized",
                                                   "rail_group_size",
                                                   "pxn"};
inline constexpr std::string_view kHostKeys[] = {"intra_host_bw", "nic_bw", "nics"};
inline constexpr std::string_view kModuleKeys[] = {"kind", "dense_param_bytes"};
inline constexpr std::string_view kTableKeys[] = {
    "name",      "num_embeddings", "embedding_dim",     "feature_names",
    "data_type", "is_weighted",    "use_virtual_table", "total_num_buckets"};
inline constexpr std::string_view kConstraintKeys[] = {
    "sharding_types",   "compute_kernels",     "min_partition",     "pooling_factors",
    "num_poolings",     "batch_sizes",         "is_weighted",       "cache_params",
    "enforce_hbm",      "stochastic_rounding", "bounds_check_mode", "feature_names",
    "key_value_params", "use_virtual_table"};
inline constexpr std::string_view kKeyValueParamsKeys[] = {"max_l1_cache_size", "l2_cache_size"};
inline constexpr std::string_view kCacheParamsKeys[] = {
    "algorithm", "load_factor", "reserved_memory", "precision", "prefetch_pipeline"};
inline constexpr std::string_view kSharderKeys[] = {"fused_params", "optimizer", "qcomm"};
inline constexpr std::string_view kFusedParamsKeys[] = {"cache_load_factor", "prefetch_pipeline"};
inline constexpr std::string_view kQcommKeys[] = {"forward", "backward"};
inline constexpr std::string_view kPlannerKeys[] = {
    "proposers", "partitioner", "storage_reservation", "is_inference", "torchrec_version"};
// Proposer and partitioner objects take the keys of their kind; the parser
// checks against all kinds' keys, the reader against the kind's own.
inline constexpr std::string_view kGreedyProposerKeys[] = {"kind", "use_depth", "threshold"};
inline constexpr std::string_view kUniformProposerKeys[] = {"kind", "use_depth"};
inline constexpr std::string_view kGridSearchProposerKeys[] = {"kind", "max_proposals"};
inline constexpr std::string_view kScaleupProposerKeys[] = {"kind", "use_depth"};
inline constexpr std::string_view kDynamicProgrammingProposerKeys[] = {"kind",
                                                                       "hbm_bins_per_device"};
inline constexpr std::string_view kAnyProposerKeys[] = {"kind", "use_depth", "threshold",
                                                        "max_proposals", "hbm_bins_per_device"};
inline constexpr std::string_view kGreedyPerfKeys[] = {"kind", "sort_by", "balance_modules"};
inline constexpr std::string_view kMemoryBalancedKeys[] = {"kind", "max_search_count", "tolerance",
                                                           "balance_modules"};
inline constexpr std::string_view kAnyPartitionerKeys[] = {"kind", "sort_by", "balance_modules",
                                                           "max_search_count", "tolerance"};
inline constexpr std::string_view kReservationKeys[] = {
    "kind", "percentage", "parameter_multiplier", "dense_tensor_estimate"};
inline constexpr std::string_view kWorkloadKeys[] = {
    "dense_fwd_ms",   "dense_bwd_ms",         "dense",     "iteration_overhead_ms",
    "ddp_bucket_cap", "ddp_first_bucket_cap", "framework", "cuda_graphs",
    "host_profile"};
inline constexpr std::string_view kDenseKeys[] = {
    "dense_features", "bottom_mlp",         "interaction",     "top_mlp",           "precision",
    "optimizer",      "gradient_precision", "fused_epilogues", "kernel_overhead_us"};
inline constexpr std::string_view kInteractionKeys[] = {"kind", "layers", "low_rank",
                                                        "self_interaction"};

// The key lists above as the parser's schema of a scenario document.
const KeySchema& scenario_schema();

// Table name -> index in Scenario::tables. The views point into the parsed
// document's strings, which outlive the loading.
using TableIndex = std::unordered_map<std::string_view, std::size_t>;

// Reads `topology`, its optional `fabric` member (read_fabric) and its
// optional `gpu` preset (read_gpu_preset).
Status read_topology(const ObjectReader& root, planner::TopologySpec& out,
                     planner::FabricSpec& fabric, std::optional<planner::GpuSpec>& gpu,
                     planner::PresetFills& fills);
Status read_module(const ObjectReader& root, planner::ModuleSpec& out);
// Requires a non-empty list with unique names; fills `index`.
Status read_tables(const ObjectReader& root, std::vector<planner::TableSpec>& out,
                   TableIndex& index);
// `out` gets one entry per table (same order as the tables).
Status read_constraints(const ObjectReader& root, const TableIndex& index,
                        std::vector<std::optional<planner::ConstraintSpec>>& out);
// TorchRec's CacheParams and KeyValueParams objects (null fields mean not
// given), for a scenario's constraints and a plan file's tables alike.
Status read_cache_params(const Json& value, const JsonPath& path, planner::CacheParams& out);
Status read_key_value_params(const Json& value, const JsonPath& path, planner::KeyValueParams& out);
Status read_sharder(const ObjectReader& root, planner::SharderSpec& out);
Status read_planner(const ObjectReader& root, planner::PlannerSpec& out);

// The simulator's sections (scenario_simulation.cc). `topology` is the
// topology object's reader and `t` the topology read from it: fabric.hosts
// must have one entry per host.
Status read_fabric(const ObjectReader& topology, const planner::TopologySpec& t,
                   planner::FabricSpec& out);
// Per-rank lists must have `world_size` entries.
Status read_workload(const ObjectReader& root, int world_size, planner::WorkloadSpec& out);

// A system preset (topology.system and topology.nodes, docs/presets.md
// "Systems"): world_size (nodes x the system's GPUs) unless the file gives
// it, and the defaults the rest of the topology reads over: `t`'s
// local_world_size, `fabric`'s NICs, NVLink domain and SHARP, and
// `gpu_name`, the GPU preset topology.gpu defaults to. Without
// topology.system nothing changes; topology.nodes needs it.
Status read_system_preset(const ObjectReader& topology, planner::TopologySpec& t,
                          planner::FabricSpec& fabric, std::string& gpu_name);
// GPU presets (scenario_presets.cc, docs/presets.md). `topology` is the
// topology object's reader: a preset fills the fields it lacks.
// `default_gpu`: the preset to use when topology.gpu is absent (a system's),
// or empty.
Status read_gpu_preset(const ObjectReader& topology, planner::TopologySpec& t,
                       std::optional<planner::GpuSpec>& gpu, planner::PresetFills& fills,
                       const std::string& default_gpu = {});
// What needs the whole scenario: the preset's optimizer-derived backward
// multiplier, the dense model's checks against the tables and the topology,
// and its parameter bytes for the storage reservation when the module leaves
// them out.
Status finish_simulator_sections(const ObjectReader& root, planner::Scenario& s);

}  // namespace shardlab::data::internal
