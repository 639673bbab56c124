// TorchRec's own planner unit tests (torchrec/distributed/planner/tests/
// test_planners.py at fe1c2824), translated to scenarios: the expectations are
// TorchRec's assertions. TestEmbeddingShardingPlanner plans on
// Topology(world_size=2, hbm_cap=2 MiB, compute_device="cuda") with a sharder
// offering row-wise and table-wise sharding with the fused kernel only
// (TWvsRWSharder), and its model is TestSparseNN: the tables in one
// EmbeddingBagCollection plus a small dense arch (Linear(10, 8)) and an over
// arch of Linear(8 + sum of table dims, 16) and Linear(16, 16).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"

namespace shardlab {
namespace {

// Parameter bytes of TestSparseNN's dense and over arches (fp32) when its
// tables' dims add up to `sum_dims`.
int64_t test_sparse_nn_dense_bytes(int64_t sum_dims) {
  const int64_t dense_arch = 10 * 8 + 8;
  const int64_t over_arch = (8 + sum_dims) * 16 + 16 + 16 * 16 + 16;
  return 4 * (dense_arch + over_arch);
}

// TestEmbeddingShardingPlanner's topology and sharder around `tables`.
std::string planner_test_scenario(const std::string& tables, const std::string& constraints,
                                  int64_t sum_dims) {
  return R"({"name": "torchrec_unit", "topology": {"world_size": 2, "compute_device": "cuda", "hbm_cap": 2097152},
             "module": {"dense_param_bytes": )" +
         std::to_string(test_sparse_nn_dense_bytes(sum_dims)) + R"(},
             "tables": [)" +
         tables + R"(], "constraints": {)" + constraints + "}}";
}

std::string tw_vs_rw(const std::string& table) {
  return "\"" + table +
         R"(": {"sharding_types": ["row_wise", "table_wise"], "compute_kernels": ["fused"]})";
}

// test_never_fit: two 10,000,000 x 10,000,000 tables. TorchRec raises
// INSUFFICIENT_STORAGE before any proposal, "since it has negative
// storage_constraint": the dense reservation alone exceeds the 2 MiB HBM.
TEST(TorchRecUnitTests, NeverFitIsInsufficientStorageWithNoProposals) {
  const std::string text = planner_test_scenario(
      R"({"name": "table_0", "num_embeddings": 10000000, "embedding_dim": 10000000, "feature_names": ["feature_0"]},
         {"name": "table_1", "num_embeddings": 10000000, "embedding_dim": 10000000, "feature_names": ["feature_1"]})",
      tw_vs_rw("table_0") + ", " + tw_vs_rw("table_1"), 2 * 10000000);
  const Result<planner::Scenario> scenario = data::parse_scenario(text, "test_never_fit.json");
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  EXPECT_EQ(scenario->tables[0].embedding_dim, 10000000);

  const planner::PlannerResult result = planner::plan(*scenario);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error.code(), StatusCode::kPlanner) << result.error.message();
  EXPECT_EQ(result.error.planner_error(), PlannerErrorType::kInsufficientStorage)
      << result.error.message();
  EXPECT_EQ(result.num_proposals, 0);
  EXPECT_EQ(result.num_plans, 0);
}

// The same tables with room for the dense part: now they are enumerated, with
// their byte counts exact (10^14 fp32 weights = 4e14 bytes per table-wise
// shard), and every proposal fails to fit.
TEST(TorchRecUnitTests, NeverFitTablesAreEnumeratedExactlyAndNeverFit) {
  std::string text = planner_test_scenario(
      R"({"name": "table_0", "num_embeddings": 10000000, "embedding_dim": 10000000, "feature_names": ["feature_0"]},
         {"name": "table_1", "num_embeddings": 10000000, "embedding_dim": 10000000, "feature_names": ["feature_1"]})",
      tw_vs_rw("table_0") + ", " + tw_vs_rw("table_1"), 2 * 10000000);
  text.replace(text.find("\"hbm_cap\": 2097152"), 18, "\"hbm_cap\": \"64 GiB\"");
  const Result<planner::Scenario> scenario = data::parse_scenario(text, "never_fit_64g.json");
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();

  const planner::PlannerResult options = planner::plan(*scenario, {.enumerate_only = true});
  ASSERT_TRUE(options.search_space.has_value()) << options.error.message();
  bool saw_table_wise = false;
  for (const planner::ShardingOption& o : options.search_space->options) {
    if (o.sharding_type != planner::ShardingType::kTableWise) continue;
    saw_table_wise = true;
    ASSERT_EQ(o.shards.size(), 1u);
    // Weights, then the input ids (512 x 2 ranks x 8 bytes) and the pooled
    // output (512 x 2 ranks x 10^7 columns x 4 bytes) of one batch.
    EXPECT_EQ(o.shards.storage(0).hbm, int64_t{400000000000000} + 8192 + int64_t{40960000000});
    EXPECT_GT(o.total_storage.hbm, 0);
  }
  EXPECT_TRUE(saw_table_wise);

  const planner::PlannerResult result = planner::plan(*scenario);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error.planner_error(), PlannerErrorType::kInsufficientStorage)
      << result.error.message();
  EXPECT_GT(result.num_proposals, 0);
  EXPECT_EQ(result.num_plans, 0);
}

}  // namespace
}  // namespace shardlab
