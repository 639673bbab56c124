// The simulator's sections of a scenario file: `topology.fabric` and the
// top-level `workload` (docs/scenario-format.md, "For the simulator"). Both
// are optional and ignored by the planner, so every scenario written before
// them loads unchanged.
#include <string>

#include "scenario_sections.h"

namespace shardlab::data::internal {
namespace {

// Large enough for any real host; bounds the graph the simulator builds.
const IntValue kNicCount{.min = 1, .max = planner::kMaxWorldSize};
// Latencies and given durations: finite sums whatever the iteration count.
const NumberValue kLatencyMs{.min = 0, .max = planner::kMaxTimeMs};

Result<planner::HostFabricSpec> read_host(const Json& value, const JsonPath& path) {
  planner::HostFabricSpec h;
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a host object", kHostKeys));
  SHARDLAB_RETURN_IF_ERROR(obj.read("intra_host_bw", h.intra_host_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("nic_bw", h.nic_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("nics", h.nics, kNicCount));
  return h;
}

// Hosts hold local_world_size ranks each; the last one holds the remainder.
int host_count(const planner::TopologySpec& t) {
  const int local = t.local_world_size.value_or(t.world_size);
  return (t.world_size + local - 1) / local;
}

// A dense time: one number for every rank, or a list of one per rank.
Status read_dense_ms(const ObjectReader& obj, std::string_view key, int world_size, std::vector<double>& out) {
  const Json* v = obj.find(key);
  if (v == nullptr) return Status::ok();
  const JsonPath path = obj.path_of(key);
  const std::string expected =
      "a number of ms >= 0, or a list of " + std::to_string(world_size) + " (one per rank)";
  if (v->is_array()) {
    if (v->size() != static_cast<std::size_t>(world_size)) {
      return invalid_at(path,
                        "must have one entry per rank (world_size " + std::to_string(world_size) + "), not " +
                            std::to_string(v->size()),
                        v, expected);
    }
    auto list = ListOf{kLatencyMs, /*non_empty=*/false}(*v, path);
    if (!list) return list.status();
    out = std::move(*list);
    return Status::ok();
  }
  if (!v->is_number()) return invalid_at(path, "must be a time in ms", v, expected);
  auto one = kLatencyMs(*v, path);
  if (!one) return one.status();
  out = {*one};
  return Status::ok();
}

}  // namespace

Status read_fabric(const ObjectReader& topology, const planner::TopologySpec& t, planner::FabricSpec& f) {
  const Json* value = topology.find("fabric");
  if (value == nullptr) return Status::ok();
  ObjectReader obj(*value, topology.path_of("fabric"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a fabric object", kFabricKeys));
  SHARDLAB_RETURN_IF_ERROR(obj.read("nics_per_host", f.nics_per_host, kNicCount));
  SHARDLAB_RETURN_IF_ERROR(obj.read("nic_bw", f.nic_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("oversubscription", f.oversubscription, NumberValue{.min = 1, .max = planner::kMaxFactor}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("intra_host_latency_ms", f.intra_host_latency_ms, kLatencyMs));
  SHARDLAB_RETURN_IF_ERROR(obj.read("inter_host_latency_ms", f.inter_host_latency_ms, kLatencyMs));
  if (const Json* hosts = obj.find("hosts")) {
    const JsonPath path = obj.path_of("hosts");
    const int n = host_count(t);
    const std::string expected = "a list of " + std::to_string(n) +
                                 " host objects, ceil(world_size / local_world_size)";
    if (!hosts->is_array()) return invalid_at(path, "must be a list of host objects", hosts, expected);
    if (hosts->size() != static_cast<std::size_t>(n)) {
      return invalid_at(path,
                        "must have one entry per host (" + std::to_string(n) + "), not " +
                            std::to_string(hosts->size()),
                        hosts, expected);
    }
    SHARDLAB_RETURN_IF_ERROR(obj.read("hosts", f.hosts, ListOf{read_host, /*non_empty=*/false}));
  }
  return Status::ok();
}

Status read_workload(const ObjectReader& root, int world_size, planner::WorkloadSpec& w) {
  const Json* value = root.find("workload");
  if (value == nullptr) return Status::ok();
  ObjectReader obj(*value, root.path_of("workload"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a workload object", kWorkloadKeys));
  SHARDLAB_RETURN_IF_ERROR(read_dense_ms(obj, "dense_fwd_ms", world_size, w.dense_fwd_ms));
  SHARDLAB_RETURN_IF_ERROR(read_dense_ms(obj, "dense_bwd_ms", world_size, w.dense_bwd_ms));
  return Status::ok();
}

}  // namespace shardlab::data::internal
