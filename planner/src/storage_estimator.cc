// TorchRec's per-shard storage model (docs/cost-model.md §5).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "saturating.h"
#include "shardlab/planner/estimators.h"

namespace shardlab::planner {
namespace {

__extension__ using int128 = __int128;  // GCC/Clang builtin; -Wpedantic would flag it

// ceil of the correctly rounded double nearest to num / den, for num >= 0,
// den > 0: Python's math.ceil(int / int) (§5.4, docs/cost-model.md O19). The quotient of two
// integers is rounded once to a double before the ceiling, so a tiny
// remainder can vanish.
int64_t ceil_of_rounded_quotient(int128 num, int128 den) {
  const int128 q = num / den;
  const int128 rem = num % den;
  if (rem == 0) return static_cast<int64_t>(q);
  constexpr int128 kTwo53 = int128{1} << 53;
  if (q < kTwo53) {
    if (q == 0) return 1;  // a positive fraction never rounds to 0
    // ulp(q) = 2^(e-52) for q in [2^e, 2^(e+1)). q + rem/den rounds to q iff
    // rem/den < ulp/2, or == ulp/2 and q is even (ties to even).
    int e = 0;
    while ((int128{1} << (e + 1)) <= q) ++e;
    const int half_ulp_exp = e - 53;  // ulp/2 = 2^(e-53), negative here
    // Compare rem/den with 2^half_ulp_exp  <=>  rem * 2^(-half_ulp_exp) with den.
    const int shift = -half_ulp_exp;
    const int128 lhs = rem << shift;  // rem < den < 2^63, shift <= 53: fits
    if (lhs < den) return static_cast<int64_t>(q);
    if (lhs == den && (q % 2 == 0)) return static_cast<int64_t>(q);
    return static_cast<int64_t>(q + 1);
  }
  // Beyond 2^53 bytes per shard; not reachable by real tables.
  const long double v = static_cast<long double>(num) / static_cast<long double>(den);
  return static_cast<int64_t>(std::ceil(static_cast<double>(v)));
}

double optimizer_multiplier(const EstimatorContext& ctx, const ShardingOption& o) {
  // Row-wise Adagrad's 1/D is applied to the shard bytes with the full width
  // D (under-counts CW shards, docs/cost-model.md O8).
  return optimizer_state_multiplier(ctx.optimizer, o.tensor_cols);
}

bool is_uvm(ComputeKernel k) {
  return k == ComputeKernel::kFusedUvm || k == ComputeKernel::kFusedUvmCaching ||
         k == ComputeKernel::kQuantUvm || k == ComputeKernel::kQuantUvmCaching;
}

bool is_caching(ComputeKernel k) {
  return k == ComputeKernel::kFusedUvmCaching || k == ComputeKernel::kQuantUvmCaching;
}

}  // namespace

int64_t key_value_l1_bytes(const EstimatorContext& ctx, const ShardingOption& o) {
  const int64_t max_l1 = o.key_value_params ? o.key_value_params->max_l1_cache_size.value_or(0) : 0;
  // TorchRec's product order: rows * clf * element size * dim, as doubles.
  const double cache = static_cast<double>(o.tensor_rows) * ctx.kv_cache_load_factor *
                       static_cast<double>(o.element_size) * static_cast<double>(o.tensor_cols);
  const double limit = static_cast<double>(max_l1) * 1024 * 1024;
  return static_cast<int64_t>(std::min(limit, std::ceil(cache)));
}

double optimizer_state_multiplier(OptimizerKind optimizer, int64_t cols) {
  switch (optimizer) {
    case OptimizerKind::kNone:
    case OptimizerKind::kSgd:
      return 0.0;
    case OptimizerKind::kAdam:
      return 2.0;
    case OptimizerKind::kRowwiseAdagrad:
      return 1.0 / static_cast<double>(cols);
    case OptimizerKind::kAdagrad:
    case OptimizerKind::kOther:
      return 1.0;
  }
  return 0.0;
}

IoSizes shard_io_sizes(const ShardingOption& o, const Shard& shard, int world_size, int group_size,
                       const TorchRecBehaviour& behaviour) {
  return shard_io_sizes(o, batch_sums(o), shard, world_size, group_size, behaviour);
}

IoSizes shard_io_sizes(const ShardingOption& o, const BatchSums& sums, const Shard& shard,
                       int world_size, int group_size, const TorchRecBehaviour& behaviour) {
  const double inputs = sums.inputs;
  const double pooled = sums.outputs(true, behaviour);
  const double w = world_size;
  const double s_t = o.element_size;
  IoSizes io;
  switch (o.sharding_type) {
    case ShardingType::kDataParallel: {
      const double outputs = o.is_pooled ? pooled : inputs;
      io.input = static_cast<int64_t>(std::ceil(inputs * kIndexBytes));
      io.output =
          static_cast<int64_t>(std::ceil(outputs * static_cast<double>(o.tensor_cols) * s_t));
      break;
    }
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise: {
      const double outputs = o.is_pooled ? pooled : inputs;
      io.input = static_cast<int64_t>(std::ceil(inputs * w * kIndexBytes));
      io.output =
          static_cast<int64_t>(std::ceil(outputs * w * static_cast<double>(shard.cols) * s_t));
      break;
    }
    case ShardingType::kRowWise:
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard: {            // as table-row-wise (_calculate_shard_io_sizes)
      if (shard.rows * shard.cols == 0) break;  // empty shards carry no buffers
      const double n =
          o.sharding_type == ShardingType::kRowWise ? w : static_cast<double>(group_size);
      const double per_shard = inputs / n;
      const double outputs = o.is_pooled ? pooled : per_shard;
      io.input = static_cast<int64_t>(std::ceil(per_shard * w * kIndexBytes));
      io.output =
          static_cast<int64_t>(std::ceil(outputs * w * static_cast<double>(shard.cols) * s_t));
      break;
    }
  }
  return io;
}

void estimate_storage(const EstimatorContext& ctx, ShardingOption* option) {
  const Topology& t = *ctx.topology;
  const TorchRecBehaviour& behaviour = *ctx.behaviour;
  // Devices whose I/O buffers sit in HBM: cuda, and mtia once it has HBM.
  const bool io_in_hbm = device_has_hbm(t.compute_device, behaviour);
  // Whole-table bytes as the sharder reports them (§5.2): quant sharders add
  // an fp16 scale and bias per row; UVM kernels keep the table in host memory.
  int64_t table_bytes = option->tensor_bytes;
  if (ctx.quant_sharder) table_bytes += 4 * option->tensor_rows;
  int64_t hbm_table = 0;
  int64_t ddr_table = 0;
  const bool caching = is_caching(option->compute_kernel);
  // The storage estimator keeps the falsy rule in both versions.
  const double clf = option->cache_load_factor.value_or(0.0) != 0.0 ? *option->cache_load_factor
                                                                    : kDefaultCacheLoadFactor;
  if (is_uvm(option->compute_kernel)) {
    ddr_table = table_bytes;
    if (caching)
      hbm_table = static_cast<int64_t>(std::nearbyint(static_cast<double>(ddr_table) * clf));
  } else if (t.compute_device == ComputeDevice::kCuda ||
             (t.compute_device == ComputeDevice::kMtia && behaviour.mtia_has_hbm &&
              !ctx.quant_sharder)) {
    // compute_storage_usage: training tables in HBM on cuda (and mtia in
    // 2026-08); quantized tables in HBM on cuda only.
    hbm_table = table_bytes;
  } else {
    ddr_table = table_bytes;
  }
  // 2026-08: the cache's index map, slot state and LRU state.
  const bool aux_state = caching && behaviour.cache_aux_state_in_hbm;
  // 2026-08's SSD tier: the key-value and virtual-table kernels, and any
  // kernel of a table whose constraint says use_virtual_table, keep their
  // weights out of HBM and DDR; key_value keeps them (with the optimizer
  // state and the cache's state) on SSD.
  const bool key_value_weights = is_guarded(option->compute_kernel) || option->use_virtual_table;
  const bool on_ssd = option->compute_kernel == ComputeKernel::kKeyValue;
  const int64_t l1_bytes = key_value_weights ? key_value_l1_bytes(ctx, *option) : 0;

  const double mu = optimizer_multiplier(ctx, *option);
  const int128 table_elems = int128{option->tensor_rows} * option->tensor_cols;
  auto with_optimizer = [&](int64_t share) {
    return share + static_cast<int64_t>(std::ceil(static_cast<double>(share) * mu));
  };
  auto share_of = [&](int64_t whole, const Shard& s) -> int64_t {
    if (option->sharding_type == ShardingType::kDataParallel) return whole;
    return ceil_of_rounded_quotient(int128{whole} * (int128{s.rows} * s.cols), table_elems);
  };

  const BatchSums sums = batch_sums(*option);
  // A shard's storage depends on its rows and columns only, which the
  // shards of a run share: one estimate per run.
  option->shards.set_storage([&](const Shard& s) {
    Storage st;
    const IoSizes io =
        shard_io_sizes(*option, sums, s, t.world_size, t.intra_group_size, behaviour);
    int64_t hbm_spec = with_optimizer(share_of(hbm_table, s));
    int64_t ddr_spec = with_optimizer(share_of(ddr_table, s));
    if (aux_state)
      hbm_spec += static_cast<int64_t>(std::ceil(static_cast<double>(s.rows) * (4 + clf * 16)));
    if (key_value_weights) {
      hbm_spec = l1_bytes;
      ddr_spec = 0;
    }
    if (on_ssd) {
      // The table as compute_storage_usage places it (in HBM on cuda), with
      // its optimizer state and the cache's state at the option's load factor.
      const int64_t share = share_of(table_bytes, s);
      st.ssd =
          ctx.is_inference
              ? share
              : with_optimizer(share) +
                    static_cast<int64_t>(std::ceil(static_cast<double>(s.rows) * (4 + clf * 16)));
    }
    if (io_in_hbm) {
      st.hbm = io.input + io.output + hbm_spec;
      st.ddr = ddr_spec;
    } else {
      st.ddr = io.input + io.output + ddr_spec;
    }
    return st;
  });
  // W shards of a large table may pass int64: the sum saturates.
  Storage total;
  for (const ShardList::Run& r : option->shards.runs())
    internal::saturating_add(total, internal::saturating_mul(r.first.storage, r.count));
  option->total_storage = total;
}

}  // namespace shardlab::planner
