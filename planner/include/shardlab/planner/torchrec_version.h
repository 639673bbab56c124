// Which TorchRec the planner reproduces (docs/torchrec-versions.md).
//
// ShardLab models two versions of TorchRec's planner: the one the project
// started from (commit fe1c2824, February 2024) and today's (commit 376cac6a,
// August 2026). They share almost everything; what differs is listed in
// TorchRecBehaviour, one field per difference, and each field is read in one
// place of the planner. A scenario picks the version with
// `planner.torchrec_version` (docs/scenario-format.md); the newest is the
// default.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardlab::planner {

enum class TorchRecVersion { k2024_02, k2026_08 };

inline constexpr TorchRecVersion kLatestTorchRecVersion = TorchRecVersion::k2026_08;

// "2024-02", "2026-08": the name scenarios, the CLI and the run store use.
std::string_view to_string(TorchRecVersion v);
// The TorchRec commit the version reproduces: "fe1c2824", "376cac6a".
std::string_view torchrec_commit(TorchRecVersion v);
std::optional<TorchRecVersion> parse_torchrec_version(std::string_view s);
// Every version, oldest first.
const std::vector<TorchRecVersion>& all_torchrec_versions();
// "2024-02, 2026-08": for messages and --help.
std::string_view torchrec_version_names();
// "2026-08 (commit 376cac6a)": how front ends name the model that planned.
std::string model_name(TorchRecVersion v);

// Which EmbeddingStats printout the version logs.
enum class StatsLayout {
  k2024,  // rank table, parameter table, "Compute Kernels", "Usable Memory"
  k2026,  // adds the per-kernel memory, imbalance statistics, HBM distribution
          // and "Reserved/Planning Memory" sections, and an SSD column
};

// The modelled differences between the versions. Each field names the TorchRec
// behaviour it reproduces; true (or the later enumerator) is 2026-08's rule.
struct TorchRecBehaviour {
  TorchRecVersion version = kLatestTorchRecVersion;

  // --- Topology ---------------------------------------------------------
  // Topology(hbm_cap=..., ddr_cap=...) keeps an explicit 0 (`x if x is not
  // None`); 2024 replaced 0 by 32 GiB / 128 GiB (`x if x`).
  bool explicit_zero_capacity_kept = true;
  // MTIA devices have HBM (hbm_cap, 32 GiB by default): training tables, I/O
  // buffers and the dense and KJT reservations live there, and kernels run at
  // HBM bandwidth (Topology, compute_storage_usage, kernel_bw_lookup,
  // storage_reservations.py). 2024: MTIA had no HBM and used DDR bandwidth.
  bool mtia_has_hbm = true;
  // Topology(pod_size): table-row-wise, table-column-wise (and grid) shards
  // are laid out and placed over groups of intra_group_size = pod_size x
  // local_world_size ranks, and table-row-wise's batch divisor, group count
  // and intra-group bandwidth follow them (TableRowWiseEvaluator,
  // GreedyPerfPartitioner._get_host_level_devices, EmbeddingStats.log).
  // 2024 had no pods: topology.pod_size is refused.
  bool pods = true;

  // Topology(ssd_cap, ssd_mem_bw) and Storage.ssd: every device has an SSD
  // tier (2 TiB by default) and every fit checks it; the key_value and
  // virtual-table kernels (offered only when a constraint names them,
  // key_value only when some device has SSD), their storage
  // (calculate_shard_storages: an L1 cache sized from the whole table, the
  // weights on SSD for key_value) and bandwidths (kernel_bw_lookup),
  // key_value column-wise shards on distinct ranks
  // (_column_wise_device_partition), use_virtual_table and bucketed
  // row-wise layouts. 2024 had none of them: their keys are refused.
  bool ssd_tier = true;

  // --- Enumeration ------------------------------------------------------
  // BaseEmbeddingSharder.sharding_types("mtia") offers table-wise,
  // column-wise, table-column-wise, row-wise and table-row-wise (TorchRec PR
  // #2789); 2024 offered table-wise only.
  bool mtia_offers_model_parallel_types = true;

  // ShardingType.GRID_SHARD, offered by the embedding-bag sharder on cuda
  // and mtia when a constraint names it, partitioned over whole groups
  // (_multi_hosts_partition). 2024 had no grid: a constraint naming
  // grid_shard is refused.
  bool grid_shard = true;

  // --- Perf estimator ---------------------------------------------------
  // kernel_bw_lookup costs fused_uvm and quant_uvm at hbm_to_ddr_mem_bw / 10
  // and the host share of the *_uvm_caching kernels at hbm_to_ddr_mem_bw
  // (TorchRec PR #2589); 2024 used ddr_mem_bw.
  bool uvm_over_hbm_to_ddr_link = true;
  // kernel_bw_lookup replaces only a missing cache load factor by 0.2
  // (`is not None`); 2024 also replaced 0.
  bool zero_load_factor_kept_in_perf = true;
  // Inference evaluators drop backward compute and comms for every sharding
  // type (estimator.py INFERENCE_EVALUATORS, TorchRec PRs #2019, #3739);
  // 2024 dropped them for table-wise, column-wise and table-column-wise only.
  bool no_backward_in_inference = true;
  // Table-row-wise communication in two levels (TableRowWiseEvaluator,
  // TorchRec PRs #2905, #3997): forward reduce-scatter in the host plus an
  // all-to-all of S·hosts·d across hosts; backward an all-to-all across
  // hosts, an all-gather in the host and a batched copy. 2024: the forward
  // inter-host term was (S·W·d)·(Lw/W), and backward had no inter-host term.
  bool twrw_two_level_comms = true;
  // A pooled output counts min(1, pooling factor) per sample
  // (ShardPerfContext.batch_outputs, _calculate_*_shard_io_sizes): perf
  // output terms and the output buffer storage. 2024 counted 1 per sample.
  bool pooled_output_capped_by_pooling_factor = true;

  // --- Storage estimator ------------------------------------------------
  // UVM-caching kernels add the cache's auxiliary state to HBM:
  // ceil(shard rows · (4 + 16 · load factor)) bytes per shard
  // (_calculate_cache_aux_state_sizes, TorchRec PR #2380).
  bool cache_aux_state_in_hbm = true;

  // --- Storage reservation ---------------------------------------------
  // FixedPercentageStorageReservation estimates the KJT storage (20 copies)
  // without reserving it; EmbeddingStats adds it to each rank's HBM.
  bool fixed_percentage_estimates_kjt = true;

  // --- Proposers --------------------------------------------------------
  // EmbeddingOffloadScaleupProposer.load starts from each table's first
  // fused_uvm_caching option (else its best option), turns a cached table
  // into fused when that needs less HBM
  // (promote_high_prefetch_overheaad_table_to_hbm) and asserts that every
  // such table has cache_params; the planner loads every proposer before the
  // first proposal. 2024 started from each table's best option.
  bool scaleup_starts_from_caching_options = true;

  // DynamicProgrammingProposer exists (a knapsack over HBM bins; not in the
  // default list). 2024 had none: the proposer is refused.
  bool dynamic_programming_proposer = true;

  // --- Partitioner ------------------------------------------------------
  // MemoryBalancedPartitioner searches per-device HBM between
  // max(average shard HBM per rank, largest shard) and the default plan's
  // largest rank HBM; 2024 searched between the average and the reserved
  // device capacity.
  bool memory_balanced_bounds_from_default_plan = true;

  // --- Stats ------------------------------------------------------------
  StatsLayout stats_layout = StatsLayout::k2026;
};

// The behaviour of `version` (a static object).
const TorchRecBehaviour& torchrec_behaviour(TorchRecVersion version);

}  // namespace shardlab::planner
