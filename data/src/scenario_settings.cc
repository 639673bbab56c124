// topology, module, sharder and planner sections of a scenario file.
#include <climits>
#include <string>

#include "scenario_sections.h"

namespace shardlab::data::internal {
namespace {

using planner::ModuleKind;
using planner::OptimizerKind;
using planner::PartitionerKind;
using planner::PartitionerSpec;
using planner::ProposerKind;
using planner::ProposerSpec;
using planner::ReservationKind;
using planner::SortBy;
using planner::StorageReservationSpec;

constexpr std::string_view kPrecisions = "fp32, fp16, bf16, fp8, int8";
constexpr std::string_view kProposers = "greedy, uniform, grid_search, embedding_offload_scaleup";

std::optional<ModuleKind> parse_module_kind(std::string_view s) {
  if (s == "embedding_bag_collection") return ModuleKind::kEmbeddingBagCollection;
  if (s == "embedding_collection") return ModuleKind::kEmbeddingCollection;
  return std::nullopt;
}

std::optional<ProposerKind> parse_proposer_kind(std::string_view s) {
  if (s == "greedy") return ProposerKind::kGreedy;
  if (s == "uniform") return ProposerKind::kUniform;
  if (s == "grid_search") return ProposerKind::kGridSearch;
  if (s == "embedding_offload_scaleup") return ProposerKind::kEmbeddingOffloadScaleup;
  return std::nullopt;
}

std::optional<PartitionerKind> parse_partitioner_kind(std::string_view s) {
  if (s == "greedy_perf") return PartitionerKind::kGreedyPerf;
  if (s == "memory_balanced") return PartitionerKind::kMemoryBalanced;
  return std::nullopt;
}

std::optional<SortBy> parse_sort_by(std::string_view s) {
  if (s == "storage") return SortBy::kStorage;
  if (s == "perf") return SortBy::kPerf;
  return std::nullopt;
}

std::optional<ReservationKind> parse_reservation_kind(std::string_view s) {
  if (s == "heuristical") return ReservationKind::kHeuristical;
  if (s == "fixed_percentage") return ReservationKind::kFixedPercentage;
  if (s == "inference") return ReservationKind::kInference;
  return std::nullopt;
}

// Known optimizers; any other name is accepted as OptimizerKind::kOther.
OptimizerKind optimizer_kind(std::string_view s) {
  if (s == "none") return OptimizerKind::kNone;
  if (s == "sgd") return OptimizerKind::kSgd;
  if (s == "adam") return OptimizerKind::kAdam;
  if (s == "rowwise_adagrad") return OptimizerKind::kRowwiseAdagrad;
  if (s == "adagrad") return OptimizerKind::kAdagrad;
  return OptimizerKind::kOther;
}

const EnumValue<ProposerKind> kProposerValue{"proposer", parse_proposer_kind, kProposers};
const EnumValue<PartitionerKind> kPartitionerValue{"partitioner", parse_partitioner_kind,
                                                   "greedy_perf, memory_balanced"};

// A proposer is a name (its TorchRec defaults) or {"kind": K, <K's arguments>}.
Result<ProposerSpec> read_proposer(const Json& value, const JsonPath& path) {
  ProposerSpec p;
  if (value.is_string()) {
    auto kind = kProposerValue(value, path);
    if (!kind) return kind.status();
    p.kind = *kind;
    return p;
  }
  if (!value.is_object()) {
    return invalid_at(path, "must be a proposer name or an object with \"kind\"", &value,
                      "one of " + std::string(kProposers));
  }
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.require("kind", p.kind, kProposerValue, "a proposer name"));
  switch (p.kind) {
    case ProposerKind::kGreedy:
      SHARDLAB_RETURN_IF_ERROR(obj.check("a greedy proposer object", {"kind", "use_depth", "threshold"}));
      SHARDLAB_RETURN_IF_ERROR(obj.read("use_depth", p.use_depth, BoolValue{}));
      // threshold: 0 and null both mean "none"; 0 is kept as given.
      SHARDLAB_RETURN_IF_ERROR(obj.read("threshold", p.threshold, IntValue{.min = 0}, Null::kMeansAbsent));
      break;
    case ProposerKind::kUniform:
      SHARDLAB_RETURN_IF_ERROR(obj.check("a uniform proposer object", {"kind", "use_depth"}));
      SHARDLAB_RETURN_IF_ERROR(obj.read("use_depth", p.use_depth, BoolValue{}));
      break;
    case ProposerKind::kGridSearch:
      SHARDLAB_RETURN_IF_ERROR(obj.check("a grid_search proposer object", {"kind", "max_proposals"}));
      SHARDLAB_RETURN_IF_ERROR(obj.read("max_proposals", p.max_proposals, IntValue{.min = 0}));
      break;
    case ProposerKind::kEmbeddingOffloadScaleup:
      SHARDLAB_RETURN_IF_ERROR(obj.check("an embedding_offload_scaleup proposer object", {"kind", "use_depth"}));
      SHARDLAB_RETURN_IF_ERROR(obj.read("use_depth", p.use_depth, BoolValue{}));
      break;
  }
  return p;
}

Status read_partitioner(const Json& value, const JsonPath& path, PartitionerSpec& p) {
  if (value.is_string()) {
    auto kind = kPartitionerValue(value, path);
    if (!kind) return kind.status();
    p.kind = *kind;
    return Status::ok();
  }
  if (!value.is_object()) {
    return invalid_at(path, "must be a partitioner name or an object with \"kind\"", &value,
                      "greedy_perf or memory_balanced");
  }
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.require("kind", p.kind, kPartitionerValue, "a partitioner name"));
  if (p.kind == PartitionerKind::kGreedyPerf) {
    SHARDLAB_RETURN_IF_ERROR(obj.check("a greedy_perf partitioner object", {"kind", "sort_by", "balance_modules"}));
    SHARDLAB_RETURN_IF_ERROR(
        obj.read("sort_by", p.sort_by, EnumValue<SortBy>{"sort key", parse_sort_by, "storage, perf"}));
  } else {
    SHARDLAB_RETURN_IF_ERROR(obj.check("a memory_balanced partitioner object",
                                       {"kind", "max_search_count", "tolerance", "balance_modules"}));
    SHARDLAB_RETURN_IF_ERROR(obj.read("max_search_count", p.max_search_count, IntValue{.min = 0}));
    SHARDLAB_RETURN_IF_ERROR(obj.read("tolerance", p.tolerance, NumberValue{.min = 0}));
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("balance_modules", p.balance_modules, BoolValue{}));
  return Status::ok();
}

Status read_storage_reservation(const Json& value, const JsonPath& path, StorageReservationSpec& r) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a storage_reservation object",
                                     {"kind", "percentage", "parameter_multiplier", "dense_tensor_estimate"}));
  SHARDLAB_RETURN_IF_ERROR(obj.require(
      "kind", r.kind,
      EnumValue<ReservationKind>{"storage reservation", parse_reservation_kind,
                                 "heuristical, fixed_percentage, inference"},
      "one of heuristical, fixed_percentage, inference"));
  SHARDLAB_RETURN_IF_ERROR(obj.read("percentage", r.percentage, NumberValue{.min = 0, .max = 1}));

  // Each TorchRec reservation class takes only its own arguments.
  if (const Json* m = obj.find("parameter_multiplier")) {
    if (r.kind != ReservationKind::kHeuristical) {
      return invalid_at(obj.path_of("parameter_multiplier"), "only the heuristical reservation takes it", m,
                        "no parameter_multiplier with this kind");
    }
    SHARDLAB_RETURN_IF_ERROR(obj.read("parameter_multiplier", r.parameter_multiplier, NumberValue{.min = 0}));
  }
  if (const Json* d = obj.find("dense_tensor_estimate", Null::kMeansAbsent)) {
    if (r.kind == ReservationKind::kFixedPercentage) {
      return invalid_at(obj.path_of("dense_tensor_estimate"),
                        "only the heuristical and inference reservations take it", d,
                        "null or no dense_tensor_estimate with this kind");
    }
    SHARDLAB_RETURN_IF_ERROR(obj.read("dense_tensor_estimate", r.dense_tensor_estimate, SizeValue{}));
  }
  return Status::ok();
}

}  // namespace

Status read_topology(const ObjectReader& root, planner::TopologySpec& t,
                     planner::FabricSpec& fabric, std::optional<planner::GpuSpec>& gpu,
                     planner::PresetFills& fills) {
  const Json* value = root.find("topology");
  if (value == nullptr) return root.missing("topology", "an object with at least world_size");
  ObjectReader obj(*value, root.path_of("topology"));
  SHARDLAB_RETURN_IF_ERROR(obj.check(
      "a topology object",
      {"world_size", "local_world_size", "compute_device", "hbm_cap", "ddr_cap", "hbm_mem_bw",
       "ddr_mem_bw", "intra_host_bw", "inter_host_bw", "bwd_compute_multiplier", "gpu", "fabric"}));
  // Rank counts are ints in the planner; larger values could not be ranks anyway.
  // 65,536 ranks bounds the planner's memory: data-parallel and row-wise
  // options hold one shard per rank for every table.
  const IntValue rank_count{.min = 1, .max = 65536};
  SHARDLAB_RETURN_IF_ERROR(obj.require("world_size", t.world_size, rank_count, "an integer from 1 to 65536"));
  SHARDLAB_RETURN_IF_ERROR(obj.read("local_world_size", t.local_world_size, rank_count));
  SHARDLAB_RETURN_IF_ERROR(obj.read(
      "compute_device", t.compute_device,
      EnumValue<planner::ComputeDevice>{"compute device", planner::parse_compute_device, "cuda, cpu, mtia"}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("hbm_cap", t.hbm_cap, SizeValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("ddr_cap", t.ddr_cap, SizeValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("hbm_mem_bw", t.hbm_mem_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("ddr_mem_bw", t.ddr_mem_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("intra_host_bw", t.intra_host_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("inter_host_bw", t.inter_host_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("bwd_compute_multiplier", t.bwd_compute_multiplier, NumberValue{.min = 0}));
  SHARDLAB_RETURN_IF_ERROR(read_gpu_preset(obj, t, gpu, fills));
  return read_fabric(obj, t, fabric);
}

Status read_module(const ObjectReader& root, planner::ModuleSpec& m) {
  const Json* value = root.find("module");
  if (value == nullptr) return Status::ok();
  ObjectReader obj(*value, root.path_of("module"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a module object", {"kind", "dense_param_bytes"}));
  SHARDLAB_RETURN_IF_ERROR(obj.read(
      "kind", m.kind,
      EnumValue<ModuleKind>{"module kind", parse_module_kind, "embedding_bag_collection, embedding_collection"}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("dense_param_bytes", m.dense_param_bytes, SizeValue{}));
  return Status::ok();
}

Status read_sharder(const ObjectReader& root, planner::SharderSpec& s) {
  const Json* value = root.find("sharder");
  if (value == nullptr) return Status::ok();
  ObjectReader obj(*value, root.path_of("sharder"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a sharder object", {"fused_params", "optimizer", "qcomm"}));

  if (const Json* fused = obj.find("fused_params")) {
    ObjectReader fp(*fused, obj.path_of("fused_params"));
    SHARDLAB_RETURN_IF_ERROR(fp.check("a fused_params object", {"cache_load_factor", "prefetch_pipeline"}));
    SHARDLAB_RETURN_IF_ERROR(
        fp.read("cache_load_factor", s.cache_load_factor, NumberValue{.min = 0}, Null::kMeansAbsent));
    SHARDLAB_RETURN_IF_ERROR(fp.read("prefetch_pipeline", s.prefetch_pipeline, BoolValue{}, Null::kMeansAbsent));
    s.has_fused_params = s.cache_load_factor.has_value() || s.prefetch_pipeline.has_value();
  }

  if (obj.find("optimizer") != nullptr) {
    SHARDLAB_RETURN_IF_ERROR(obj.read("optimizer", s.optimizer_name, StringValue{.non_empty = true}));
    s.optimizer = optimizer_kind(s.optimizer_name);
  }

  if (const Json* qcomm = obj.find("qcomm")) {
    ObjectReader q(*qcomm, obj.path_of("qcomm"));
    SHARDLAB_RETURN_IF_ERROR(q.check("a qcomm object", {"forward", "backward"}));
    const EnumValue<planner::CommPrecision> precision{"qcomm precision", planner::parse_comm_precision,
                                                      kPrecisions};
    SHARDLAB_RETURN_IF_ERROR(q.read("forward", s.qcomm_forward, precision));
    SHARDLAB_RETURN_IF_ERROR(q.read("backward", s.qcomm_backward, precision));
  }
  return Status::ok();
}

Status read_planner(const ObjectReader& root, planner::PlannerSpec& p) {
  p.proposers = planner::default_proposers();
  const Json* value = root.find("planner");
  if (value == nullptr) return Status::ok();
  ObjectReader obj(*value, root.path_of("planner"));
  SHARDLAB_RETURN_IF_ERROR(
      obj.check("a planner object", {"proposers", "partitioner", "storage_reservation", "is_inference"}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("proposers", p.proposers, ListOf{read_proposer, /*non_empty=*/true}));
  if (const Json* partitioner = obj.find("partitioner")) {
    SHARDLAB_RETURN_IF_ERROR(read_partitioner(*partitioner, obj.path_of("partitioner"), p.partitioner));
  }
  if (const Json* reservation = obj.find("storage_reservation")) {
    SHARDLAB_RETURN_IF_ERROR(
        read_storage_reservation(*reservation, obj.path_of("storage_reservation"), p.storage_reservation));
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("is_inference", p.is_inference, BoolValue{}));
  return Status::ok();
}

}  // namespace shardlab::data::internal
