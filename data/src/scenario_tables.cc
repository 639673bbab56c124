// tables[] and constraints.<table> of a scenario file.
#include <string>

#include "scenario_sections.h"

namespace shardlab::data::internal {
namespace {

using planner::BoundsCheckMode;
using planner::CacheAlgorithm;
using planner::CacheParams;
using planner::ConstraintSpec;
using planner::KeyValueParams;
using planner::TableSpec;

constexpr std::string_view kDataTypes = "fp32, fp16, bf16, int8, int4, int2";

std::optional<CacheAlgorithm> parse_cache_algorithm(std::string_view s) {
  if (s == "lru") return CacheAlgorithm::kLru;
  if (s == "lfu") return CacheAlgorithm::kLfu;
  return std::nullopt;
}

std::optional<BoundsCheckMode> parse_bounds_check_mode(std::string_view s) {
  if (s == "fatal") return BoundsCheckMode::kFatal;
  if (s == "warning") return BoundsCheckMode::kWarning;
  if (s == "ignore") return BoundsCheckMode::kIgnore;
  if (s == "none") return BoundsCheckMode::kNone;
  return std::nullopt;
}

const EnumValue<planner::DataType> kDataTypeValue{"data type", planner::parse_data_type,
                                                  kDataTypes};

Status read_table(const Json& value, const JsonPath& path, TableSpec& t) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a table object", kTableKeys));
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("name", t.name, StringValue{.non_empty = true}, "a non-empty string"));
  // Row counts stay exact in TorchRec's float arithmetic up to 2^53. Neither
  // count has a cap of its own beyond that: the byte counts they make (rows x
  // dim x element size, with optimizer state and buffers) are bounded once
  // every section is read (planner/limits.h).
  SHARDLAB_RETURN_IF_ERROR(obj.require("num_embeddings", t.num_embeddings,
                                       IntValue{.min = 1, .max = planner::kMaxRows},
                                       "an integer from 1 to 2^53"));
  SHARDLAB_RETURN_IF_ERROR(obj.require("embedding_dim", t.embedding_dim,
                                       IntValue{.min = 1, .max = planner::kMaxEmbeddingDim},
                                       "an integer from 1 to 2^30"));
  SHARDLAB_RETURN_IF_ERROR(obj.require("feature_names", t.feature_names,
                                       ListOf{StringValue{}, /*non_empty=*/true},
                                       "a non-empty list of feature names"));
  SHARDLAB_RETURN_IF_ERROR(obj.read("data_type", t.data_type, kDataTypeValue));
  SHARDLAB_RETURN_IF_ERROR(obj.read("is_weighted", t.is_weighted, BoolValue{}));
  // TorchRec 2026-08's virtual tables (checked against the version with the
  // other limits once the file is read); null buckets mean not given.
  SHARDLAB_RETURN_IF_ERROR(obj.read("use_virtual_table", t.use_virtual_table, BoolValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("total_num_buckets", t.total_num_buckets,
                                    IntValue{.min = 1, .max = planner::kMaxRows},
                                    Null::kMeansAbsent));
  return Status::ok();
}

}  // namespace

Status read_key_value_params(const Json& value, const JsonPath& path, KeyValueParams& p) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a key_value_params object", kKeyValueParamsKeys));
  // MiB and GB as TorchRec's KeyValueParams carries them; bounded so that
  // the cache in bytes stays exact.
  SHARDLAB_RETURN_IF_ERROR(obj.read("max_l1_cache_size", p.max_l1_cache_size,
                                    IntValue{.min = 0, .max = planner::kMaxDeviceBytes >> 20},
                                    Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(obj.read("l2_cache_size", p.l2_cache_size,
                                    IntValue{.min = 0, .max = planner::kMaxDeviceBytes >> 20},
                                    Null::kMeansAbsent));
  return Status::ok();
}

Status read_cache_params(const Json& value, const JsonPath& path, CacheParams& c) {
  // TorchRec's CacheParams fields are all Optional, so null means not given.
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a cache_params object", kCacheParamsKeys));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("algorithm", c.algorithm,
               EnumValue<CacheAlgorithm>{"cache algorithm", parse_cache_algorithm, "lru, lfu"},
               Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("load_factor", c.load_factor, NumberValue{.min = 0}, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("reserved_memory", c.reserved_memory, NumberValue{.min = 0}, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(obj.read("precision", c.precision, kDataTypeValue, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("prefetch_pipeline", c.prefetch_pipeline, BoolValue{}, Null::kMeansAbsent));
  return Status::ok();
}

namespace {

// docs/scenario-format.md: the per-input lists that are present (empty ones included) have
// equal lengths, and without pooling_factors (one input by default) a
// non-empty num_poolings or batch_sizes has exactly one entry.
Status check_input_list_lengths(const ConstraintSpec& c, const JsonPath& path) {
  struct Present {
    std::string_view name;
    std::size_t size;
  };
  std::vector<Present> present;
  if (c.pooling_factors) present.push_back({"pooling_factors", c.pooling_factors->size()});
  if (c.num_poolings) present.push_back({"num_poolings", c.num_poolings->size()});
  if (c.batch_sizes) present.push_back({"batch_sizes", c.batch_sizes->size()});
  for (const Present& p : present) {
    if (p.size == present.front().size) continue;
    std::string got;
    for (const Present& q : present) {
      if (!got.empty()) got += ", ";
      got += std::string(q.name) + " " + std::to_string(q.size);
    }
    return Status::invalid_argument(path.to_string() + ": per-input lists differ in length: got " +
                                    got + ", expected equal lengths");
  }
  if (!c.pooling_factors) {
    for (const Present& p : present) {
      if (p.size > 1) {
        return Status::invalid_argument(
            path.to_string() + ": " + std::string(p.name) +
            " without pooling_factors describes more inputs than the default single one: got " +
            std::to_string(p.size) + " entries, expected 1 (or give pooling_factors)");
      }
    }
  }
  return Status::ok();
}

Status read_constraint(const Json& value, const JsonPath& path, ConstraintSpec& c) {
  // Every field mirrors an Optional of TorchRec's ParameterConstraints: null
  // means not given, as it does in the plan's output.
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a constraints object", kConstraintKeys));
  constexpr Null kNull = Null::kMeansAbsent;
  SHARDLAB_RETURN_IF_ERROR(obj.read(
      "sharding_types", c.sharding_types,
      ListOf{EnumValue<planner::ShardingType>{"sharding type", planner::parse_sharding_type,
                                              planner::sharding_type_names()},
             false},
      kNull));
  SHARDLAB_RETURN_IF_ERROR(obj.read(
      "compute_kernels", c.compute_kernels,
      ListOf{EnumValue<planner::ComputeKernel>{"compute kernel", planner::parse_compute_kernel,
                                               planner::compute_kernel_names()},
             false},
      kNull));
  SHARDLAB_RETURN_IF_ERROR(obj.read("min_partition", c.min_partition, IntValue{.min = 1}, kNull));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("pooling_factors", c.pooling_factors, ListOf{NumberValue{.min = 0}, false}, kNull));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("num_poolings", c.num_poolings, ListOf{NumberValue{.min = 0}, false}, kNull));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("batch_sizes", c.batch_sizes, ListOf{IntValue{.min = 1}, false}, kNull));
  SHARDLAB_RETURN_IF_ERROR(obj.read("is_weighted", c.is_weighted, BoolValue{}, kNull));
  if (const Json* cache = obj.find("cache_params", kNull)) {
    CacheParams params;
    SHARDLAB_RETURN_IF_ERROR(read_cache_params(*cache, obj.path_of("cache_params"), params));
    c.cache_params = params;
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("enforce_hbm", c.enforce_hbm, BoolValue{}, kNull));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("stochastic_rounding", c.stochastic_rounding, BoolValue{}, kNull));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("bounds_check_mode", c.bounds_check_mode,
               EnumValue<BoundsCheckMode>{"bounds check mode", parse_bounds_check_mode,
                                          "fatal, warning, ignore, none"},
               kNull));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("feature_names", c.feature_names, ListOf{StringValue{}, false}, kNull));
  if (const Json* kv = obj.find("key_value_params", kNull)) {
    KeyValueParams params;
    SHARDLAB_RETURN_IF_ERROR(read_key_value_params(*kv, obj.path_of("key_value_params"), params));
    c.key_value_params = params;
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("use_virtual_table", c.use_virtual_table, BoolValue{}, kNull));
  return check_input_list_lengths(c, path);
}

}  // namespace

Status read_tables(const ObjectReader& root, std::vector<TableSpec>& out, TableIndex& index) {
  const Json* tables = root.find("tables");
  if (tables == nullptr) return root.missing("tables", "a non-empty list of tables");
  const JsonPath path = root.path_of("tables");
  if (!tables->is_array() || tables->empty()) {
    return invalid_at(path, "must be a non-empty list of tables", tables);
  }
  out.clear();
  out.resize(tables->size());
  index.clear();
  index.reserve(tables->size());
  for (std::size_t i = 0; i < tables->size(); ++i) {
    const Json& t = (*tables)[i];
    const JsonPath table_path = path.at(i);
    SHARDLAB_RETURN_IF_ERROR(read_table(t, table_path, out[i]));
    // The key views the document's string, not out[i].name, which may move.
    // (A name that is not one was a collected problem: ProblemCollector.)
    const auto found = t.find("name");
    if (found == t.end() || !found->is_string()) continue;
    const Json* name_json = &*found;
    const std::string_view name = name_json->get_ref<const std::string&>();
    const auto [it, inserted] = index.emplace(name, i);
    if (!inserted) {
      return invalid_at(table_path.child("name"), "duplicate table name", name_json,
                        "a name not already used by tables[" + std::to_string(it->second) + "]");
    }
  }
  return Status::ok();
}

Status read_constraints(const ObjectReader& root, const TableIndex& index,
                        std::vector<std::optional<ConstraintSpec>>& out) {
  out.assign(index.size(), std::nullopt);
  const Json* constraints = root.find("constraints");
  if (constraints == nullptr) return Status::ok();
  const JsonPath path = root.path_of("constraints");
  if (!constraints->is_object()) {
    return invalid_at(path, "must be an object keyed by table name", constraints);
  }
  for (const auto& [name, value] : constraints->get_ref<const Json::object_t&>()) {
    const JsonPath entry_path = path.child(name);
    const auto it = index.find(name);
    if (it == index.end()) {
      const Json name_json(name);
      return invalid_at(entry_path, "constraint for a table that does not exist", &name_json,
                        "the name of a table in tables");
    }
    ConstraintSpec c;
    SHARDLAB_RETURN_IF_ERROR(read_constraint(value, entry_path, c));
    out[it->second] = std::move(c);
  }
  return Status::ok();
}

}  // namespace shardlab::data::internal
