// Enumeration (planner-model.md §2): modules, sharder capabilities, constraint
// filtering and per-option attributes, in TorchRec's order.
#include "shardlab/planner/enumerator.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "shardlab/planner/estimators.h"
#include "shardlab/planner/shard_layout.h"

namespace shardlab::planner {
namespace {

using ST = ShardingType;
using CK = ComputeKernel;

// Row bytes of a quantized table: FBGEMM pads rows to 16 bytes; integer
// types add an fp16 scale and bias (4 bytes). bf16 is refused by the loader.
int64_t quantized_row_bytes(DataType type, int64_t dim) {
  int64_t unpadded = 0;
  switch (type) {
    case DataType::kFp32: unpadded = 4 * dim; break;
    case DataType::kFp16:
    case DataType::kBf16: unpadded = 2 * dim; break;
    case DataType::kInt8: unpadded = dim + 4; break;
    case DataType::kInt4: unpadded = dim / 2 + 4; break;
    case DataType::kInt2: unpadded = dim / 4 + 4; break;
  }
  return (unpadded + 15) / 16 * 16;
}

ModuleInfo make_module(std::string path, bool weighted, bool pooled, bool quant) {
  ModuleInfo m;
  m.path = std::move(path);
  m.is_weighted = weighted;
  m.is_pooled = pooled;
  m.is_quant = quant;
  const std::string pkg = quant ? "torchrec.quant.embedding_modules." : "torchrec.modules.embedding_modules.";
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
    auto rank = [&](int t) { return std::find(order.begin(), order.end(), s.tables[t].data_type) - order.begin(); };
    return rank(a) < rank(b);
  });
}

template <typename T>
std::vector<T> keep_listed(const std::vector<T>& allowed, const std::optional<std::vector<T>>& wanted) {
  // An absent or empty constraint list keeps the sharder's list. Otherwise
  // keep the sharder's order (the deterministic form of TorchRec's set
  // intersection, planner-model.md §2.5).
  if (!wanted || wanted->empty()) return allowed;
  std::vector<T> out;
  for (const T& v : allowed) {
    if (std::find(wanted->begin(), wanted->end(), v) != wanted->end()) out.push_back(v);
  }
  return out;
}

struct OptionTemplate {
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
  o.num_poolings = (c && c->num_poolings && !c->num_poolings->empty()) ? *c->num_poolings
                                                                        : std::vector<double>(n, 1.0);
  o.batch_sizes = (c && c->batch_sizes && !c->batch_sizes->empty()) ? *c->batch_sizes
                                                                     : std::vector<int64_t>(n, s.batch_size);
  // EBC-like modules report their own weighting; others read the constraint.
  o.is_weighted = m.is_pooled ? m.is_weighted : (c && c->is_weighted.value_or(false));
  if (c) {
    o.min_partition = c->min_partition;
    o.cache_params = c->cache_params;
  }
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

PartitionBy partition_by(ShardingType t) {
  switch (t) {
    case ST::kTableWise:
    case ST::kColumnWise: return PartitionBy::kDevice;
    case ST::kTableRowWise:
    case ST::kTableColumnWise: return PartitionBy::kHost;
    case ST::kRowWise:
    case ST::kDataParallel: return PartitionBy::kUniform;
  }
  return PartitionBy::kUniform;
}

}  // namespace

EstimatorContext estimator_context(const Scenario& s, const Topology& t) {
  EstimatorContext ctx;
  ctx.topology = &t;
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

std::vector<ShardingType> sharder_sharding_types(const ModuleInfo& m, ComputeDevice device) {
  if (m.is_quant) return {ST::kTableWise, ST::kRowWise, ST::kColumnWise};
  if (!m.is_pooled) return {ST::kDataParallel, ST::kTableWise, ST::kColumnWise, ST::kRowWise};
  switch (device) {
    case ComputeDevice::kCuda:
      return {ST::kDataParallel, ST::kTableWise, ST::kColumnWise, ST::kTableColumnWise, ST::kRowWise, ST::kTableRowWise};
    case ComputeDevice::kCpu:
      return {ST::kDataParallel, ST::kTableWise, ST::kColumnWise, ST::kTableColumnWise};
    case ComputeDevice::kMtia:
      return {ST::kTableWise};
  }
  return {};
}

std::vector<ComputeKernel> sharder_compute_kernels(const ModuleInfo& m, ShardingType type, ComputeDevice device) {
  if (m.is_quant) {
    if (device == ComputeDevice::kCuda) return {CK::kQuant, CK::kQuantUvm, CK::kQuantUvmCaching};
    return {CK::kQuant};
  }
  if (type == ST::kDataParallel) return {CK::kDense};
  if (device == ComputeDevice::kCuda) return {CK::kFused, CK::kFusedUvm, CK::kFusedUvmCaching};
  return {CK::kFused};
}

Result<SearchSpace> enumerate_options(const Scenario& s, const Topology& topo, std::vector<ModuleInfo> modules,
                                      const CostCalibration* calibration) {
  SearchSpace space;
  space.modules = std::move(modules);
  EstimatorContext ctx = estimator_context(s, topo);
  // A GPU preset's default profile stands in when none is given.
  ctx.calibration = calibration != nullptr ? calibration
                    : s.preset_calibration ? &*s.preset_calibration
                                           : nullptr;

  // TorchRec walks the module tree with a stack, so sibling modules are
  // visited last-declared first (ODD-2): weighted_ebc before ebc.
  for (int mi = static_cast<int>(space.modules.size()) - 1; mi >= 0; --mi) {
    const ModuleInfo& m = space.modules[mi];
    for (int t : m.tables) {
      const TableSpec& table = s.tables[t];
      const auto& c = s.constraints[t];
      const OptionTemplate tmpl = option_template(s, m, t);

      int64_t rows = table.num_embeddings;
      int64_t cols = table.embedding_dim;
      int element_size = table.data_type == DataType::kFp32 ? 4 : 2;  // training: fp32 or fp16
      int64_t bytes = rows * cols * element_size;
      if (m.is_quant) {
        const int64_t w = quantized_row_bytes(table.data_type, table.embedding_dim);
        cols = table.data_type == DataType::kInt4 ? 2 * w : (table.data_type == DataType::kInt2 ? 4 * w : w);
        element_size = 1;
        bytes = rows * w;
      }

      const size_t before = space.options.size();
      const auto types = keep_listed(sharder_sharding_types(m, topo.compute_device),
                                     c ? c->sharding_types : std::nullopt);
      for (ShardingType type : types) {
        auto kernels = keep_listed(sharder_compute_kernels(m, type, topo.compute_device),
                                   c ? c->compute_kernels : std::nullopt);
        if (std::find(kernels.begin(), kernels.end(), CK::kDense) != kernels.end() &&
            std::find(kernels.begin(), kernels.end(), CK::kFused) != kernels.end()) {
          kernels.erase(std::find(kernels.begin(), kernels.end(), CK::kDense));
        }
        for (ComputeKernel kernel : kernels) {
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
          o.shards = make_shards(type, rows, cols, topo.world_size, topo.local_world_size, tmpl.min_partition);
          if (Status st = estimate_perf(ctx, &o); !st) return st;
          estimate_storage(ctx, &o);
          space.options.push_back(std::move(o));
        }
      }
      if (space.options.size() == before) {
        return Status::planner(
            PlannerErrorType::kNoOptions,
            "No available sharding type and compute kernel combination after applying user provided "
            "constraints for " + table.name + ". Module: " + m.class_key + ", sharder: " + m.sharder_name +
                ", compute device: " + std::string(to_string(topo.compute_device)) +
                ". To debug, search above for warning logs about no available sharding types/compute "
                "kernels for table: " + table.name);
      }
    }
  }

  // fqn grouping, in order of first appearance.
  std::unordered_map<std::string, int> fqn_index;
  space.fqn_of_option.reserve(space.options.size());
  for (int i = 0; i < static_cast<int>(space.options.size()); ++i) {
    auto [it, inserted] = fqn_index.emplace(space.options[i].fqn, static_cast<int>(space.fqns.size()));
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
