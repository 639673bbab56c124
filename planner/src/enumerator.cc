// Enumeration (docs/cost-model.md §2): modules, sharder capabilities, constraint
// filtering and per-option attributes, in TorchRec's order.
#include "enumerator.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "shard_layout.h"
#include "shardlab/planner/estimators.h"

namespace shardlab::planner {
namespace {

using ST = ShardingType;
using CK = ComputeKernel;

// Row bytes of a quantized table (quantized_row): padded to 16 bytes.
int64_t quantized_row_bytes(DataType type, int64_t dim) {
  const QuantizedRow q = quantized_row(type);
  const int64_t unpadded = q.element_bytes * dim / q.cols_per_byte + q.scale_bias;
  return (unpadded + 15) / 16 * 16;
}

ModuleInfo make_module(std::string path, bool weighted, bool pooled, bool quant) {
  ModuleInfo m;
  m.path = std::move(path);
  m.is_weighted = weighted;
  m.is_pooled = pooled;
  m.is_quant = quant;
  const std::string pkg =
      quant ? "torchrec.quant.embedding_modules." : "torchrec.modules.embedding_modules.";
  const std::string cls = pooled ? "EmbeddingBagCollection" : "EmbeddingCollection";
  m.class_key = pkg + cls;
  m.sharder_name = (quant ? "Quant" : "") + cls + "Sharder";
  return m;
}

// Quantized modules regroup their tables by data type, groups in order of
// first appearance, file order within a group.
void regroup_by_data_type(const Scenario& s, std::vector<int>* tables) {
  std::vector<DataType> order;
  for (int t : *tables) {
    if (std::find(order.begin(), order.end(), s.tables[t].data_type) == order.end()) {
      order.push_back(s.tables[t].data_type);
    }
  }
  std::stable_sort(tables->begin(), tables->end(), [&](int a, int b) {
    auto rank = [&](int t) {
      return std::find(order.begin(), order.end(), s.tables[t].data_type) - order.begin();
    };
    return rank(a) < rank(b);
  });
}

struct OptionTemplate {
  std::optional<KeyValueParams> key_value_params;
  bool use_virtual_table = false;
  // A virtual table's buckets (_get_num_buckets): its row-wise layout.
  std::optional<int64_t> num_buckets;
  std::vector<double> input_lengths;
  std::vector<double> num_poolings;
  std::vector<int64_t> batch_sizes;
  bool is_weighted = false;
  std::optional<int64_t> min_partition;
  std::optional<CacheParams> cache_params;
  std::optional<double> cache_load_factor;
  bool prefetch_pipeline = false;
};

OptionTemplate option_template(const Scenario& s, const ModuleInfo& m, int table) {
  OptionTemplate o;
  const auto& c = s.constraints[table];
  o.input_lengths = (c && c->pooling_factors) ? *c->pooling_factors : std::vector<double>{1.0};
  const size_t n = o.input_lengths.size();
  o.num_poolings = (c && c->num_poolings && !c->num_poolings->empty())
                       ? *c->num_poolings
                       : std::vector<double>(n, 1.0);
  o.batch_sizes = (c && c->batch_sizes && !c->batch_sizes->empty())
                      ? *c->batch_sizes
                      : std::vector<int64_t>(n, s.batch_size);
  // EBC-like modules report their own weighting; others read the constraint.
  o.is_weighted = m.is_pooled ? m.is_weighted : (c && c->is_weighted.value_or(false));
  if (c) {
    o.min_partition = c->min_partition;
    o.cache_params = c->cache_params;
    o.key_value_params = c->key_value_params;
    o.use_virtual_table = c->use_virtual_table.value_or(false);
  }
  const TableSpec& spec = s.tables[table];
  if (spec.use_virtual_table) o.num_buckets = spec.total_num_buckets;
  // Cache load factor and prefetch flag precedence (§1.4).
  const bool fused = s.sharder.has_fused_params;
  if (o.cache_params && o.cache_params->load_factor) {
    o.cache_load_factor = o.cache_params->load_factor;
  } else if (fused) {
    o.cache_load_factor = s.sharder.cache_load_factor;
  }
  bool prefetch = o.cache_params && o.cache_params->prefetch_pipeline.value_or(false);
  if (!prefetch && fused) prefetch = s.sharder.prefetch_pipeline.value_or(false);
  o.prefetch_pipeline = prefetch;
  return o;
}

// The checks calculate_shard_sizes_and_offsets makes of a bucketed row-wise
// layout, as planning errors of type other carrying TorchRec's exception.
Status check_buckets(int64_t rows, int64_t buckets, int world_size) {
  if (buckets < world_size) {
    return Status::planner(PlannerErrorType::kOther,
                           "ValueError: Number of buckets (" + std::to_string(buckets) +
                               ") must be >= the number of ranks (" + std::to_string(world_size) +
                               "): a bucket cannot be split across ranks. Increase "
                               "total_num_buckets or reduce world_size.");
  }
  if (rows % buckets != 0) {
    return Status::planner(PlannerErrorType::kOther,
                           "AssertionError: hash_size must be divisible by num_buckets (" +
                               std::to_string(rows) + " rows, " + std::to_string(buckets) +
                               " buckets)");
  }
  return Status::ok();
}

PartitionBy partition_by(ShardingType t) {
  switch (t) {
    case ST::kTableWise:
    case ST::kColumnWise:
      return PartitionBy::kDevice;
    case ST::kTableRowWise:
    case ST::kTableColumnWise:
      return PartitionBy::kHost;
    case ST::kGridShard:
      return PartitionBy::kMultiHost;
    case ST::kRowWise:
    case ST::kDataParallel:
      return PartitionBy::kUniform;
  }
  return PartitionBy::kUniform;
}

}  // namespace

EstimatorContext estimator_context(const Scenario& s, const Topology& t) {
  EstimatorContext ctx;
  ctx.topology = &t;
  ctx.behaviour = &s.behaviour();
  ctx.is_inference = s.planner.is_inference;
  ctx.quant_sharder = s.planner.is_inference;
  // Quant sharders carry no codec registry and no optimizer survives
  // quantization; fp32 both ways means no registry at all.
  const bool fp32_only = s.sharder.qcomm_forward == CommPrecision::kFp32 &&
                         s.sharder.qcomm_backward == CommPrecision::kFp32;
  if (!s.planner.is_inference && !fp32_only) {
    ctx.qcomm_forward = s.sharder.qcomm_forward;
    ctx.qcomm_backward = s.sharder.qcomm_backward;
  }
  ctx.optimizer = s.planner.is_inference ? OptimizerKind::kNone : s.sharder.optimizer;
  // fused_params.get("cache_load_factor", KV_CACHING_RATIO): an explicit 0 is kept.
  if (s.sharder.has_fused_params && s.sharder.cache_load_factor)
    ctx.kv_cache_load_factor = *s.sharder.cache_load_factor;
  return ctx;
}

std::vector<ModuleInfo> build_modules(const Scenario& s) {
  const bool quant = s.planner.is_inference;
  std::vector<ModuleInfo> modules;
  if (s.module.kind == ModuleKind::kEmbeddingCollection) {
    ModuleInfo ec = make_module("ec", false, false, quant);
    for (int t = 0; t < static_cast<int>(s.tables.size()); ++t) ec.tables.push_back(t);
    modules.push_back(std::move(ec));
  } else {
    ModuleInfo ebc = make_module("ebc", false, true, quant);
    ModuleInfo webc = make_module("weighted_ebc", true, true, quant);
    for (int t = 0; t < static_cast<int>(s.tables.size()); ++t) {
      (s.tables[t].is_weighted ? webc : ebc).tables.push_back(t);
    }
    if (!ebc.tables.empty()) modules.push_back(std::move(ebc));
    if (!webc.tables.empty()) modules.push_back(std::move(webc));
  }
  if (quant) {
    for (auto& m : modules) regroup_by_data_type(s, &m.tables);
  }
  return modules;
}

std::span<const ShardingType> sharder_sharding_types(const ModuleInfo& m, ComputeDevice device,
                                                     const TorchRecBehaviour& behaviour) {
  static constexpr ShardingType kQuant[] = {ST::kTableWise, ST::kRowWise, ST::kColumnWise};
  static constexpr ShardingType kSequence[] = {ST::kDataParallel, ST::kTableWise, ST::kColumnWise,
                                               ST::kRowWise};
  // GRID_SHARD is offered only to tables whose constraint names it
  // (for_each_option_kind), which 2024-02 refuses.
  static constexpr ShardingType kCuda[] = {ST::kDataParallel,    ST::kTableWise, ST::kColumnWise,
                                           ST::kTableColumnWise, ST::kRowWise,   ST::kTableRowWise,
                                           ST::kGridShard};
  static constexpr ShardingType kCpu[] = {ST::kDataParallel, ST::kTableWise, ST::kColumnWise,
                                          ST::kTableColumnWise};
  static constexpr ShardingType kMtia[] = {ST::kTableWise};
  static constexpr ShardingType kMtiaModelParallel[] = {ST::kTableWise,       ST::kColumnWise,
                                                        ST::kTableColumnWise, ST::kRowWise,
                                                        ST::kTableRowWise,    ST::kGridShard};
  if (m.is_quant) return kQuant;
  if (!m.is_pooled) return kSequence;
  switch (device) {
    case ComputeDevice::kCuda:
      return kCuda;
    case ComputeDevice::kCpu:
      return kCpu;
    case ComputeDevice::kMtia:
      if (behaviour.mtia_offers_model_parallel_types) return kMtiaModelParallel;
      return kMtia;
  }
  return {};
}

std::span<const ComputeKernel> sharder_compute_kernels(const ModuleInfo& m, ShardingType type,
                                                       ComputeDevice device) {
  static constexpr ComputeKernel kQuantCuda[] = {CK::kQuant, CK::kQuantUvm, CK::kQuantUvmCaching};
  static constexpr ComputeKernel kQuant[] = {CK::kQuant};
  static constexpr ComputeKernel kDense[] = {CK::kDense};
  // The guarded kernels (key-value, virtual tables) only reach a table whose
  // constraint names them (for_each_option_kind), which 2024-02 refuses.
  static constexpr ComputeKernel kFusedCuda[] = {
      CK::kFused,           CK::kFusedUvm,         CK::kFusedUvmCaching,    CK::kKeyValue,
      CK::kSsdVirtualTable, CK::kDramVirtualTable, CK::kDramSsdVirtualTable};
  static constexpr ComputeKernel kFused[] = {CK::kFused};
  if (m.is_quant)
    return device == ComputeDevice::kCuda ? std::span<const ComputeKernel>(kQuantCuda) : kQuant;
  if (type == ST::kDataParallel) return kDense;
  if (device == ComputeDevice::kCuda) return kFusedCuda;
  return kFused;
}

namespace {

// Whether `v` survives a constraint list: an absent or empty list keeps the
// sharder's every value; otherwise the sharder's values that are listed, in
// the sharder's order (the deterministic form of TorchRec's set
// intersection, docs/cost-model.md §2.5).
template <typename T>
bool listed(const T& v, const std::optional<std::vector<T>>& wanted) {
  return !wanted || wanted->empty() ||
         std::find(wanted->begin(), wanted->end(), v) != wanted->end();
}

// Whether some device has SSD (EmbeddingEnumerator._has_ssd): key_value is
// offered only then.
bool has_ssd(const Topology& topo) {
  return std::any_of(topo.devices.begin(), topo.devices.end(),
                     [](const Device& d) { return d.storage.ssd > 0; });
}

// The (sharding type, kernel) pairs enumerate_options builds for table `t`
// of module `m`, in its order: the sharder's lists filtered by the
// constraint, dense dropped where fused is offered too, the guarded kernels
// only where the constraint names them (key_value only with an SSD).
template <typename F>
void for_each_option_kind(const Scenario& s, const Topology& topo, const ModuleInfo& m, int t,
                          F&& f) {
  const auto& c = s.constraints[t];
  static const std::optional<std::vector<ShardingType>> kNoTypes;
  static const std::optional<std::vector<ComputeKernel>> kNoKernels;
  const auto& wanted_types = c ? c->sharding_types : kNoTypes;
  const auto& wanted_kernels = c ? c->compute_kernels : kNoKernels;
  const bool types_named = wanted_types && !wanted_types->empty();
  const bool kernels_named = wanted_kernels && !wanted_kernels->empty();
  const bool ssd = has_ssd(topo);
  for (ShardingType type : sharder_sharding_types(m, topo.compute_device, s.behaviour())) {
    if (!listed(type, wanted_types)) continue;
    // GRID_SHARD only where the constraint names it (_filter_sharding_types).
    if (type == ST::kGridShard && !types_named) continue;
    const std::span<const ComputeKernel> kernels =
        sharder_compute_kernels(m, type, topo.compute_device);
    bool fused = false;
    for (ComputeKernel k : kernels) fused = fused || (k == CK::kFused && listed(k, wanted_kernels));
    for (ComputeKernel kernel : kernels) {
      if (!listed(kernel, wanted_kernels) || (kernel == CK::kDense && fused)) continue;
      if (is_guarded(kernel) && (!kernels_named || (kernel == CK::kKeyValue && !ssd))) continue;
      f(type, kernel);
    }
  }
}

// Columns the enumerator gives table `table` (quantized rows are wider).
int64_t tensor_cols(const TableSpec& table, bool quant) {
  if (!quant) return table.embedding_dim;
  return quantized_row_bytes(table.data_type, table.embedding_dim) *
         quantized_row(table.data_type).cols_per_byte;
}

}  // namespace

EnumerationSize enumeration_size(const Scenario& s, const Topology& topo,
                                 const std::vector<ModuleInfo>& modules) {
  EnumerationSize size;
  for (const ModuleInfo& m : modules) {
    for (int t : m.tables) {
      const auto& c = s.constraints[t];
      const int64_t inputs =
          (c && c->pooling_factors) ? static_cast<int64_t>(c->pooling_factors->size()) : 1;
      const int64_t cols = tensor_cols(s.tables[t], m.is_quant);
      const int64_t cw_shards = cols / column_wise_block(cols, c ? c->min_partition : std::nullopt);
      int64_t most_shards = 0;
      for_each_option_kind(s, topo, m, t, [&](ShardingType type, ComputeKernel) {
        // Runs: a row split is at most three (full blocks, the short block,
        // the empty shards), a grid three per column block.
        int64_t shards = 1;
        int64_t runs = 1;
        switch (type) {
          case ST::kDataParallel:
            shards = topo.world_size;
            break;
          case ST::kRowWise:
            shards = topo.world_size;
            runs = 3;
            break;
          case ST::kTableRowWise:
            shards = topo.intra_group_size;
            runs = 3;
            break;
          case ST::kGridShard:
            shards = cw_shards * topo.intra_group_size;
            runs = 3 * cw_shards;
            break;
          case ST::kColumnWise:
          case ST::kTableColumnWise:
            shards = cw_shards;
            break;
          case ST::kTableWise:
            shards = 1;
            break;
        }
        ++size.options;
        size.shards += shards;
        size.shard_runs += std::min(shards, runs);
        size.inputs += inputs;
        most_shards = std::max(most_shards, shards);
      });
      size.plan_shards += most_shards;
    }
  }
  return size;
}

OptionEstimator::OptionEstimator(const Scenario& scenario, const Topology& topology,
                                 const CostCalibration* calibration)
    : ctx_(estimator_context(scenario, topology)) {
  // A GPU preset's default profile stands in when none is given.
  ctx_.calibration = calibration != nullptr        ? calibration
                     : scenario.preset_calibration ? &*scenario.preset_calibration
                                                   : nullptr;
}

Status OptionEstimator::estimate(ShardingOption* option) const {
  if (Status st = estimate_perf(ctx_, option); !st) return st;
  estimate_storage(ctx_, option);
  return Status::ok();
}

Result<SearchSpace> enumerate_options(const Scenario& s, const Topology& topo,
                                      std::vector<ModuleInfo> modules,
                                      const CostCalibration* calibration) {
  SearchSpace space;
  space.modules = std::move(modules);
  const OptionEstimator estimator(s, topo, calibration);

  // TorchRec walks the module tree with a stack, so sibling modules are
  // visited last-declared first (docs/cost-model.md O2): weighted_ebc before ebc.
  for (int mi = static_cast<int>(space.modules.size()) - 1; mi >= 0; --mi) {
    const ModuleInfo& m = space.modules[mi];
    for (int t : m.tables) {
      const TableSpec& table = s.tables[t];
      const OptionTemplate tmpl = option_template(s, m, t);

      const int64_t rows = table.num_embeddings;
      const int64_t cols = tensor_cols(table, m.is_quant);
      int element_size = table.data_type == DataType::kFp32 ? 4 : 2;  // training: fp32 or fp16
      int64_t bytes = rows * cols * element_size;
      if (m.is_quant) {
        element_size = 1;
        bytes = rows * quantized_row_bytes(table.data_type, table.embedding_dim);
      }

      const size_t before = space.options.size();
      Status status;
      for_each_option_kind(s, topo, m, t, [&](ShardingType type, ComputeKernel kernel) {
        if (!status) return;
        ShardingOption o;
        o.table = t;
        o.module = mi;
        o.name = table.name;
        o.fqn = m.path + "." + table.name;
        o.sharding_type = type;
        o.compute_kernel = kernel;
        o.partition_by = partition_by(type);
        o.is_pooled = m.is_pooled;
        o.is_weighted = tmpl.is_weighted;
        o.tensor_rows = rows;
        o.tensor_cols = cols;
        o.element_size = element_size;
        o.tensor_bytes = bytes;
        o.input_lengths = tmpl.input_lengths;
        o.num_poolings = tmpl.num_poolings;
        o.batch_sizes = tmpl.batch_sizes;
        o.col_wise_shard_dim = tmpl.min_partition;
        o.cache_params = tmpl.cache_params;
        o.cache_load_factor = tmpl.cache_load_factor;
        o.prefetch_pipeline = tmpl.prefetch_pipeline;
        o.key_value_params = tmpl.key_value_params;
        o.use_virtual_table = tmpl.use_virtual_table;
        const std::optional<int64_t> buckets =
            type == ST::kRowWise ? tmpl.num_buckets : std::nullopt;
        if (buckets) {
          status = check_buckets(rows, *buckets, topo.world_size);
          if (!status) return;
        }
        o.shards = make_shards(type, rows, cols, topo.world_size, topo.intra_group_size,
                               tmpl.min_partition, buckets);
        status = estimator.estimate(&o);
        if (!status) return;
        space.options.push_back(std::move(o));
      });
      if (!status) return status;
      if (space.options.size() == before) {
        return Status::planner(
            PlannerErrorType::kNoOptions,
            "No available sharding type and compute kernel combination after applying user "
            "provided "
            "constraints for " +
                table.name + ". Module: " + m.class_key + ", sharder: " + m.sharder_name +
                ", compute device: " + std::string(to_string(topo.compute_device)) +
                ". To debug, search above for warning logs about no available sharding "
                "types/compute "
                "kernels for table: " +
                table.name);
      }
    }
  }

  // fqn grouping, in order of first appearance.
  std::unordered_map<std::string, int> fqn_index;
  space.fqn_of_option.reserve(space.options.size());
  for (int i = 0; i < static_cast<int>(space.options.size()); ++i) {
    auto [it, inserted] =
        fqn_index.emplace(space.options[i].fqn, static_cast<int>(space.fqns.size()));
    if (inserted) {
      space.fqns.push_back(space.options[i].fqn);
      space.options_by_fqn.emplace_back();
    }
    space.options_by_fqn[it->second].push_back(i);
    space.fqn_of_option.push_back(it->second);
  }
  return space;
}

}  // namespace shardlab::planner
