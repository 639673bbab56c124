#include "shardlab/data/plan_json.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "json_document.h"
#include "json_reader.h"
#include "json_writer.h"
#include "message_text.h"
#include "shardlab/data/file_io.h"

namespace shardlab::data {
namespace {

using internal::JsonWriter;
using planner::CacheParams;
using planner::ComputeDevice;
using planner::ConstraintSpec;
using planner::PartitionedPlan;
using planner::Perf;
using planner::PlannerResult;
using planner::Scenario;
using planner::SearchSpace;
using planner::Shard;
using planner::ShardingOption;
using planner::ShardingType;
using planner::Storage;

// Documents are written by a streaming writer rather than built as a JSON
// tree: an options list can hold 10^5 shards, and a tree of it costs tens of
// times the enumeration itself. Field order is the order of the calls below,
// which is the order docs/cost-model.md §13.1 documents.

void write_perf(JsonWriter& w, const Perf& p) {
  w.begin_object();
  w.member("fwd_compute", p.fwd_compute);
  w.member("fwd_comms", p.fwd_comms);
  w.member("bwd_compute", p.bwd_compute);
  w.member("bwd_comms", p.bwd_comms);
  w.member("prefetch_compute", p.prefetch_compute);
  w.member("total", p.total());
  w.end_object();
}

void write_storage(JsonWriter& w, const Storage& s) {
  w.begin_object();
  w.member("hbm", s.hbm);
  w.member("ddr", s.ddr);
  w.end_object();
}

void write_pair(JsonWriter& w, int64_t a, int64_t b) {
  w.begin_array();
  w.value(a);
  w.value(b);
  w.end_array();
}

const char* bounds_check_name(planner::BoundsCheckMode m) {
  switch (m) {
    case planner::BoundsCheckMode::kFatal: return "fatal";
    case planner::BoundsCheckMode::kWarning: return "warning";
    case planner::BoundsCheckMode::kIgnore: return "ignore";
    case planner::BoundsCheckMode::kNone: return "none";
  }
  return "none";
}

// null, or the five keys of TorchRec's CacheParams with null for each not given.
void write_cache_params(JsonWriter& w, const std::optional<CacheParams>& cp) {
  w.key("cache_params");
  if (!cp.has_value()) {
    w.null();
    return;
  }
  w.begin_object();
  std::optional<std::string_view> algorithm;
  if (cp->algorithm) algorithm = *cp->algorithm == planner::CacheAlgorithm::kLru ? "lru" : "lfu";
  write_optional(w, "algorithm", algorithm);
  write_optional(w, "load_factor", cp->load_factor);
  write_optional(w, "reserved_memory", cp->reserved_memory);
  std::optional<std::string_view> precision;
  if (cp->precision) precision = planner::to_string(*cp->precision);
  write_optional(w, "precision", precision);
  write_optional(w, "prefetch_pipeline", cp->prefetch_pipeline);
  w.end_object();
}

const ConstraintSpec* constraint_of(const Scenario& scenario, int table) {
  if (table < 0 || table >= static_cast<int>(scenario.constraints.size())) return nullptr;
  const auto& c = scenario.constraints[static_cast<size_t>(table)];
  return c.has_value() ? &*c : nullptr;
}

std::string module_path(const SearchSpace& space, const ShardingOption& opt) {
  if (opt.module >= 0 && opt.module < static_cast<int>(space.modules.size())) {
    return space.modules[static_cast<size_t>(opt.module)].path;
  }
  // Hand-built search spaces may leave `module` unset; the fqn still says it.
  auto dot = opt.fqn.rfind('.');
  return dot == std::string::npos ? std::string() : opt.fqn.substr(0, dot);
}

void write_placement(JsonWriter& w, std::string_view key, const planner::Topology& topo, int rank) {
  w.key(key);
  if (rank < 0) {
    w.null();  // unplaced
  } else {
    w.value(shard_placement(topo.compute_device, rank, topo.local_world_size));
  }
}

void write_ranks(JsonWriter& w, const int* ranks, int n) {
  w.key("ranks");
  w.begin_array();
  for (int s = 0; s < n; ++s) w.value(ranks[s]);
  w.end_array();
}

// "reserved": the per-device storage list [{rank, hbm, ddr}], or null.
void write_reserved(JsonWriter& w, const std::optional<planner::ReservationResult>& reserved) {
  w.key("reserved");
  if (!reserved.has_value()) {
    w.null();
    return;
  }
  w.begin_array();
  for (size_t r = 0; r < reserved->devices.size(); ++r) {
    w.begin_object();
    w.member("rank", static_cast<int64_t>(r));
    w.member("hbm", reserved->devices[r].hbm);
    w.member("ddr", reserved->devices[r].ddr);
    w.end_object();
  }
  w.end_array();
}

// The option and the ranks of its shards for the i-th entry of a plan.
struct PlacedOption {
  const ShardingOption* option;
  const int* ranks;  // option->num_shards() entries
};

std::vector<PlacedOption> placed_options(const SearchSpace& space, const PartitionedPlan& plan) {
  std::vector<PlacedOption> out;
  out.reserve(plan.proposal.size());
  size_t running = 0;
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
    // first_shard may be absent in a hand-assembled plan; the running count is
    // what init_partitioned_plan computes.
    const size_t first = plan.first_shard.size() == plan.proposal.size() + 1
                             ? static_cast<size_t>(plan.first_shard[i])
                             : running;
    assert(first + opt.shards.size() <= plan.ranks.size());
    out.push_back({&opt, plan.ranks.data() + first});
    running += opt.shards.size();
  }
  return out;
}

Status failure_of(const PlannerResult& result) {
  if (!result.error.is_ok()) return result.error;
  return Status::internal("planning produced no plan");
}

}  // namespace

std::string shard_placement(ComputeDevice device, int rank, int local_world_size) {
  std::string out = "rank:" + std::to_string(rank) + "/" + std::string(planner::to_string(device));
  if (device != ComputeDevice::kCpu) {
    const int local = local_world_size > 0 ? rank % local_world_size : rank;
    out += ":" + std::to_string(local);
  }
  return out;
}

std::string error_to_json(const std::string& scenario_name, const Status& status,
                          const PlannerResult* result, int indent) {
  assert(!status.is_ok());
  JsonWriter w(indent);
  w.begin_object();
  w.member("scenario", scenario_name);
  w.key("error");
  w.begin_object();
  switch (status.code()) {
    case StatusCode::kPlanner: w.member("type", to_string(status.planner_error())); break;
    case StatusCode::kInternal: w.member("type", "internal"); break;
    default: w.member("type", "invalid_scenario"); break;
  }
  w.member("message", status.message());
  w.end_object();
  if (status.code() == StatusCode::kPlanner) {
    w.member("num_proposals", result != nullptr ? result->num_proposals : 0);
    w.member("num_plans", result != nullptr ? result->num_plans : 0);
    if (result != nullptr) {
      write_reserved(w, result->reserved);
    } else {
      w.null_member("reserved");
    }
  }
  w.end_object();
  return std::move(w).take();
}

std::string plan_to_json(const Scenario& scenario, const PlannerResult& result, int indent) {
  if (!result.ok() || !result.search_space.has_value()) {
    return error_to_json(scenario.name, failure_of(result), &result, indent);
  }
  const SearchSpace& space = *result.search_space;
  const planner::Topology& topo = result.topology;
  const int world_size = topo.world_size;

  JsonWriter w(indent);
  w.begin_object();
  w.member("scenario", scenario.name);
  w.member("torchrec_version", planner::to_string(scenario.planner.torchrec_version));
  w.member("perf_rating_ms", result.perf_rating);
  w.member("num_proposals", result.num_proposals);
  w.member("num_plans", result.num_plans);

  std::vector<Storage> used(static_cast<size_t>(world_size > 0 ? world_size : 0));
  w.key("tables");
  w.begin_object();
  for (const PlacedOption& po : placed_options(space, *result.best)) {
    const ShardingOption& opt = *po.option;
    const ConstraintSpec* c = constraint_of(scenario, opt.table);
    w.key(opt.name);
    w.begin_object();
    w.member("module", module_path(space, opt));
    w.member("sharding_type", planner::to_string(opt.sharding_type));
    w.member("compute_kernel", planner::to_string(opt.compute_kernel));
    write_ranks(w, po.ranks, opt.num_shards());
    w.member("sharding_spec", opt.sharding_type != ShardingType::kDataParallel);
    write_cache_params(w, opt.cache_params);
    write_optional(w, "enforce_hbm", c != nullptr ? c->enforce_hbm : std::nullopt);
    w.key("shards");
    w.begin_array();
    for (int s = 0; s < opt.num_shards(); ++s) {
      const Shard& sh = opt.shards[static_cast<size_t>(s)];
      const int rank = po.ranks[s];
      w.begin_object();
      w.key("offset");
      write_pair(w, sh.row_offset, sh.col_offset);
      w.key("size");
      write_pair(w, sh.rows, sh.cols);
      w.member("rank", rank);
      write_placement(w, "placement", topo, rank);
      w.key("perf");
      write_perf(w, opt.shard_perf);
      w.key("storage");
      write_storage(w, sh.storage);
      w.end_object();
      if (rank >= 0 && rank < world_size) used[static_cast<size_t>(rank)] += sh.storage;
    }
    w.end_array();
    w.end_object();
  }
  w.end_object();

  w.key("devices");
  w.begin_array();
  for (int r = 0; r < world_size; ++r) {
    const auto ur = static_cast<size_t>(r);
    const Storage cap = ur < topo.devices.size() ? topo.devices[ur].storage : Storage{};
    const Storage avail = result.reserved.has_value() && ur < result.reserved->devices.size()
                              ? result.reserved->devices[ur]
                              : cap;
    w.begin_object();
    w.member("rank", r);
    w.member("hbm_used", used[ur].hbm);
    w.member("hbm_cap", cap.hbm);
    w.member("hbm_available", avail.hbm);
    w.member("ddr_used", used[ur].ddr);
    w.member("ddr_cap", cap.ddr);
    w.member("ddr_available", avail.ddr);
    w.key("perf");
    w.begin_object();
    w.member("total", ur < result.device_perf_total.size() ? result.device_perf_total[ur] : 0.0);
    w.end_object();
    w.end_object();
  }
  w.end_array();
  write_reserved(w, result.reserved);
  w.end_object();
  return std::move(w).take();
}

std::string options_to_json(const Scenario& scenario, const PlannerResult& result, int indent) {
  if (!result.search_space.has_value()) {
    return error_to_json(scenario.name, failure_of(result), &result, indent);
  }
  const SearchSpace& space = *result.search_space;
  JsonWriter w(indent);
  size_t num_shards = 0;
  for (const ShardingOption& opt : space.options) num_shards += opt.shards.size();
  // About 250 bytes per shard on one line, twice that indented.
  w.reserve((indent < 0 ? 256 : 512) * (num_shards + space.options.size()));
  w.begin_object();
  w.member("scenario", scenario.name);
  w.member("torchrec_version", planner::to_string(scenario.planner.torchrec_version));
  w.key("options");
  w.begin_array();
  for (size_t i = 0; i < space.num_enumerated(); ++i) {
    const ShardingOption& opt = space.options[i];
    w.begin_object();
    w.member("index", static_cast<int64_t>(i));
    w.member("name", opt.name);
    w.member("fqn", opt.fqn);
    w.member("sharding_type", planner::to_string(opt.sharding_type));
    w.member("compute_kernel", planner::to_string(opt.compute_kernel));
    w.member("partition_by", planner::to_string(opt.partition_by));
    w.member("is_pooled", opt.is_pooled);
    w.member("is_weighted", opt.is_weighted);
    w.key("input_lengths");
    w.begin_array();
    for (double x : opt.input_lengths) w.value(x);
    w.end_array();
    write_cache_params(w, opt.cache_params);
    w.member("total_perf", opt.total_perf);
    w.key("total_storage");
    write_storage(w, opt.total_storage);
    w.key("shards");
    w.begin_array();
    for (const Shard& sh : opt.shards) {
      w.begin_object();
      w.key("offset");
      write_pair(w, sh.row_offset, sh.col_offset);
      w.key("size");
      write_pair(w, sh.rows, sh.cols);
      w.key("perf");
      write_perf(w, opt.shard_perf);
      w.key("storage");
      write_storage(w, sh.storage);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

std::string plan_to_torchrec_json(const Scenario& scenario, const PlannerResult& result,
                                  int indent) {
  if (!result.ok() || !result.search_space.has_value()) {
    return error_to_json(scenario.name, failure_of(result), &result, indent);
  }
  const SearchSpace& space = *result.search_space;
  const planner::Topology& topo = result.topology;

  // Group the plan's options by module, modules in order of first appearance.
  std::vector<std::pair<std::string, std::vector<PlacedOption>>> modules;
  for (const PlacedOption& po : placed_options(space, *result.best)) {
    const std::string path = module_path(space, *po.option);
    auto it = std::find_if(modules.begin(), modules.end(), [&](const auto& m) { return m.first == path; });
    if (it == modules.end()) it = modules.insert(modules.end(), {path, {}});
    it->second.push_back(po);
  }

  JsonWriter w(indent);
  w.begin_object();
  w.member("format", kTorchrecPlanFormat);
  w.member("version", 1);
  w.member("scenario", scenario.name);
  w.key("plan");
  w.begin_object();
  for (const auto& [path, options] : modules) {
    w.key(path);
    w.begin_object();
    for (const PlacedOption& po : options) {
      const ShardingOption& opt = *po.option;
      const ConstraintSpec* c = constraint_of(scenario, opt.table);
      w.key(opt.name);
      w.begin_object();
      w.member("sharding_type", planner::to_string(opt.sharding_type));
      w.member("compute_kernel", planner::to_string(opt.compute_kernel));
      write_ranks(w, po.ranks, opt.num_shards());
      w.key("sharding_spec");
      if (opt.sharding_type == ShardingType::kDataParallel) {
        w.null();
      } else {
        w.begin_array();
        for (int s = 0; s < opt.num_shards(); ++s) {
          const Shard& sh = opt.shards[static_cast<size_t>(s)];
          w.begin_object();
          w.key("shard_offsets");
          write_pair(w, sh.row_offset, sh.col_offset);
          w.key("shard_sizes");
          write_pair(w, sh.rows, sh.cols);
          write_placement(w, "placement", topo, po.ranks[s]);
          w.end_object();
        }
        w.end_array();
      }
      write_cache_params(w, opt.cache_params);
      write_optional(w, "enforce_hbm", c != nullptr ? c->enforce_hbm : std::nullopt);
      write_optional(w, "stochastic_rounding", c != nullptr ? c->stochastic_rounding : std::nullopt);
      std::optional<std::string_view> bounds;
      if (c != nullptr && c->bounds_check_mode) bounds = bounds_check_name(*c->bounds_check_mode);
      write_optional(w, "bounds_check_mode", bounds);
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
  return std::move(w).take();
}

// ---------------------------------------------------------------------------
// Reading plans back.

namespace {

using Json = internal::Json;  // the tree parse_json_document builds

// One table entry of a plan file, in either shape.
struct PlanEntry {
  std::string table;
  std::string where;  // JSON path of the entry, for messages
  const Json* body;
  bool torchrec;      // sharding_spec is TorchRec's list (else ShardLab's "shards")
};

// Reads [a, b] of integers.
bool read_pair(const Json& j, int64_t* a, int64_t* b) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number_integer() || !j[1].is_number_integer()) {
    return false;
  }
  *a = j[0].get<int64_t>();
  *b = j[1].get<int64_t>();
  return true;
}

// "rank:R/..." -> R, or -1 when the string does not start that way.
int placement_rank(const std::string& placement) {
  constexpr std::string_view kPrefix = "rank:";
  if (placement.compare(0, kPrefix.size(), kPrefix) != 0) return -1;
  int64_t r = 0;
  size_t i = kPrefix.size();
  if (i >= placement.size() || placement[i] < '0' || placement[i] > '9') return -1;
  for (; i < placement.size() && placement[i] >= '0' && placement[i] <= '9'; ++i) {
    r = r * 10 + (placement[i] - '0');
    if (r > (int64_t{1} << 30)) return -1;
  }
  if (i < placement.size() && placement[i] != '/') return -1;
  return static_cast<int>(r);
}

std::string option_label(const ShardingOption& o) {
  return std::string(planner::to_string(o.sharding_type)) + "/" +
         std::string(planner::to_string(o.compute_kernel));
}

// A bare TorchRec plan: {module: {table: {"sharding_type": ...}}}.
bool looks_like_module_map(const Json& root) {
  if (!root.is_object() || root.empty()) return false;
  for (const auto& [module, tables] : root.items()) {
    if (!tables.is_object() || tables.empty()) return false;
    for (const auto& [table, body] : tables.items()) {
      if (!body.is_object() || !body.contains("sharding_type")) return false;
    }
  }
  return true;
}

class PlanReader {
 public:
  PlanReader(const std::string& origin, const Scenario& scenario, const SearchSpace& space)
      : origin_(origin), scenario_(scenario), space_(space) {}

  Result<PartitionedPlan> read(const std::string& text) {
    // The scenario loader's parser: duplicate keys and absurd nesting are
    // errors with line and column, and nothing throws.
    Result<Json> doc = internal::parse_json_document(text);
    if (!doc.is_ok()) return fail(doc.status().message());
    const Json& root = *doc;
    std::vector<PlanEntry> entries;
    if (Status s = collect(root, &entries); !s.is_ok()) return s;
    return place(entries);
  }

 private:
  Status fail(const std::string& msg) const { return Status::invalid_scenario(origin_ + ": " + msg); }
  Status fail_table(const PlanEntry& e, const std::string& msg) const {
    return fail("table " + e.table + " (" + e.where + "): " + msg);
  }

  Status collect(const Json& root, std::vector<PlanEntry>* entries) const {
    if (!root.is_object()) return fail("a plan file is a JSON object");
    if (root.contains("tables")) {
      const Json& tables = root["tables"];
      if (!tables.is_object()) return fail("\"tables\" must be an object keyed by table name");
      for (const auto& [name, body] : tables.items()) {
        entries->push_back({name, "tables." + name, &body, false});
      }
      return Status::ok();
    }
    if (root.contains("error") && !root.contains("plan")) {
      const Json& err = root["error"];
      std::string what = err.is_object() && err.contains("message") && err["message"].is_string()
                             ? err["message"].get<std::string>()
                             : internal::describe(err);
      return fail("the file holds a failed plan, not a plan: " + what);
    }
    const Json* modules = nullptr;
    std::string prefix;
    if (root.contains("plan")) {
      if (root.contains("format") &&
          !(root["format"].is_string() && root["format"].get<std::string>() == kTorchrecPlanFormat)) {
        return fail("unknown \"format\" " + internal::describe(root["format"]) + ", expected \"" +
                    kTorchrecPlanFormat + "\"");
      }
      if (root.contains("version") && !(root["version"].is_number_integer() && root["version"].get<int64_t>() == 1)) {
        return fail("unsupported \"version\" " + internal::describe(root["version"]) + ", expected 1");
      }
      modules = &root["plan"];
      prefix = "plan.";
      if (!modules->is_object()) return fail("\"plan\" must be an object keyed by module path");
    } else if (looks_like_module_map(root)) {
      modules = &root;
    } else {
      return fail(
          "not a plan: expected top-level \"tables\" (ShardLab plan) or \"plan\" "
          "(TorchRec ShardingPlan, as `shardlab plan --format torchrec` writes)");
    }
    for (const auto& [module, tables] : modules->items()) {
      if (!tables.is_object()) return fail(prefix + module + " must be an object keyed by table name");
      for (const auto& [name, body] : tables.items()) {
        entries->push_back({name, prefix + module + "." + name, &body, true});
      }
    }
    return Status::ok();
  }

  // Checks the shard geometry the file gives (if any) against `opt`, and that
  // shard ranks agree with `ranks`.
  Status check_shards(const PlanEntry& e, const ShardingOption& opt, const std::vector<int>& ranks) const {
    const Json& body = *e.body;
    const char* key = e.torchrec ? "sharding_spec" : "shards";
    if (!body.contains(key)) return Status::ok();
    const Json& shards = body[key];
    if (shards.is_null() || shards.is_boolean()) return Status::ok();  // DP / ShardLab's flag
    if (!shards.is_array()) return fail_table(e, std::string(key) + " must be a list");
    if (shards.size() != opt.shards.size()) {
      return fail_table(e, std::to_string(shards.size()) + " shards, but the " + option_label(opt) +
                               " option has " + std::to_string(opt.shards.size()));
    }
    const char* offset_key = e.torchrec ? "shard_offsets" : "offset";
    const char* size_key = e.torchrec ? "shard_sizes" : "size";
    for (size_t i = 0; i < shards.size(); ++i) {
      const Json& s = shards[i];
      const Shard& want = opt.shards[i];
      const std::string at = std::string(key) + "[" + std::to_string(i) + "]";
      if (!s.is_object()) return fail_table(e, at + " must be an object");
      int64_t a = 0, b = 0;
      if (s.contains(offset_key)) {
        if (!read_pair(s[offset_key], &a, &b)) return fail_table(e, at + "." + offset_key + " must be [row, col]");
        if (a != want.row_offset || b != want.col_offset) {
          return fail_table(e, at + "." + offset_key + " is [" + std::to_string(a) + ", " + std::to_string(b) +
                                   "], but the " + option_label(opt) + " option's shard starts at [" +
                                   std::to_string(want.row_offset) + ", " + std::to_string(want.col_offset) + "]");
        }
      }
      if (s.contains(size_key)) {
        if (!read_pair(s[size_key], &a, &b)) return fail_table(e, at + "." + size_key + " must be [rows, cols]");
        if (a != want.rows || b != want.cols) {
          return fail_table(e, at + "." + size_key + " is [" + std::to_string(a) + ", " + std::to_string(b) +
                                   "], but the " + option_label(opt) + " option's shard is [" +
                                   std::to_string(want.rows) + ", " + std::to_string(want.cols) + "]");
        }
      }
      if (!e.torchrec && s.contains("rank") && s["rank"].is_number_integer() &&
          s["rank"].get<int64_t>() != ranks[i]) {
        return fail_table(e, at + ".rank " + internal::describe(s["rank"]) + " disagrees with ranks[" + std::to_string(i) +
                                 "] = " + std::to_string(ranks[i]));
      }
      if (e.torchrec && s.contains("placement") && s["placement"].is_string()) {
        const int pr = placement_rank(s["placement"].get<std::string>());
        if (pr < 0) return fail_table(e, at + ".placement " + internal::describe(s["placement"]) + " is not \"rank:R/...\"");
        if (pr != ranks[i]) {
          return fail_table(e, at + ".placement " + internal::describe(s["placement"]) + " disagrees with ranks[" +
                                   std::to_string(i) + "] = " + std::to_string(ranks[i]));
        }
      }
    }
    return Status::ok();
  }

  Result<PartitionedPlan> place(const std::vector<PlanEntry>& entries) const {
    // Options by table name, in enumeration order.
    std::unordered_map<std::string, std::vector<int>> by_table;
    for (size_t i = 0; i < space_.options.size(); ++i) {
      by_table[space_.options[i].name].push_back(static_cast<int>(i));
    }
    const int world_size = scenario_.topology.world_size;
    const size_t num_fqns = space_.fqns.size();
    PartitionedPlan plan;
    plan.proposal.assign(num_fqns, -1);
    std::vector<std::vector<int>> ranks_of_fqn(num_fqns);
    std::unordered_map<std::string, std::string> seen;  // table -> where

    for (const PlanEntry& e : entries) {
      const Json& body = *e.body;
      if (!body.is_object()) return fail_table(e, "must be an object");
      if (auto it = seen.find(e.table); it != seen.end()) {
        return fail_table(e, "listed twice (also at " + it->second + ")");
      }
      seen.emplace(e.table, e.where);
      if (scenario_.table_index(e.table) < 0) {
        return fail_table(e, "not a table of scenario " + scenario_.name);
      }
      if (!body.contains("sharding_type") || !body["sharding_type"].is_string()) {
        return fail_table(e, "sharding_type (a string) is required");
      }
      if (!body.contains("compute_kernel") || !body["compute_kernel"].is_string()) {
        return fail_table(e, "compute_kernel (a string) is required");
      }
      const std::string st_name = body["sharding_type"].get<std::string>();
      const std::string ck_name = body["compute_kernel"].get<std::string>();
      const auto st = planner::parse_sharding_type(st_name);
      if (!st) return fail_table(e, "unknown sharding_type \"" + st_name + "\"");
      const auto ck = planner::parse_compute_kernel(ck_name);
      if (!ck) return fail_table(e, "unknown compute_kernel \"" + ck_name + "\"");

      int chosen = -1;
      std::string available;
      if (auto it = by_table.find(e.table); it != by_table.end()) {
        for (int idx : it->second) {
          const ShardingOption& o = space_.options[static_cast<size_t>(idx)];
          if (o.sharding_type == *st && o.compute_kernel == *ck) {
            chosen = idx;
            break;
          }
          available += (available.empty() ? "" : ", ") + option_label(o);
        }
      }
      if (chosen < 0) {
        return fail_table(e, "no " + st_name + "/" + ck_name + " option in the search space (it has: " +
                                 (available.empty() ? std::string("none") : available) + ")");
      }
      const ShardingOption& opt = space_.options[static_cast<size_t>(chosen)];

      if (!body.contains("ranks") || !body["ranks"].is_array()) {
        return fail_table(e, "ranks (a list of integers) is required");
      }
      const Json& jr = body["ranks"];
      if (jr.size() != opt.shards.size()) {
        return fail_table(e, std::to_string(jr.size()) + " ranks, but the " + option_label(opt) +
                                 " option has " + std::to_string(opt.shards.size()) + " shards");
      }
      std::vector<int> ranks;
      ranks.reserve(jr.size());
      for (size_t i = 0; i < jr.size(); ++i) {
        if (!jr[i].is_number_integer()) return fail_table(e, "ranks[" + std::to_string(i) + "] is not an integer");
        const int64_t r = jr[i].get<int64_t>();
        if (r < 0 || r >= world_size) {
          return fail_table(e, "ranks[" + std::to_string(i) + "] = " + std::to_string(r) +
                                   " is out of range (world_size " + std::to_string(world_size) + ")");
        }
        ranks.push_back(static_cast<int>(r));
      }
      if (Status s = check_shards(e, opt, ranks); !s.is_ok()) return s;

      const auto f = static_cast<size_t>(space_.fqn_of_option[static_cast<size_t>(chosen)]);
      plan.proposal[f] = chosen;
      ranks_of_fqn[f] = std::move(ranks);
    }

    std::string missing;
    int num_missing = 0;
    for (size_t f = 0; f < num_fqns; ++f) {
      if (plan.proposal[f] >= 0) continue;
      ++num_missing;
      if (num_missing <= 5) {
        const auto& opts = space_.options_by_fqn[f];
        const std::string name = opts.empty() ? space_.fqns[f] : space_.options[static_cast<size_t>(opts[0])].name;
        missing += (missing.empty() ? "" : ", ") + name;
      }
    }
    if (num_missing > 0) {
      if (num_missing > 5) missing += ", ... (" + std::to_string(num_missing) + " in all)";
      return fail((num_missing == 1 ? "table " : "tables ") + missing +
                  " of the scenario " + (num_missing == 1 ? "is" : "are") + " missing from the plan");
    }

    plan.first_shard.assign(num_fqns + 1, 0);
    for (size_t f = 0; f < num_fqns; ++f) {
      plan.first_shard[f + 1] = plan.first_shard[f] + static_cast<int>(ranks_of_fqn[f].size());
      plan.ranks.insert(plan.ranks.end(), ranks_of_fqn[f].begin(), ranks_of_fqn[f].end());
    }
    return plan;
  }

  const std::string& origin_;
  const Scenario& scenario_;
  const SearchSpace& space_;
};

}  // namespace

Result<PartitionedPlan> parse_plan(const std::string& text, const std::string& origin,
                                   const Scenario& scenario, const SearchSpace& space) {
  try {
    Result<PartitionedPlan> plan = PlanReader(origin, scenario, space).read(text);
    // Table names and the origin come from the user: escape their control bytes.
    if (!plan) return Status::invalid_scenario(internal::printable(plan.status().message()));
    return plan;
  } catch (const std::exception& e) {
    // nlohmann exceptions never leave data/ (a type mismatch we did not guard).
    return Status::invalid_scenario(internal::printable(origin + ": " + e.what()));
  }
}

Result<PartitionedPlan> read_plan_file(const std::string& path, const Scenario& scenario,
                                       const SearchSpace& space) {
  // The scenario's limits: a regular file or a pipe, at most kMaxInputFileBytes.
  Result<std::string> text = read_input_file(path, "plan file");
  if (!text) return Status::invalid_scenario(text.status().message());
  return parse_plan(*text, path, scenario, space);
}

}  // namespace shardlab::data
