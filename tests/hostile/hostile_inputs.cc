#include "hostile_inputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "../printable_text.h"
#include "shardlab/data/calibration_json.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::hostile {
namespace {

constexpr std::string_view kMarker = "\"@@hostile@@\"";

// Every number of a plan result: finite, and no byte count below zero.
void check_plan_result(const planner::Scenario& s, const planner::PlannerResult& r) {
  ASSERT_TRUE(r.search_space.has_value());
  for (const planner::ShardingOption& o : r.search_space->options) {
    EXPECT_TRUE(std::isfinite(o.shard_perf.total())) << o.name << " " << o.shard_perf.total();
    EXPECT_GE(o.total_storage.hbm, 0) << o.name;
    EXPECT_GE(o.total_storage.ddr, 0) << o.name;
  }
  if (!r.ok()) return;
  EXPECT_TRUE(std::isfinite(r.perf_rating)) << r.perf_rating;
  for (double d : r.device_perf_total) {
    EXPECT_TRUE(std::isfinite(d)) << d;
  }
  const Json plan = Json::parse(data::plan_to_json(s, r));
  EXPECT_TRUE(plan["perf_rating_ms"].is_number()) << plan["perf_rating_ms"].dump();
  for (const Json& device : plan["devices"]) {
    EXPECT_GE(device["hbm_used"].get<int64_t>(), 0) << device.dump();
    EXPECT_GE(device["ddr_used"].get<int64_t>(), 0) << device.dump();
  }
}

void check_simulation(const planner::Scenario& s, const planner::SearchSpace& space,
                      const planner::PartitionedPlan& plan) {
  const Result<sim::SimResult> run =
      sim::simulate(s, space, plan, sim::SimOptions{.iterations = 2});
  if (!run) {
    expect_clean_error(run.status(), "");
    return;
  }
  EXPECT_TRUE(std::isfinite(run->iteration_ms) && run->iteration_ms >= 0) << run->iteration_ms;
  EXPECT_TRUE(std::isfinite(run->total_ms)) << run->total_ms;
  for (const sim::RankResult& rank : run->ranks) {
    for (const sim::PhaseRecord& p : rank.phases) {
      EXPECT_TRUE(std::isfinite(p.start_ms) && std::isfinite(p.end_ms) && std::isfinite(p.bytes));
    }
  }
}

planner::Scenario load(const Json& doc) {
  Result<planner::Scenario> s = data::parse_scenario(doc.dump(), "base.json");
  if (!s) ADD_FAILURE() << s.status().message();
  return s ? *s : planner::Scenario{};
}

}  // namespace

void expect_clean_error(const Status& status, const std::string& origin) {
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.code(), StatusCode::kInternal) << status.message();
  const std::string& msg = status.message();
  EXPECT_FALSE(msg.empty());
  if (status.code() == StatusCode::kPlanner) return;  // TorchRec's messages span lines
  if (!origin.empty()) {
    EXPECT_TRUE(msg.starts_with(origin + ": ")) << msg;
  }
  EXPECT_TRUE(testing_support::is_printable_utf8_line(msg)) << msg;
  EXPECT_LT(msg.size(), 2000u) << msg.substr(0, 300);
}

const std::vector<std::string>& hostile_values() {
  static const std::vector<std::string> kValues = [] {
    std::vector<std::string> v = {
        // Wrong types and empties.
        "null",
        "true",
        "false",
        R"("")",
        R"("x")",
        R"("\u0000\u001b")",
        "[]",
        "[null]",
        R"(["x"])",
        "{}",
        R"({"x": 1})",
        // Small numbers, signs, fractions, subnormals.
        "0",
        "-1",
        "0.5",
        "1.5",
        "-0.0",
        "-1e-300",
        "4.9e-324",
        "1e-320",
        "2.2250738585072014e-308",
        // Counts at the edges of int32, int53, int64, uint64.
        "65536",
        "65537",
        "2147483648",
        "9007199254740993",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551616",
        "-9223372036854775809",
        // Large doubles, and what JSON cannot hold (malformed).
        "1e19",
        "1e300",
        "-1e300",
        "1.7976931348623157e308",
        "1e400",
        "NaN",
        "Infinity",
        // Unit strings out of range.
        R"("1e400 TB/s")",
        R"("9999999999 TiB")",
        R"("1e-320 GB/s")",
        R"("8 EiB")",
        R"("-1 GB")",
        // Lists of hostile numbers.
        "[1e19]",
        "[-1]",
        "[4.9e-324]",
    };
    // Huge: a long string, a long list, deep nesting.
    v.push_back("\"" + std::string(64 * 1024, 'k') + "\"");
    std::string list = "[";
    for (int i = 0; i < 100000; ++i) list += i == 0 ? "1" : ",1";
    v.push_back(list + "]");
    v.push_back(std::string(60, '[') + std::string(60, ']'));
    return v;
  }();
  return kValues;
}

const Json& base_scenario() {
  static const Json kDoc = Json::parse(R"({
    "name": "hostile",
    "topology": {"world_size": 4, "local_world_size": 2, "compute_device": "cuda", "hbm_cap": "16 GiB",
      "ddr_cap": "64 GiB", "hbm_mem_bw": "897 GiB/s", "ddr_mem_bw": 54760833.024, "hbm_to_ddr_mem_bw": "32 GB/s",
      "ssd_cap": "4 TB", "ssd_mem_bw": "100 MiB/s", "intra_host_bw": "600 GiB/s",
      "inter_host_bw": 13421772.8, "bwd_compute_multiplier": 2.0,
      "fabric": {"nics_per_host": 2, "nic_bw": "25 GB/s", "oversubscription": 2, "intra_host_latency_ms": 0.0025,
                 "inter_host_latency_ms": 0.002,
                 "hosts": [{"intra_host_bw": "300 GB/s", "nic_bw": "50 GB/s", "nics": 1}, {}]}},
    "batch_size": 512,
    "module": {"kind": "embedding_bag_collection", "dense_param_bytes": "1 MiB"},
    "tables": [
      {"name": "t0", "num_embeddings": 100000, "embedding_dim": 64, "feature_names": ["f0", "f1"],
       "data_type": "fp16", "is_weighted": false, "use_virtual_table": true, "total_num_buckets": 100},
      {"name": "t1", "num_embeddings": 2000, "embedding_dim": 32, "feature_names": ["f2"]}],
    "constraints": {"t0": {
      "sharding_types": ["table_wise", "row_wise", "column_wise", "data_parallel", "table_row_wise",
                         "table_column_wise"],
      "compute_kernels": ["fused", "fused_uvm_caching", "dense", "key_value"], "min_partition": 32,
      "pooling_factors": [4.0, 2.0], "num_poolings": [1.0, 1.0], "batch_sizes": [512, 256], "is_weighted": false,
      "cache_params": {"algorithm": "lru", "load_factor": 0.2, "reserved_memory": 1.5, "precision": "fp16",
                       "prefetch_pipeline": false},
      "enforce_hbm": false, "stochastic_rounding": true, "bounds_check_mode": "warning",
      "feature_names": ["f0", "f1"], "key_value_params": {"max_l1_cache_size": 64, "l2_cache_size": 1},
      "use_virtual_table": false},
      "t1": {"cache_params": {"load_factor": 0.2}}},
    "sharder": {"fused_params": {"cache_load_factor": 0.3, "prefetch_pipeline": true}, "optimizer": "adam",
                "qcomm": {"forward": "bf16", "backward": "fp16"}},
    "planner": {"proposers": ["greedy", {"kind": "greedy", "use_depth": false, "threshold": 10},
                              {"kind": "uniform", "use_depth": true}, {"kind": "grid_search", "max_proposals": 100},
                              {"kind": "embedding_offload_scaleup", "use_depth": true}],
                "partitioner": {"kind": "greedy_perf", "sort_by": "perf", "balance_modules": true},
                "storage_reservation": {"kind": "heuristical", "percentage": 0.1, "parameter_multiplier": 4,
                                        "dense_tensor_estimate": "2 MiB"},
                "is_inference": false, "torchrec_version": "2026-08"},
    "workload": {"dense_fwd_ms": 1.5, "dense_bwd_ms": [1, 2, 3, 4],
      "dense": {"dense_features": 13, "bottom_mlp": [64, 32],
                "interaction": {"kind": "dcn", "layers": 2, "low_rank": 16}, "top_mlp": [64, 1],
                "precision": "fp32", "optimizer": "adagrad", "gradient_precision": "fp32",
                "fused_epilogues": false, "kernel_overhead_us": 5},
      "iteration_overhead_ms": 0.5, "ddp_bucket_cap": "25 MiB", "ddp_first_bucket_cap": "1 MiB",
      "framework": "torchrec", "cuda_graphs": false, "host_profile": "pytorch-eager-2022"}
  })");
  return kDoc;
}

const Json& plan_scenario() {
  static const Json kDoc = [] {
    Json doc = base_scenario();
    doc["constraints"]["t0"]["sharding_types"] = Json::array({"row_wise"});
    doc["constraints"]["t0"]["compute_kernels"] = Json::array({"fused"});
    doc["constraints"]["t1"] =
        Json::parse(R"({"sharding_types": ["table_wise"], "compute_kernels": ["fused"]})");
    return doc;
  }();
  return kDoc;
}

const Json& base_profile() {
  static const Json kDoc = Json::parse(R"({
    "format": "shardlab-calibration", "version": 1, "name": "hostile", "created": "2025-01-01T00:00:00Z",
    "device": "cpu: test", "source_runs": [1, 2],
    "parameters": {
      "compute": [{"kernel": "fused", "dim_class": "half", "bandwidth_bytes_per_ms": 5e8, "overhead_ms": 0.01,
                   "bwd_multiplier": 2.5},
                  {"kernel": "dense", "overhead_ms": 0.02, "bwd_multiplier": 1.5}],
      "bwd_multiplier": 2.0,
      "comm": {"intra_host": {"bandwidth_bytes_per_ms": 1e8, "latency_ms": 0.01},
               "inter_host": {"bandwidth_bytes_per_ms": 1e7, "latency_ms": 0.05}},
      "dense": {"gemm_efficiency": {"tf32": 0.4}, "gemm_kernel_ms": {"tf32": 0.007}}},
    "fit": {"count": 10, "held_out": 2, "mape_before": 30.0, "mape_after": 5.0, "fit_mape_before": 25.0,
            "fit_mape_after": 4.0,
            "groups": [{"name": "fused/half", "count": 5, "held_out": 1, "fitted": true, "mape_before": 30.0,
                        "mape_after": 5.0, "fit_mape_before": 25.0, "fit_mape_after": 4.0}],
            "notes": ["a note"]}
  })");
  return kDoc;
}

const std::vector<Field>& scenario_fields() {
  const std::vector<std::string> kSizes = {R"("16 GiB")",    R"("64 TiB")",
                                           R"("65 TiB")",    "70368744177664",
                                           "70368744177665", "1152921504606846976"};
  const std::vector<std::string> kBandwidths = {"0.001",  "0.0009",     "1e15",
                                                "1.1e15", R"("1 B/s")", R"("1 EB/s")"};
  const std::vector<std::string> kTimes = {"1e9", "1.000001e9"};
  const std::string kMemoryBalanced =
      R"({"planner": {"partitioner": {"kind": "memory_balanced", "max_search_count": 10, "tolerance": 0.02,
          "balance_modules": false, "sort_by": null}}})";
  static const std::vector<Field> kFields = {
      {""},
      {"/name"},
      {"/topology"},
      {"/topology/world_size", {"1", "3", "2048"}},
      {"/topology/local_world_size", {"1", "3", "5", "2048"}},
      // Pods of 2 ranks, the whole world, 6 ranks (a group that does not
      // divide the world: there is none), more hosts than ranks, and past
      // int; and under TorchRec 2024-02, which has no pods.
      {"/topology/pod_size", {"1", "2", "3", "5", "65536", "4294967297"}},
      {"/topology/pod_size", {"2"}, R"({"planner": {"torchrec_version": "2024-02"}})"},
      {"/topology/compute_device", {R"("cpu")", R"("mtia")", R"("gpu")"}},
      {"/topology/hbm_cap", kSizes},
      {"/topology/ddr_cap", kSizes},
      {"/topology/gpu", {R"("h100-sxm")", R"("b200")", R"("a100-sxm4-40gb")", R"("h100")"}},
      // A system sets world_size and local_world_size itself, so the base's
      // are dropped (a merge patch's null) to try its own.
      {"/topology/system",
       {R"("dgx-h100")", R"("dgx-b200")", R"("dgx")"},
       R"({"topology": {"system": "dgx-a100", "world_size": null, "local_world_size": null,
           "fabric": null}})"},
      {"/topology/nodes",
       {"1", "8192", "8193", "0"},
       R"({"topology": {"system": "dgx-h100", "nodes": 2, "world_size": null,
           "local_world_size": null, "fabric": null}})"},
      {"/topology/hbm_mem_bw", kBandwidths},
      {"/topology/ddr_mem_bw", kBandwidths},
      {"/topology/hbm_to_ddr_mem_bw", kBandwidths},
      // The SSD tier (2026-08): no SSD (no key_value option), and under 2024-02.
      {"/topology/ssd_cap", kSizes},
      {"/topology/ssd_cap", {"0", "1"}, R"({"planner": {"torchrec_version": "2024-02"}})"},
      {"/topology/ssd_mem_bw", kBandwidths},
      {"/topology/intra_host_bw", kBandwidths},
      {"/topology/inter_host_bw", kBandwidths},
      {"/topology/bwd_compute_multiplier", {"1e6", "1000001"}},
      {"/topology/fabric"},
      {"/topology/fabric/nics_per_host", {"4096"}},
      {"/topology/fabric/nic_bw", kBandwidths},
      {"/topology/fabric/oversubscription", {"1e6", "1000001"}},
      {"/topology/fabric/intra_host_latency_ms", kTimes},
      {"/topology/fabric/inter_host_latency_ms", kTimes},
      {"/topology/fabric/nvlink_domain_size",
       {"2", "4", "3", "65536"},
       R"({"topology": {"fabric": {"nvlink_domain_size": 4, "hosts": null}}})"},
      {"/topology/fabric/sharp",
       {"true", "false", "1"},
       R"({"topology": {"fabric": {"sharp": true}}})"},
      // Rail-optimized networks: refused with the base's per-host NIC counts,
      // then without them, in units of 1, 3 hosts and past the world, with PXN.
      {"/topology/fabric/rail_optimized", {"true", "1"}},
      {"/topology/fabric/rail_optimized", {"true"}, R"({"topology": {"fabric": {"hosts": null}}})"},
      {"/topology/fabric/rail_group_size",
       {"0", "1", "3", "65537", "-1"},
       R"({"topology": {"fabric": {"hosts": null, "rail_optimized": true}}})"},
      {"/topology/fabric/pxn", {"true", "false"}},
      {"/topology/fabric/pxn",
       {"true"},
       R"({"topology": {"fabric": {"hosts": null, "rail_optimized": true}}})"},
      {"/topology/fabric/hosts"},
      {"/topology/fabric/hosts/0"},
      {"/topology/fabric/hosts/0/intra_host_bw", kBandwidths},
      {"/topology/fabric/hosts/0/nic_bw", kBandwidths},
      {"/topology/fabric/hosts/0/nics", {"4096"}},
      {"/batch_size", {"1", "4611686018427387904"}},
      {"/module"},
      {"/module/kind", {R"("embedding_collection")"}},
      {"/module/dense_param_bytes", kSizes},
      {"/tables"},
      {"/tables/0"},
      {"/tables/0/name", {R"("t1")", R"("a.b[0]")"}},
      {"/tables/0/num_embeddings", {"9007199254740992", "1099511627776"}},
      {"/tables/0/embedding_dim", {"10000000", "4294967296", "1125899906842624"}},
      {"/tables/0/feature_names"},
      {"/tables/0/feature_names/0"},
      {"/tables/0/data_type", {R"("int4")", R"("int2")", R"("bf16")", R"("fp64")"}},
      {"/tables/0/is_weighted"},
      {"/tables/0/use_virtual_table"},
      // Fewer buckets than ranks, buckets that do not divide the rows, one
      // bucket per row, past the rows.
      {"/tables/0/total_num_buckets", {"1", "3", "7", "100000", "9007199254740992"}},
      {"/tables/1/embedding_dim", {"10000000", "4294967296"}},
      {"/constraints"},
      {"/constraints/t0"},
      {"/constraints/t0/sharding_types"},
      {"/constraints/t0/sharding_types/0", {R"("data_parallel")", R"("grid_shard")"}},
      {"/constraints/t0/sharding_types/0",
       {R"("grid_shard")"},
       R"({"planner": {"torchrec_version": "2024-02"}})"},
      {"/constraints/t0/compute_kernels",
       {R"(["fused_uvm"])", R"(["quant"])", R"(["key_value"])", R"(["dram_ssd_virtual_table"])"}},
      {"/constraints/t0/compute_kernels",
       {R"(["ssd_virtual_table"])"},
       R"({"planner": {"torchrec_version": "2024-02"}})"},
      {"/constraints/t0/min_partition", {"4", "3"}},
      {"/constraints/t0/pooling_factors", {"[1e15, 1]", "[0, 0]"}},
      {"/constraints/t0/pooling_factors/0", {"1e12", "2.1e12"}},
      {"/constraints/t0/num_poolings", {"[1e15, 1]"}},
      {"/constraints/t0/num_poolings/1", {"1e12"}},
      {"/constraints/t0/batch_sizes", {"[1099511627776, 1]"}},
      {"/constraints/t0/batch_sizes/0", {"1099511627776", "4611686018427387904"}},
      {"/constraints/t0/is_weighted"},
      {"/constraints/t0/cache_params"},
      {"/constraints/t0/cache_params/algorithm", {R"("lfu")"}},
      {"/constraints/t0/cache_params/load_factor", {"1", "2", "1e6", "1e300"}},
      {"/constraints/t0/cache_params/reserved_memory"},
      {"/constraints/t0/cache_params/precision", {R"("int8")"}},
      {"/constraints/t0/cache_params/prefetch_pipeline"},
      {"/constraints/t0/key_value_params"},
      {"/constraints/t0/key_value_params/max_l1_cache_size", {"0", "67108864", "1e15"}},
      {"/constraints/t0/key_value_params/l2_cache_size", {"0", "1e15"}},
      {"/constraints/t0/use_virtual_table"},
      {"/constraints/t0/enforce_hbm"},
      {"/constraints/t0/stochastic_rounding"},
      {"/constraints/t0/bounds_check_mode", {R"("fatal")"}},
      {"/constraints/t0/feature_names"},
      {"/constraints/t1", {R"({"pooling_factors": [1e19]})"}},
      {"/sharder"},
      {"/sharder/fused_params"},
      {"/sharder/fused_params/cache_load_factor", {"1", "2", "1e6"}},
      {"/sharder/fused_params/prefetch_pipeline"},
      {"/sharder/optimizer", {R"("rowwise_adagrad")", R"("5 parsecs")"}},
      {"/sharder/qcomm"},
      {"/sharder/qcomm/forward", {R"("fp8")", R"("int8")"}},
      {"/sharder/qcomm/backward", {R"("fp8")"}},
      {"/planner"},
      {"/planner/proposers"},
      {"/planner/proposers/0", {R"("grid_search")", R"("uniform")"}},
      {"/planner/proposers/1/kind", {R"("uniform")"}},
      {"/planner/proposers/1/use_depth"},
      {"/planner/proposers/1/threshold", {"1"}},
      {"/planner/proposers/3/max_proposals", {"1000000"}},
      {"/planner/proposers/0", {R"("dynamic_programming")"}},
      {"/planner/proposers/0",
       {R"("dynamic_programming")"},
       R"({"planner": {"torchrec_version": "2024-02"}})"},
      {"/planner/proposers/1/hbm_bins_per_device",
       {"1", "1048576", "1048577", "0"},
       R"({"planner": {"proposers": ["greedy", {"kind": "dynamic_programming",
                                                "hbm_bins_per_device": 4}]}})"},
      {"/planner/partitioner", {R"("memory_balanced")"}},
      {"/planner/partitioner/kind", {R"("memory_balanced")"}},
      {"/planner/partitioner/sort_by", {R"("storage")"}},
      {"/planner/partitioner/balance_modules"},
      {"/planner/partitioner/max_search_count", {"1000000000"}, kMemoryBalanced},
      {"/planner/partitioner/tolerance", {"1e300"}, kMemoryBalanced},
      {"/planner/storage_reservation"},
      {"/planner/storage_reservation/kind", {R"("fixed_percentage")", R"("inference")"}},
      {"/planner/storage_reservation/percentage", {"1", "0.999"}},
      {"/planner/storage_reservation/parameter_multiplier", {"1e6", "1e15"}},
      {"/planner/storage_reservation/dense_tensor_estimate", kSizes},
      {"/planner/is_inference"},
      {"/planner/torchrec_version", {R"("2024-02")", R"("2026-09")"}},
      {"/workload"},
      {"/workload/dense"},
      {"/workload/dense/dense_features", {"16777216", "16777217"}},
      {"/workload/dense/bottom_mlp", {"[16777216, 16777216, 16777216]", "[]"}},
      {"/workload/dense/bottom_mlp/0", {"16777216", "16777217"}},
      {"/workload/dense/interaction"},
      {"/workload/dense/interaction/kind", {R"("dot")", R"("cat")", R"("none")"}},
      {"/workload/dense/interaction/layers", {"1024", "1025"}},
      {"/workload/dense/interaction/low_rank", {"16777216"}},
      {"/workload/dense/interaction/self_interaction",
       {"true"},
       R"({"workload": {"dense": {"interaction": {"kind": "dot", "layers": null, "low_rank": null,
                                                  "self_interaction": false}}}})"},
      {"/workload/dense/top_mlp", {"[16777216, 16777216]", "[]"}},
      {"/workload/dense/precision", {R"("bf16")", R"("fp8")", R"("int8")"}},
      {"/workload/dense/optimizer", {R"("adam")", R"("lamb")"}},
      {"/workload/dense/gradient_precision", {R"("fp16")", R"("fp8")"}},
      {"/workload/dense/fused_epilogues"},
      {"/workload/dense/kernel_overhead_us", {"1e6", "1000001"}},
      {"/workload/iteration_overhead_ms", kTimes},
      {"/workload/framework", {R"("hugectr")", R"("tensorflow")", R"("")"}},
      {"/workload/cuda_graphs", {"true"}},
      {"/workload/host_profile", {R"("no-such-profile")", R"("")"}},
      {"/workload/ddp_bucket_cap", kSizes},
      {"/workload/ddp_first_bucket_cap", kSizes},
      {"/workload/dense_fwd_ms", kTimes},
      {"/workload/dense_bwd_ms", {"[1, 2, 3]"}},
      {"/workload/dense_bwd_ms/0", kTimes},
  };
  return kFields;
}

const std::vector<Field>& torchrec_plan_fields() {
  static const std::vector<Field> kFields = {
      {""},
      {"/format", {R"("torchrec.ShardingPlan")"}},
      {"/version", {"1", "2"}},
      {"/scenario"},
      {"/plan"},
      {"/plan/ebc"},
      {"/plan/ebc/t0"},
      {"/plan/ebc/t0/sharding_type", {R"("table_wise")", R"("data_parallel")"}},
      {"/plan/ebc/t0/compute_kernel", {R"("fused_uvm")"}},
      {"/plan/ebc/t0/ranks", {"[1, 0, 3, 2]", "[0, 0, 0, 0]", "[0, 1, 2]", "[0, 1, 2, 3, 4]"}},
      {"/plan/ebc/t0/ranks/0", {"3", "4"}},
      {"/plan/ebc/t0/sharding_spec"},
      {"/plan/ebc/t0/sharding_spec/0"},
      {"/plan/ebc/t0/sharding_spec/0/shard_offsets", {"[0, 0]", "[1, 0]", "[0]"}},
      {"/plan/ebc/t0/sharding_spec/0/shard_offsets/0"},
      {"/plan/ebc/t0/sharding_spec/0/shard_sizes", {"[25000, 64]"}},
      {"/plan/ebc/t0/sharding_spec/0/shard_sizes/1"},
      {"/plan/ebc/t0/sharding_spec/0/placement",
       {R"("rank:0/cuda:0")", R"("rank:0/cpu")", R"("rank:1/cuda:1")",
        R"("rank:99999999999999999999/cuda:0")", R"("rank:")", R"("rank:0/")"}},
      {"/plan/ebc/t0/cache_params"},
      {"/plan/ebc/t0/cache_params/algorithm", {R"("lfu")"}},
      {"/plan/ebc/t0/cache_params/load_factor", {"0.3"}},
      {"/plan/ebc/t0/cache_params/reserved_memory"},
      {"/plan/ebc/t0/cache_params/precision", {R"("fp32")"}},
      {"/plan/ebc/t0/cache_params/prefetch_pipeline"},
      {"/plan/ebc/t0/enforce_hbm"},
      {"/plan/ebc/t0/stochastic_rounding"},
      {"/plan/ebc/t0/bounds_check_mode", {R"("fatal")"}},
      {"/plan/ebc/t0/key_value_params",
       {R"({"max_l1_cache_size": 8})", R"({"l3_cache_size": 1})", R"({"max_l1_cache_size": -1})",
        "null", "7"}},
      {"/plan/ebc/t1/ranks/0", {"3"}},
  };
  return kFields;
}

const std::vector<Field>& shardlab_plan_fields() {
  static const std::vector<Field> kFields = {
      {""},
      {"/tables"},
      {"/tables/t0"},
      {"/tables/t0/module", {R"("weighted_ebc")"}},
      {"/tables/t0/sharding_type", {R"("table_wise")"}},
      {"/tables/t0/compute_kernel", {R"("fused_uvm")"}},
      {"/tables/t0/ranks", {"[1, 0, 3, 2]", "[0, 0, 0, 0]"}},
      {"/tables/t0/ranks/1", {"0", "4"}},
      {"/tables/t0/layout",
       {R"("hugectr")", R"("torchrec")"},
       R"({"tables": {"t0": {"layout": "hugectr", "ranks": [3, 1], "shards": null}}})"},
      {"/tables/t0/sharding_spec"},
      {"/tables/t0/cache_params"},
      {"/tables/t0/enforce_hbm"},
      {"/tables/t0/stochastic_rounding"},
      {"/tables/t0/bounds_check_mode", {R"("none")"}},
      {"/tables/t0/key_value_params",
       {R"({"max_l1_cache_size": 8, "l2_cache_size": null})", R"({"l3_cache_size": 1})", "null",
        "[]"}},
      {"/tables/t0/shards"},
      {"/tables/t0/shards/0"},
      {"/tables/t0/shards/0/offset", {"[0, 0]"}},
      {"/tables/t0/shards/0/size", {"[25000, 64]"}},
      {"/tables/t0/shards/0/rank", {"0", "1"}},
      {"/tables/t0/shards/0/placement", {R"("rank:0/cpu")"}},
      {"/tables/t0/shards/0/perf"},
      {"/tables/t0/shards/0/storage"},
      {"/tables/t1/ranks/0", {"2"}},
      {"/perf_rating_ms"},
      {"/devices"},
  };
  return kFields;
}

const std::vector<Field>& profile_fields() {
  const std::vector<std::string> kBandwidths = {"0.001", "0.0009", "1e15", "1.1e15"};
  const std::vector<std::string> kTimes = {"1e9", "1.000001e9"};
  const std::vector<std::string> kPercent = {"1e300"};
  static const std::vector<Field> kFields = {
      {""},
      {"/format", {R"("shardlab-calibration")"}},
      {"/version", {"1", "2"}},
      {"/name"},
      {"/created"},
      {"/device"},
      {"/source_runs"},
      {"/source_runs/0"},
      {"/parameters"},
      {"/parameters/compute"},
      {"/parameters/compute/0"},
      {"/parameters/compute/0/kernel", {R"("dense")"}},
      {"/parameters/compute/0/dim_class", {R"("full")", R"("wide")"}},
      {"/parameters/compute/0/bandwidth_bytes_per_ms", kBandwidths},
      {"/parameters/compute/0/overhead_ms", kTimes},
      {"/parameters/compute/0/bwd_multiplier", {"1e6", "1000001"}},
      {"/parameters/compute/1/overhead_ms", kTimes},
      {"/parameters/bwd_multiplier", {"1e6", "1000001"}},
      {"/parameters/comm"},
      {"/parameters/comm/intra_host"},
      {"/parameters/comm/inter_host"},
      {"/parameters/comm/inter_host/bandwidth_bytes_per_ms", kBandwidths},
      {"/parameters/comm/inter_host/latency_ms", kTimes},
      {"/parameters/dense"},
      {"/parameters/dense/gemm_efficiency"},
      {"/parameters/dense/gemm_efficiency/tf32", {"1", "1.0000001", "0.001", "0"}},
      {"/parameters/dense/gemm_kernel_ms"},
      {"/parameters/dense/gemm_kernel_ms/tf32", kTimes},
      {"/fit"},
      {"/fit/count", {"2147483647", "2147483648"}},
      {"/fit/held_out"},
      {"/fit/mape_before", kPercent},
      {"/fit/mape_after"},
      {"/fit/fit_mape_before"},
      {"/fit/fit_mape_after"},
      {"/fit/groups"},
      {"/fit/groups/0"},
      {"/fit/groups/0/name"},
      {"/fit/groups/0/count"},
      {"/fit/groups/0/held_out"},
      {"/fit/groups/0/fitted"},
      {"/fit/groups/0/mape_before", kPercent},
      {"/fit/groups/0/mape_after"},
      {"/fit/groups/0/fit_mape_before"},
      {"/fit/groups/0/fit_mape_after"},
      {"/fit/notes"},
      {"/fit/notes/0"},
  };
  return kFields;
}

std::string with_value(const Json& base, const Field& field, const std::string& value) {
  Json doc = base;
  if (!field.patch.empty()) doc.merge_patch(Json::parse(field.patch));
  if (field.pointer.empty()) return value;  // the whole document
  doc[Json::json_pointer(field.pointer)] = "@@hostile@@";
  std::string text = doc.dump();
  const std::size_t at = text.find(kMarker);
  text.replace(at, kMarker.size(), value);
  return text;
}

void check_scenario_text(const std::string& text) {
  const Result<planner::Scenario> s = data::parse_scenario(text, "h.json");
  if (!s) {
    expect_clean_error(s.status(), "h.json");
    return;
  }
  const planner::PlannerResult r = planner::plan(*s);
  if (!r.error.is_ok()) expect_clean_error(r.error, "");
  if (r.search_space) check_plan_result(*s, r);
  if (r.ok()) check_simulation(*s, *r.search_space, *r.best);
}

void check_plan_text(const std::string& text) {
  static const planner::Scenario s = load(plan_scenario());
  static const planner::PlannerResult kSpace = planner::plan(s, {.enumerate_only = true});
  ASSERT_TRUE(kSpace.search_space.has_value()) << kSpace.error.message();
  std::vector<std::string> warnings;
  planner::SearchSpace space = *kSpace.search_space;  // a HugeCTR layout appends to it
  const Result<planner::PartitionedPlan> plan =
      data::parse_plan(text, "p.json", s, space, &warnings);
  for (const std::string& w : warnings) {
    EXPECT_TRUE(testing_support::is_printable_utf8_line(w)) << w;
  }
  if (!plan) {
    expect_clean_error(plan.status(), "p.json");
    return;
  }
  planner::PlannerResult rated = kSpace;
  rated.search_space = std::move(space);
  rated.best = *plan;
  planner::rate_plan(*rated.search_space, *rated.best, rated.topology.world_size,
                     &rated.device_perf_total, &rated.perf_rating);
  check_plan_result(s, rated);
  check_simulation(s, *rated.search_space, *rated.best);
}

void check_profile_text(const std::string& text) {
  const Result<data::CalibrationProfile> profile = data::parse_calibration(text, "c.json");
  if (!profile) {
    expect_clean_error(profile.status(), "c.json");
    return;
  }
  static const planner::Scenario s = load(base_scenario());
  const planner::PlannerResult r = planner::plan(s, {.calibration = &profile->parameters});
  if (!r.error.is_ok()) expect_clean_error(r.error, "");
  if (r.search_space) check_plan_result(s, r);
}

}  // namespace shardlab::hostile
