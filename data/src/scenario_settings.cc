// topology, module, sharder and planner sections of a scenario file.
#include <algorithm>
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
constexpr std::string_view kProposers =
    "greedy, uniform, grid_search, embedding_offload_scaleup, dynamic_programming";

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
  if (s == "dynamic_programming") return ProposerKind::kDynamicProgramming;
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

// The optimizers whose state the cost model sizes individually.
constexpr std::pair<std::string_view, OptimizerKind> kOptimizers[] = {
    {"none", OptimizerKind::kNone},       {"sgd", OptimizerKind::kSgd},
    {"adam", OptimizerKind::kAdam},       {"rowwise_adagrad", OptimizerKind::kRowwiseAdagrad},
    {"adagrad", OptimizerKind::kAdagrad},
};
constexpr std::string_view kOptimizerChoices =
    "none, sgd, adam, rowwise_adagrad, adagrad, or another optimizer's name (a letter, then "
    "letters, digits, "
    "'_' or '.', e.g. adamw), whose state counts as one copy of the table";

// TorchRec sizes any optimizer class but SGD, Adam and row-wise Adagrad as
// one copy of the table, so other optimizers are accepted by name (AdamW,
// LAMB, ...) as OptimizerKind::kOther; names are matched exactly, so "Adam"
// is one of those. What cannot be an optimizer's name is refused.
Result<OptimizerKind> read_optimizer(const Json& v, const JsonPath& path) {
  Result<std::string> name = StringValue{.non_empty = true}(v, path);
  if (!name) return name.status();
  for (const auto& [known, kind] : kOptimizers) {
    if (*name == known) return kind;
  }
  const auto is_letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const auto is_name_char = [&](char c) {
    return is_letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '.';
  };
  if (name->size() > 200 || !is_letter(name->front()) ||
      !std::all_of(name->begin(), name->end(), is_name_char)) {
    return invalid_at(path, "not an optimizer name", &v, kOptimizerChoices);
  }
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
      SHARDLAB_RETURN_IF_ERROR(obj.check("a greedy proposer object", kGreedyProposerKeys));
      SHARDLAB_RETURN_IF_ERROR(obj.read("use_depth", p.use_depth, BoolValue{}));
      // threshold: 0 and null both mean "none"; 0 is kept as given.
      SHARDLAB_RETURN_IF_ERROR(
          obj.read("threshold", p.threshold, IntValue{.min = 0}, Null::kMeansAbsent));
      break;
    case ProposerKind::kUniform:
      SHARDLAB_RETURN_IF_ERROR(obj.check("a uniform proposer object", kUniformProposerKeys));
      SHARDLAB_RETURN_IF_ERROR(obj.read("use_depth", p.use_depth, BoolValue{}));
      break;
    case ProposerKind::kGridSearch:
      SHARDLAB_RETURN_IF_ERROR(obj.check("a grid_search proposer object", kGridSearchProposerKeys));
      SHARDLAB_RETURN_IF_ERROR(obj.read("max_proposals", p.max_proposals, IntValue{.min = 0}));
      break;
    case ProposerKind::kEmbeddingOffloadScaleup:
      SHARDLAB_RETURN_IF_ERROR(
          obj.check("an embedding_offload_scaleup proposer object", kScaleupProposerKeys));
      SHARDLAB_RETURN_IF_ERROR(obj.read("use_depth", p.use_depth, BoolValue{}));
      break;
    case ProposerKind::kDynamicProgramming:
      SHARDLAB_RETURN_IF_ERROR(
          obj.check("a dynamic_programming proposer object", kDynamicProgrammingProposerKeys));
      // Bins per device: at most 2^20 (the table keeps 8 bytes per table
      // and bin of all devices).
      SHARDLAB_RETURN_IF_ERROR(obj.read("hbm_bins_per_device", p.hbm_bins_per_device,
                                        IntValue{.min = 1, .max = int64_t{1} << 20}));
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
    SHARDLAB_RETURN_IF_ERROR(obj.check("a greedy_perf partitioner object", kGreedyPerfKeys));
    SHARDLAB_RETURN_IF_ERROR(obj.read(
        "sort_by", p.sort_by, EnumValue<SortBy>{"sort key", parse_sort_by, "storage, perf"}));
  } else {
    SHARDLAB_RETURN_IF_ERROR(
        obj.check("a memory_balanced partitioner object", kMemoryBalancedKeys));
    SHARDLAB_RETURN_IF_ERROR(obj.read("max_search_count", p.max_search_count, IntValue{.min = 0}));
    SHARDLAB_RETURN_IF_ERROR(obj.read("tolerance", p.tolerance, NumberValue{.min = 0}));
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("balance_modules", p.balance_modules, BoolValue{}));
  return Status::ok();
}

Status read_storage_reservation(const Json& value, const JsonPath& path,
                                StorageReservationSpec& r) {
  ObjectReader obj(value, path);
  SHARDLAB_RETURN_IF_ERROR(obj.check("a storage_reservation object", kReservationKeys));
  SHARDLAB_RETURN_IF_ERROR(
      obj.require("kind", r.kind,
                  EnumValue<ReservationKind>{"storage reservation", parse_reservation_kind,
                                             "heuristical, fixed_percentage, inference"},
                  "one of heuristical, fixed_percentage, inference"));
  SHARDLAB_RETURN_IF_ERROR(obj.read("percentage", r.percentage, NumberValue{.min = 0, .max = 1}));

  // Each TorchRec reservation class takes only its own arguments.
  if (const Json* m = obj.find("parameter_multiplier")) {
    if (r.kind != ReservationKind::kHeuristical) {
      return invalid_at(obj.path_of("parameter_multiplier"),
                        "only the heuristical reservation takes it", m,
                        "no parameter_multiplier with this kind");
    }
    SHARDLAB_RETURN_IF_ERROR(
        obj.read("parameter_multiplier", r.parameter_multiplier, NumberValue{.min = 0}));
  }
  if (const Json* d = obj.find("dense_tensor_estimate", Null::kMeansAbsent)) {
    if (r.kind == ReservationKind::kFixedPercentage) {
      return invalid_at(obj.path_of("dense_tensor_estimate"),
                        "only the heuristical and inference reservations take it", d,
                        "null or no dense_tensor_estimate with this kind");
    }
    SHARDLAB_RETURN_IF_ERROR(obj.read("dense_tensor_estimate", r.dense_tensor_estimate,
                                      SizeValue{.max = planner::kMaxReservationBytes}));
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
  SHARDLAB_RETURN_IF_ERROR(obj.check("a topology object", kTopologyKeys));
  // Rank counts are ints in the planner; larger values could not be ranks anyway.
  // 65,536 ranks bounds the planner's memory: data-parallel and row-wise
  // options hold one shard per rank for every table.
  const IntValue rank_count{.min = 1, .max = planner::kMaxWorldSize};
  std::string system_gpu;
  SHARDLAB_RETURN_IF_ERROR(read_system_preset(obj, t, fabric, system_gpu));
  if (fabric.system.empty()) {
    SHARDLAB_RETURN_IF_ERROR(
        obj.require("world_size", t.world_size, rank_count, "an integer from 1 to 65536"));
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("local_world_size", t.local_world_size, rank_count));
  // A host of more ranks than the cluster has holds no whole host: TorchRec
  // would plan table-row-wise shards on a host that does not exist.
  if (t.local_world_size.has_value() && *t.local_world_size > t.world_size) {
    return invalid_at(obj.path_of("local_world_size"), "more ranks per host than the world has",
                      obj.find("local_world_size"),
                      "at most world_size (" + std::to_string(t.world_size) + ")");
  }
  // Hosts per NVLink domain (2026-08); checked against world_size and the
  // TorchRec version with the other limits once the file is read.
  SHARDLAB_RETURN_IF_ERROR(obj.read("pod_size", t.pod_size, rank_count));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("compute_device", t.compute_device,
               EnumValue<planner::ComputeDevice>{"compute device", planner::parse_compute_device,
                                                 "cuda, cpu, mtia"}));
  // 64 TiB per device: 65,536 of them still add up inside int64.
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("hbm_cap", t.hbm_cap, SizeValue{.max = planner::kMaxDeviceBytes}));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("ddr_cap", t.ddr_cap, SizeValue{.max = planner::kMaxDeviceBytes}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("hbm_mem_bw", t.hbm_mem_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("ddr_mem_bw", t.ddr_mem_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("hbm_to_ddr_mem_bw", t.hbm_to_ddr_mem_bw, BandwidthValue{}));
  // The SSD tier (2026-08; the version is checked with the other limits).
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("ssd_cap", t.ssd_cap, SizeValue{.max = planner::kMaxDeviceBytes}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("ssd_mem_bw", t.ssd_mem_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("intra_host_bw", t.intra_host_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("inter_host_bw", t.inter_host_bw, BandwidthValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("bwd_compute_multiplier", t.bwd_compute_multiplier,
                                    NumberValue{.min = 0, .max = planner::kMaxFactor}));
  SHARDLAB_RETURN_IF_ERROR(read_gpu_preset(obj, t, gpu, fills, system_gpu));
  return read_fabric(obj, t, fabric);
}

Status read_module(const ObjectReader& root, planner::ModuleSpec& m) {
  const Json* value = root.find("module");
  if (value == nullptr) return Status::ok();
  ObjectReader obj(*value, root.path_of("module"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a module object", kModuleKeys));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("kind", m.kind,
               EnumValue<ModuleKind>{"module kind", parse_module_kind,
                                     "embedding_bag_collection, embedding_collection"}));
  SHARDLAB_RETURN_IF_ERROR(obj.read("dense_param_bytes", m.dense_param_bytes,
                                    SizeValue{.max = planner::kMaxReservationBytes}));
  return Status::ok();
}

Status read_sharder(const ObjectReader& root, planner::SharderSpec& s) {
  const Json* value = root.find("sharder");
  if (value == nullptr) return Status::ok();
  ObjectReader obj(*value, root.path_of("sharder"));
  SHARDLAB_RETURN_IF_ERROR(obj.check("a sharder object", kSharderKeys));

  if (const Json* fused = obj.find("fused_params")) {
    ObjectReader fp(*fused, obj.path_of("fused_params"));
    SHARDLAB_RETURN_IF_ERROR(fp.check("a fused_params object", kFusedParamsKeys));
    SHARDLAB_RETURN_IF_ERROR(fp.read("cache_load_factor", s.cache_load_factor,
                                     NumberValue{.min = 0}, Null::kMeansAbsent));
    SHARDLAB_RETURN_IF_ERROR(
        fp.read("prefetch_pipeline", s.prefetch_pipeline, BoolValue{}, Null::kMeansAbsent));
    s.has_fused_params = s.cache_load_factor.has_value() || s.prefetch_pipeline.has_value();
  }

  if (obj.find("optimizer") != nullptr) {
    SHARDLAB_RETURN_IF_ERROR(obj.read("optimizer", s.optimizer, read_optimizer));
    SHARDLAB_RETURN_IF_ERROR(
        obj.read("optimizer", s.optimizer_name, StringValue{.non_empty = true}));
  }

  if (const Json* qcomm = obj.find("qcomm")) {
    ObjectReader q(*qcomm, obj.path_of("qcomm"));
    SHARDLAB_RETURN_IF_ERROR(q.check("a qcomm object", kQcommKeys));
    const EnumValue<planner::CommPrecision> precision{"qcomm precision",
                                                      planner::parse_comm_precision, kPrecisions};
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
  SHARDLAB_RETURN_IF_ERROR(obj.check("a planner object", kPlannerKeys));
  SHARDLAB_RETURN_IF_ERROR(
      obj.read("proposers", p.proposers, ListOf{read_proposer, /*non_empty=*/true}));
  if (const Json* partitioner = obj.find("partitioner")) {
    SHARDLAB_RETURN_IF_ERROR(
        read_partitioner(*partitioner, obj.path_of("partitioner"), p.partitioner));
  }
  if (const Json* reservation = obj.find("storage_reservation")) {
    SHARDLAB_RETURN_IF_ERROR(read_storage_reservation(
        *reservation, obj.path_of("storage_reservation"), p.storage_reservation));
  }
  SHARDLAB_RETURN_IF_ERROR(obj.read("is_inference", p.is_inference, BoolValue{}));
  SHARDLAB_RETURN_IF_ERROR(obj.read(
      "torchrec_version", p.torchrec_version,
      EnumValue<planner::TorchRecVersion>{"TorchRec version", planner::parse_torchrec_version,
                                          planner::torchrec_version_names()}));
  return Status::ok();
}

}  // namespace shardlab::data::internal
