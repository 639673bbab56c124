#include "shardlab/data/plan_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "json_writer.h"
#include "message_text.h"
#include "shardlab/data/file_io.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"
#include "shardlab/planner/placement_fit.h"

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

// {hbm, ddr}, and ssd for a scenario that uses the SSD tier
// (Scenario::uses_ssd_tier), as TorchRec 2026-08's Storage writes it.
void write_storage(JsonWriter& w, const Storage& s, bool ssd) {
  w.begin_object();
  w.member("hbm", s.hbm);
  w.member("ddr", s.ddr);
  if (ssd) w.member("ssd", s.ssd);
  w.end_object();
}

void write_pair(JsonWriter& w, int64_t a, int64_t b) {
  w.begin_array();
  w.value(a);
  w.value(b);
  w.end_array();
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

// null, or TorchRec's KeyValueParams with null for each field not given.
void write_key_value_params(JsonWriter& w, const std::optional<planner::KeyValueParams>& p) {
  w.key("key_value_params");
  if (!p.has_value()) {
    w.null();
    return;
  }
  w.begin_object();
  write_optional(w, "max_l1_cache_size", p->max_l1_cache_size);
  write_optional(w, "l2_cache_size", p->l2_cache_size);
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

// "reserved": the per-device storage list [{rank, hbm, ddr[, ssd]}], or null.
void write_reserved(JsonWriter& w, const std::optional<planner::ReservationResult>& reserved,
                    bool ssd) {
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
    if (ssd) w.member("ssd", reserved->devices[r].ssd);
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

}  // namespace

std::string shard_placement(ComputeDevice device, int rank, int local_world_size) {
  std::string out = "rank:" + std::to_string(rank) + "/" + std::string(planner::to_string(device));
  if (device != ComputeDevice::kCpu) {
    const int local = local_world_size > 0 ? rank % local_world_size : rank;
    out += ":" + std::to_string(local);
  }
  return out;
}

std::string error_type_name(const Status& status) {
  assert(!status.is_ok());
  switch (status.code()) {
    case StatusCode::kPlanner:
      return to_string(status.planner_error());
    case StatusCode::kCorrupt:
      return "corrupt";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kInternal:
      return "internal";
    default:
      return "invalid_scenario";
  }
}

std::string error_to_json(const std::string& scenario_name, const Status& status,
                          const PlannerResult* result, int indent, bool ssd_tier) {
  assert(!status.is_ok());
  JsonWriter w(indent);
  w.begin_object();
  w.member("scenario", scenario_name);
  w.key("error");
  w.begin_object();
  w.member("type", error_type_name(status));
  w.member("message", status.message());
  w.end_object();
  if (status.code() == StatusCode::kPlanner) {
    w.member("num_proposals", result != nullptr ? result->num_proposals : 0);
    w.member("num_plans", result != nullptr ? result->num_plans : 0);
    if (result != nullptr) {
      write_reserved(w, result->reserved, ssd_tier);
    } else {
      w.null_member("reserved");
    }
  }
  w.end_object();
  return std::move(w).take();
}

namespace {

// How much of a table or scenario name a row shows.
constexpr std::size_t kMaxTableNameBytes = 40;

// Ranks as ranges in rank order (format_id_list); "-" for none.
std::string rank_ranges(const int* ranks, int count) {
  std::vector<int64_t> ids(ranks, ranks + count);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids.empty() ? "-" : format_id_list(ids);
}

}  // namespace

std::string plan_to_text(const Scenario& scenario, const PlannerResult& result) {
  if (!result.ok() || !result.search_space.has_value()) return result.failure().message() + "\n";
  const std::vector<PlacedOption> placed = placed_options(*result.search_space, *result.best);
  std::vector<std::string> names;
  std::size_t width = 5;  // "table"
  for (const PlacedOption& po : placed) {
    names.push_back(printable(po.option->name, kMaxTableNameBytes));
    width = std::max(width, names.back().size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<16} {:<14} {:>6}  {:<20} {:>10} {:>11}\n", "table", width,
                  "sharding_type", "compute_kernel", "shards", "ranks", "perf ms", "HBM");
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const ShardingOption& opt = *placed[i].option;
    const int* ranks = placed[i].ranks;
    out +=
        fmt::format("{:<{}}  {:<16} {:<14} {:>6}  {:<20} {:>10.4f} {:>11}\n", names[i], width,
                    planner::to_string(opt.sharding_type), planner::to_string(opt.compute_kernel),
                    opt.num_shards(), rank_ranges(ranks, opt.num_shards()), opt.total_perf,
                    format_bytes(static_cast<double>(opt.total_storage.hbm)));
  }
  out += fmt::format(
      "{}: {} tables on {} ranks, rating {:.6g} ms (TorchRec {}); the plan's JSON with -o FILE, "
      "or -o - for stdout\n",
      printable(scenario.name, kMaxTableNameBytes), placed.size(), result.topology.world_size,
      result.perf_rating, planner::to_string(scenario.planner.torchrec_version));
  return out;
}

std::string plan_to_json(const Scenario& scenario, const PlannerResult& result, int indent) {
  if (!result.ok() || !result.search_space.has_value()) {
    return error_to_json(scenario.name, result.failure(), &result, indent,
                         scenario.uses_ssd_tier());
  }
  const SearchSpace& space = *result.search_space;
  const planner::Topology& topo = result.topology;
  const int world_size = topo.world_size;
  const bool ssd = scenario.uses_ssd_tier();

  JsonWriter w(indent);
  w.begin_object();
  w.member("scenario", scenario.name);
  w.member("torchrec_version", planner::to_string(scenario.planner.torchrec_version));
  w.member("perf_rating_ms", result.perf_rating);
  w.member("num_proposals", result.num_proposals);
  w.member("num_plans", result.num_plans);
  // A plan run with --allow-over-capacity says so (docs/outputs.md).
  if (Status fits = planner::check_placement_fits(result); !fits.is_ok())
    w.member("over_capacity", fits.message());

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
    if (opt.hugectr_rows) w.member("layout", "hugectr");
    write_ranks(w, po.ranks, opt.num_shards());
    w.member("sharding_spec", opt.sharding_type != ShardingType::kDataParallel);
    write_cache_params(w, opt.cache_params);
    write_optional(w, "enforce_hbm", c != nullptr ? c->enforce_hbm : std::nullopt);
    if (ssd) write_key_value_params(w, opt.key_value_params);
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
      write_storage(w, sh.storage, ssd);
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
    if (ssd) {
      w.member("ssd_used", used[ur].ssd);
      w.member("ssd_cap", cap.ssd);
      w.member("ssd_available", avail.ssd);
    }
    w.key("perf");
    w.begin_object();
    w.member("total", ur < result.device_perf_total.size() ? result.device_perf_total[ur] : 0.0);
    w.end_object();
    w.end_object();
  }
  w.end_array();
  write_reserved(w, result.reserved, ssd);
  w.end_object();
  return std::move(w).take();
}

bool OptionFilter::keeps(const ShardingOption& option) const {
  const bool table =
      tables.empty() || std::find(tables.begin(), tables.end(), option.name) != tables.end();
  const bool type = sharding_types.empty() ||
                    std::find(sharding_types.begin(), sharding_types.end(), option.sharding_type) !=
                        sharding_types.end();
  return table && type;
}

Result<OptionFilter> option_filter(const Scenario& scenario, const std::vector<std::string>& tables,
                                   const std::vector<std::string>& sharding_types) {
  OptionFilter filter;
  for (const std::string& name : tables) {
    const bool known = std::any_of(scenario.tables.begin(), scenario.tables.end(),
                                   [&](const planner::TableSpec& t) { return t.name == name; });
    if (!known) {
      return Status::invalid_argument("table \"" + shown(name) +
                                      "\": the scenario has no table of that name");
    }
    filter.tables.push_back(name);
  }
  for (const std::string& type : sharding_types) {
    const std::optional<ShardingType> t = planner::parse_sharding_type(type);
    if (!t) {
      std::string names;
      for (int k = 0; k < planner::kNumShardingTypes; ++k) {
        names +=
            (k == 0 ? "" : ", ") + std::string(planner::to_string(static_cast<ShardingType>(k)));
      }
      return Status::invalid_argument("sharding type \"" + shown(type) + "\": expected one of " +
                                      names);
    }
    filter.sharding_types.push_back(*t);
  }
  return filter;
}

std::string options_to_json(const Scenario& scenario, const PlannerResult& result, int indent,
                            const OptionFilter& filter) {
  if (!result.search_space.has_value()) {
    return error_to_json(scenario.name, result.failure(), &result, indent,
                         scenario.uses_ssd_tier());
  }
  const SearchSpace& space = *result.search_space;
  const bool ssd = scenario.uses_ssd_tier();
  JsonWriter w(indent);
  size_t num_shards = 0;
  for (const ShardingOption& opt : space.options) {
    if (filter.keeps(opt)) num_shards += opt.shards.size();
  }
  // About 250 bytes per shard on one line, twice that indented.
  w.reserve((indent < 0 ? 256 : 512) * (num_shards + space.options.size()));
  w.begin_object();
  w.member("scenario", scenario.name);
  w.member("torchrec_version", planner::to_string(scenario.planner.torchrec_version));
  w.key("options");
  w.begin_array();
  for (size_t i = 0; i < space.num_enumerated(); ++i) {
    const ShardingOption& opt = space.options[i];
    if (!filter.keeps(opt)) continue;
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
    if (ssd) write_key_value_params(w, opt.key_value_params);
    w.member("total_perf", opt.total_perf);
    w.key("total_storage");
    write_storage(w, opt.total_storage, ssd);
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
      write_storage(w, sh.storage, ssd);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

Status torchrec_buildable(const PlannerResult& result) {
  if (!result.ok() || !result.search_space.has_value()) return Status::ok();
  for (const PlacedOption& po : placed_options(*result.search_space, *result.best)) {
    if (!po.option->hugectr_rows) continue;
    return Status::invalid_argument("table " + po.option->name +
                                    " is split by rows as HugeCTR splits it (\"layout\": "
                                    "\"hugectr\"), which TorchRec cannot build: write the plan in "
                                    "ShardLab's format");
  }
  return Status::ok();
}

std::string plan_to_torchrec_json(const Scenario& scenario, const PlannerResult& result,
                                  int indent) {
  if (!result.ok() || !result.search_space.has_value()) {
    return error_to_json(scenario.name, result.failure(), &result, indent,
                         scenario.uses_ssd_tier());
  }
  const SearchSpace& space = *result.search_space;
  const planner::Topology& topo = result.topology;
  if (Status buildable = torchrec_buildable(result); !buildable)
    return error_to_json(scenario.name, buildable, &result, indent, scenario.uses_ssd_tier());

  // Group the plan's options by module, modules in order of first appearance.
  std::vector<std::pair<std::string, std::vector<PlacedOption>>> modules;
  for (const PlacedOption& po : placed_options(space, *result.best)) {
    const std::string path = module_path(space, *po.option);
    auto it = std::find_if(modules.begin(), modules.end(),
                           [&](const auto& m) { return m.first == path; });
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
      write_optional(w, "stochastic_rounding",
                     c != nullptr ? c->stochastic_rounding : std::nullopt);
      std::optional<std::string> bounds;
      if (c != nullptr && c->bounds_check_mode) bounds = to_string(*c->bounds_check_mode);
      write_optional(w, "bounds_check_mode", bounds);
      // ParameterSharding.key_value_params (2026-08), for the SSD tier's tables.
      if (scenario.uses_ssd_tier()) write_key_value_params(w, opt.key_value_params);
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
  return std::move(w).take();
}

}  // namespace shardlab::data
