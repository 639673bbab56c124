// The scenario's limits (limits.h). Byte counts are bounded in double
// arithmetic, which cannot overflow at these magnitudes; the planner then
// computes them exactly in int64.
#include "shardlab/planner/limits.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <functional>
#include <utility>

#include "shard_layout.h"
#include "shardlab/planner/estimators.h"

namespace shardlab::planner {
namespace {

using Path = std::vector<std::variant<std::string, size_t>>;

// "1e+19", "512", "0.2": shortest round trip, as JSON writes numbers.
std::string number_text(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// "3.2e+23": three significant digits, for byte counts in messages.
std::string rough(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 3);
  return std::string(buf, r.ptr);
}

std::string power_of_two(int64_t v) {
  return "2^" + std::to_string(std::countr_zero(static_cast<uint64_t>(v)));
}

LimitViolation violation(Path path, std::string what, std::optional<double> got, bool integral,
                         std::string expected) {
  LimitViolation v;
  v.path = std::move(path);
  v.what = std::move(what);
  if (got) v.got = *got;
  v.has_got = got.has_value();
  v.integral = integral;
  v.expected = std::move(expected);
  return v;
}

// The largest value in [lo, hi] for which `f` stays <= limit, as text for
// "expected"; f is non-decreasing. Integer fields search integers.
std::string largest_allowed(const std::function<double(double)>& f, double lo, double hi,
                            double limit, bool integral) {
  if (!(f(lo) <= limit))
    return "no value of this field: the rest of the scenario alone is over the limit";
  for (int i = 0; i < 200 && (integral ? hi - lo > 1 : hi - lo > 1e-12 * hi); ++i) {
    const double mid = integral ? std::floor(lo + (hi - lo) / 2) : lo + (hi - lo) / 2;
    (f(mid) <= limit ? lo : hi) = mid;
  }
  return "at most " + (integral ? number_text(lo) : rough(lo));
}

struct Range {
  double min;
  double max;
};

// A path that owns nothing, for the checks that pass (nearly all): it is
// copied into a Path only for a violation.
using PathView = std::initializer_list<std::variant<std::string_view, size_t>>;

Path owned(PathView view) {
  Path path;
  for (const auto& part : view) {
    if (const auto* key = std::get_if<std::string_view>(&part)) {
      path.emplace_back(std::string(*key));
    } else {
      path.emplace_back(std::get<size_t>(part));
    }
  }
  return path;
}

std::optional<LimitViolation> check_range(PathView path, double v, Range r, bool integral,
                                          std::string_view noun) {
  if (v >= r.min && v <= r.max && (v == 0 || std::fpclassify(v) != FP_SUBNORMAL))
    return std::nullopt;
  std::string expected =
      std::string(noun) + " in [" + number_text(r.min) + ", " + number_text(r.max) + "]";
  return violation(owned(path), "out of range", v, integral, std::move(expected));
}

constexpr double kUnbounded = std::numeric_limits<double>::max();
constexpr Range kBandwidth{kMinBandwidth, kMaxBandwidth};
constexpr Range kTimeMs{0, kMaxTimeMs};
constexpr Range kNonNegative{0, kUnbounded};

// What a number must be: its range, whether it is whole, and what messages
// call it.
struct Bound {
  Range range;
  bool integral;
  std::string_view noun;
};
constexpr Bound kBandwidthBound{kBandwidth, false, "bytes/ms"};
constexpr Bound kTimeBound{kTimeMs, false, "ms"};
constexpr Bound kNicsBound{{0, kMaxWorldSize}, true, "an integer"};

// One number to check; an absent one (nullopt) passes.
struct Check {
  PathView path;
  std::optional<double> value;
  Bound bound;
};

// The first of `checks`, in order, that is out of its bound.
std::optional<LimitViolation> first_violation(std::initializer_list<Check> checks) {
  for (const Check& c : checks) {
    if (!c.value) continue;
    if (auto v = check_range(c.path, *c.value, c.bound.range, c.bound.integral, c.bound.noun))
      return v;
  }
  return std::nullopt;
}

// One input of a table as the planner reads it (enumerator.cc option_template).
struct Input {
  double pooling_factor;
  double num_poolings;
  double batch_size;
};

// What a table's footprint depends on.
struct TableModel {
  double rows = 0;
  double dim = 0;
  double row_bytes = 0;     // bytes of one row of weights (quantized: padded, with scale and bias)
  double col_bytes = 0;     // output bytes per pooled id: columns x element size
  double state_factor = 1;  // 1 + optimizer state per weight byte
  double cache_factor = 0;  // UVM caching: HBM cache over the table bytes
  double cw_shards = 1;     // column-wise shards (each carries its own input buffer)
  double world_size = 1;
  std::vector<Input> inputs;
};

struct Footprint {
  double weights = 0;  // weights, optimizer state and cache
  double buffers = 0;  // input and output buffers
  double total() const { return weights + buffers; }
};

Footprint footprint(const TableModel& t) {
  double ids = 0;     // S_in: ids per rank's batch
  double pooled = 0;  // S_pb: pooled outputs per rank's batch
  for (const Input& in : t.inputs) {
    ids += in.pooling_factor * in.num_poolings * in.batch_size;
    pooled += in.num_poolings * in.batch_size;
  }
  Footprint f;
  f.weights = t.rows * t.row_bytes * t.state_factor * (1 + t.cache_factor);
  f.buffers = t.world_size * std::max(ids, pooled) * (8 * t.cw_shards + t.col_bytes);
  return f;
}

class LimitFinder {
 public:
  explicit LimitFinder(const Scenario& s) : s_(s) {}

  std::optional<LimitViolation> run() {
    if (auto v = check_topology()) return v;
    if (auto v = check_range({"batch_size"}, static_cast<double>(s_.batch_size), {1, kUnbounded},
                             true, "an integer")) {
      return v;
    }
    if (auto v = check_range({"module", "dense_param_bytes"},
                             static_cast<double>(s_.module.dense_param_bytes),
                             {0, static_cast<double>(kMaxReservationBytes)}, true, "bytes")) {
      return v;
    }
    if (auto v = check_tables()) return v;
    if (auto v = check_constraints()) return v;
    if (auto v = check_sharder_and_planner()) return v;
    if (auto v = check_workload()) return v;
    if (auto v = check_footprints()) return v;
    return check_reservations();
  }

 private:
  // The table's constraint, or null (scenarios built in code may leave
  // Scenario::constraints short).
  const ConstraintSpec* constraint(size_t table) const {
    return table < s_.constraints.size() && s_.constraints[table] ? &*s_.constraints[table]
                                                                  : nullptr;
  }

  // topology.pod_size (docs/scenario-format.md "Pods"): 2026-08 only; at
  // most world_size (TorchRec's Topology compares the host count with the
  // rank count); a group of pod_size x local_world_size ranks within the
  // ranks ShardLab plans (table-row-wise options hold one shard per rank of
  // a group).
  std::optional<LimitViolation> check_pod_size(const TopologySpec& t) const {
    const double pods = *t.pod_size;
    if (!s_.behaviour().pods) {
      return violation(
          owned({"topology", "pod_size"}),
          "TorchRec " + std::string(to_string(s_.planner.torchrec_version)) + " has no pods", pods,
          true, "no pod_size, or planner.torchrec_version \"2026-08\" (TorchRec 376cac6a)");
    }
    if (auto v =
            check_range({"topology", "pod_size"}, pods, {1, kMaxWorldSize}, true, "an integer"))
      return v;
    if (*t.pod_size > t.world_size) {
      return violation(owned({"topology", "pod_size"}),
                       "pod_size=" + std::to_string(*t.pod_size) +
                           " cannot be greater than world_size=" + std::to_string(t.world_size),
                       pods, true, "at most world_size (" + std::to_string(t.world_size) + ")");
    }
    const int lws = t.local_world_size.value_or(0) > 0 ? *t.local_world_size : t.world_size;
    const int64_t group = int64_t{*t.pod_size} * lws;
    if (group > kMaxWorldSize) {
      return violation(owned({"topology", "pod_size"}),
                       "a pod of " + std::to_string(group) +
                           " ranks (pod_size x local_world_size), more than ShardLab plans",
                       pods, true,
                       "pod_size x local_world_size at most " + std::to_string(kMaxWorldSize));
    }
    return std::nullopt;
  }

  std::optional<LimitViolation> check_topology() const {
    const TopologySpec& t = s_.topology;
    const Range ranks{1, kMaxWorldSize};
    if (auto v = check_range({"topology", "world_size"}, t.world_size, ranks, true, "an integer"))
      return v;
    if (t.local_world_size) {
      if (auto v = check_range({"topology", "local_world_size"}, *t.local_world_size, ranks, true,
                               "an integer")) {
        return v;
      }
    }
    if (t.pod_size) {
      if (auto v = check_pod_size(t)) return v;
    }
    if (!s_.behaviour().ssd_tier) {
      if (t.ssd_cap) return no_ssd_tier(owned({"topology", "ssd_cap"}));
      if (t.ssd_mem_bw) return no_ssd_tier(owned({"topology", "ssd_mem_bw"}));
    }
    const Range device{0, static_cast<double>(kMaxDeviceBytes)};
    const std::pair<const char*, const std::optional<int64_t>*> caps[] = {
        {"hbm_cap", &t.hbm_cap}, {"ddr_cap", &t.ddr_cap}, {"ssd_cap", &t.ssd_cap}};
    for (const auto& [key, cap] : caps) {
      if (!*cap) continue;
      if (auto v =
              check_range({"topology", key}, static_cast<double>(**cap), device, true, "bytes"))
        return v;
    }
    const std::pair<const char*, double> bandwidths[] = {
        {"hbm_mem_bw", t.hbm_mem_bw},
        {"ddr_mem_bw", t.ddr_mem_bw},
        {"hbm_to_ddr_mem_bw", t.hbm_to_ddr_mem_bw},
        {"ssd_mem_bw", t.ssd_mem_bw.value_or(kDefaultSsdMemBw)},
        {"intra_host_bw", t.intra_host_bw},
        {"inter_host_bw", t.inter_host_bw}};
    for (const auto& [key, bw] : bandwidths) {
      if (auto v = check_range({"topology", key}, bw, kBandwidth, false, "bytes/ms")) return v;
    }
    if (auto v = check_range({"topology", "bwd_compute_multiplier"}, t.bwd_compute_multiplier,
                             {0, kMaxFactor}, false, "a number")) {
      return v;
    }
    return check_fabric();
  }

  std::optional<LimitViolation> check_fabric() const {
    const FabricSpec& f = s_.fabric;
    if (auto v = first_violation(
            {{{"topology", "fabric", "nics_per_host"}, f.nics_per_host, kNicsBound},
             {{"topology", "fabric", "nic_bw"}, f.nic_bw, kBandwidthBound},
             {{"topology", "fabric", "oversubscription"},
              f.oversubscription,
              {{1, kMaxFactor}, false, "a number"}},
             {{"topology", "fabric", "intra_host_latency_ms"}, f.intra_host_latency_ms, kTimeBound},
             {{"topology", "fabric", "inter_host_latency_ms"},
              f.inter_host_latency_ms,
              kTimeBound}})) {
      return v;
    }
    for (size_t h = 0; h < f.hosts.size(); ++h) {
      const HostFabricSpec& host = f.hosts[h];
      if (auto v = first_violation(
              {{{"topology", "fabric", "hosts", h, "intra_host_bw"},
                host.intra_host_bw,
                kBandwidthBound},
               {{"topology", "fabric", "hosts", h, "nic_bw"}, host.nic_bw, kBandwidthBound},
               {{"topology", "fabric", "hosts", h, "nics"},
                host.nics,
                {{1, kMaxWorldSize}, true, "an integer"}}})) {
        return v;
      }
    }
    return std::nullopt;
  }

  std::optional<LimitViolation> check_tables() const {
    for (size_t i = 0; i < s_.tables.size(); ++i) {
      const TableSpec& t = s_.tables[i];
      if (auto v =
              check_range({"tables", i, "num_embeddings"}, static_cast<double>(t.num_embeddings),
                          {1, static_cast<double>(kMaxRows)}, true, "an integer")) {
        return v;
      }
      if (auto v = check_range({"tables", i, "embedding_dim"}, static_cast<double>(t.embedding_dim),
                               {1, static_cast<double>(kMaxEmbeddingDim)}, true, "an integer")) {
        return v;
      }
      if (t.use_virtual_table && !s_.behaviour().ssd_tier)
        return no_ssd_tier(owned({"tables", i, "use_virtual_table"}));
      // TorchRec's quantized modules build FBGEMM's key-value inference
      // module for a virtual table, which needs GPU kernels to exist.
      if (t.use_virtual_table && s_.planner.is_inference) {
        return violation(owned({"tables", i, "use_virtual_table"}),
                         "a virtual table in inference (TorchRec builds FBGEMM's key-value "
                         "inference module, whose planning ShardLab does not model)",
                         std::nullopt, false, "false, or planner.is_inference false");
      }
      if (t.total_num_buckets) {
        if (!s_.behaviour().ssd_tier) return no_ssd_tier(owned({"tables", i, "total_num_buckets"}));
        if (auto v = check_range({"tables", i, "total_num_buckets"},
                                 static_cast<double>(*t.total_num_buckets),
                                 {1, static_cast<double>(kMaxRows)}, true, "an integer")) {
          return v;
        }
      }
    }
    return std::nullopt;
  }

  // A key of TorchRec 2026-08's SSD tier in a scenario planned as 2024-02.
  std::optional<LimitViolation> no_ssd_tier(Path path) const {
    return violation(std::move(path),
                     "TorchRec " + std::string(to_string(s_.planner.torchrec_version)) +
                         " has no SSD tier, key-value kernels or virtual tables",
                     std::nullopt, false,
                     "no such key, or planner.torchrec_version \"2026-08\" (TorchRec 376cac6a)");
  }

  Path constraint_path(size_t table, std::string key) const {
    return Path{"constraints", s_.tables[table].name, std::move(key)};
  }

  template <typename T>
  std::optional<LimitViolation> check_list(size_t table, const char* key,
                                           const std::vector<T>& values, Range range,
                                           bool integral) const {
    const std::string_view name = s_.tables[table].name;
    for (size_t j = 0; j < values.size(); ++j) {
      if (auto v = check_range({"constraints", name, key, j}, static_cast<double>(values[j]), range,
                               integral, integral ? "an integer" : "a number")) {
        return v;
      }
    }
    return std::nullopt;
  }

  std::optional<LimitViolation> check_constraints() const {
    for (size_t i = 0; i < s_.tables.size(); ++i) {
      if (constraint(i) == nullptr) continue;
      const ConstraintSpec& c = *constraint(i);
      const std::string_view name = s_.tables[i].name;
      if (c.sharding_types && !s_.behaviour().grid_shard) {
        for (size_t k = 0; k < c.sharding_types->size(); ++k) {
          if ((*c.sharding_types)[k] != ShardingType::kGridShard) continue;
          return violation(owned({"constraints", name, "sharding_types", k}),
                           "TorchRec " + std::string(to_string(s_.planner.torchrec_version)) +
                               " has no grid_shard",
                           std::nullopt, false,
                           "another sharding type, or planner.torchrec_version \"2026-08\"");
        }
      }
      if (!s_.behaviour().ssd_tier) {
        if (c.compute_kernels) {
          for (size_t k = 0; k < c.compute_kernels->size(); ++k) {
            if (is_guarded((*c.compute_kernels)[k]))
              return no_ssd_tier(owned({"constraints", name, "compute_kernels", k}));
          }
        }
        if (c.key_value_params)
          return no_ssd_tier(owned({"constraints", name, "key_value_params"}));
        if (c.use_virtual_table)
          return no_ssd_tier(owned({"constraints", name, "use_virtual_table"}));
      }
      if (c.key_value_params) {
        const std::pair<const char*, const std::optional<int64_t>*> sizes[] = {
            {"max_l1_cache_size", &c.key_value_params->max_l1_cache_size},
            {"l2_cache_size", &c.key_value_params->l2_cache_size}};
        for (const auto& [key, size] : sizes) {
          if (!*size) continue;
          if (auto v = check_range(
                  {"constraints", name, "key_value_params", key}, static_cast<double>(**size),
                  {0, static_cast<double>(kMaxDeviceBytes >> 20)}, true, "an integer")) {
            return v;
          }
        }
      }
      if (c.min_partition) {
        if (auto v = check_range({"constraints", name, "min_partition"},
                                 static_cast<double>(*c.min_partition), {1, kUnbounded}, true,
                                 "an integer")) {
          return v;
        }
      }
      if (c.pooling_factors) {
        if (auto v = check_list(i, "pooling_factors", *c.pooling_factors, kNonNegative, false))
          return v;
      }
      if (c.num_poolings) {
        if (auto v = check_list(i, "num_poolings", *c.num_poolings, kNonNegative, false)) return v;
      }
      if (c.batch_sizes) {
        if (auto v = check_list(i, "batch_sizes", *c.batch_sizes, {1, kUnbounded}, true)) return v;
      }
      if (c.cache_params) {
        if (c.cache_params->load_factor) {
          if (auto v = check_range({"constraints", name, "cache_params", "load_factor"},
                                   *c.cache_params->load_factor, kNonNegative, false, "a number")) {
            return v;
          }
        }
        if (c.cache_params->reserved_memory) {
          if (auto v =
                  check_range({"constraints", name, "cache_params", "reserved_memory"},
                              *c.cache_params->reserved_memory, kNonNegative, false, "a number")) {
            return v;
          }
        }
      }
    }
    return std::nullopt;
  }

  std::optional<LimitViolation> check_sharder_and_planner() const {
    if (auto v = first_violation({{{"sharder", "fused_params", "cache_load_factor"},
                                   s_.sharder.cache_load_factor,
                                   {kNonNegative, false, "a number"}}})) {
      return v;
    }
    const std::vector<ProposerSpec>& proposers = s_.planner.proposers;
    for (size_t i = 0; i < proposers.size(); ++i) {
      if (proposers[i].kind != ProposerKind::kDynamicProgramming) continue;
      if (!s_.behaviour().dynamic_programming_proposer) {
        return violation(owned({"planner", "proposers", i}),
                         "TorchRec " + std::string(to_string(s_.planner.torchrec_version)) +
                             " has no dynamic_programming proposer",
                         std::nullopt, false,
                         "another proposer, or planner.torchrec_version \"2026-08\"");
      }
      if (auto v = check_range({"planner", "proposers", i, "hbm_bins_per_device"},
                               static_cast<double>(proposers[i].hbm_bins_per_device),
                               {1, static_cast<double>(int64_t{1} << 20)}, true, "an integer")) {
        return v;
      }
    }
    const PartitionerSpec& p = s_.planner.partitioner;
    const StorageReservationSpec& r = s_.planner.storage_reservation;
    constexpr Bound kNumber{kNonNegative, false, "a number"};
    const std::optional<double> dense_estimate =
        r.dense_tensor_estimate
            ? std::optional<double>(static_cast<double>(*r.dense_tensor_estimate))
            : std::nullopt;
    return first_violation({{{"planner", "partitioner", "tolerance"}, p.tolerance, kNumber},
                            {{"planner", "storage_reservation", "percentage"},
                             r.percentage,
                             {{0, 1}, false, "a number"}},
                            {{"planner", "storage_reservation", "parameter_multiplier"},
                             r.parameter_multiplier,
                             kNumber},
                            {{"planner", "storage_reservation", "dense_tensor_estimate"},
                             dense_estimate,
                             {{0, static_cast<double>(kMaxReservationBytes)}, true, "bytes"}}});
  }

  std::optional<LimitViolation> check_workload() const {
    const std::pair<const char*, const std::vector<double>*> lists[] = {
        {"dense_fwd_ms", &s_.workload.dense_fwd_ms}, {"dense_bwd_ms", &s_.workload.dense_bwd_ms}};
    for (const auto& [key, values] : lists) {
      for (size_t j = 0; j < values->size(); ++j) {
        // One value for all ranks has no index in the file.
        auto v = values->size() > 1
                     ? check_range({"workload", key, j}, (*values)[j], kTimeMs, false, "ms")
                     : check_range({"workload", key}, (*values)[j], kTimeMs, false, "ms");
        if (v) return v;
      }
    }
    return std::nullopt;
  }

  // The cache load factor a table's caching kernels use (docs/cost-model.md
  // §1.4): the constraint's, else the sharder's, 0 meaning the default.
  struct LoadFactor {
    enum class Given { kNo, kConstraint, kSharder };
    double value = kDefaultCacheLoadFactor;
    Given given = Given::kNo;  // where it was given
  };
  LoadFactor load_factor(size_t table) const {
    LoadFactor lf;
    const ConstraintSpec* c = constraint(table);
    std::optional<double> given;
    if (c && c->cache_params && c->cache_params->load_factor) {
      given = c->cache_params->load_factor;
      lf.given = LoadFactor::Given::kConstraint;
    } else if (s_.sharder.has_fused_params && s_.sharder.cache_load_factor) {
      given = s_.sharder.cache_load_factor;
      lf.given = LoadFactor::Given::kSharder;
    }
    if (given.value_or(0.0) != 0.0) lf.value = *given;
    return lf;
  }
  // REQUIRES: lf.given != kNo.
  Path load_factor_path(size_t table, const LoadFactor& lf) const {
    if (lf.given == LoadFactor::Given::kSharder)
      return Path{"sharder", "fused_params", "cache_load_factor"};
    return Path{"constraints", s_.tables[table].name, "cache_params", "load_factor"};
  }

  bool caching_possible() const { return s_.topology.compute_device == ComputeDevice::kCuda; }

  TableModel table_model(size_t i) const {
    const TableSpec& t = s_.tables[i];
    const ConstraintSpec* c = constraint(i);
    TableModel m;
    m.rows = static_cast<double>(t.num_embeddings);
    m.dim = static_cast<double>(t.embedding_dim);
    m.world_size = s_.topology.world_size;
    set_dim(m, t, m.dim);
    const bool inference = s_.planner.is_inference;
    // At most one state value per weight byte for row-wise Adagrad (1/D, D >= 1).
    m.state_factor =
        1 + optimizer_state_multiplier(inference ? OptimizerKind::kNone : s_.sharder.optimizer, 1);
    m.cache_factor = caching_possible() ? load_factor(i).value : 0.0;
    const std::vector<double> pf =
        (c && c->pooling_factors) ? *c->pooling_factors : std::vector<double>{1.0};
    for (size_t j = 0; j < pf.size(); ++j) {
      Input in{pf[j], 1.0, static_cast<double>(s_.batch_size)};
      if (c && c->num_poolings && j < c->num_poolings->size())
        in.num_poolings = (*c->num_poolings)[j];
      if (c && c->batch_sizes && j < c->batch_sizes->size())
        in.batch_size = static_cast<double>((*c->batch_sizes)[j]);
      m.inputs.push_back(in);
    }
    // Column-wise options split the columns; each shard has its own input buffer.
    const int64_t block = column_wise_block(t.embedding_dim, c ? c->min_partition : std::nullopt);
    m.cw_shards = static_cast<double>(t.embedding_dim / block);
    return m;
  }

  // Row and output bytes of a `dim`-wide table (the enumerator's tensor:
  // fp32 or fp16 in training; FBGEMM's padded rows with scale and bias when
  // quantized for inference, whose output is one byte per column).
  void set_dim(TableModel& m, const TableSpec& t, double dim) const {
    m.dim = dim;
    if (!s_.planner.is_inference) {
      const double element = t.data_type == DataType::kFp32 ? 4 : 2;
      m.row_bytes = dim * element;
      m.col_bytes = dim * element;
      return;
    }
    const QuantizedRow q = quantized_row(t.data_type);
    const double unpadded = std::floor(q.element_bytes * dim / q.cols_per_byte) + q.scale_bias;
    const double padded = std::ceil(unpadded / 16) * 16;
    m.row_bytes = padded + 4;  // the quant sharder's fp16 scale and bias per row
    m.col_bytes = padded * q.cols_per_byte;
  }

  // A factor of a table's footprint that a field supplies: its path, value,
  // and how to put a trial value into the model.
  struct Factor {
    Path path;
    double value;
    bool integral;
    std::function<void(TableModel&, double)> set;
  };

  // The factors the table's weights and its buffers are made of; the one
  // with the largest value is blamed, since it is the one out of scale.
  std::vector<Factor> weight_factors(size_t i, const TableModel& m) const {
    const TableSpec& t = s_.tables[i];
    std::vector<Factor> f;
    f.push_back({{"tables", i, "num_embeddings"}, m.rows, true, [](TableModel& x, double v) {
                   x.rows = v;
                 }});
    f.push_back({{"tables", i, "embedding_dim"}, m.dim, true, [this, &t](TableModel& x, double v) {
                   set_dim(x, t, v);
                 }});
    const LoadFactor lf = load_factor(i);
    if (caching_possible() && lf.given != LoadFactor::Given::kNo) {
      f.push_back({load_factor_path(i, lf), lf.value, false,
                   [](TableModel& x, double v) { x.cache_factor = v; }});
    }
    return f;
  }

  std::vector<Factor> buffer_factors(size_t i, const TableModel& m) const {
    const ConstraintSpec* c = constraint(i);
    const TableSpec& t = s_.tables[i];
    std::vector<Factor> f;
    f.push_back({{"tables", i, "embedding_dim"}, m.dim, true, [this, &t](TableModel& x, double v) {
                   set_dim(x, t, v);
                 }});
    // The input with the most ids.
    size_t worst = 0;
    double most = -1;
    for (size_t j = 0; j < m.inputs.size(); ++j) {
      const Input& in = m.inputs[j];
      const double ids = std::max(in.pooling_factor, 1.0) * in.num_poolings * in.batch_size;
      if (ids > most) {
        most = ids;
        worst = j;
      }
    }
    if (m.inputs.empty()) return f;
    const auto indexed = [&](const char* key) {
      Path p = constraint_path(i, key);
      p.emplace_back(worst);
      return p;
    };
    const Input& in = m.inputs[worst];
    if (c && c->pooling_factors) {
      f.push_back({indexed("pooling_factors"), in.pooling_factor, false,
                   [worst](TableModel& x, double v) { x.inputs[worst].pooling_factor = v; }});
    }
    if (c && c->num_poolings && !c->num_poolings->empty()) {
      f.push_back({indexed("num_poolings"), in.num_poolings, false,
                   [worst](TableModel& x, double v) { x.inputs[worst].num_poolings = v; }});
    }
    if (c && c->batch_sizes && !c->batch_sizes->empty()) {
      f.push_back({indexed("batch_sizes"), in.batch_size, true,
                   [worst](TableModel& x, double v) { x.inputs[worst].batch_size = v; }});
    } else {
      f.push_back({{"batch_size"}, in.batch_size, true, [](TableModel& x, double v) {
                     for (Input& input : x.inputs) input.batch_size = v;
                   }});
    }
    return f;
  }

  static const Factor& largest(const std::vector<Factor>& factors) {
    return *std::max_element(factors.begin(), factors.end(),
                             [](const Factor& a, const Factor& b) { return a.value < b.value; });
  }

  std::optional<LimitViolation> check_footprints() {
    const double limit = static_cast<double>(kMaxRankBytes);
    double sum = 0;
    models_.reserve(s_.tables.size());
    for (size_t i = 0; i < s_.tables.size(); ++i) {
      models_.push_back(table_model(i));
      const TableModel& m = models_.back();
      const Footprint f = footprint(m);
      const std::string table = "table \"" + s_.tables[i].name + "\"";
      if (!(f.total() <= limit)) {
        const std::vector<Factor> factors =
            f.weights >= f.buffers ? weight_factors(i, m) : buffer_factors(i, m);
        const Factor& blamed = largest(factors);
        const std::string part = f.weights >= f.buffers
                                     ? "its weights with optimizer state and cache"
                                     : "the input and output buffers of a batch";
        const auto trial = [&](double v) {
          TableModel x = m;
          blamed.set(x, v);
          return footprint(x).total();
        };
        return violation(
            blamed.path,
            "makes " + table + " need up to " + rough(f.total()) + " bytes on one rank (" + part +
                "), beyond the limit of " + power_of_two(kMaxRankBytes) + " bytes",
            blamed.value, blamed.integral,
            largest_allowed(trial, blamed.integral ? 1 : 0, blamed.value, limit, blamed.integral));
      }
      // Caching kernels run at (c * hbm + (1 - c) * ddr) / 10 (planner-model
      // §1.3): a load factor above 1 can drive that to zero or below.
      if (caching_possible()) {
        const LoadFactor lf = load_factor(i);
        const TopologySpec& t = s_.topology;
        const auto caching_bw = [&](double c) {
          return (c * t.hbm_mem_bw + (1 - c) * t.ddr_mem_bw) / 10;
        };
        if (lf.given != LoadFactor::Given::kNo && !(caching_bw(lf.value) >= kMinBandwidth / 10)) {
          return violation(
              load_factor_path(i, lf),
              "gives " + table + "'s caching kernels a bandwidth of " +
                  rough(caching_bw(lf.value)) +
                  " bytes/ms ((load_factor * hbm_mem_bw + (1 - load_factor) * ddr_mem_bw) / 10)",
              lf.value, false, "a load factor that keeps that bandwidth >= 0.1 bytes/ms");
        }
      }
      sum += f.total();
      if (!(sum <= limit)) {
        return violation({"tables", i},
                         "with " + table + " the tables need up to " + rough(sum) +
                             " bytes on one rank together, beyond the limit of " +
                             power_of_two(kMaxRankBytes) + " bytes",
                         std::nullopt, false, "fewer or smaller tables");
      }
    }
    return std::nullopt;
  }

  // The dense and KJT reservations (docs/cost-model.md §6) stay within
  // kMaxReservationBytes; the fixed-percentage reservation computes neither.
  std::optional<LimitViolation> check_reservations() const {
    const StorageReservationSpec& r = s_.planner.storage_reservation;
    if (r.kind == ReservationKind::kFixedPercentage) return std::nullopt;
    const double limit = static_cast<double>(kMaxReservationBytes);
    const bool heuristical = r.kind == ReservationKind::kHeuristical;

    // KJT: 8 bytes per id of every input (pooling factor x batch size), x20
    // for the heuristical reservation.
    const double per_id = 8.0 * (heuristical ? 20 : 1);
    struct KjtInput {
      size_t table, input;
      double pooling_factor, batch_size;
      bool own_batch;  // from constraints.<table>.batch_sizes, not batch_size
    };
    std::vector<KjtInput> inputs;
    for (size_t i = 0; i < s_.tables.size(); ++i) {
      const ConstraintSpec* c = constraint(i);
      const bool own = c != nullptr && c->batch_sizes && !c->batch_sizes->empty();
      const TableModel& m = models_[i];
      for (size_t j = 0; j < m.inputs.size(); ++j) {
        inputs.push_back({i, j, m.inputs[j].pooling_factor, m.inputs[j].batch_size, own});
      }
    }
    const auto kjt_bytes = [&](const KjtInput* changed, bool pooling, double v) {
      double ids = 0;
      for (const KjtInput& in : inputs) {
        double pf = in.pooling_factor;
        double bs = in.batch_size;
        if (changed == nullptr && !in.own_batch) bs = v;  // batch_size itself
        if (&in == changed) (pooling ? pf : bs) = v;
        ids += pf * bs;
      }
      return ids * per_id;
    };
    const double kjt = kjt_bytes(nullptr, false, static_cast<double>(s_.batch_size));
    if (!(kjt <= limit)) {
      const KjtInput* worst = &inputs.front();
      for (const KjtInput& in : inputs) {
        if (in.pooling_factor * in.batch_size > worst->pooling_factor * worst->batch_size)
          worst = &in;
      }
      // Blame the larger of the worst input's two factors.
      const bool pooling = worst->pooling_factor >= worst->batch_size &&
                           constraint(worst->table) != nullptr &&
                           constraint(worst->table)->pooling_factors.has_value();
      Path path{"batch_size"};
      const KjtInput* changed = nullptr;
      if (pooling || worst->own_batch) {
        path = constraint_path(worst->table, pooling ? "pooling_factors" : "batch_sizes");
        path.emplace_back(worst->input);
        changed = worst;
      }
      const double value = pooling ? worst->pooling_factor : worst->batch_size;
      const auto trial = [&](double v) { return kjt_bytes(changed, pooling, v); };
      return violation(
          std::move(path),
          "makes the KJT storage reservation (" + number_text(per_id) +
              " bytes per id of a batch) " + rough(kjt) + " bytes, beyond the limit of " +
              power_of_two(kMaxReservationBytes) + " bytes",
          value, !pooling, largest_allowed(trial, pooling ? 0 : 1, value, limit, !pooling));
    }

    // Dense: the root module's size minus the tables' modules' sizes, each
    // the multiplier times its parameter bytes (tables are buffers, not
    // multiplied, when quantized); unless estimated. The sizes are computed
    // in 128 bits and must stay far inside them; the difference, which the
    // planner keeps in int64, within the reservation limit.
    if (r.dense_tensor_estimate.value_or(0) != 0) return std::nullopt;
    const double m = heuristical ? r.parameter_multiplier : 1.0;
    double weights = 0;
    for (size_t i = 0; i < s_.tables.size(); ++i) {
      weights += models_[i].rows * models_[i].row_bytes;
    }
    const double params = static_cast<double>(s_.module.dense_param_bytes);
    const bool quant = s_.planner.is_inference;
    const auto dense = [&](double mult) { return quant ? params : mult * params; };
    const auto module_size = [&](double mult) {
      return quant ? params + weights : mult * (params + weights);
    };
    constexpr double kModuleSizeLimit = 0x1p100;
    if (!(dense(m) <= limit) || !(module_size(m) <= kModuleSizeLimit)) {
      const bool over_module = !(module_size(m) <= kModuleSizeLimit);
      const std::string what =
          over_module
              ? "makes the module sizes of the dense storage reservation " + rough(module_size(m)) +
                    " bytes, beyond the limit of 2^100 bytes"
              : "makes the dense storage reservation " + rough(dense(m)) +
                    " bytes, beyond the limit of " + power_of_two(kMaxReservationBytes) + " bytes";
      const auto trial = [&](double v) {
        return over_module ? module_size(v) / kModuleSizeLimit : dense(v) / limit;
      };
      return violation({"planner", "storage_reservation", "parameter_multiplier"}, what, m, false,
                       largest_allowed(trial, 0, m, 1.0, false));
    }
    return std::nullopt;
  }

  const Scenario& s_;
  std::vector<TableModel> models_;  // by table, built by check_footprints
};

bool is_plain_key(const std::string& key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

}  // namespace

std::optional<LimitViolation> find_limit_violation(const Scenario& scenario) {
  return LimitFinder(scenario).run();
}

std::string limit_path(const LimitViolation& v) {
  std::string out;
  for (const auto& part : v.path) {
    if (const auto* index = std::get_if<size_t>(&part)) {
      out += '[';
      out += std::to_string(*index);
      out += ']';
      continue;
    }
    const std::string& key = std::get<std::string>(part);
    if (is_plain_key(key)) {
      if (!out.empty()) out += '.';
      out += key;
    } else {
      out += "[\"";
      for (char c : key) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      out += "\"]";
    }
  }
  return out.empty() ? std::string("<root>") : out;
}

static std::string got_text(const LimitViolation& v) {
  if (v.integral && std::fabs(v.got) < 9.2e18) return std::to_string(static_cast<int64_t>(v.got));
  return number_text(v.got);
}

Status check_limits(const Scenario& scenario) {
  const std::optional<LimitViolation> v = find_limit_violation(scenario);
  if (!v) return Status::ok();
  std::string msg = limit_path(*v) + ": " + v->what;
  if (v->has_got) msg += ": got " + got_text(*v);
  msg += ", expected " + v->expected;
  return Status::invalid_argument(std::move(msg));
}

}  // namespace shardlab::planner
