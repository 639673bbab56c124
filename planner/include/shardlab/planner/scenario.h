// The scenario: everything the planner needs (cluster, tables, constraints,
// sharder settings, planner settings), as described by docs/scenario-format.md.
//
// This is plain data, already validated by the loader (data/scenario_loader.h).
// Values are kept as the user gave them; TorchRec's "falsy means default"
// rules (cache load factor 0 means 0.2, ...) are applied by the planner where
// TorchRec applies them, because several of them differ between estimators
// and between TorchRec versions (docs/torchrec-versions.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/torchrec_version.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

// TorchRec defaults (docs/cost-model.md §1.1). Bandwidths in bytes/ms.
inline constexpr int64_t kDefaultHbmCap = int64_t{32} << 30;
inline constexpr int64_t kDefaultDdrCap = int64_t{128} << 30;
inline constexpr double kDefaultHbmMemBw = 897.0 * 1024 * 1024 * 1024 / 1000;     // 963146416.128
inline constexpr double kDefaultDdrMemBw = 51.0 * 1024 * 1024 * 1024 / 1000;      // 54760833.024
inline constexpr double kDefaultIntraHostBw = 600.0 * 1024 * 1024 * 1024 / 1000;  // 644245094.4
inline constexpr double kDefaultInterHostBw = 12.5 * 1024 * 1024 * 1024 / 1000;   // 13421772.8
// HBM_TO_DDR_MEM_BW of TorchRec 2026-08 (constants.py): 32 GiB/s, the PCIe link
// UVM kernels read host memory through.
inline constexpr double kDefaultHbmToDdrMemBw = 32.0 * 1024 * 1024 * 1024 / 1000;  // 34359738.368
// SSD_CAP and SSD_MEM_BW of TorchRec 2026-08 (constants.py): 2 TiB per rank
// (commented "2 TB" there) and 100 MiB/s, the key_value kernel's bandwidth.
inline constexpr int64_t kDefaultSsdCap = int64_t{2} << 40;
inline constexpr double kDefaultSsdMemBw = 100.0 * 1024 * 1024 / 1000;  // 104857.6
// KV_CACHING_RATIO: the share of a key-value table its HBM L1 cache may hold.
inline constexpr double kDefaultKvCacheLoadFactor = 0.2;
inline constexpr double kDefaultBwdComputeMultiplier = 2.0;
inline constexpr int64_t kDefaultBatchSize = 512;
inline constexpr double kDefaultCacheLoadFactor = 0.2;  // UVM_CACHING_RATIO
inline constexpr int64_t kDefaultMinPartition = 128;    // MIN_CW_DIM

struct TopologySpec {
  int world_size = 1;                   // required, >= 1
  std::optional<int> local_world_size;  // absent: world_size
  // Hosts in one NVLink domain (TorchRec's Topology.pod_size, 2026-08 only):
  // table-row-wise, table-column-wise and grid shards use groups of
  // pod_size x local_world_size ranks instead of hosts. Absent: no pod.
  std::optional<int> pod_size;
  ComputeDevice compute_device = ComputeDevice::kCuda;
  // Bytes per device; absent: 32 GiB / 128 GiB. An explicit 0 also means the
  // default in the 2024-02 model (TorchRec's falsy rule) but 0 bytes in
  // 2026-08 (TorchRecBehaviour::explicit_zero_capacity_kept).
  std::optional<int64_t> hbm_cap;
  std::optional<int64_t> ddr_cap;
  double hbm_mem_bw = kDefaultHbmMemBw;  // bytes/ms, > 0
  double ddr_mem_bw = kDefaultDdrMemBw;  // bytes/ms, > 0
  // bytes/ms, > 0: device <-> host memory link UVM kernels use (2026-08 model
  // only; TorchRec's Topology.hbm_to_ddr_mem_bw).
  double hbm_to_ddr_mem_bw = kDefaultHbmToDdrMemBw;
  // SSD per rank (2026-08 only; TorchRec's Topology.ssd_cap): the key_value
  // kernel's tier. Absent: 2 TiB; 0 is 0 bytes (no SSD, no key_value option).
  std::optional<int64_t> ssd_cap;
  std::optional<double> ssd_mem_bw;            // bytes/ms, > 0 (2026-08 only); absent: 100 MiB/s
  double intra_host_bw = kDefaultIntraHostBw;  // bytes/ms, > 0
  double inter_host_bw = kDefaultInterHostBw;  // bytes/ms, > 0
  double bwd_compute_multiplier = kDefaultBwdComputeMultiplier;  // >= 0, used verbatim
};

enum class ModuleKind { kEmbeddingBagCollection, kEmbeddingCollection };

struct ModuleSpec {
  ModuleKind kind = ModuleKind::kEmbeddingBagCollection;
  int64_t dense_param_bytes = 0;  // bytes of non-embedding parameters
  // dense_param_bytes was computed from workload.dense (the file leaves it out).
  bool dense_param_bytes_derived = false;
};

struct TableSpec {
  std::string name;                        // unique
  int64_t num_embeddings = 0;              // rows, >= 1
  int64_t embedding_dim = 0;               // columns, >= 1
  std::vector<std::string> feature_names;  // at least one
  DataType data_type = DataType::kFp32;
  bool is_weighted = false;
  // TorchRec 2026-08's BaseEmbeddingConfig.use_virtual_table and
  // total_num_buckets: a virtual table's row-wise options are split by
  // buckets (the buckets are read only when use_virtual_table is true).
  bool use_virtual_table = false;
  std::optional<int64_t> total_num_buckets;  // >= 1
};

// TorchRec 2026-08's KeyValueParams as a constraint gives them (the two
// fields the planner carries; null fields were not given).
struct KeyValueParams {
  std::optional<int64_t> max_l1_cache_size;  // MiB of HBM L1 cache, >= 0
  std::optional<int64_t> l2_cache_size;      // GB, >= 0; carried to the plan only
  bool operator==(const KeyValueParams&) const = default;
};

enum class CacheAlgorithm { kLru, kLfu };

// TorchRec's CacheParams (without stats, which a scenario cannot express).
struct CacheParams {
  std::optional<CacheAlgorithm> algorithm;
  std::optional<double> load_factor;
  std::optional<double> reserved_memory;  // TorchRec: Optional[float]; passed through to the plan
  std::optional<DataType> precision;
  std::optional<bool> prefetch_pipeline;
  bool operator==(const CacheParams&) const = default;
};

enum class BoundsCheckMode { kFatal, kWarning, kIgnore, kNone };

// TorchRec's ParameterConstraints; every field optional.
struct ConstraintSpec {
  std::optional<std::vector<ShardingType>> sharding_types;
  std::optional<std::vector<ComputeKernel>> compute_kernels;
  std::optional<int64_t> min_partition;                // >= 1
  std::optional<std::vector<double>> pooling_factors;  // entries >= 0; may be empty (n = 0)
  std::optional<std::vector<double>> num_poolings;     // empty means not given
  std::optional<std::vector<int64_t>> batch_sizes;     // empty means not given; entries >= 1
  std::optional<bool> is_weighted;
  std::optional<CacheParams> cache_params;
  std::optional<bool> enforce_hbm;
  std::optional<bool> stochastic_rounding;
  std::optional<BoundsCheckMode> bounds_check_mode;
  std::optional<std::vector<std::string>> feature_names;
  // 2026-08 only (TorchRecBehaviour::ssd_tier).
  std::optional<KeyValueParams> key_value_params;
  // Any kernel's weights cost the key-value formula (docs/cost-model.md §5).
  std::optional<bool> use_virtual_table;
};

enum class OptimizerKind { kNone, kSgd, kAdam, kRowwiseAdagrad, kAdagrad, kOther };

struct SharderSpec {
  // fused_params: TorchRec's sharder fused params. `has_fused_params` is false
  // when neither key was given (null counts as not given).
  bool has_fused_params = false;
  std::optional<double> cache_load_factor;  // >= 0
  std::optional<bool> prefetch_pipeline;
  OptimizerKind optimizer = OptimizerKind::kNone;
  std::string optimizer_name = "none";  // as written (any string is accepted)
  CommPrecision qcomm_forward = CommPrecision::kFp32;
  CommPrecision qcomm_backward = CommPrecision::kFp32;
};

enum class ProposerKind {
  kGreedy,
  kUniform,
  kGridSearch,
  kEmbeddingOffloadScaleup,
  kDynamicProgramming  // 2026-08 only (TorchRecBehaviour::dynamic_programming_proposer)
};

struct ProposerSpec {
  ProposerKind kind = ProposerKind::kGreedy;
  bool use_depth = true;              // greedy, uniform, scale-up
  std::optional<int64_t> threshold;   // greedy; 0 or absent means none
  int64_t max_proposals = 10000;      // grid search
  int64_t hbm_bins_per_device = 100;  // dynamic programming, >= 1
};

enum class PartitionerKind { kGreedyPerf, kMemoryBalanced };

// docs/scenario-format.md names: "greedy", "uniform", "grid_search",
// "embedding_offload_scaleup", "dynamic_programming"; "greedy_perf",
// "memory_balanced".
std::string_view to_string(ProposerKind k);
std::string_view to_string(PartitionerKind k);
enum class SortBy { kStorage, kPerf };

struct PartitionerSpec {
  PartitionerKind kind = PartitionerKind::kGreedyPerf;
  SortBy sort_by = SortBy::kStorage;  // greedy_perf only; memory_balanced always sorts by perf
  bool balance_modules = false;
  int64_t max_search_count = 10;  // memory_balanced
  double tolerance = 0.02;        // memory_balanced
};

enum class ReservationKind { kHeuristical, kFixedPercentage, kInference };

struct StorageReservationSpec {
  ReservationKind kind = ReservationKind::kHeuristical;
  double percentage = 0.15;                      // in [0, 1]; 0 is honoured
  double parameter_multiplier = 6.0;             // heuristical only; 0 is honoured
  std::optional<int64_t> dense_tensor_estimate;  // bytes; 0 is ignored (falsy rule)
};

struct PlannerSpec {
  // Absent in the file: TorchRec's default list (grid_search, greedy,
  // greedy with use_depth false, uniform). The loader fills it in.
  std::vector<ProposerSpec> proposers;
  PartitionerSpec partitioner;
  StorageReservationSpec storage_reservation;
  bool is_inference = false;
  // The TorchRec whose planner to reproduce (docs/torchrec-versions.md).
  TorchRecVersion torchrec_version = kLatestTorchRecVersion;
};

// Optional `topology.fabric`: what the flat topology fields cannot say, for
// the simulator (sim/). The planner ignores it. Bandwidths in bytes/ms,
// latencies in ms.
struct HostFabricSpec {
  // Per-host overrides of the fabric-wide values (heterogeneous hosts).
  std::optional<double> intra_host_bw;  // each GPU's link to the host fabric
  std::optional<double> nic_bw;         // each NIC's link to the network
  std::optional<int> nics;              // NICs in this host, >= 1
};

struct FabricSpec {
  // NICs per host; 0 means one per GPU (local_world_size).
  int nics_per_host = 0;
  // Bandwidth of one NIC; absent: the host's GPUs share local_world_size ·
  // inter_host_bw equally among its NICs (one NIC per GPU gets inter_host_bw).
  std::optional<double> nic_bw;
  // Host uplink to the network core = nics · nic_bw / oversubscription; >= 1.
  double oversubscription = 1.0;
  // Latency of each GPU <-> host-fabric link (two per GPU-to-GPU path in a host).
  double intra_host_latency_ms = 0.0025;
  // Latency of each network link (GPU-NIC, NIC-switch, switch-core; six per
  // path between hosts).
  double inter_host_latency_ms = 0.002;
  // Empty, or one entry per host.
  std::vector<HostFabricSpec> hosts;
  // GPUs that share one NVLink domain: traffic among them crosses the
  // NVSwitch fabric and never a NIC. 0: one host's GPUs (local_world_size);
  // else a multiple of local_world_size, e.g. 72 for a GB200 NVL72 rack of
  // 18 compute trays of 4 GPUs. The planner's hosts stay local_world_size.
  int nvlink_domain_size = 0;
  // The network's switches reduce (InfiniBand SHARP): NCCL's CollNet
  // all-reduce between domains, and NVLS+SHARP where the GPU has NVLS.
  bool sharp = false;
  // Rail-optimized network (a DGX SuperPOD's): NIC n of every host is on
  // rail n, whose leaf switch joins the rail's NICs of `rail_group_size`
  // hosts (0: every host); traffic between two NICs of one rail and group
  // stays on that leaf, any other crosses the core.
  bool rail_optimized = false;
  int rail_group_size = 0;
  // NCCL's PXN (rail-optimized networks): a message for another rail first
  // crosses NVLink to the GPU of its own host whose NIC is on that rail.
  bool pxn = false;
  // The system preset that filled the topology (topology.system,
  // docs/presets.md "Systems"); empty without one.
  std::string system;
};

// Optional `workload.dense`: the dense architecture of a DLRM-family model
// (docs/scenario-format.md "The dense model"), which the simulator turns into
// per-layer times and DDP gradient buckets (sim/dense_model.h).
enum class InteractionKind { kDot, kDcn, kCat, kNone };

struct InteractionSpec {
  InteractionKind kind = InteractionKind::kDot;
  int layers = 0;                   // dcn: cross layers, >= 1
  std::optional<int64_t> low_rank;  // dcn: rank of each layer's weight; absent: full rank
  bool self_interaction = false;    // dot: also each vector with itself
};

struct DenseSpec {
  int64_t dense_features = 0;       // inputs of the bottom MLP, >= 0
  std::vector<int64_t> bottom_mlp;  // layer widths, each >= 1
  InteractionSpec interaction;
  std::vector<int64_t> top_mlp;  // layer widths, each >= 1
  Precision precision = Precision::kFp32;
  // Optimizer of the dense parameters (its step reads and writes their
  // state); kNone: plain SGD without momentum.
  OptimizerKind optimizer = OptimizerKind::kSgd;
  // Element size of the gradients DDP all-reduces, bytes (fp32 master
  // weights: 4 whatever the compute precision).
  int gradient_bytes = 4;
  // Bias, activation and their gradients run in the GEMMs' epilogues
  // (cuBLASLt, HugeCTR's MLP layers) instead of as separate kernels.
  bool fused_epilogues = false;
  // GPU time between two kernels of the dense model, microseconds (launch
  // gaps of an eager framework; ~0 under CUDA graphs).
  double kernel_overhead_us = 0.0;
};

// PyTorch DDP's default bucket caps (bucket_cap_mb = 25; the first bucket
// 1 MiB, torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES).
inline constexpr int64_t kDefaultDdpBucketBytes = int64_t{25} << 20;
inline constexpr int64_t kDefaultDdpFirstBucketBytes = int64_t{1} << 20;

// The training framework a scenario's iteration runs in (workload.framework):
// which ops the host issues and in what order (docs/host-model.md).
enum class Framework { kTorchRec, kHugeCtr };
std::string_view to_string(Framework f);  // "torchrec", "hugectr"

// The host profile a scenario that names none uses (data/presets/hosts.json).
inline constexpr std::string_view kDefaultHostProfile = "pytorch-eager-2022";

// Optional `workload`: the dense part of the model, for the simulator.
struct WorkloadSpec {
  // Dense forward / backward time per iteration in ms: empty means 0, one
  // value applies to every rank, otherwise one value per rank. With `dense`
  // they override the model's times.
  std::vector<double> dense_fwd_ms;
  std::vector<double> dense_bwd_ms;
  std::optional<DenseSpec> dense;
  // Host-side work per iteration (data loading, launches), ms >= 0: its own
  // phase at the start of every iteration.
  double iteration_overhead_ms = 0.0;
  // DDP gradient bucket caps, bytes >= 1: the first bucket's (the last
  // layers' gradients, ready first) and every other one's.
  int64_t ddp_first_bucket_bytes = kDefaultDdpFirstBucketBytes;
  int64_t ddp_bucket_bytes = kDefaultDdpBucketBytes;
  // The host side (docs/host-model.md): the framework, whether the step runs
  // as CUDA graphs (absent: the framework's default, false for TorchRec, true
  // for HugeCTR), and the host profile's numbers. Without `host` (a scenario
  // built in code) the simulator has no host lane: the GPU never waits for
  // the CPU. The scenario loader fills it (workload.host_profile, else
  // kDefaultHostProfile).
  Framework framework = Framework::kTorchRec;
  std::optional<bool> cuda_graphs;
  std::optional<HostProfile> host;

  bool uses_cuda_graphs() const { return cuda_graphs.value_or(framework == Framework::kHugeCtr); }
};

// Topology fields the file left out (preset or not): a GPU preset fills them;
// a scenario written with a preset, and an edit, keep them implicit.
struct PresetFills {
  bool hbm_cap = false;
  bool ddr_cap = false;
  bool hbm_mem_bw = false;
  bool ddr_mem_bw = false;
  bool hbm_to_ddr_mem_bw = false;
  bool intra_host_bw = false;
  bool inter_host_bw = false;
  bool bwd_compute_multiplier = false;
};

struct Scenario {
  std::string name;
  TopologySpec topology;
  int64_t batch_size = kDefaultBatchSize;  // per-rank, >= 1
  ModuleSpec module;
  std::vector<TableSpec> tables;  // file order, non-empty
  // One entry per table (same index as `tables`); nullopt when the table has
  // no constraint entry.
  std::vector<std::optional<ConstraintSpec>> constraints;
  SharderSpec sharder;
  PlannerSpec planner;
  FabricSpec fabric;      // topology.fabric (defaults when absent)
  WorkloadSpec workload;  // workload (defaults when absent)
  // topology.gpu: the preset's device numbers for the simulator; absent
  // without a preset. `preset_fills`: the topology fields the file left out.
  std::optional<GpuSpec> gpu;
  PresetFills preset_fills;
  // The GPU preset's default calibration profile (docs/presets.md): the cost
  // model parameters used when no calibration is given. Absent without a preset.
  std::optional<CostCalibration> preset_calibration;

  // Index of the table named `name`, or -1.
  int table_index(const std::string& name) const;
  // The planner rules of planner.torchrec_version.
  const TorchRecBehaviour& behaviour() const {
    return torchrec_behaviour(planner.torchrec_version);
  }
  // Whether the scenario says anything of TorchRec 2026-08's SSD tier
  // (topology.ssd_cap or ssd_mem_bw, a key-value or virtual-table kernel,
  // key_value_params, use_virtual_table, total_num_buckets): its outputs
  // then carry the SSD columns TorchRec's do (docs/cost-model.md §13.1).
  bool uses_ssd_tier() const;
};

// TorchRec's default proposer list.
std::vector<ProposerSpec> default_proposers();

}  // namespace shardlab::planner
