// The scenario loader against docs/scenario-format.md "Fields": defaults, every accepted
// form, every validation rule with its exact message, and the golden scenarios.
#include "shardlab/data/scenario_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "loader_test_helpers.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data {
namespace {

namespace fs = std::filesystem;
using planner::Scenario;

using testing::error_of;
using testing::kOrigin;
using testing::load_ok;

// Two small tables; most tests splice extra top-level members after them.
constexpr std::string_view kTwoTables = R"([
  {"name": "t0", "num_embeddings": 100, "embedding_dim": 8, "feature_names": ["f0"]},
  {"name": "t1", "num_embeddings": 200, "embedding_dim": 16, "feature_names": ["f1"]}])";

// A scenario document: `extra` is spliced in as further top-level members and
// must start with a comma when non-empty.
std::string scenario_text(std::string_view extra = "",
                          std::string_view topology = R"({"world_size": 2})",
                          std::string_view tables = kTwoTables) {
  std::string s = "{\"topology\": ";
  s += topology;
  s += ", \"tables\": ";
  s += tables;
  s += extra;
  s += "}";
  return s;
}

// A one-table list whose table has exactly `fields` as members.
std::string one_table(std::string_view fields) { return "[{" + std::string(fields) + "}]"; }

constexpr std::string_view kT0 = R"("name": "t0", "num_embeddings": 100, "feature_names": ["f0"])";

// ---- Defaults and accepted forms. ------------------------------------------

TEST(ScenarioLoader, DefaultsWhenOnlyRequiredFieldsAreGiven) {
  auto r = parse_scenario(scenario_text(), "some/dir/my_model.json");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const Scenario& s = *r;
  EXPECT_EQ(s.name, "my_model");
  EXPECT_EQ(s.topology.world_size, 2);
  EXPECT_FALSE(s.topology.local_world_size.has_value());
  EXPECT_EQ(s.topology.compute_device, planner::ComputeDevice::kCuda);
  EXPECT_FALSE(s.topology.hbm_cap.has_value());  // the planner applies 32 GiB
  EXPECT_FALSE(s.topology.ddr_cap.has_value());
  EXPECT_EQ(s.topology.hbm_mem_bw, planner::kDefaultHbmMemBw);
  EXPECT_EQ(s.topology.ddr_mem_bw, planner::kDefaultDdrMemBw);
  EXPECT_EQ(s.topology.hbm_to_ddr_mem_bw, planner::kDefaultHbmToDdrMemBw);
  EXPECT_EQ(s.planner.torchrec_version, planner::TorchRecVersion::k2026_08);
  EXPECT_EQ(s.topology.intra_host_bw, planner::kDefaultIntraHostBw);
  EXPECT_EQ(s.topology.inter_host_bw, planner::kDefaultInterHostBw);
  EXPECT_EQ(s.topology.bwd_compute_multiplier, 2.0);
  EXPECT_EQ(s.batch_size, 512);
  EXPECT_EQ(s.module.kind, planner::ModuleKind::kEmbeddingBagCollection);
  EXPECT_EQ(s.module.dense_param_bytes, 0);
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(s.tables[1].name, "t1");
  EXPECT_EQ(s.tables[1].num_embeddings, 200);
  EXPECT_EQ(s.tables[1].embedding_dim, 16);
  EXPECT_EQ(s.tables[1].feature_names, std::vector<std::string>{"f1"});
  EXPECT_EQ(s.tables[1].data_type, planner::DataType::kFp32);
  EXPECT_FALSE(s.tables[1].is_weighted);
  ASSERT_EQ(s.constraints.size(), 2u);
  EXPECT_FALSE(s.constraints[0].has_value());
  EXPECT_FALSE(s.constraints[1].has_value());
  EXPECT_FALSE(s.sharder.has_fused_params);
  EXPECT_EQ(s.sharder.optimizer, planner::OptimizerKind::kNone);
  EXPECT_EQ(s.sharder.optimizer_name, "none");
  EXPECT_EQ(s.sharder.qcomm_forward, planner::CommPrecision::kFp32);
  EXPECT_EQ(s.sharder.qcomm_backward, planner::CommPrecision::kFp32);
  const auto defaults = planner::default_proposers();
  ASSERT_EQ(s.planner.proposers.size(), defaults.size());
  for (std::size_t i = 0; i < defaults.size(); ++i) {
    EXPECT_EQ(s.planner.proposers[i].kind, defaults[i].kind) << i;
    EXPECT_EQ(s.planner.proposers[i].use_depth, defaults[i].use_depth) << i;
  }
  EXPECT_EQ(s.planner.partitioner.kind, planner::PartitionerKind::kGreedyPerf);
  EXPECT_EQ(s.planner.partitioner.sort_by, planner::SortBy::kStorage);
  EXPECT_FALSE(s.planner.partitioner.balance_modules);
  EXPECT_EQ(s.planner.storage_reservation.kind, planner::ReservationKind::kHeuristical);
  EXPECT_EQ(s.planner.storage_reservation.percentage, 0.15);
  EXPECT_EQ(s.planner.storage_reservation.parameter_multiplier, 6.0);
  EXPECT_FALSE(s.planner.storage_reservation.dense_tensor_estimate.has_value());
  EXPECT_FALSE(s.planner.is_inference);
}

// The example document of docs/scenario-format.md.
constexpr std::string_view kSpecExample = R"({
  "name": "dlrm-small",
  "topology": {
    "world_size": 8, "local_world_size": 8, "compute_device": "cuda",
    "hbm_cap": "32 GiB", "ddr_cap": "128 GiB",
    "hbm_mem_bw": 963146416.128, "ddr_mem_bw": 54760833.024,
    "intra_host_bw": 644245094.4, "inter_host_bw": 13421772.8,
    "bwd_compute_multiplier": 2.0
  },
  "batch_size": 512,
  "module": { "kind": "embedding_bag_collection", "dense_param_bytes": 0 },
  "tables": [
    { "name": "table_0", "num_embeddings": 100000, "embedding_dim": 64,
      "feature_names": ["feature_0"], "data_type": "fp32", "is_weighted": false }
  ],
  "constraints": {
    "table_0": {
      "sharding_types": ["table_wise", "row_wise"],
      "compute_kernels": ["fused"],
      "min_partition": 32,
      "pooling_factors": [4.0],
      "num_poolings": [1.0],
      "batch_sizes": [512],
      "is_weighted": false,
      "cache_params": { "load_factor": 0.2, "prefetch_pipeline": false },
      "enforce_hbm": false
    }
  },
  "sharder": {
    "fused_params": { "cache_load_factor": null, "prefetch_pipeline": false },
    "optimizer": "sgd",
    "qcomm": { "forward": "fp32", "backward": "fp32" }
  },
  "planner": {
    "proposers": ["greedy", "uniform"],
    "partitioner": "greedy_perf",
    "storage_reservation": { "kind": "heuristical", "percentage": 0.15,
                             "parameter_multiplier": 6.0, "dense_tensor_estimate": null },
    "is_inference": false
  }
})";

TEST(ScenarioLoader, SpecExampleLoads) {
  const Scenario s = load_ok(std::string(kSpecExample));
  EXPECT_EQ(s.name, "dlrm-small");
  EXPECT_EQ(s.topology.world_size, 8);
  EXPECT_EQ(s.topology.local_world_size, 8);
  EXPECT_EQ(s.topology.hbm_cap, int64_t{32} << 30);
  EXPECT_EQ(s.topology.ddr_cap, int64_t{128} << 30);
  EXPECT_EQ(s.topology.hbm_mem_bw, planner::kDefaultHbmMemBw);
  EXPECT_EQ(s.topology.inter_host_bw, planner::kDefaultInterHostBw);
  ASSERT_EQ(s.tables.size(), 1u);
  ASSERT_TRUE(s.constraints[0].has_value());
  const planner::ConstraintSpec& c = *s.constraints[0];
  EXPECT_EQ(c.sharding_types,
            (std::vector{planner::ShardingType::kTableWise, planner::ShardingType::kRowWise}));
  EXPECT_EQ(c.compute_kernels, (std::vector{planner::ComputeKernel::kFused}));
  EXPECT_EQ(c.min_partition, 32);
  EXPECT_EQ(c.pooling_factors, (std::vector{4.0}));
  EXPECT_EQ(c.num_poolings, (std::vector{1.0}));
  EXPECT_EQ(c.batch_sizes, (std::vector<int64_t>{512}));
  EXPECT_EQ(c.is_weighted, false);
  ASSERT_TRUE(c.cache_params.has_value());
  EXPECT_EQ(c.cache_params->load_factor, 0.2);
  EXPECT_EQ(c.cache_params->prefetch_pipeline, false);
  EXPECT_FALSE(c.cache_params->algorithm.has_value());
  EXPECT_EQ(c.enforce_hbm, false);
  EXPECT_FALSE(c.stochastic_rounding.has_value());
  // prefetch_pipeline false is given, so the sharder has fused params.
  EXPECT_TRUE(s.sharder.has_fused_params);
  EXPECT_FALSE(s.sharder.cache_load_factor.has_value());
  EXPECT_EQ(s.sharder.prefetch_pipeline, false);
  EXPECT_EQ(s.sharder.optimizer, planner::OptimizerKind::kSgd);
  ASSERT_EQ(s.planner.proposers.size(), 2u);
  EXPECT_EQ(s.planner.proposers[0].kind, planner::ProposerKind::kGreedy);
  EXPECT_TRUE(s.planner.proposers[0].use_depth);
  EXPECT_FALSE(s.planner.proposers[0].threshold.has_value());
  EXPECT_EQ(s.planner.proposers[1].kind, planner::ProposerKind::kUniform);
}

TEST(ScenarioLoader, TopologyUnitStringsAndNumbers) {
  const Scenario s = load_ok(scenario_text(
      "", R"({"world_size": 8, "local_world_size": 4, "compute_device": "mtia", "hbm_cap": "80 GB",
             "ddr_cap": 1e12, "hbm_mem_bw": "3.35 TB/s", "ddr_mem_bw": 100000000,
             "intra_host_bw": "897 GiB/s", "inter_host_bw": 0.5, "bwd_compute_multiplier": 0})"));
  EXPECT_EQ(s.topology.local_world_size, 4);
  EXPECT_EQ(s.topology.compute_device, planner::ComputeDevice::kMtia);
  EXPECT_EQ(s.topology.hbm_cap, 80000000000);
  EXPECT_EQ(s.topology.ddr_cap, 1000000000000);
  EXPECT_EQ(s.topology.hbm_mem_bw, 3350000000.0);
  EXPECT_EQ(s.topology.ddr_mem_bw, 1e8);
  EXPECT_EQ(s.topology.intra_host_bw, 963146416.128);
  EXPECT_EQ(s.topology.inter_host_bw, 0.5);
  EXPECT_EQ(s.topology.bwd_compute_multiplier, 0.0);  // 0 is kept
}

TEST(ScenarioLoader, FalsyZerosAreKeptAsGiven) {
  const Scenario s = load_ok(scenario_text(
      R"(, "planner": {"storage_reservation": {"kind": "heuristical", "percentage": 0,
                       "parameter_multiplier": 0, "dense_tensor_estimate": 0}},
          "sharder": {"fused_params": {"cache_load_factor": 0}})",
      R"({"world_size": 1, "hbm_cap": 0, "ddr_cap": "0 GiB"})"));
  EXPECT_EQ(s.topology.hbm_cap, std::optional<int64_t>(0));
  EXPECT_EQ(s.topology.ddr_cap, std::optional<int64_t>(0));
  EXPECT_EQ(s.planner.storage_reservation.percentage, 0.0);
  EXPECT_EQ(s.planner.storage_reservation.parameter_multiplier, 0.0);
  EXPECT_EQ(s.planner.storage_reservation.dense_tensor_estimate, 0);
  EXPECT_TRUE(s.sharder.has_fused_params);
  EXPECT_EQ(s.sharder.cache_load_factor, 0.0);
}

TEST(ScenarioLoader, ModuleAndDenseBytes) {
  Scenario s = load_ok(scenario_text(
      R"(, "module": {"kind": "embedding_collection", "dense_param_bytes": "1 GiB"})",
      R"({"world_size": 2})",
      R"([{"name": "a", "num_embeddings": 1, "embedding_dim": 8, "feature_names": ["x"]},
                                         {"name": "b", "num_embeddings": 1, "embedding_dim": 8, "feature_names": ["y"]}])"));
  EXPECT_EQ(s.module.kind, planner::ModuleKind::kEmbeddingCollection);
  EXPECT_EQ(s.module.dense_param_bytes, int64_t{1} << 30);
  s = load_ok(scenario_text(R"(, "module": {"dense_param_bytes": 400000000})"));
  EXPECT_EQ(s.module.kind, planner::ModuleKind::kEmbeddingBagCollection);
  EXPECT_EQ(s.module.dense_param_bytes, 400000000);
}

TEST(ScenarioLoader, TableFields) {
  const Scenario s = load_ok(scenario_text(
      "", R"({"world_size": 2})",
      R"([{"name": "w", "num_embeddings": 5, "embedding_dim": 4, "feature_names": ["a", "b"],
           "data_type": "int8", "is_weighted": true}])"));
  EXPECT_EQ(s.tables[0].feature_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.tables[0].data_type, planner::DataType::kInt8);
  EXPECT_TRUE(s.tables[0].is_weighted);
}

TEST(ScenarioLoader, ConstraintExtrasAndNullsMeaningNotGiven) {
  const Scenario s = load_ok(scenario_text(R"(, "constraints": {
      "t1": {"stochastic_rounding": true, "bounds_check_mode": "warning", "feature_names": ["f1"],
             "enforce_hbm": null, "min_partition": null,
             "cache_params": {"algorithm": "lfu", "reserved_memory": 1.5, "precision": "fp16",
                              "load_factor": null}},
      "t0": {"cache_params": {}}})"));
  ASSERT_TRUE(s.constraints[0].has_value());
  ASSERT_TRUE(s.constraints[0]->cache_params.has_value());
  EXPECT_EQ(*s.constraints[0]->cache_params, planner::CacheParams{});
  ASSERT_TRUE(s.constraints[1].has_value());
  const planner::ConstraintSpec& c = *s.constraints[1];
  EXPECT_EQ(c.stochastic_rounding, true);
  EXPECT_EQ(c.bounds_check_mode, planner::BoundsCheckMode::kWarning);
  EXPECT_EQ(c.feature_names, (std::vector<std::string>{"f1"}));
  EXPECT_FALSE(c.enforce_hbm.has_value());
  EXPECT_FALSE(c.min_partition.has_value());
  EXPECT_EQ(c.cache_params->algorithm, planner::CacheAlgorithm::kLfu);
  EXPECT_EQ(c.cache_params->reserved_memory, 1.5);
  EXPECT_EQ(c.cache_params->precision, planner::DataType::kFp16);
  EXPECT_FALSE(c.cache_params->load_factor.has_value());
}

TEST(ScenarioLoader, PerInputListLengths) {
  // Present lists, empty ones included, must agree.
  Scenario s = load_ok(scenario_text(
      R"(, "constraints": {"t0": {"pooling_factors": [1, 2.5, 0], "num_poolings": [1, 1, 2], "batch_sizes": [8, 16, 32]}})"));
  EXPECT_EQ(s.constraints[0]->pooling_factors, (std::vector{1.0, 2.5, 0.0}));
  EXPECT_EQ(s.constraints[0]->batch_sizes, (std::vector<int64_t>{8, 16, 32}));
  s = load_ok(scenario_text(
      R"(, "constraints": {"t0": {"pooling_factors": [], "num_poolings": [], "batch_sizes": []}})"));
  EXPECT_TRUE(s.constraints[0]->pooling_factors->empty());
  s = load_ok(
      scenario_text(R"(, "constraints": {"t0": {"num_poolings": [2.0], "batch_sizes": [64]}})"));
  EXPECT_FALSE(s.constraints[0]->pooling_factors.has_value());
  s = load_ok(scenario_text(R"(, "constraints": {"t0": {"num_poolings": []}})"));
  EXPECT_TRUE(s.constraints[0]->num_poolings->empty());

  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "constraints": {"t0": {"pooling_factors": [1, 2], "num_poolings": [1, 1, 1]}})"),
      "s.json: constraints.t0: per-input lists differ in length: got pooling_factors 2, "
      "num_poolings 3");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"pooling_factors": [], "batch_sizes": [512]}})"),
      "constraints.t0: per-input lists differ in length: got pooling_factors 0, batch_sizes 1");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": {"t1": {"num_poolings": [1, 2]}})"),
                        "s.json: constraints.t1: num_poolings without pooling_factors");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t1": {"batch_sizes": [1, 2], "num_poolings": [1, 2]}})"),
      "constraints.t1: num_poolings without pooling_factors");
}

TEST(ScenarioLoader, SharderForms) {
  Scenario s = load_ok(scenario_text(
      R"(, "sharder": {"fused_params": {"cache_load_factor": null, "prefetch_pipeline": null}})"));
  EXPECT_FALSE(s.sharder.has_fused_params);
  s = load_ok(scenario_text(R"(, "sharder": {"fused_params": {}})"));
  EXPECT_FALSE(s.sharder.has_fused_params);
  s = load_ok(scenario_text(
      R"(, "sharder": {"fused_params": {"cache_load_factor": 0.3, "prefetch_pipeline": true}})"));
  EXPECT_TRUE(s.sharder.has_fused_params);
  EXPECT_EQ(s.sharder.cache_load_factor, 0.3);
  EXPECT_EQ(s.sharder.prefetch_pipeline, true);

  const std::pair<const char*, planner::OptimizerKind> kOptimizers[] = {
      {"none", planner::OptimizerKind::kNone},
      {"sgd", planner::OptimizerKind::kSgd},
      {"adam", planner::OptimizerKind::kAdam},
      {"rowwise_adagrad", planner::OptimizerKind::kRowwiseAdagrad},
      {"adagrad", planner::OptimizerKind::kAdagrad},
      {"lamb", planner::OptimizerKind::kOther},
      {"Adam", planner::OptimizerKind::kOther}};
  for (const auto& [name, kind] : kOptimizers) {
    s = load_ok(scenario_text(std::string(R"(, "sharder": {"optimizer": ")") + name + "\"}"));
    EXPECT_EQ(s.sharder.optimizer, kind) << name;
    EXPECT_EQ(s.sharder.optimizer_name, name);
  }

  s = load_ok(scenario_text(R"(, "sharder": {"qcomm": {"forward": "bf16"}})"));
  EXPECT_EQ(s.sharder.qcomm_forward, planner::CommPrecision::kBf16);
  EXPECT_EQ(s.sharder.qcomm_backward, planner::CommPrecision::kFp32);
  s = load_ok(scenario_text(R"(, "sharder": {"qcomm": {"forward": "fp8", "backward": "int8"}})"));
  EXPECT_EQ(s.sharder.qcomm_forward, planner::CommPrecision::kFp8);
  EXPECT_EQ(s.sharder.qcomm_backward, planner::CommPrecision::kInt8);
  s = load_ok(scenario_text(R"(, "sharder": {"qcomm": {}})"));
  EXPECT_EQ(s.sharder.qcomm_forward, planner::CommPrecision::kFp32);
}

TEST(ScenarioLoader, ProposerNamesAndObjects) {
  Scenario s = load_ok(scenario_text(R"(, "planner": {"proposers": [
      "grid_search", "embedding_offload_scaleup",
      {"kind": "greedy", "use_depth": false, "threshold": 10},
      {"kind": "greedy", "threshold": null}, {"kind": "greedy", "threshold": 0},
      {"kind": "uniform", "use_depth": false},
      {"kind": "grid_search", "max_proposals": 0},
      {"kind": "embedding_offload_scaleup", "use_depth": false}]})"));
  const auto& p = s.planner.proposers;
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p[0].kind, planner::ProposerKind::kGridSearch);
  EXPECT_EQ(p[0].max_proposals, 10000);
  EXPECT_EQ(p[1].kind, planner::ProposerKind::kEmbeddingOffloadScaleup);
  EXPECT_TRUE(p[1].use_depth);
  EXPECT_EQ(p[2].kind, planner::ProposerKind::kGreedy);
  EXPECT_FALSE(p[2].use_depth);
  EXPECT_EQ(p[2].threshold, 10);
  EXPECT_TRUE(p[3].use_depth);
  EXPECT_FALSE(p[3].threshold.has_value());
  EXPECT_EQ(p[4].threshold, 0);  // kept as given; 0 means none to the planner
  EXPECT_EQ(p[5].kind, planner::ProposerKind::kUniform);
  EXPECT_FALSE(p[5].use_depth);
  EXPECT_EQ(p[6].max_proposals, 0);
  EXPECT_FALSE(p[7].use_depth);
}

TEST(ScenarioLoader, PartitionerForms) {
  Scenario s = load_ok(scenario_text(R"(, "planner": {"partitioner": "memory_balanced"})"));
  EXPECT_EQ(s.planner.partitioner.kind, planner::PartitionerKind::kMemoryBalanced);
  EXPECT_EQ(s.planner.partitioner.max_search_count, 10);
  EXPECT_EQ(s.planner.partitioner.tolerance, 0.02);
  s = load_ok(scenario_text(
      R"(, "planner": {"partitioner": {"kind": "greedy_perf", "sort_by": "perf", "balance_modules": true}})"));
  EXPECT_EQ(s.planner.partitioner.kind, planner::PartitionerKind::kGreedyPerf);
  EXPECT_EQ(s.planner.partitioner.sort_by, planner::SortBy::kPerf);
  EXPECT_TRUE(s.planner.partitioner.balance_modules);
  s = load_ok(scenario_text(
      R"(, "planner": {"partitioner": {"kind": "memory_balanced", "max_search_count": 20, "tolerance": 0.5, "balance_modules": true}})"));
  EXPECT_EQ(s.planner.partitioner.max_search_count, 20);
  EXPECT_EQ(s.planner.partitioner.tolerance, 0.5);
  EXPECT_TRUE(s.planner.partitioner.balance_modules);
}

TEST(ScenarioLoader, StorageReservationForms) {
  Scenario s = load_ok(scenario_text(
      R"(, "planner": {"storage_reservation": {"kind": "fixed_percentage", "percentage": 0.3, "dense_tensor_estimate": null}})"));
  EXPECT_EQ(s.planner.storage_reservation.kind, planner::ReservationKind::kFixedPercentage);
  EXPECT_EQ(s.planner.storage_reservation.percentage, 0.3);
  s = load_ok(scenario_text(
      R"(, "planner": {"storage_reservation": {"kind": "inference", "dense_tensor_estimate": "2 MiB"}})"));
  EXPECT_EQ(s.planner.storage_reservation.kind, planner::ReservationKind::kInference);
  EXPECT_EQ(s.planner.storage_reservation.dense_tensor_estimate, 2 << 20);
  EXPECT_EQ(s.planner.storage_reservation.percentage, 0.15);
  s = load_ok(scenario_text(
      R"(, "planner": {"storage_reservation": {"kind": "heuristical", "percentage": 1, "parameter_multiplier": 4.0}})"));
  EXPECT_EQ(s.planner.storage_reservation.percentage, 1.0);
  EXPECT_EQ(s.planner.storage_reservation.parameter_multiplier, 4.0);
}

TEST(ScenarioLoader, InferenceTablesThatQuantize) {
  const Scenario s = load_ok(scenario_text(
      R"(, "planner": {"is_inference": true})", R"({"world_size": 2})",
      R"([{"name": "a", "num_embeddings": 1, "embedding_dim": 6, "feature_names": ["x"], "data_type": "int4"},
          {"name": "b", "num_embeddings": 1, "embedding_dim": 12, "feature_names": ["y"], "data_type": "int2"},
          {"name": "c", "num_embeddings": 1, "embedding_dim": 7, "feature_names": ["z"], "data_type": "int8"}])"));
  EXPECT_TRUE(s.planner.is_inference);
}

TEST(ScenarioLoader, TrainingAcceptsWhatInferenceRefuses) {
  load_ok(scenario_text(
      "", R"({"world_size": 2})",
      R"([{"name": "a", "num_embeddings": 1, "embedding_dim": 7, "feature_names": ["x"], "data_type": "int4"},
                            {"name": "b", "num_embeddings": 1, "embedding_dim": 6, "feature_names": ["y"], "data_type": "int2"},
                            {"name": "c", "num_embeddings": 1, "embedding_dim": 6, "feature_names": ["z"], "data_type": "bf16"}])"));
}

TEST(ScenarioLoader, NameFromFieldOrStem) {
  EXPECT_EQ(load_ok(scenario_text(R"(, "name": "custom")")).name, "custom");
  auto r = parse_scenario(scenario_text(), "x.y.json");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->name, "x.y");
}

TEST(ScenarioLoader, LoadsAFileAndNamesItByStem) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardlab_loader_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "from_disk.json";
  std::ofstream(file) << scenario_text();
  auto r = load_scenario_file(file.string());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->name, "from_disk");
  fs::remove_all(dir);
}

// ---- Validation rules and their messages. ----------------------------------

TEST(ScenarioValidation, MessageShapeOfTheSpecExample) {
  std::string tables = "[";
  for (int i = 0; i < 4; ++i) {
    if (i > 0) tables += ", ";
    tables += R"({"name": "t)" + std::to_string(i) +
              R"(", "num_embeddings": 10, "embedding_dim": )" + (i == 3 ? "-5" : "8") +
              R"(, "feature_names": ["f"]})";
  }
  tables += "]";
  auto r = parse_scenario(scenario_text("", R"({"world_size": 2})", tables), "dlrm.json");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "dlrm.json: tables[3].embedding_dim: must be an integer in [1, 1073741824]: got -5");
}

TEST(ScenarioValidation, UnknownKeysAnywhere) {
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planer": {})"),
                        "s.json: <root>: unknown key: got \"planer\", expected one of name,");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "gpus": 8})"),
                        "s.json: topology: unknown key: got \"gpus\", expected one of world_size,");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2})",
                    one_table(std::string(kT0) + R"(, "embedding_dim": 4, "dim": 4)")),
      "tables[0]: unknown key: got \"dim\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "module": {"kind": "embedding_bag_collection", "weighted": true})"),
      "module: unknown key: got \"weighted\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": {"t0": {"pooling_factor": [1]}})"),
                        "constraints.t0: unknown key: got \"pooling_factor\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"cache_params": {"stats": {}}}})"),
      "constraints.t0.cache_params: unknown key: got \"stats\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "sharder": {"fused_params": {"optimizer": "sgd"}})"),
                        "sharder.fused_params: unknown key: got \"optimizer\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "sharder": {"qcomm": {"fwd": "fp16"}})"),
                        "sharder.qcomm: unknown key: got \"fwd\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "sharder": {"registry": {}})"),
                        "sharder: unknown key: got \"registry\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"estimator": "x"})"),
                        "planner: unknown key: got \"estimator\"");
}

TEST(ScenarioValidation, MissingRequiredKeys) {
  EXPECT_ERROR_CONTAINS(
      R"({"tables": [{"name": "t", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"]}]})",
      "s.json: topology: missing required key");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"local_world_size": 2})"),
      "s.json: topology.world_size: missing required key, expected an integer from 1 to 65536");
  EXPECT_ERROR_CONTAINS(R"({"topology": {"world_size": 1}})",
                        "s.json: tables: missing required key");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2})",
                    R"([{"num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"]}])"),
      "s.json: tables[0].name: missing required key");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2})",
                    one_table(R"("name": "t", "embedding_dim": 1, "feature_names": ["f"])")),
      "tables[0].num_embeddings: missing required key");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2})", one_table(kT0)),
                        "tables[0].embedding_dim: missing required key");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2})",
                    one_table(R"("name": "t", "num_embeddings": 1, "embedding_dim": 1)")),
      "tables[0].feature_names: missing required key");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"storage_reservation": {"percentage": 0.1}})"),
      "planner.storage_reservation.kind: missing required key");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"proposers": [{"use_depth": false}]})"),
                        "planner.proposers[0].kind: missing required key");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"partitioner": {"sort_by": "perf"}})"),
                        "planner.partitioner.kind: missing required key");
}

TEST(ScenarioValidation, WrongTypes) {
  EXPECT_ERROR_CONTAINS("[]", "s.json: <root>: must be a scenario object: got []");
  EXPECT_ERROR_CONTAINS(R"({"topology": [2], "tables": []})",
                        "s.json: topology: must be a topology object: got [2]");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": "8"})"),
                        "topology.world_size: must be an integer in [1, 65536]: got \"8\"");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2.5})"),
                        "topology.world_size: must be an integer in [1, 65536]: got 2.5");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": true})"),
                        "topology.world_size: must be an integer in [1, 65536]: got true");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "hbm_cap": true})"),
                        "topology.hbm_cap: must be a size: got true");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "hbm_mem_bw": [1]})"),
                        "topology.hbm_mem_bw: must be a bandwidth: got [1]");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2, "bwd_compute_multiplier": "2"})"),
      "topology.bwd_compute_multiplier: must be a number in [0, 1000000]: got \"2\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "batch_size": "512")"),
                        "s.json: batch_size: must be an integer >= 1: got \"512\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "name": 7)"),
                        "s.json: name: must be a non-empty string: got 7");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2})", R"({"t0": {}})"),
                        "s.json: tables: must be a non-empty list of tables: got {\"t0\":{}}");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2})", R"(["t0"])"),
                        "tables[0]: must be a table object: got \"t0\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          "", R"({"world_size": 2})",
          one_table(
              R"("name": 5, "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"])")),
      "tables[0].name: must be a non-empty string: got 5");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2})",
                    one_table(std::string(kT0) + R"(, "embedding_dim": 4, "is_weighted": "yes")")),
      "tables[0].is_weighted: must be true or false: got \"yes\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          "", R"({"world_size": 2})",
          one_table(
              R"("name": "t", "num_embeddings": 1, "embedding_dim": 1, "feature_names": "f")")),
      "tables[0].feature_names: must be a non-empty list: got \"f\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          "", R"({"world_size": 2})",
          one_table(
              R"("name": "t", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f", 2])")),
      "tables[0].feature_names[1]: must be a string: got 2");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": [])"),
                        "s.json: constraints: must be an object keyed by table name: got []");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": {"t0": 1})"),
                        "constraints.t0: must be a constraints object: got 1");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"sharding_types": "table_wise"}})"),
      "constraints.t0.sharding_types: must be a list: got \"table_wise\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": {"t0": {"enforce_hbm": 1}})"),
                        "constraints.t0.enforce_hbm: must be true or false: got 1");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": {"t0": {"cache_params": [0.2]}})"),
                        "constraints.t0.cache_params: must be a cache_params object: got [0.2]");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "sharder": {"optimizer": 3})"),
                        "sharder.optimizer: must be a non-empty string: got 3");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "sharder": {"optimizer": "5 parsecs"})"),
      "sharder.optimizer: not an optimizer name: got \"5 parsecs\", expected none, sgd, adam, "
      "rowwise_adagrad, adagrad, or another optimizer's name");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2, "local_world_size": 4})"),
      "topology.local_world_size: more ranks per host than the world has: got 4, expected "
      "at most world_size (2)");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "sharder": {"fused_params": null})"),
                        "sharder.fused_params: must be a fused_params object: got null");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"proposers": "greedy"})"),
                        "planner.proposers: must be a non-empty list: got \"greedy\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"proposers": [1]})"),
      "planner.proposers[0]: must be a proposer name or an object with \"kind\": got 1");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"partitioner": 0})"),
      "planner.partitioner: must be a partitioner name or an object with \"kind\": got 0");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"is_inference": "false"})"),
                        "planner.is_inference: must be true or false: got \"false\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"storage_reservation": "heuristical"})"),
      "planner.storage_reservation: must be a storage_reservation object: got \"heuristical\"");
}

TEST(ScenarioValidation, NullIsOnlyAcceptedWhereTheFormatSaysSo) {
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "local_world_size": null})"),
                        "topology.local_world_size: must be an integer in [1, 65536]: got null");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "batch_size": null)"),
                        "batch_size: must be an integer >= 1: got null");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"proposers": [{"kind": "greedy", "use_depth": null}]})"),
      "planner.proposers[0].use_depth: must be true or false: got null");
}

TEST(ScenarioValidation, CountsMustBeAtLeastOne) {
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 0})"),
                        "s.json: topology.world_size: must be an integer in [1, 65536]: got 0");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "local_world_size": 0})"),
                        "topology.local_world_size: must be an integer in [1, 65536]: got 0");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2147483648})"),
                        "topology.world_size: must be an integer in [1, 65536]: got 2147483648");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "batch_size": 0)"),
                        "s.json: batch_size: must be an integer >= 1: got 0");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": {"t1": {"min_partition": 0}})"),
                        "constraints.t1.min_partition: must be an integer >= 1: got 0");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "constraints": {"t0": {"pooling_factors": [1, 1], "batch_sizes": [512, 0]}})"),
      "constraints.t0.batch_sizes[1]: must be an integer >= 1: got 0");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"pooling_factors": [1], "batch_sizes": [1.5]}})"),
      "constraints.t0.batch_sizes[0]: must be an integer >= 1: got 1.5");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2})",
                                      one_table(std::string(kT0) + R"(, "embedding_dim": 0)")),
                        "tables[0].embedding_dim: must be an integer in [1, 1073741824]: got 0");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          "", R"({"world_size": 2})",
          one_table(
              R"("name": "t0", "num_embeddings": 0, "embedding_dim": 8, "feature_names": ["f0"])")),
      "tables[0].num_embeddings: must be an integer in [1, 9007199254740992]: got 0");
}

TEST(ScenarioValidation, SizesAndBandwidths) {
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2, "hbm_cap": -1})"),
      "s.json: topology.hbm_cap: must be a size: got -1, expected a whole number of bytes >= 0");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "ddr_cap": 1.5})"),
                        "topology.ddr_cap: must be a size: got 1.5");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2, "hbm_cap": "0.1 GiB"})"),
      "s.json: topology.hbm_cap: invalid size: not a whole number of bytes: got \"0.1 GiB\"");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "hbm_cap": "32 gib"})"),
                        "topology.hbm_cap: invalid size: unknown unit \"gib\"");
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "hbm_cap": "32 GiB/s"})"),
                        "topology.hbm_cap: invalid size: a size takes no /s");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "module": {"dense_param_bytes": -3})"),
                        "module.dense_param_bytes: must be a size: got -3");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"storage_reservation": {"kind": "heuristical", "dense_tensor_estimate": "1.5 B"}})"),
      "planner.storage_reservation.dense_tensor_estimate: invalid size: not a whole number of "
      "bytes");
  for (const char* field : {"hbm_mem_bw", "ddr_mem_bw", "intra_host_bw", "inter_host_bw"}) {
    const std::string f(field);
    EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, ")" + f + R"(": 0})"),
                          "s.json: topology." + f + ": bandwidth must be > 0: got 0");
    EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, ")" + f + R"(": "0 GiB/s"})"),
                          "topology." + f + ": bandwidth must be > 0: got \"0 GiB/s\"");
    EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, ")" + f + R"(": -1.5})"),
                          "topology." + f + ": bandwidth must be > 0: got -1.5");
    EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, ")" + f + R"(": "897 GiB"})"),
                          "topology." + f + ": invalid bandwidth: a bandwidth needs /s");
  }
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2, "bwd_compute_multiplier": -0.5})"),
      "topology.bwd_compute_multiplier: must be a number in [0, 1000000]: got -0.5");
}

TEST(ScenarioValidation, UnknownNames) {
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2, "compute_device": "tpu"})"),
                        "s.json: topology.compute_device: unknown compute device: got \"tpu\", "
                        "expected one of cuda, cpu, mtia");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "module": {"kind": "ebc"})"),
                        "module.kind: unknown module kind: got \"ebc\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"({"world_size": 2})",
                    one_table(std::string(kT0) + R"(, "embedding_dim": 4, "data_type": "fp64")")),
      "tables[0].data_type: unknown data type: got \"fp64\", expected one of fp32, fp16, bf16, "
      "int8, int4, int2");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"sharding_types": ["table_wise", "tw"]}})"),
      "s.json: constraints.t0.sharding_types[1]: unknown sharding type: got \"tw\", expected one "
      "of data_parallel,");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"compute_kernels": ["fused_caching"]}})"),
      "constraints.t0.compute_kernels[0]: unknown compute kernel: got \"fused_caching\", expected "
      "one of dense,");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"bounds_check_mode": "strict"}})"),
      "constraints.t0.bounds_check_mode: unknown bounds check mode: got \"strict\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"cache_params": {"algorithm": "fifo"}}})"),
      "constraints.t0.cache_params.algorithm: unknown cache algorithm: got \"fifo\", expected one "
      "of lru, lfu");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"cache_params": {"precision": "fp8"}}})"),
      "constraints.t0.cache_params.precision: unknown data type: got \"fp8\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "sharder": {"qcomm": {"backward": "fp64"}})"),
                        "sharder.qcomm.backward: unknown qcomm precision: got \"fp64\", expected "
                        "one of fp32, fp16, bf16, fp8, int8");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"proposers": ["greedy", "random"]})"),
                        "planner.proposers[1]: unknown proposer: got \"random\", expected one of "
                        "greedy, uniform, grid_search, embedding_offload_scaleup");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"proposers": [{"kind": "heuristic"}]})"),
                        "planner.proposers[0].kind: unknown proposer: got \"heuristic\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"partitioner": "greedy"})"),
                        "planner.partitioner: unknown partitioner: got \"greedy\", expected one of "
                        "greedy_perf, memory_balanced");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"partitioner": {"kind": "greedy_perf", "sort_by": "size"}})"),
      "planner.partitioner.sort_by: unknown sort key: got \"size\", expected one of storage, perf");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"storage_reservation": {"kind": "fixed"}})"),
      "planner.storage_reservation.kind: unknown storage reservation: got \"fixed\"");
}

TEST(ScenarioValidation, ProposerArguments) {
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "planner": {"proposers": []})"),
                        "s.json: planner.proposers: must be a non-empty list: got []");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"proposers": [{"kind": "uniform", "threshold": 3}]})"),
      "planner.proposers[0]: unknown key: got \"threshold\", expected one of kind, use_depth");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"proposers": [{"kind": "greedy", "max_proposals": 3}]})"),
      "planner.proposers[0]: unknown key: got \"max_proposals\", expected one of kind, use_depth, "
      "threshold");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"proposers": [{"kind": "grid_search", "use_depth": true}]})"),
      "planner.proposers[0]: unknown key: got \"use_depth\", expected one of kind, max_proposals");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"proposers": [{"kind": "embedding_offload_scaleup", "threshold": 1}]})"),
      "planner.proposers[0]: unknown key: got \"threshold\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"proposers": [{"kind": "greedy", "threshold": -1}]})"),
      "planner.proposers[0].threshold: must be an integer >= 0: got -1");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"proposers": [{"kind": "grid_search", "max_proposals": -1}]})"),
      "planner.proposers[0].max_proposals: must be an integer >= 0: got -1");
}

TEST(ScenarioValidation, PartitionerArguments) {
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"partitioner": {"kind": "memory_balanced", "sort_by": "perf"}})"),
      "planner.partitioner: unknown key: got \"sort_by\", expected one of kind, max_search_count, "
      "tolerance, balance_modules");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "planner": {"partitioner": {"kind": "greedy_perf", "tolerance": 0.1}})"),
      "planner.partitioner: unknown key: got \"tolerance\", expected one of kind, sort_by, "
      "balance_modules");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"partitioner": {"kind": "memory_balanced", "tolerance": -0.1}})"),
      "planner.partitioner.tolerance: must be a number >= 0: got -0.1");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"partitioner": {"kind": "memory_balanced", "max_search_count": 2.5}})"),
      "planner.partitioner.max_search_count: must be an integer >= 0: got 2.5");
}

TEST(ScenarioValidation, StorageReservationRules) {
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"storage_reservation": {"kind": "fixed_percentage", "parameter_multiplier": 6.0}})"),
      "s.json: planner.storage_reservation.parameter_multiplier: only the heuristical reservation "
      "takes it: got 6.0");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"storage_reservation": {"kind": "inference", "parameter_multiplier": 1}})"),
      "planner.storage_reservation.parameter_multiplier: only the heuristical reservation takes "
      "it: got 1");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"storage_reservation": {"kind": "fixed_percentage", "dense_tensor_estimate": 1024}})"),
      "planner.storage_reservation.dense_tensor_estimate: only the heuristical and inference "
      "reservations take it: got 1024");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"storage_reservation": {"kind": "heuristical", "percentage": 1.5}})"),
      "planner.storage_reservation.percentage: must be a number in [0, 1]: got 1.5");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"storage_reservation": {"kind": "heuristical", "percentage": -0.01}})"),
      "planner.storage_reservation.percentage: must be a number in [0, 1]: got -0.01");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "planner": {"storage_reservation": {"kind": "heuristical", "parameter_multiplier": -1}})"),
      "planner.storage_reservation.parameter_multiplier: must be a number >= 0: got -1");
}

TEST(ScenarioValidation, TablesListRules) {
  EXPECT_ERROR_CONTAINS(scenario_text("", R"({"world_size": 2})", "[]"),
                        "s.json: tables: must be a non-empty list of tables: got []");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          "", R"({"world_size": 2})",
          one_table(
              R"("name": "t", "num_embeddings": 1, "embedding_dim": 1, "feature_names": [])")),
      "s.json: tables[0].feature_names: must be a non-empty list: got []");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          "", R"({"world_size": 2})",
          one_table(
              R"("name": "", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"])")),
      "tables[0].name: must be a non-empty string: got \"\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          "", R"({"world_size": 2})",
          R"([{"name": "a", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"]},
                        {"name": "b", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"]},
                        {"name": "a", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"]}])"),
      "s.json: tables[2].name: duplicate table name: got \"a\", expected a name not already used "
      "by tables[0]");
}

TEST(ScenarioValidation, ConstraintRules) {
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t9": {}})"),
      "s.json: constraints.t9: constraint for a table that does not exist: got \"t9\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"pooling_factors": [1, 2, -1]}})"),
      "s.json: constraints.t0.pooling_factors[2]: must be a number >= 0: got -1");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"pooling_factors": [1], "num_poolings": ["1"]}})"),
      "constraints.t0.num_poolings[0]: must be a number >= 0: got \"1\"");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "constraints": {"t0": {"cache_params": {"load_factor": -0.2}}})"),
      "constraints.t0.cache_params.load_factor: must be a number >= 0: got -0.2");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "sharder": {"fused_params": {"cache_load_factor": -1}})"),
      "sharder.fused_params.cache_load_factor: must be a number >= 0: got -1");
  // Table names that are not identifiers are quoted in paths.
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "constraints": {"a.b": {}})"),
                        "s.json: constraints[\"a.b\"]: constraint for a table");
}

TEST(ScenarioValidation, InferenceRefusals) {
  const auto with_table = [](std::string_view type, int dim) {
    return scenario_text(
        R"(, "planner": {"is_inference": true})", R"({"world_size": 2})",
        R"([{"name": "ok", "num_embeddings": 1, "embedding_dim": 8, "feature_names": ["x"]},
                             {"name": "q", "num_embeddings": 1, "embedding_dim": )" +
            std::to_string(dim) + R"(, "feature_names": ["y"], "data_type": ")" +
            std::string(type) + R"("}])");
  };
  EXPECT_ERROR_CONTAINS(with_table("int4", 7),
                        "s.json: tables[1].embedding_dim: an int4 table needs an even "
                        "embedding_dim for inference: got 7");
  EXPECT_ERROR_CONTAINS(with_table("int2", 6),
                        "s.json: tables[1].embedding_dim: an int2 table needs an embedding_dim "
                        "divisible by 4 for inference: got 6");
  EXPECT_ERROR_CONTAINS(
      with_table("bf16", 8),
      "s.json: tables[1].data_type: bf16 tables cannot be quantized for inference: got \"bf16\"");
  load_ok(with_table("int4", 8));
  load_ok(with_table("int2", 8));
  load_ok(with_table("fp16", 7));
}

TEST(ScenarioValidation, EmbeddingCollectionNeedsOneDim) {
  const std::string tables = R"([
      {"name": "s0", "num_embeddings": 10, "embedding_dim": 64, "feature_names": ["a"]},
      {"name": "s1", "num_embeddings": 10, "embedding_dim": 32, "feature_names": ["b"]},
      {"name": "s2", "num_embeddings": 10, "embedding_dim": 16, "feature_names": ["c"]}])";
  const std::string kMessage =
      "s.json: tables[1].embedding_dim: All tables in a EmbeddingCollection are required to have "
      "same embedding "
      "dimension. Violating case: s1's embedding_dim 32 != 64";
  auto r = parse_scenario(scenario_text(R"(, "module": {"kind": "embedding_collection"})",
                                        R"({"world_size": 2})", tables),
                          std::string(kOrigin));
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), kMessage);
  // Also in inference (the quantized collection has the same rule).
  EXPECT_ERROR_CONTAINS(
      scenario_text(
          R"(, "module": {"kind": "embedding_collection"}, "planner": {"is_inference": true})",
          R"({"world_size": 2})", tables),
      "Violating case: s1's embedding_dim 32 != 64");
  // An EmbeddingBagCollection takes mixed dims.
  load_ok(scenario_text("", R"({"world_size": 2})", tables));
}

// ---- The golden scenarios. -------------------------------------------------

// Scenario inputs in `dir`: *.json except goldens and the timings file.
std::vector<fs::path> scenario_files(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".json") || name.ends_with(".golden.json") || name == "timings.json")
      continue;
    out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr std::string_view kMixedDimsMessage =
    "All tables in a EmbeddingCollection are required to have same embedding dimension. "
    "Violating case: s1's embedding_dim 32 != 64";

// One golden scenario input: it loads, except the mixed-dims collection,
// which is refused with TorchRec's message.
void check_golden_scenario(const fs::path& file) {
  SCOPED_TRACE(file.string());
  auto r = load_scenario_file(file.string());
  const std::string stem = file.stem().string();
  if (stem == "fail_sequence_ec_mixed_dims") {
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(kMixedDimsMessage), std::string::npos)
        << r.status().message();
    // The same text TorchRec raised, as recorded in the golden.
    fs::path golden = file;
    golden.replace_extension(".golden.json");
    if (fs::exists(golden)) {
      EXPECT_NE(read_text(golden).find(kMixedDimsMessage), std::string::npos);
    }
    return;
  }
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->name, stem);
  EXPECT_FALSE(r->tables.empty());
  EXPECT_EQ(r->constraints.size(), r->tables.size());
  if (stem == "topology_units_and_custom_bandwidths") {
    EXPECT_EQ(r->topology.hbm_cap, 80000000000);
    EXPECT_EQ(r->topology.ddr_cap, int64_t{1} << 40);
    EXPECT_EQ(r->topology.hbm_mem_bw, 3350000000.0);
    EXPECT_EQ(r->topology.ddr_mem_bw, 100000000.0);
    EXPECT_EQ(r->topology.intra_host_bw, 450000000.0);
    EXPECT_EQ(r->topology.inter_host_bw, 50000000.0);
    EXPECT_EQ(r->topology.bwd_compute_multiplier, 3.0);
    EXPECT_EQ(r->topology.local_world_size, 4);
    EXPECT_EQ(r->sharder.optimizer, planner::OptimizerKind::kRowwiseAdagrad);
  }
  if (stem == "enforce_hbm_stochastic_rounding_bounds_check") {
    const int k0 = r->table_index("k0");
    ASSERT_GE(k0, 0);
    ASSERT_TRUE(r->constraints[k0].has_value());
    ASSERT_TRUE(r->constraints[k0]->cache_params.has_value());
    EXPECT_EQ(r->constraints[k0]->cache_params->reserved_memory, 1.5);
    EXPECT_EQ(r->constraints[k0]->enforce_hbm, true);
  }
}

// Checks every scenario of `dir`; returns how many it found.
std::size_t check_golden_scenarios(const fs::path& dir) {
  const std::vector<fs::path> files = scenario_files(dir);
  if (files.empty())
    std::cerr << "note: no golden scenarios under " << dir << "; nothing to check there\n";
  for (const fs::path& file : files) check_golden_scenario(file);
  return files.size();
}

TEST(GoldenScenarios, EveryScenarioInputLoads) {
  const fs::path shared_dir = fs::path(SHARDLAB_SOURCE_DIR) / ".." / "shared" / "golden";
  const fs::path bundled_dir = fs::path(SHARDLAB_SOURCE_DIR) / "tests" / "golden" / "data";
  const std::size_t shared = check_golden_scenarios(shared_dir);
  const std::size_t bundled = check_golden_scenarios(bundled_dir);
  if (fs::is_directory(shared_dir)) {
    EXPECT_GT(shared, 0u);
  }
  if (fs::is_directory(bundled_dir)) {
    EXPECT_GT(bundled, 0u);
  }
  // Without the shared folder the bundled copies must carry the check.
  EXPECT_GT(shared + bundled, 0u);
}

}  // namespace
}  // namespace shardlab::data
