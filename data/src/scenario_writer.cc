// Field order follows docs/scenario-format.md's example, so a saved file diffs cleanly
// against a hand-written one.
#include "shardlab/data/scenario_writer.h"

#include "json_writer.h"

namespace shardlab::data {
namespace {

using internal::JsonWriter;
using internal::write_optional;
using planner::Scenario;

std::string_view cache_algorithm_name(planner::CacheAlgorithm a) {
  return a == planner::CacheAlgorithm::kLru ? "lru" : "lfu";
}

template <typename T, typename F>
void write_list(JsonWriter& w, std::string_view key, const std::vector<T>& values, F&& each) {
  w.key(key);
  w.begin_array();
  for (const T& v : values) each(v);
  w.end_array();
}

void write_topology(JsonWriter& w, const Scenario& s) {
  const planner::TopologySpec& t = s.topology;
  w.key("topology");
  w.begin_object();
  w.member("world_size", t.world_size);
  if (t.local_world_size) w.member("local_world_size", *t.local_world_size);
  if (t.pod_size) w.member("pod_size", *t.pod_size);
  w.member("compute_device", planner::to_string(t.compute_device));
  // Fields a GPU preset filled stay implicit, so a new preset replaces them.
  const planner::PresetFills& filled = s.preset_fills;
  const bool preset = s.gpu.has_value();
  if (preset) w.member("gpu", s.gpu->name);
  if (t.hbm_cap && !(preset && filled.hbm_cap)) w.member("hbm_cap", *t.hbm_cap);
  if (t.ddr_cap) w.member("ddr_cap", *t.ddr_cap);
  if (!(preset && filled.hbm_mem_bw)) w.member("hbm_mem_bw", t.hbm_mem_bw);
  if (!(preset && filled.ddr_mem_bw)) w.member("ddr_mem_bw", t.ddr_mem_bw);
  if (!(preset && filled.hbm_to_ddr_mem_bw)) w.member("hbm_to_ddr_mem_bw", t.hbm_to_ddr_mem_bw);
  if (t.ssd_cap) w.member("ssd_cap", *t.ssd_cap);
  if (t.ssd_mem_bw) w.member("ssd_mem_bw", *t.ssd_mem_bw);
  if (!(preset && filled.intra_host_bw)) w.member("intra_host_bw", t.intra_host_bw);
  if (!(preset && filled.inter_host_bw)) w.member("inter_host_bw", t.inter_host_bw);
  if (!(preset && filled.bwd_compute_multiplier))
    w.member("bwd_compute_multiplier", t.bwd_compute_multiplier);
  const planner::FabricSpec& f = s.fabric;
  w.key("fabric");
  w.begin_object();
  // 0 (one NIC per GPU) is the default and cannot be written: the loader
  // wants >= 1 when the key is present.
  if (f.nics_per_host > 0) w.member("nics_per_host", f.nics_per_host);
  if (f.nic_bw) w.member("nic_bw", *f.nic_bw);
  w.member("oversubscription", f.oversubscription);
  w.member("intra_host_latency_ms", f.intra_host_latency_ms);
  w.member("inter_host_latency_ms", f.inter_host_latency_ms);
  if (f.nvlink_domain_size > 0) w.member("nvlink_domain_size", f.nvlink_domain_size);
  if (f.sharp) w.member("sharp", true);
  if (f.rail_optimized) w.member("rail_optimized", true);
  if (f.rail_group_size > 0) w.member("rail_group_size", f.rail_group_size);
  if (f.pxn) w.member("pxn", true);
  if (!f.hosts.empty()) {
    write_list(w, "hosts", f.hosts, [&](const planner::HostFabricSpec& h) {
      w.begin_object();
      if (h.intra_host_bw) w.member("intra_host_bw", *h.intra_host_bw);
      if (h.nic_bw) w.member("nic_bw", *h.nic_bw);
      if (h.nics) w.member("nics", *h.nics);
      w.end_object();
    });
  }
  w.end_object();
  w.end_object();
}

std::string_view interaction_name(planner::InteractionKind k) {
  switch (k) {
    case planner::InteractionKind::kDot:
      return "dot";
    case planner::InteractionKind::kDcn:
      return "dcn";
    case planner::InteractionKind::kCat:
      return "cat";
    case planner::InteractionKind::kNone:
      return "none";
  }
  return "none";
}

std::string_view dense_optimizer_name(planner::OptimizerKind o) {
  switch (o) {
    case planner::OptimizerKind::kAdagrad:
      return "adagrad";
    case planner::OptimizerKind::kRowwiseAdagrad:
      return "rowwise_adagrad";
    case planner::OptimizerKind::kAdam:
      return "adam";
    default:
      return "sgd";
  }
}

void write_dense(JsonWriter& w, const planner::DenseSpec& d) {
  w.begin_object();
  w.member("dense_features", d.dense_features);
  write_list(w, "bottom_mlp", d.bottom_mlp, [&](int64_t x) { w.value(x); });
  w.key("interaction");
  w.begin_object();
  w.member("kind", interaction_name(d.interaction.kind));
  if (d.interaction.kind == planner::InteractionKind::kDcn) {
    w.member("layers", d.interaction.layers);
    if (d.interaction.low_rank) w.member("low_rank", *d.interaction.low_rank);
  }
  if (d.interaction.kind == planner::InteractionKind::kDot)
    w.member("self_interaction", d.interaction.self_interaction);
  w.end_object();
  write_list(w, "top_mlp", d.top_mlp, [&](int64_t x) { w.value(x); });
  w.member("precision", planner::to_string(d.precision));
  w.member("optimizer", dense_optimizer_name(d.optimizer));
  w.member("gradient_precision", d.gradient_bytes == 4 ? "fp32" : "fp16");
  w.member("fused_epilogues", d.fused_epilogues);
  w.member("kernel_overhead_us", d.kernel_overhead_us);
  w.end_object();
}

void write_table(JsonWriter& w, const planner::TableSpec& t) {
  w.begin_object();
  w.member("name", t.name);
  w.member("num_embeddings", t.num_embeddings);
  w.member("embedding_dim", t.embedding_dim);
  write_list(w, "feature_names", t.feature_names, [&](const std::string& f) { w.value(f); });
  w.member("data_type", planner::to_string(t.data_type));
  w.member("is_weighted", t.is_weighted);
  if (t.use_virtual_table) w.member("use_virtual_table", true);
  if (t.total_num_buckets) w.member("total_num_buckets", *t.total_num_buckets);
  w.end_object();
}

void write_constraint(JsonWriter& w, const planner::ConstraintSpec& c) {
  w.begin_object();
  if (c.sharding_types) {
    write_list(w, "sharding_types", *c.sharding_types,
               [&](planner::ShardingType t) { w.value(planner::to_string(t)); });
  }
  if (c.compute_kernels) {
    write_list(w, "compute_kernels", *c.compute_kernels,
               [&](planner::ComputeKernel k) { w.value(planner::to_string(k)); });
  }
  if (c.min_partition) w.member("min_partition", *c.min_partition);
  if (c.pooling_factors)
    write_list(w, "pooling_factors", *c.pooling_factors, [&](double v) { w.value(v); });
  if (c.num_poolings) write_list(w, "num_poolings", *c.num_poolings, [&](double v) { w.value(v); });
  if (c.batch_sizes) write_list(w, "batch_sizes", *c.batch_sizes, [&](int64_t v) { w.value(v); });
  if (c.is_weighted) w.member("is_weighted", *c.is_weighted);
  if (c.cache_params) {
    const planner::CacheParams& p = *c.cache_params;
    w.key("cache_params");
    w.begin_object();
    if (p.algorithm) w.member("algorithm", cache_algorithm_name(*p.algorithm));
    if (p.load_factor) w.member("load_factor", *p.load_factor);
    if (p.reserved_memory) w.member("reserved_memory", *p.reserved_memory);
    if (p.precision) w.member("precision", planner::to_string(*p.precision));
    if (p.prefetch_pipeline) w.member("prefetch_pipeline", *p.prefetch_pipeline);
    w.end_object();
  }
  if (c.enforce_hbm) w.member("enforce_hbm", *c.enforce_hbm);
  if (c.stochastic_rounding) w.member("stochastic_rounding", *c.stochastic_rounding);
  if (c.bounds_check_mode) w.member("bounds_check_mode", to_string(*c.bounds_check_mode));
  if (c.feature_names)
    write_list(w, "feature_names", *c.feature_names, [&](const std::string& f) { w.value(f); });
  if (c.key_value_params) {
    w.key("key_value_params");
    w.begin_object();
    if (c.key_value_params->max_l1_cache_size)
      w.member("max_l1_cache_size", *c.key_value_params->max_l1_cache_size);
    if (c.key_value_params->l2_cache_size)
      w.member("l2_cache_size", *c.key_value_params->l2_cache_size);
    w.end_object();
  }
  if (c.use_virtual_table) w.member("use_virtual_table", *c.use_virtual_table);
  w.end_object();
}

void write_sharder(JsonWriter& w, const planner::SharderSpec& s) {
  w.key("sharder");
  w.begin_object();
  if (s.has_fused_params) {
    w.key("fused_params");
    w.begin_object();
    write_optional(w, "cache_load_factor", s.cache_load_factor);
    write_optional(w, "prefetch_pipeline", s.prefetch_pipeline);
    w.end_object();
  }
  w.member("optimizer", s.optimizer_name);
  w.key("qcomm");
  w.begin_object();
  w.member("forward", planner::to_string(s.qcomm_forward));
  w.member("backward", planner::to_string(s.qcomm_backward));
  w.end_object();
  w.end_object();
}

void write_proposer(JsonWriter& w, const planner::ProposerSpec& p) {
  w.begin_object();
  w.member("kind", to_string(p.kind));
  switch (p.kind) {
    case planner::ProposerKind::kGreedy:
      w.member("use_depth", p.use_depth);
      write_optional(w, "threshold", p.threshold);
      break;
    case planner::ProposerKind::kGridSearch:
      w.member("max_proposals", p.max_proposals);
      break;
    case planner::ProposerKind::kUniform:
    case planner::ProposerKind::kEmbeddingOffloadScaleup:
      w.member("use_depth", p.use_depth);
      break;
    case planner::ProposerKind::kDynamicProgramming:
      w.member("hbm_bins_per_device", p.hbm_bins_per_device);
      break;
  }
  w.end_object();
}

void write_planner(JsonWriter& w, const planner::PlannerSpec& p) {
  w.key("planner");
  w.begin_object();
  write_list(w, "proposers", p.proposers,
             [&](const planner::ProposerSpec& spec) { write_proposer(w, spec); });
  const planner::PartitionerSpec& part = p.partitioner;
  w.key("partitioner");
  w.begin_object();
  w.member("kind", to_string(part.kind));
  if (part.kind == planner::PartitionerKind::kGreedyPerf) {
    w.member("sort_by", part.sort_by == planner::SortBy::kStorage ? "storage" : "perf");
  } else {
    w.member("max_search_count", part.max_search_count);
    w.member("tolerance", part.tolerance);
  }
  w.member("balance_modules", part.balance_modules);
  w.end_object();
  const planner::StorageReservationSpec& r = p.storage_reservation;
  w.key("storage_reservation");
  w.begin_object();
  w.member("kind", to_string(r.kind));
  w.member("percentage", r.percentage);
  if (r.kind == planner::ReservationKind::kHeuristical)
    w.member("parameter_multiplier", r.parameter_multiplier);
  if (r.kind != planner::ReservationKind::kFixedPercentage)
    write_optional(w, "dense_tensor_estimate", r.dense_tensor_estimate);
  w.end_object();
  w.member("is_inference", p.is_inference);
  w.member("torchrec_version", planner::to_string(p.torchrec_version));
  w.end_object();
}

void write_dense_ms(JsonWriter& w, std::string_view key, const std::vector<double>& values) {
  if (values.empty()) return;
  if (values.size() == 1) {
    w.member(key, values.front());
    return;
  }
  write_list(w, key, values, [&](double v) { w.value(v); });
}

}  // namespace

std::string dense_to_json(const planner::DenseSpec& dense, int indent) {
  JsonWriter w(indent);
  write_dense(w, dense);
  return std::move(w).take();
}

std::string to_string(planner::ModuleKind kind) {
  return kind == planner::ModuleKind::kEmbeddingBagCollection ? "embedding_bag_collection"
                                                              : "embedding_collection";
}

std::string to_string(planner::BoundsCheckMode m) {
  switch (m) {
    case planner::BoundsCheckMode::kFatal:
      return "fatal";
    case planner::BoundsCheckMode::kWarning:
      return "warning";
    case planner::BoundsCheckMode::kIgnore:
      return "ignore";
    case planner::BoundsCheckMode::kNone:
      return "none";
  }
  return "none";
}

std::string to_string(planner::ReservationKind kind) {
  switch (kind) {
    case planner::ReservationKind::kHeuristical:
      return "heuristical";
    case planner::ReservationKind::kFixedPercentage:
      return "fixed_percentage";
    case planner::ReservationKind::kInference:
      return "inference";
  }
  return "heuristical";
}

std::string scenario_to_json(const Scenario& s, int indent) {
  JsonWriter w(indent);
  w.begin_object();
  w.member("name", s.name);
  write_topology(w, s);
  w.member("batch_size", s.batch_size);
  w.key("module");
  w.begin_object();
  w.member("kind", to_string(s.module.kind));
  if (!s.module.dense_param_bytes_derived)
    w.member("dense_param_bytes", s.module.dense_param_bytes);
  w.end_object();
  write_list(w, "tables", s.tables, [&](const planner::TableSpec& t) { write_table(w, t); });
  w.key("constraints");
  w.begin_object();
  for (size_t i = 0; i < s.tables.size() && i < s.constraints.size(); ++i) {
    if (!s.constraints[i]) continue;
    w.key(s.tables[i].name);
    write_constraint(w, *s.constraints[i]);
  }
  w.end_object();
  write_sharder(w, s.sharder);
  write_planner(w, s.planner);
  const planner::WorkloadSpec& wl = s.workload;
  const bool other_profile = wl.host && wl.host->name != planner::kDefaultHostProfile;
  if (!wl.dense_fwd_ms.empty() || !wl.dense_bwd_ms.empty() || wl.dense ||
      wl.iteration_overhead_ms > 0.0 || wl.ddp_bucket_bytes != planner::kDefaultDdpBucketBytes ||
      wl.ddp_first_bucket_bytes != planner::kDefaultDdpFirstBucketBytes ||
      wl.framework != planner::Framework::kTorchRec || wl.cuda_graphs || other_profile) {
    w.key("workload");
    w.begin_object();
    write_dense_ms(w, "dense_fwd_ms", wl.dense_fwd_ms);
    write_dense_ms(w, "dense_bwd_ms", wl.dense_bwd_ms);
    if (wl.dense) {
      w.key("dense");
      write_dense(w, *wl.dense);
    }
    if (wl.iteration_overhead_ms > 0.0) w.member("iteration_overhead_ms", wl.iteration_overhead_ms);
    if (wl.ddp_bucket_bytes != planner::kDefaultDdpBucketBytes)
      w.member("ddp_bucket_cap", wl.ddp_bucket_bytes);
    if (wl.ddp_first_bucket_bytes != planner::kDefaultDdpFirstBucketBytes) {
      w.member("ddp_first_bucket_cap", wl.ddp_first_bucket_bytes);
    }
    if (wl.framework != planner::Framework::kTorchRec)
      w.member("framework", planner::to_string(wl.framework));
    if (wl.cuda_graphs) w.member("cuda_graphs", *wl.cuda_graphs);
    if (other_profile) w.member("host_profile", wl.host->name);
    w.end_object();
  }
  w.end_object();
  return std::move(w).take();
}

}  // namespace shardlab::data
