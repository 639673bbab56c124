// The host profiles document (docs/host-model.md "Host profiles"): a
// validating reader in the scenario loader's style, and the built-in catalog.
#include "shardlab/data/host_profiles.h"

#include "host_profiles_text.h"
#include "json_document.h"
#include "json_input.h"
#include "json_reader.h"
#include "message_text.h"
#include "read_document.h"

namespace shardlab::data {
namespace {

using internal::invalid_at;
using internal::Json;
using internal::JsonPath;
using internal::NumberValue;
using internal::ObjectReader;
using internal::StringValue;

constexpr double kUsPerMs = 1000.0;
// A host cost in microseconds: finite, >= 0, at most a second.
const NumberValue kMicroseconds{.min = 0, .max = 1e6};

// An object's "source": one of the ids of the document's source table.
Status check_source(const ObjectReader& obj, const Json& sources) {
  std::string source;
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("source", source, StringValue{.non_empty = true}, "a source id"));
  if (!sources.contains(source)) {
    return invalid_at(obj.path_of("source"), "is not an id of \"sources\"", obj.find("source"),
                      "one of the document's source ids");
  }
  return Status::ok();
}

// A sourced number {"value", "source", "note"}: its value in ms. `sources`
// is the document's source table; the source must be one of its ids.
Result<double> read_sourced_us(const ObjectReader& parent, std::string_view key,
                               const Json& sources) {
  const Json* v = parent.find(key);
  if (v == nullptr) return parent.missing(key, "an object {\"value\" (us), \"source\"}");
  ObjectReader obj(*v, parent.path_of(key));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a sourced number", {"value", "source", "note"}));
  double us = 0.0;
  SHARDLAB_RETURN_IF_ERROR(obj.require("value", us, kMicroseconds, "microseconds >= 0"));
  SHARDLAB_RETURN_IF_ERROR(check_source(obj, sources));
  return us / kUsPerMs;
}

Result<planner::HostOpCost> read_op(const Json& value, const JsonPath& path, const Json& sources) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check(
      "a host op object", {"before_us", "after_us", "between_launches_us", "source", "note"}));
  planner::HostOpCost c;
  double before = 0.0;
  double after = 0.0;
  double between = 0.0;
  SHARDLAB_RETURN_IF_ERROR(obj.require("before_us", before, kMicroseconds, "microseconds >= 0"));
  SHARDLAB_RETURN_IF_ERROR(obj.read("after_us", after, kMicroseconds));
  SHARDLAB_RETURN_IF_ERROR(obj.read("between_launches_us", between, kMicroseconds));
  SHARDLAB_RETURN_IF_ERROR(check_source(obj, sources));
  c.before_ms = before / kUsPerMs;
  c.after_ms = after / kUsPerMs;
  c.between_launches_ms = between / kUsPerMs;
  return c;
}

Result<planner::HostProfile> read_profile(const Json& value, const JsonPath& path,
                                          const Json& sources) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("a host profile object", {"name", "description", "between_ops_us", "launch_us",
                                          "launch_latency_us", "graph_launch_us", "ops"}));
  planner::HostProfile p;
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("name", p.name, StringValue{.non_empty = true}, "the profile's name"));
  SHARDLAB_RETURN_IF_ERROR(obj.read("description", p.description, StringValue{}));
  for (auto [key, field] :
       {std::pair{"between_ops_us", &planner::HostProfile::between_ops_ms},
        std::pair{"launch_us", &planner::HostProfile::launch_ms},
        std::pair{"launch_latency_us", &planner::HostProfile::launch_latency_ms},
        std::pair{"graph_launch_us", &planner::HostProfile::graph_launch_ms}}) {
    auto ms = read_sourced_us(obj, key, sources);
    if (!ms) return ms.status();
    p.*field = *ms;
  }
  const Json* ops = obj.find("ops");
  if (ops == nullptr) return obj.missing("ops", "an object of ops by PyTorch's name");
  if (!ops->is_object())
    return invalid_at(obj.path_of("ops"), "must be an object", ops, "ops by PyTorch's name");
  for (const auto& [name, op] : ops->items()) {
    auto cost = read_op(op, obj.path_of("ops").child(name), sources);
    if (!cost) return cost.status();
    p.ops.emplace(name, *cost);
  }
  return p;
}

Result<HostProfileCatalog> read_catalog(const Json& doc) {
  const JsonPath root;
  ObjectReader obj(doc, root);
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("a host profiles document", {"format", "version", "about", "sources", "profiles"}));
  std::string format;
  SHARDLAB_RETURN_IF_ERROR(obj.require("format", format, StringValue{}, "shardlab-host-profiles"));
  if (format != "shardlab-host-profiles") {
    return invalid_at(obj.path_of("format"), "is not a host profiles document", obj.find("format"),
                      "\"shardlab-host-profiles\"");
  }
  const Json* version = obj.find("version");
  if (version == nullptr || !version->is_number_integer() ||
      version->get<int64_t>() != kHostProfilesFormatVersion) {
    return invalid_at(obj.path_of("version"), "is not a version this ShardLab reads", version,
                      std::to_string(kHostProfilesFormatVersion));
  }
  const Json* sources = obj.find("sources");
  if (sources == nullptr || !sources->is_object()) {
    return invalid_at(obj.path_of("sources"), "must be an object of sources by id", sources,
                      "{\"id\": {\"title\", \"url\"}}");
  }
  const Json* profiles = obj.find("profiles");
  if (profiles == nullptr || !profiles->is_array()) {
    return invalid_at(obj.path_of("profiles"), "must be a list of host profiles", profiles,
                      "a list");
  }
  HostProfileCatalog c;
  for (size_t i = 0; i < profiles->size(); ++i) {
    auto p = read_profile((*profiles)[i], obj.path_of("profiles").at(i), *sources);
    if (!p) return p.status();
    if (c.find(p->name) != nullptr) {
      return invalid_at(obj.path_of("profiles").at(i).child("name"), "is a duplicate",
                        &(*profiles)[i]["name"], "a unique name");
    }
    c.profiles.push_back(std::move(*p));
  }
  return c;
}

}  // namespace

const planner::HostProfile* HostProfileCatalog::find(std::string_view name) const {
  for (const planner::HostProfile& p : profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string HostProfileCatalog::names() const {
  std::string out;
  for (const planner::HostProfile& p : profiles) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

Result<HostProfileCatalog> parse_host_profiles(const std::string& text, const std::string& origin) {
  return internal::read_document(text, origin, nullptr, "host profiles", read_catalog);
}

const Result<HostProfileCatalog>& builtin_host_profiles() {
  static const Result<HostProfileCatalog> catalog =
      parse_host_profiles(std::string(internal::kHostProfilesJson, internal::kHostProfilesJsonSize),
                          "built-in data/presets/hosts.json");
  return catalog;
}

}  // namespace shardlab::data
