// Reading plan files back (plan_json.h): both shapes, read with the scenario
// loader's path-aware readers (json_reader.h), so every error is one line
// "<file>: <json path>: <what is wrong>: got <value>, expected <what>". Then
// the layout is checked against what TorchRec builds from a plan as written:
// a plan TorchRec would lay out differently is refused rather than rated.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format_keys.h"
#include "json_document.h"
#include "json_input.h"
#include "json_reader.h"
#include "message_text.h"
#include "read_document.h"
#include "scenario_sections.h"
#include "shardlab/data/file_io.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/planner/hugectr_layout.h"

namespace shardlab::data {
namespace {

using internal::BoolValue;
using internal::EnumValue;
using internal::IntValue;
using internal::invalid_at;
using internal::Json;
using internal::JsonPath;
using internal::ListOf;
using internal::Null;
using internal::NumberValue;
using internal::ObjectReader;
using internal::StringValue;
using planner::CacheParams;
using planner::PartitionedPlan;
using planner::Scenario;
using planner::SearchSpace;
using planner::Shard;
using planner::ShardingOption;
using planner::ShardingType;

// Warnings beyond this many are counted, not listed.
constexpr std::size_t kMaxWarnings = 20;

std::optional<planner::BoundsCheckMode> parse_bounds_check_mode(std::string_view s) {
  if (s == "fatal") return planner::BoundsCheckMode::kFatal;
  if (s == "warning") return planner::BoundsCheckMode::kWarning;
  if (s == "ignore") return planner::BoundsCheckMode::kIgnore;
  if (s == "none") return planner::BoundsCheckMode::kNone;
  return std::nullopt;
}

const EnumValue<ShardingType> kShardingTypeValue{"sharding type", planner::parse_sharding_type,
                                                 planner::sharding_type_names()};
const EnumValue<planner::ComputeKernel> kKernelValue{
    "compute kernel", planner::parse_compute_kernel, planner::compute_kernel_names()};

std::string option_label(const ShardingOption& o) {
  return std::string(planner::to_string(o.sharding_type)) + "/" +
         std::string(planner::to_string(o.compute_kernel));
}

// A shard placement string as TorchRec writes it: "rank:R/<device>[:L]".
struct Placement {
  int64_t rank = 0;
  std::string_view device;
  std::optional<int64_t> local;
};

std::optional<int64_t> parse_count(std::string_view& s) {
  int64_t v = 0;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (v > (int64_t{1} << 40)) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

std::optional<Placement> parse_placement(std::string_view s) {
  if (!s.starts_with("rank:")) return std::nullopt;
  s.remove_prefix(5);
  Placement p;
  const std::optional<int64_t> rank = parse_count(s);
  if (!rank || !s.starts_with('/')) return std::nullopt;
  p.rank = *rank;
  s.remove_prefix(1);
  const std::size_t colon = s.find(':');
  p.device = s.substr(0, colon);
  if (p.device.empty()) return std::nullopt;
  if (colon != std::string_view::npos) {
    s.remove_prefix(colon + 1);
    p.local = parse_count(s);
    if (!p.local || !s.empty()) return std::nullopt;
  }
  return p;
}

// A table entry of either shape.
struct Entry {
  std::string_view table;  // the entry's key, a view into the document
  const JsonPath* path;    // owned by the reader
  const Json* body;
  bool torchrec;  // TorchRec's ParameterSharding (else ShardLab's plan entry)
};

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
  PlanReader(const std::string& origin, const Scenario& scenario, SearchSpace& space,
             std::vector<std::string>* warnings)
      : origin_(origin),
        scenario_(scenario),
        space_(space),
        enumerated_(space.options.size()),
        warnings_(warnings) {
    topology_local_ = scenario.topology.local_world_size.value_or(0) > 0
                          ? *scenario.topology.local_world_size
                          : scenario.topology.world_size;
    group_size_ = planner::make_topology(scenario).intra_group_size;
    for (size_t i = 0; i < enumerated_; ++i) {
      const std::string& table = scenario.tables[static_cast<size_t>(space.options[i].table)].name;
      options_of_table_[table].push_back(static_cast<int>(i));
    }
  }
  PlanReader(const PlanReader&) = delete;
  PlanReader& operator=(const PlanReader&) = delete;

  Result<PartitionedPlan> read(const Json& root) {
    SHARDLAB_RETURN_IF_ERROR(collect(root));
    Result<PartitionedPlan> placed = place();
    count_misplaced();
    return placed;
  }

  // Warnings past kMaxWarnings, counted.
  std::size_t dropped_warnings() const { return dropped_; }

 private:
  const JsonPath& keep(JsonPath p) {
    paths_.push_back(p);
    return paths_.back();
  }

  void warn(const JsonPath& path, const std::string& what) {
    if (warnings_ == nullptr) return;
    if (warnings_->size() >= kMaxWarnings) {
      ++dropped_;
      return;
    }
    warnings_->push_back(internal::printable(origin_ + ": " + path.to_string() + ": " + what));
  }

  // ---- The document's shape. -------------------------------------------------

  Status collect(const Json& root) {
    if (!root.is_object()) {
      return invalid_at(root_, "must be a plan object", &root,
                        "a ShardLab plan (\"tables\") or a TorchRec ShardingPlan (\"plan\")");
    }
    if (const auto it = root.find("tables"); it != root.end()) {
      // ShardLab's plan: only "tables" is read; rating, devices and the
      // reservation are outputs.
      return add_tables(*it, keep(root_.child("tables")), /*torchrec=*/false);
    }
    if (root.contains("error") && !root.contains("plan")) {
      const Json& err = *root.find("error");
      const auto msg = err.is_object() ? err.find("message") : err.end();
      const std::string what =
          msg != err.end() && msg->is_string() ? msg->get<std::string>() : internal::describe(err);
      return invalid_at(root_.child("error"), "the file holds a failed plan, not a plan: " + what);
    }
    const Json* modules = &root;
    const JsonPath* modules_path = &root_;
    if (root.contains("plan")) {
      ObjectReader wrapper(root, root_);
      SHARDLAB_RETURN_IF_ERROR(wrapper.check("a plan file object", internal::kPlanWrapperKeys));
      std::string format(kTorchrecPlanFormat);
      SHARDLAB_RETURN_IF_ERROR(wrapper.read("format", format, StringValue{}));
      if (format != kTorchrecPlanFormat) {
        return invalid_at(wrapper.path_of("format"), "unknown plan format", wrapper.find("format"),
                          "\"" + std::string(kTorchrecPlanFormat) + "\"");
      }
      int64_t version = 1;
      SHARDLAB_RETURN_IF_ERROR(wrapper.read("version", version, IntValue{}));
      if (version != 1) {
        return invalid_at(wrapper.path_of("version"), "unsupported plan version",
                          wrapper.find("version"), "1");
      }
      modules = wrapper.find("plan");
      modules_path = &keep(root_.child("plan"));
      if (!modules->is_object())
        return invalid_at(*modules_path, "must be an object keyed by module path", modules);
    } else if (!looks_like_module_map(root)) {
      return invalid_at(
          root_,
          "not a plan: expected top-level \"tables\" (a ShardLab plan) or \"plan\" (a TorchRec "
          "ShardingPlan, as the planner writes with the torchrec format)");
    }
    for (const auto& [module, tables] : modules->get_ref<const Json::object_t&>()) {
      SHARDLAB_RETURN_IF_ERROR(
          add_tables(tables, keep(modules_path->child(module)), /*torchrec=*/true));
    }
    return Status::ok();
  }

  Status add_tables(const Json& tables, const JsonPath& path, bool torchrec) {
    if (!tables.is_object())
      return invalid_at(path, "must be an object keyed by table name", &tables);
    for (const auto& [name, body] : tables.get_ref<const Json::object_t&>()) {
      const JsonPath& entry_path = keep(path.child(name));
      if (const auto it = seen_.find(name); it != seen_.end()) {
        const Json name_json(name);
        return invalid_at(entry_path, "table listed twice", &name_json,
                          "once (it is also at " + it->second + ")");
      }
      seen_.emplace(name, entry_path.to_string());
      entries_.push_back(Entry{name, &entry_path, &body, torchrec});
    }
    return Status::ok();
  }

  // ---- One entry. -------------------------------------------------------------

  // An entry's sharding type and compute kernel, both required.
  static Status read_type_and_kernel(const ObjectReader& obj, ShardingType& type,
                                     planner::ComputeKernel& kernel) {
    SHARDLAB_RETURN_IF_ERROR(
        obj.require("sharding_type", type, kShardingTypeValue, "a sharding type name"));
    return obj.require("compute_kernel", kernel, kKernelValue, "a compute kernel name");
  }

  Result<int> choose_option(const ObjectReader& obj, std::string_view table) const {
    ShardingType type{};
    planner::ComputeKernel kernel{};
    SHARDLAB_RETURN_IF_ERROR(read_type_and_kernel(obj, type, kernel));
    std::string available;
    for (int i : enumerated_options_of(table)) {
      const ShardingOption& o = space_.options[static_cast<size_t>(i)];
      if (o.sharding_type == type && o.compute_kernel == kernel) return i;
      available += (available.empty() ? "" : ", ") + option_label(o);
    }
    return invalid_at(obj.path_of("compute_kernel"),
                      "no " + std::string(planner::to_string(type)) + "/" +
                          std::string(planner::to_string(kernel)) +
                          " option for this table in the search space",
                      nullptr, "one of " + (available.empty() ? std::string("none") : available));
  }

  // `"layout": "hugectr"` (planner/hugectr_layout.h): the table split by rows
  // into as many even blocks as it lists ranks, an option of its own
  // appended to the search space.
  Result<int> add_hugectr_option(const ObjectReader& obj, std::string_view table) {
    std::string layout;
    SHARDLAB_RETURN_IF_ERROR(obj.read("layout", layout, StringValue{}));
    if (layout != "hugectr") {
      return invalid_at(
          obj.path_of("layout"), "unknown layout", obj.find("layout"),
          "\"hugectr\" (a table split by rows as HugeCTR splits it), or leave it out");
    }
    ShardingType type{};
    planner::ComputeKernel kernel{};
    SHARDLAB_RETURN_IF_ERROR(read_type_and_kernel(obj, type, kernel));
    if (type != ShardingType::kRowWise && type != ShardingType::kTableRowWise) {
      return invalid_at(obj.path_of("sharding_type"), "a HugeCTR layout splits by rows",
                        obj.find("sharding_type"), "row_wise or table_row_wise");
    }
    const ShardingOption* base = nullptr;
    std::string available;
    for (int i : enumerated_options_of(table)) {
      const ShardingOption& o = space_.options[static_cast<size_t>(i)];
      if (o.compute_kernel == kernel && (base == nullptr || o.sharding_type == type)) base = &o;
      available += (available.empty() ? "" : ", ") + option_label(o);
    }
    if (base == nullptr) {
      return invalid_at(obj.path_of("compute_kernel"),
                        "no option of this table has the compute kernel " +
                            std::string(planner::to_string(kernel)),
                        obj.find("compute_kernel"), "one of " + available);
    }
    const Json* listed = obj.find("ranks");
    const int shards =
        listed != nullptr && listed->is_array() ? static_cast<int>(listed->size()) : 0;
    auto option = planner::hugectr_row_split(*base, type, shards, topology_local_);
    if (!option) {
      return invalid_at(obj.path_of("ranks"), option.status().message(), listed,
                        "one rank per row block");
    }
    const int fqn = space_.fqn_of_option[static_cast<size_t>(base - space_.options.data())];
    space_.options.push_back(std::move(option).value());
    space_.fqn_of_option.push_back(fqn);
    ++space_.num_derived;
    return static_cast<int>(space_.options.size()) - 1;
  }

  // A HugeCTR row split is on distinct ranks; a table_row_wise one on whole
  // hosts, each host's ranks in local order.
  Status check_hugectr_ranks(const ObjectReader& obj, const ShardingOption& opt,
                             const std::vector<int>& ranks) const {
    const Json& list = *obj.find("ranks");
    const JsonPath path = obj.path_of("ranks");
    std::vector<bool> used(static_cast<size_t>(scenario_.topology.world_size), false);
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (used[static_cast<size_t>(ranks[i])])
        return invalid_at(path.at(i), "rank listed twice in one table", &list[i]);
      used[static_cast<size_t>(ranks[i])] = true;
      if (opt.sharding_type != ShardingType::kTableRowWise) continue;
      const size_t local = i % static_cast<size_t>(topology_local_);
      const int host_first = ranks[i - local] - ranks[i - local] % topology_local_;
      const int want = host_first + static_cast<int>(local);
      if (ranks[i] != want) {
        return invalid_at(path.at(i),
                          "a HugeCTR table_row_wise split covers whole hosts, each host's ranks "
                          "in local order",
                          &list[i], "rank " + std::to_string(want));
      }
    }
    return Status::ok();
  }

  // TorchRec builds some sharding types in a fixed layout whatever the ranks
  // say; a plan that says otherwise would be rated as a layout that never runs.
  Status check_buildable(const ObjectReader& obj, const ShardingOption& opt,
                         const std::vector<int>& ranks) const {
    const Json& list = *obj.find("ranks");
    const JsonPath path = obj.path_of("ranks");
    const auto expect_rank = [&](size_t i, int want, const std::string& why) -> Status {
      if (ranks[i] == want) return Status::ok();
      return invalid_at(path.at(i), why, &list[i], "rank " + std::to_string(want));
    };
    switch (opt.sharding_type) {
      case ShardingType::kDataParallel:
        for (size_t i = 0; i < ranks.size(); ++i) {
          SHARDLAB_RETURN_IF_ERROR(expect_rank(
              i, static_cast<int>(i),
              "TorchRec replicates a data_parallel table on every rank, in rank order"));
        }
        return Status::ok();
      case ShardingType::kRowWise:
        for (size_t i = 0; i < ranks.size(); ++i) {
          SHARDLAB_RETURN_IF_ERROR(
              expect_rank(i, static_cast<int>(i),
                          "TorchRec's row-wise sharding sends the ids of row block " +
                              std::to_string(i) + " to rank " + std::to_string(i) + ", so shard " +
                              std::to_string(i) + " must be there"));
        }
        return Status::ok();
      case ShardingType::kTableRowWise:
      case ShardingType::kGridShard: {
        // Table-row-wise: one group; grid: a group per column block.
        const int g = group_size_;
        for (size_t i = 0; i < ranks.size(); ++i) {
          const size_t first = i - i % static_cast<size_t>(g);
          const int group = ranks[first] / g;
          const int want = group * g + static_cast<int>(i % static_cast<size_t>(g));
          const std::string unit = g > topology_local_ ? "pod" : "host";
          SHARDLAB_RETURN_IF_ERROR(expect_rank(
              i, want,
              std::string(opt.sharding_type == ShardingType::kGridShard
                              ? "TorchRec's grid sharding puts row shard i of each column block "
                                "on local rank i of one "
                              : "TorchRec's table-row-wise sharding puts shard i on local rank "
                                "i of one ") +
                  unit + " (here " + unit + " " + std::to_string(group) + ", ranks " +
                  std::to_string(group * g) + " to " + std::to_string(group * g + g - 1) + ")"));
        }
        return Status::ok();
      }
      default:
        return Status::ok();
    }
  }

  // [a, b] of integers >= 0.
  static Status read_pair(const ObjectReader& obj, std::string_view key, int64_t& a, int64_t& b,
                          bool& present) {
    const Json* v = obj.find(key);
    present = v != nullptr;
    if (v == nullptr) return Status::ok();
    auto pair = ListOf{IntValue{.min = 0}, false}(*v, obj.path_of(key));
    if (!pair) return pair.status();
    if (pair->size() != 2)
      return invalid_at(obj.path_of(key), "must be a pair of integers", v, "[rows, columns]");
    a = (*pair)[0];
    b = (*pair)[1];
    return Status::ok();
  }

  // A placement naming `rank`; warns when its device is not the scenario's.
  Status check_placement(const ObjectReader& s, int rank) {
    const Json* v = s.find("placement", Null::kMeansAbsent);
    if (v == nullptr) return Status::ok();
    const JsonPath path = s.path_of("placement");
    std::string text;
    SHARDLAB_RETURN_IF_ERROR(s.read("placement", text, StringValue{}));
    const std::optional<Placement> p = parse_placement(text);
    if (!p) return invalid_at(path, "not a placement", v, "\"rank:R/cuda:L\" or \"rank:R/cpu\"");
    if (p->rank != rank)
      return invalid_at(path, "names a rank other than the shard's", v,
                        "rank " + std::to_string(rank));
    const std::string want =
        shard_placement(scenario_.topology.compute_device, rank, topology_local_);
    if (text == want) return Status::ok();
    // One warning for the first such shard; the others are counted into it
    // (a plan made for another GPUs-per-host layout misplaces every shard).
    if (misplaced_shards_++ == 0 && warnings_ != nullptr) {
      const std::size_t before = warnings_->size();
      warn(path, "places the shard on " + quote_text(text) + ", but this scenario's rank " +
                     std::to_string(rank) + " is " + quote_text(want) +
                     "; the rating uses the scenario's device");
      if (warnings_->size() > before) first_misplaced_ = before;
    }
    if (!placement_warned_) {
      placement_warned_ = true;
      ++misplaced_tables_;
    }
    return Status::ok();
  }

  // Adds to the placement warning how many more shards and tables name a
  // device other than the scenario's.
  void count_misplaced() {
    if (misplaced_shards_ <= 1 || !first_misplaced_) return;
    (*warnings_)[*first_misplaced_] += fmt::format(
        "; so do {} more shard{} ({} table{} in all): the plan was made for another number of "
        "GPUs per host",
        misplaced_shards_ - 1, misplaced_shards_ == 2 ? "" : "s", misplaced_tables_,
        misplaced_tables_ == 1 ? "" : "s");
  }

  static std::string quote_text(const std::string& s) { return internal::quote_truncated(s); }

  // The file's shards: the option's geometry, on the ranks the entry lists.
  Status check_shards(const Entry& e, const ObjectReader& obj, const ShardingOption& opt,
                      const std::vector<int>& ranks) {
    placement_warned_ = false;
    const bool dp = opt.sharding_type == ShardingType::kDataParallel;
    const char* key = e.torchrec ? "sharding_spec" : "shards";
    if (!e.torchrec) {
      // ShardLab's plan says whether TorchRec's sharding_spec would be a list.
      bool has_spec = !dp;
      SHARDLAB_RETURN_IF_ERROR(obj.read("sharding_spec", has_spec, BoolValue{}));
      if (has_spec == dp) {
        return invalid_at(obj.path_of("sharding_spec"), "disagrees with the sharding type",
                          obj.find("sharding_spec"),
                          dp ? "false for data_parallel" : "true for a sharded table");
      }
    }
    const Json* shards = obj.find(key, Null::kMeansAbsent);
    if (shards == nullptr) return Status::ok();
    const JsonPath path = obj.path_of(key);
    if (dp && e.torchrec) {
      return invalid_at(path,
                        "TorchRec replicates a data_parallel table whole: it has no sharding_spec",
                        shards, "null");
    }
    if (!shards->is_array()) return invalid_at(path, "must be a list of shards", shards);
    if (shards->size() != opt.shards.size()) {
      return invalid_at(path,
                        "has " + std::to_string(shards->size()) + " shards, but the " +
                            option_label(opt) + " option has " + std::to_string(opt.shards.size()),
                        nullptr, std::to_string(opt.shards.size()) + " shards");
    }
    const char* offset_key = e.torchrec ? "shard_offsets" : "offset";
    const char* size_key = e.torchrec ? "shard_sizes" : "size";
    for (size_t i = 0; i < shards->size(); ++i) {
      const Shard& want = opt.shards[i];
      ObjectReader s((*shards)[i], path.at(i));
      if (e.torchrec) {
        SHARDLAB_RETURN_IF_ERROR(s.check("a shard object", internal::kShardMetadataKeys));
      } else {
        SHARDLAB_RETURN_IF_ERROR(s.check("a shard object", internal::kPlanShardKeys));
      }
      int64_t a = 0, b = 0;
      bool present = false;
      SHARDLAB_RETURN_IF_ERROR(read_pair(s, offset_key, a, b, present));
      if (present && (a != want.row_offset || b != want.col_offset)) {
        return invalid_at(s.path_of(offset_key),
                          "is not where the " + option_label(opt) + " option's shard starts",
                          s.find(offset_key),
                          Json::array({want.row_offset, want.col_offset}).dump());
      }
      SHARDLAB_RETURN_IF_ERROR(read_pair(s, size_key, a, b, present));
      if (present && (a != want.rows || b != want.cols)) {
        return invalid_at(s.path_of(size_key),
                          "is not the " + option_label(opt) + " option's shard size",
                          s.find(size_key), Json::array({want.rows, want.cols}).dump());
      }
      if (!e.torchrec) {
        int64_t rank = ranks[i];
        SHARDLAB_RETURN_IF_ERROR(s.read("rank", rank, IntValue{}));
        if (rank != ranks[i]) {
          return invalid_at(s.path_of("rank"), "disagrees with ranks[" + std::to_string(i) + "]",
                            s.find("rank"), std::to_string(ranks[i]));
        }
      }
      SHARDLAB_RETURN_IF_ERROR(check_placement(s, ranks[i]));
    }
    return Status::ok();
  }

  // TorchRec builds with the file's cache_params and enforce_hbm, but the
  // rating estimates the scenario's options: say so where they differ.
  Status compare_settings(const Entry& e, const ObjectReader& obj, const ShardingOption& opt) {
    if (const Json* v = obj.find("cache_params")) {
      std::optional<CacheParams> file;
      if (!v->is_null()) {
        CacheParams p;
        SHARDLAB_RETURN_IF_ERROR(internal::read_cache_params(*v, obj.path_of("cache_params"), p));
        file = p;
      }
      if (file != opt.cache_params) {
        warn(obj.path_of("cache_params"),
             std::string("differs from the scenario's constraint (") +
                 (opt.cache_params ? "its cache_params" : "none") +
                 "): TorchRec would build the file's, the rating estimates the scenario's");
      }
    }
    // TorchRec 2026-08's key-value tables: the L1 cache TorchRec builds.
    if (const Json* v = obj.find("key_value_params")) {
      std::optional<planner::KeyValueParams> file;
      if (!v->is_null()) {
        planner::KeyValueParams p;
        SHARDLAB_RETURN_IF_ERROR(
            internal::read_key_value_params(*v, obj.path_of("key_value_params"), p));
        file = p;
      }
      if (file != opt.key_value_params) {
        warn(obj.path_of("key_value_params"),
             std::string("differs from the scenario's constraint (") +
                 (opt.key_value_params ? "its key_value_params" : "none") +
                 "): TorchRec would build the file's, the rating estimates the scenario's");
      }
    }
    const int t = scenario_.table_index(std::string(e.table));
    const auto& c = scenario_.constraints[static_cast<size_t>(t)];
    if (const Json* v = obj.find("enforce_hbm")) {
      std::optional<bool> file;
      SHARDLAB_RETURN_IF_ERROR(obj.read("enforce_hbm", file, BoolValue{}, Null::kMeansAbsent));
      const std::optional<bool> scenario = c ? c->enforce_hbm : std::nullopt;
      if (file != scenario) {
        warn(obj.path_of("enforce_hbm"),
             "is " + v->dump() + " but the scenario's constraint says " +
                 (scenario ? (*scenario ? "true" : "false") : "null") +
                 ": TorchRec would build the file's, the rating assumes the scenario's");
      }
    }
    std::optional<bool> stochastic_rounding;
    SHARDLAB_RETURN_IF_ERROR(
        obj.read("stochastic_rounding", stochastic_rounding, BoolValue{}, Null::kMeansAbsent));
    std::optional<planner::BoundsCheckMode> bounds;
    SHARDLAB_RETURN_IF_ERROR(
        obj.read("bounds_check_mode", bounds,
                 EnumValue<planner::BoundsCheckMode>{"bounds check mode", parse_bounds_check_mode,
                                                     "fatal, warning, ignore, none"},
                 Null::kMeansAbsent));
    return Status::ok();
  }

  Status place_entry(const Entry& e, PartitionedPlan& plan,
                     std::vector<std::vector<int>>& ranks_of_fqn) {
    ObjectReader obj(*e.body, *e.path);
    if (e.torchrec) {
      SHARDLAB_RETURN_IF_ERROR(
          obj.check("a ParameterSharding object", internal::kParameterShardingKeys));
    } else {
      SHARDLAB_RETURN_IF_ERROR(obj.check("a plan table object", internal::kPlanTableKeys));
      std::string module;
      SHARDLAB_RETURN_IF_ERROR(obj.read("module", module, StringValue{}));
    }
    if (scenario_.table_index(std::string(e.table)) < 0) {
      const Json name(e.table);
      return invalid_at(*e.path,
                        "not a table of scenario " + internal::quote_truncated(scenario_.name),
                        &name, "the name of a table in the scenario");
    }
    const bool hugectr = !e.torchrec && obj.find("layout") != nullptr;
    auto chosen = hugectr ? add_hugectr_option(obj, e.table) : choose_option(obj, e.table);
    if (!chosen) return chosen.status();
    const ShardingOption& opt = space_.options[static_cast<size_t>(*chosen)];

    const int world_size = scenario_.topology.world_size;
    std::vector<int64_t> listed;
    SHARDLAB_RETURN_IF_ERROR(obj.require("ranks", listed,
                                         ListOf{IntValue{.min = 0, .max = world_size - 1}, false},
                                         "a list of ranks, one per shard"));
    if (listed.size() != opt.shards.size()) {
      return invalid_at(obj.path_of("ranks"),
                        "has " + std::to_string(listed.size()) + " ranks, but the " +
                            option_label(opt) + " option has " + std::to_string(opt.shards.size()) +
                            " shards",
                        nullptr, "one rank per shard");
    }
    std::vector<int> ranks(listed.begin(), listed.end());
    SHARDLAB_RETURN_IF_ERROR(hugectr ? check_hugectr_ranks(obj, opt, ranks)
                                     : check_buildable(obj, opt, ranks));
    SHARDLAB_RETURN_IF_ERROR(check_shards(e, obj, opt, ranks));
    SHARDLAB_RETURN_IF_ERROR(compare_settings(e, obj, opt));

    const auto f = static_cast<size_t>(space_.fqn_of_option[static_cast<size_t>(*chosen)]);
    plan.proposal[f] = *chosen;
    ranks_of_fqn[f] = std::move(ranks);
    return Status::ok();
  }

  Result<PartitionedPlan> place() {
    const size_t num_fqns = space_.fqns.size();
    PartitionedPlan plan;
    plan.proposal.assign(num_fqns, -1);
    std::vector<std::vector<int>> ranks_of_fqn(num_fqns);
    for (const Entry& e : entries_) SHARDLAB_RETURN_IF_ERROR(place_entry(e, plan, ranks_of_fqn));

    std::string missing;
    int num_missing = 0;
    for (size_t f = 0; f < num_fqns; ++f) {
      if (plan.proposal[f] >= 0) continue;
      if (++num_missing <= 5) {
        const auto& opts = space_.options_by_fqn[f];
        const std::string name =
            opts.empty() ? space_.fqns[f] : space_.options[static_cast<size_t>(opts[0])].name;
        missing += (missing.empty() ? "" : ", ") + name;
      }
    }
    if (num_missing > 0) {
      if (num_missing > 5) missing += ", ... (" + std::to_string(num_missing) + " in all)";
      return invalid_at(root_, (num_missing == 1 ? "table " : "tables ") + missing +
                                   " of the scenario " + (num_missing == 1 ? "is" : "are") +
                                   " missing from the plan");
    }
    plan.first_shard.assign(num_fqns + 1, 0);
    for (size_t f = 0; f < num_fqns; ++f) {
      plan.first_shard[f + 1] = plan.first_shard[f] + static_cast<int>(ranks_of_fqn[f].size());
      plan.ranks.insert(plan.ranks.end(), ranks_of_fqn[f].begin(), ranks_of_fqn[f].end());
    }
    return plan;
  }

  // The enumerated options of table `table`, in enumeration order.
  const std::vector<int>& enumerated_options_of(std::string_view table) const {
    static const std::vector<int> kNone;
    const auto it = options_of_table_.find(table);
    return it == options_of_table_.end() ? kNone : it->second;
  }

  const std::string& origin_;
  const Scenario& scenario_;
  SearchSpace& space_;       // HugeCTR layouts append their options
  const size_t enumerated_;  // the options the reader was given
  // Indices of the enumerated options by table name (a plan names each
  // table once), keyed by the scenario's names, which outlive the reader.
  std::unordered_map<std::string_view, std::vector<int>> options_of_table_;
  std::vector<std::string>* warnings_;
  std::size_t dropped_ = 0;
  int topology_local_ = 1;         // ranks per host (HugeCTR's hosts)
  int group_size_ = 1;             // TorchRec's placement groups (hosts, or pods)
  bool placement_warned_ = false;  // this table's misplaced shards are counted
  int misplaced_shards_ = 0;       // shards placed on another device than the scenario's
  int misplaced_tables_ = 0;       // tables with such shards
  std::optional<std::size_t> first_misplaced_;  // index in *warnings_ of that warning
  const JsonPath root_;
  std::deque<JsonPath> paths_;  // stable addresses: paths point to their parents
  std::vector<Entry> entries_;
  std::unordered_map<std::string_view, std::string> seen_;  // table -> path of its first entry
};

}  // namespace

Result<PartitionedPlan> parse_plan(const std::string& text, const std::string& origin,
                                   const Scenario& scenario, SearchSpace& space,
                                   std::vector<std::string>* warnings) {
  return internal::read_document(
      text, origin, nullptr, "plan", [&](const Json& doc) -> Result<PartitionedPlan> {
        PlanReader reader(origin, scenario, space, warnings);
        Result<PartitionedPlan> placed = reader.read(doc);
        if (warnings != nullptr && reader.dropped_warnings() > 0) {
          warnings->push_back(internal::printable(origin + ": " +
                                                  std::to_string(reader.dropped_warnings()) +
                                                  " more warnings like these"));
        }
        return placed;
      });
}

Result<PartitionedPlan> read_plan_file(const std::string& path, const Scenario& scenario,
                                       SearchSpace& space, std::vector<std::string>* warnings) {
  auto text = read_input_file(path, "plan file");
  if (!text) return text.status();
  return parse_plan(*text, path, scenario, space, warnings);
}

}  // namespace shardlab::data
