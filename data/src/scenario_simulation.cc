// The simulator's sections of a scenario file: `topology.fabric` and the
// top-level `workload` (docs/scenario-format.md, "For the simulator"). Both
// are optional and ignored by the planner, so every scenario written before
// them loads unchanged.
#include <string>

#include "scenario_sections.h"
#include "shardlab/data/host_profiles.h"

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

// fabric.nvlink_domain_size (or the system preset's): whole hosts that
// divide the world, and no per-host overrides inside a domain of several
// hosts (they share its switches and its NICs' network). `fabric` is null
// when the file has no fabric object.
Status read_nvlink_domain(const ObjectReader& topology, const ObjectReader* fabric,
                          const planner::TopologySpec& t, planner::FabricSpec& f) {
  if (fabric != nullptr)
    SHARDLAB_RETURN_IF_ERROR(fabric->read("nvlink_domain_size", f.nvlink_domain_size, kNicCount));
  const int local = t.local_world_size.value_or(t.world_size);
  const bool written = fabric != nullptr && fabric->find("nvlink_domain_size") != nullptr;
  if (f.nvlink_domain_size == 0 && t.pod_size) {
    // A pod (topology.pod_size) is an NVLink domain: the simulator's fabric
    // follows the planner's, where the graph can hold it (pods that divide
    // the world, no per-host overrides); else the domains stay hosts.
    const int64_t pod = int64_t{*t.pod_size} * local;
    const bool fits = pod <= t.world_size && t.world_size % pod == 0 &&
                      (fabric == nullptr || fabric->find("hosts") == nullptr);
    if (fits) f.nvlink_domain_size = static_cast<int>(pod);
  }
  if (f.nvlink_domain_size == 0 || f.nvlink_domain_size == local) {
    f.nvlink_domain_size = 0;
    return Status::ok();
  }
  const JsonPath path =
      written ? fabric->path_of("nvlink_domain_size") : topology.path_of("system");
  const Json* value = written ? fabric->find("nvlink_domain_size") : topology.find("system");
  const std::string size = std::to_string(f.nvlink_domain_size);
  if (f.nvlink_domain_size % local != 0 || t.world_size % f.nvlink_domain_size != 0) {
    return invalid_at(path,
                      "an NVLink domain of " + size +
                          " GPUs must be whole hosts of local_world_size (" +
                          std::to_string(local) + ") that divide world_size (" +
                          std::to_string(t.world_size) + ")",
                      value, "world_size a multiple of " + size);
  }
  if (fabric != nullptr && fabric->find("hosts") != nullptr) {
    return invalid_at(fabric->path_of("hosts"),
                      "per-host overrides cannot be used inside an NVLink domain of several "
                      "hosts (nvlink_domain_size " +
                          size + ")",
                      fabric->find("hosts"));
  }
  return Status::ok();
}

// A dense time: one number for every rank, or a list of one per rank.
Status read_dense_ms(const ObjectReader& obj, std::string_view key, int world_size,
                     std::vector<double>& out) {
  const Json* v = obj.find(key);
  if (v == nullptr) return Status::ok();
  const JsonPath path = obj.path_of(key);
  const std::string expected =
      "a number of ms >= 0, or a list of " + std::to_string(world_size) + " (one per rank)";
  if (v->is_array()) {
    if (v->size() != static_cast<std::size_t>(world_size)) {
      return invalid_at(path,
                        "must have one entry per rank (world_size " + std::to_string(world_size) +
                            "), not " + std::to_string(v->size()),
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

// A size of at least one byte.
struct BucketValue {
  Result<int64_t> operator()(const Json& v, const JsonPath& path) const {
    auto bytes = SizeValue{}(v, path);
    if (!bytes) return bytes.status();
    if (*bytes < 1)
      return invalid_at(path, "must be at least 1 byte", &v, "a size such as \"25 MiB\"");
    return bytes;
  }
};
const BucketValue kBucketBytes;

std::optional<planner::InteractionKind> parse_interaction_kind(std::string_view s) {
  if (s == "dot") return planner::InteractionKind::kDot;
  if (s == "dcn") return planner::InteractionKind::kDcn;
  if (s == "cat") return planner::InteractionKind::kCat;
  if (s == "none") return planner::InteractionKind::kNone;
  return std::nullopt;
}

// Optimizers of the dense parameters.
std::optional<planner::OptimizerKind> parse_dense_optimizer(std::string_view s) {
  if (s == "sgd") return planner::OptimizerKind::kSgd;
  if (s == "adagrad") return planner::OptimizerKind::kAdagrad;
  if (s == "rowwise_adagrad") return planner::OptimizerKind::kRowwiseAdagrad;
  if (s == "adam") return planner::OptimizerKind::kAdam;
  return std::nullopt;
}

// Gradient element types DDP all-reduces.
std::optional<int> parse_gradient_precision(std::string_view s) {
  if (s == "fp32") return 4;
  if (s == "fp16" || s == "bf16") return 2;
  return std::nullopt;
}

const IntValue kWidth{.min = 1, .max = int64_t{1} << 24};

Status read_interaction(const Json& value, const JsonPath& path, planner::InteractionSpec& x) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("an interaction object", kInteractionKeys));
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("kind", x.kind,
                  EnumValue<planner::InteractionKind>{"interaction", parse_interaction_kind,
                                                      "dot, dcn, cat, none"},
                  "one of dot, dcn, cat, none"));
  const bool dcn = x.kind == planner::InteractionKind::kDcn;
  for (const std::string_view key : {"layers", "low_rank"}) {
    if (!dcn && obj.find(key) != nullptr) {
      return invalid_at(obj.path_of(key), "only a dcn interaction takes it", obj.find(key),
                        "kind \"dcn\"");
    }
  }
  if (x.kind != planner::InteractionKind::kDot && obj.find("self_interaction") != nullptr) {
    return invalid_at(obj.path_of("self_interaction"), "only a dot interaction takes it",
                      obj.find("self_interaction"), "kind \"dot\"");
  }
  if (dcn) {
    int64_t layers = 0;
    SHARDLAB_RETURN_IF_ERROR(
        obj.require("layers", layers, IntValue{.min = 1, .max = 1024}, "the cross layers, >= 1"));
    x.layers = static_cast<int>(layers);
    SHARDLAB_RETURN_IF_ERROR(obj.read("low_rank", x.low_rank, kWidth));
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("self_interaction", x.self_interaction, BoolValue{}));
  return Status::ok();
}

Status read_dense(const Json& value, const JsonPath& path, planner::DenseSpec& d) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a dense model object", kDenseKeys));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("dense_features", d.dense_features, IntValue{.min = 0, .max = int64_t{1} << 24}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("bottom_mlp", d.bottom_mlp, ListOf{kWidth, /*non_empty=*/false}));
  const Json* interaction = obj.find("interaction");
  if (interaction == nullptr)
    return obj.missing("interaction", "an object with \"kind\": dot, dcn, cat or none");
  SHARDLAB_RETURN_IF_ERROR(
      read_interaction(*interaction, obj.path_of("interaction"), d.interaction));
  SHARDLAB_RETURN_IF_ERROR(obj.read("top_mlp", d.top_mlp, ListOf{kWidth, /*non_empty=*/false}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("precision", d.precision,
               EnumValue<planner::Precision>{"precision", planner::parse_precision,
                                             "fp32, tf32, bf16, fp16, fp8"}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("optimizer", d.optimizer,
               EnumValue<planner::OptimizerKind>{"dense optimizer", parse_dense_optimizer,
                                                 "sgd, adagrad, rowwise_adagrad, adam"}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("gradient_precision", d.gradient_bytes,
               EnumValue<int>{"gradient precision", parse_gradient_precision, "fp32, bf16, fp16"}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("fused_epilogues", d.fused_epilogues, BoolValue{}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("kernel_overhead_us", d.kernel_overhead_us, NumberValue{.min = 0, .max = 1e6}));
  return Status::ok();
}

}  // namespace

Status read_fabric(const ObjectReader& topology, const planner::TopologySpec& t,
                   planner::FabricSpec& f) {
  const Json* value = topology.find("fabric");
  if (value == nullptr) return read_nvlink_domain(topology, nullptr, t, f);
  ObjectReader obj(*value, topology.path_of("fabric"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a fabric object", kFabricKeys));
  SHARDLAB_RETURN_IF_ERROR(obj.read("nics_per_host", f.nics_per_host, kNicCount));
  SHARDLAB_RETURN_IF_ERROR(obj.read("nic_bw", f.nic_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("oversubscription", f.oversubscription,
                                    NumberValue{.min = 1, .max = planner::kMaxFactor}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("intra_host_latency_ms", f.intra_host_latency_ms, kLatencyMs));
  SHARDLAB_RETURN_IF_ERROR(obj.read("inter_host_latency_ms", f.inter_host_latency_ms, kLatencyMs));
  SHARDLAB_RETURN_IF_ERROR(obj.read("sharp", f.sharp, BoolValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("rail_optimized", f.rail_optimized, BoolValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("rail_group_size", f.rail_group_size,
                                    IntValue{.min = 0, .max = planner::kMaxWorldSize}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("pxn", f.pxn, BoolValue{}));
  if (f.pxn && !f.rail_optimized) {
    return invalid_at(obj.path_of("pxn"),
                      "PXN relays a message to the GPU whose NIC is on the destination's rail, "
                      "which needs a rail-optimized network",
                      obj.find("pxn"), "false, or rail_optimized true");
  }
  SHARDLAB_RETURN_IF_ERROR(read_nvlink_domain(topology, &obj, t, f));
  if (const Json* hosts = obj.find("hosts")) {
    const JsonPath path = obj.path_of("hosts");
    const int n = host_count(t);
    const std::string expected =
        "a list of " + std::to_string(n) + " host objects, ceil(world_size / local_world_size)";
    if (!hosts->is_array())
      return invalid_at(path, "must be a list of host objects", hosts, expected);
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

std::optional<planner::Framework> parse_framework(std::string_view s) {
  if (s == "torchrec") return planner::Framework::kTorchRec;
  if (s == "hugectr") return planner::Framework::kHugeCtr;
  return std::nullopt;
}

// workload.framework, cuda_graphs and host_profile (docs/host-model.md); a
// scenario without them runs TorchRec eagerly under the default profile.
Status read_host_side(const ObjectReader* obj, planner::WorkloadSpec& w) {
  std::string profile(planner::kDefaultHostProfile);
  if (obj != nullptr) {
    SHARDLAB_RETURN_IF_ERROR(obj->read(
        "framework", w.framework,
        EnumValue<planner::Framework>{"framework", parse_framework, "torchrec, hugectr"}));
    SHARDLAB_RETURN_IF_ERROR(obj->read("cuda_graphs", w.cuda_graphs, BoolValue{}));
    SHARDLAB_RETURN_IF_ERROR(obj->read("host_profile", profile, StringValue{.non_empty = true}));
  }
  const Result<HostProfileCatalog>& catalog = builtin_host_profiles();
  if (!catalog) return catalog.status();
  const planner::HostProfile* found = catalog->find(profile);
  if (found == nullptr) {
    return invalid_at(obj != nullptr ? obj->path_of("host_profile") : JsonPath().child("workload"),
                      "is not a host profile", obj != nullptr ? obj->find("host_profile") : nullptr,
                      "one of " + catalog->names());
  }
  w.host = *found;
  return Status::ok();
}

Status read_workload(const ObjectReader& root, int world_size, planner::WorkloadSpec& w) {
  const Json* value = root.find("workload");
  if (value == nullptr) return read_host_side(nullptr, w);
  ObjectReader obj(*value, root.path_of("workload"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a workload object", kWorkloadKeys));
  SHARDLAB_RETURN_IF_ERROR(read_dense_ms(obj, "dense_fwd_ms", world_size, w.dense_fwd_ms));
  SHARDLAB_RETURN_IF_ERROR(read_dense_ms(obj, "dense_bwd_ms", world_size, w.dense_bwd_ms));
  if (const Json* dense = obj.find("dense")) {
    planner::DenseSpec d;
    SHARDLAB_RETURN_IF_ERROR(read_dense(*dense, obj.path_of("dense"), d));
    w.dense = std::move(d);
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("iteration_overhead_ms", w.iteration_overhead_ms, kLatencyMs));
  SHARDLAB_RETURN_IF_ERROR(obj.read("ddp_bucket_cap", w.ddp_bucket_bytes, kBucketBytes));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("ddp_first_bucket_cap", w.ddp_first_bucket_bytes, kBucketBytes));
  return read_host_side(&obj, w);
}

}  // namespace shardlab::data::internal
