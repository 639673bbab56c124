// The "systems" of the presets file (docs/presets.md "Systems"): whole
// machines and racks, each naming a GPU preset of the same file, every number
// with its source.
#include "system_presets.h"

#include "json_reader.h"
#include "message_text.h"
#include "sourced_reader.h"

namespace shardlab::data {
namespace internal {
namespace {

const IntValue kGpuCount{.min = 1, .max = planner::kMaxWorldSize};

Status read_system(const Json& value, const JsonPath& path, const PresetCatalog& c,
                   SystemPreset& s) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("a system preset",
                {"name", "description", "gpu", "gpus", "gpus_per_host", "nics_per_host", "nic_bw",
                 "nvlink_domain_size", "sharp", "rail_optimized", "rail_group_size"}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("name", s.name, StringValue{.non_empty = true}, "the system's name"));
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("description", s.description, StringValue{.non_empty = true}, "a description"));
  SourcedReader r(c, s.values);
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "gpu", "gpu", s.gpu, StringValue{.non_empty = true}));
  if (c.find(s.gpu) == nullptr) {
    return invalid_at(obj.path_of("gpu").child("value"), "not a GPU preset of this file",
                      &*obj.find("gpu")->find("value"), "one of " + c.names());
  }
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "gpus", "gpus", s.gpus, kGpuCount));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "gpus_per_host", "gpus_per_host", s.gpus_per_host, kGpuCount));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "nics_per_host", "nics_per_host", s.nics_per_host, kGpuCount));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "nic_bw", "nic_bw", s.nic_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(
      r.read(obj, "nvlink_domain_size", "nvlink_domain_size", s.nvlink_domain_size, kGpuCount));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "sharp", "sharp", s.sharp, BoolValue{}));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "rail_optimized", "rail_optimized", s.rail_optimized,
                                  BoolValue{}, /*required=*/false));
  SHARDLAB_RETURN_IF_ERROR(r.read(obj, "rail_group_size", "rail_group_size", s.rail_group_size,
                                  IntValue{.min = 0, .max = planner::kMaxWorldSize},
                                  /*required=*/false));
  // A system is whole hosts, and its NVLink domain whole hosts that divide it.
  const auto bad = [&](std::string_view key, const std::string& why) {
    return invalid_at(obj.path_of(key).child("value"), why, &*obj.find(key)->find("value"));
  };
  if (s.gpus % s.gpus_per_host != 0)
    return bad("gpus_per_host", "must divide gpus (" + std::to_string(s.gpus) + ")");
  if (s.nvlink_domain_size % s.gpus_per_host != 0 || s.gpus % s.nvlink_domain_size != 0) {
    return bad("nvlink_domain_size", "must be whole hosts of " + std::to_string(s.gpus_per_host) +
                                         " GPUs that divide gpus (" + std::to_string(s.gpus) + ")");
  }
  return Status::ok();
}

}  // namespace

Status read_systems(const ObjectReader& root, PresetCatalog& c) {
  const Json* systems = root.find("systems");
  if (systems == nullptr) return Status::ok();
  if (!systems->is_array())
    return invalid_at(root.path_of("systems"), "must be a list of system presets", systems);
  for (size_t i = 0; i < systems->size(); ++i) {
    SystemPreset s;
    SHARDLAB_RETURN_IF_ERROR(read_system((*systems)[i], root.path_of("systems").at(i), c, s));
    if (c.find_system(s.name) != nullptr || c.find(s.name) != nullptr) {
      return invalid_at(root.path_of("systems").at(i).child("name"), "duplicate preset name",
                        &(*systems)[i]["name"]);
    }
    c.systems.push_back(std::move(s));
  }
  return Status::ok();
}

}  // namespace internal

const SystemPreset* PresetCatalog::find_system(std::string_view name) const {
  for (const SystemPreset& s : systems) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string PresetCatalog::system_names() const {
  std::string out;
  for (const SystemPreset& s : systems) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

}  // namespace shardlab::data
