// Sharding options, the search space, proposals and partitioned plans.
//
// A ShardingOption is one (table, sharding type, compute kernel) choice with its
// shards, each carrying TorchRec's perf and storage estimates. The SearchSpace is
// every option of every table in TorchRec's enumeration order; that order is the
// tie-breaker everywhere downstream (stable sorts keep it).
//
// Proposals and plans refer to options by index into the search space, so the
// proposal loop never copies options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/shard_list.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

// A module of the scenario as TorchRec would build it (docs/cost-model.md §2.7,
// "Modules built from a scenario").
struct ModuleInfo {
  std::string path;          // "ebc", "weighted_ebc" or "ec"
  std::string class_key;     // e.g. "torchrec.modules.embedding_modules.EmbeddingBagCollection"
  std::string sharder_name;  // e.g. "EmbeddingBagCollectionSharder"
  bool is_weighted = false;  // module-level is_weighted() (EBC family)
  bool is_pooled = true;     // false for embedding collections
  bool is_quant = false;     // inference (quantized) module
  std::vector<int> tables;   // indices into Scenario::tables, in the sharder's order
};

struct ShardingOption {
  int table = -1;    // index into Scenario::tables
  int module = -1;   // index into the module list
  std::string name;  // table name
  std::string fqn;   // "<module path>.<table name>"
  ShardingType sharding_type = ShardingType::kTableWise;
  ComputeKernel compute_kernel = ComputeKernel::kFused;
  PartitionBy partition_by = PartitionBy::kDevice;
  bool is_pooled = true;
  bool is_weighted = false;

  // The tensor the planner sees (after quantization in inference).
  int64_t tensor_rows = 0;
  int64_t tensor_cols = 0;
  int element_size = 4;
  int64_t tensor_bytes = 0;  // rows·cols·element_size; rows·row_bytes for quantized tables

  std::vector<double> input_lengths;  // pooling factors, one per input
  std::vector<double> num_poolings;   // same length
  std::vector<int64_t> batch_sizes;   // same length

  std::optional<int64_t> col_wise_shard_dim;  // constraint min_partition
  std::optional<CacheParams> cache_params;    // constraint cache_params, passed through
  std::optional<double> cache_load_factor;    // c_opt of docs/cost-model.md §1.4 (raw)
  bool prefetch_pipeline = false;             // p of docs/cost-model.md §1.4
  // The constraint's key_value_params and use_virtual_table (2026-08):
  // the key-value storage formula's L1 cache size, carried to the plan.
  std::optional<KeyValueParams> key_value_params;
  bool use_virtual_table = false;

  // A table split by rows as HugeCTR's embedding collection splits it, over
  // any ranks (hugectr_layout.h), not a layout TorchRec builds.
  bool hugectr_rows = false;

  // Every shard of an option has the same perf: TorchRec's formulas depend on
  // the shard's column count only (and all shards of an option have equal
  // widths), never on its rows. Stored once.
  Perf shard_perf;
  // Stored as runs (shard_list.h): a row-wise option over W ranks costs a
  // few runs, not W shards.
  ShardList shards;

  double total_perf = 0.0;  // running sum of shard_perf.total() over shards
  Storage total_storage;    // component-wise sum of shard storages

  int num_shards() const { return static_cast<int>(shards.size()); }
};

struct SearchSpace {
  std::vector<ModuleInfo> modules;  // declaration order
  // Enumeration order. A proposer may append options of its own before the
  // proposal loop (2026-08's scale-up proposer turns cached tables into fused
  // ones): the last `num_derived` options, which are in no options_by_fqn
  // list but have an fqn_of_option entry.
  std::vector<ShardingOption> options;
  size_t num_derived = 0;
  // options[0, num_enumerated()) are the enumerator's.
  size_t num_enumerated() const { return options.size() - num_derived; }
  // fqns in order of first appearance in `options`.
  std::vector<std::string> fqns;
  // options_by_fqn[f]: indices into `options` of fqn f, in enumeration order.
  std::vector<std::vector<int>> options_by_fqn;
  // fqn position of each option.
  std::vector<int> fqn_of_option;
};

// One option index per fqn, in fqn order (proposal[f] is an option of fqn f).
using Proposal = std::vector<int>;

// A proposal with a rank for every shard.
struct PartitionedPlan {
  Proposal proposal;
  // Rank of each shard, options concatenated in proposal order, shards in
  // shard order. -1 means unplaced.
  std::vector<int> ranks;
  // ranks[first_shard[i] .. first_shard[i+1]) belong to proposal[i]; size n+1.
  std::vector<int> first_shard;
};

// Builds first_shard for `proposal` and sizes `ranks` (all -1).
void init_partitioned_plan(const SearchSpace& space, const Proposal& proposal,
                           PartitionedPlan* plan);

// As init_partitioned_plan, but leaves the content of `ranks` unspecified
// (for a caller that writes every rank).
void layout_partitioned_plan(const SearchSpace& space, const Proposal& proposal,
                             PartitionedPlan* plan);

}  // namespace shardlab::planner
