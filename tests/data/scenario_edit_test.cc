// scenario_writer.h and scenario_edit.h: a written scenario loads back to the
// same scenario, and a field edit is accepted exactly when the loader accepts
// the value, with the loader's message otherwise.

#include "shardlab/data/scenario_edit.h"

#include <gtest/gtest.h>

#include <string>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::data {
namespace {

std::string scenario_path(const char* file) {
  return std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/" + file;
}

planner::Scenario load(const char* file) {
  auto s = load_scenario_file(scenario_path(file));
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return std::move(s).value();
}

TEST(ScenarioWriterTest, WrittenScenariosLoadBackUnchanged) {
  for (const char* file :
       {"tiny_2gpu.json", "dlrm_criteo_kaggle.json", "two_host_criteo_kaggle.json",
        "dlrm_dcnv2_criteo_1tb.json", "large_synthetic_8x8.json"}) {
    const planner::Scenario s = load(file);
    const std::string written = scenario_to_json(s);
    auto again = parse_scenario(written, "written");
    ASSERT_TRUE(again.is_ok()) << file << ": " << again.status().message();
    EXPECT_EQ(scenario_to_json(*again), written) << file;
    EXPECT_EQ(again->name, s.name);
    EXPECT_EQ(again->topology.hbm_cap, s.topology.hbm_cap);
    EXPECT_EQ(again->topology.local_world_size, s.topology.local_world_size);
    EXPECT_EQ(again->topology.hbm_mem_bw, s.topology.hbm_mem_bw);
    EXPECT_EQ(again->sharder.optimizer_name, s.sharder.optimizer_name);
    EXPECT_EQ(again->sharder.has_fused_params, s.sharder.has_fused_params);
    ASSERT_EQ(again->planner.proposers.size(), s.planner.proposers.size());
    for (size_t i = 0; i < s.planner.proposers.size(); ++i) {
      EXPECT_EQ(again->planner.proposers[i].kind, s.planner.proposers[i].kind);
      EXPECT_EQ(again->planner.proposers[i].use_depth, s.planner.proposers[i].use_depth);
    }
    ASSERT_EQ(again->constraints.size(), s.constraints.size());
    for (size_t i = 0; i < s.constraints.size(); ++i) {
      EXPECT_EQ(again->constraints[i].has_value(), s.constraints[i].has_value());
      if (!s.constraints[i]) continue;
      EXPECT_EQ(again->constraints[i]->pooling_factors, s.constraints[i]->pooling_factors);
      EXPECT_EQ(again->constraints[i]->sharding_types, s.constraints[i]->sharding_types);
    }
    EXPECT_EQ(again->fabric.hosts.size(), s.fabric.hosts.size());
    EXPECT_EQ(again->workload.dense_fwd_ms, s.workload.dense_fwd_ms);
  }
}

TEST(ScenarioEditTest, AcceptsWhatTheLoaderAccepts) {
  const planner::Scenario s = load("tiny_2gpu.json");
  auto dim = edit_scenario(s, {"tables", 2, "embedding_dim"}, "48", "tiny");
  ASSERT_TRUE(dim.is_ok()) << dim.status().message();
  EXPECT_EQ(dim->tables[2].embedding_dim, 48);
  EXPECT_EQ(dim->tables[0].embedding_dim, s.tables[0].embedding_dim);
  // Unit strings, as in a file.
  auto hbm = edit_scenario(s, {"topology", "hbm_cap"}, "\"8 GiB\"", "tiny");
  ASSERT_TRUE(hbm.is_ok());
  EXPECT_EQ(hbm->topology.hbm_cap, int64_t{8} << 30);
  // A constraint for a table that had none creates its entry.
  ASSERT_FALSE(s.constraints[0].has_value());
  auto types =
      edit_scenario(s, {"constraints", "user_id", "sharding_types"}, "[\"row_wise\"]", "tiny");
  ASSERT_TRUE(types.is_ok()) << types.status().message();
  ASSERT_TRUE(types->constraints[0].has_value());
  EXPECT_EQ(types->constraints[0]->sharding_types,
            (std::vector<planner::ShardingType>{planner::ShardingType::kRowWise}));
  // null removes a field.
  auto removed =
      edit_scenario(*types, {"constraints", "user_id", "sharding_types"}, "null", "tiny");
  ASSERT_TRUE(removed.is_ok());
  EXPECT_FALSE(removed->constraints[0]->sharding_types.has_value());
}

TEST(ScenarioEditTest, APresetSetByAnEditFillsWhatTheFileLeftOut) {
  // tiny_2gpu sets hbm_cap and no bandwidth; an unrelated edit first must not
  // turn the defaults the writer spells out into explicit fields.
  const planner::Scenario s = load("tiny_2gpu.json");
  auto batch = edit_scenario(s, {"batch_size"}, "256", "tiny");
  ASSERT_TRUE(batch.is_ok()) << batch.status().message();
  EXPECT_EQ(batch->topology.hbm_mem_bw, s.topology.hbm_mem_bw);
  auto h100 = edit_scenario(*batch, {"topology", "gpu"}, "\"h100-sxm\"", "tiny");
  ASSERT_TRUE(h100.is_ok()) << h100.status().message();
  EXPECT_DOUBLE_EQ(h100->topology.hbm_mem_bw, 3.35e9);  // 3,350 GB/s in bytes per ms
  EXPECT_NE(h100->topology.intra_host_bw, s.topology.intra_host_bw);
  EXPECT_EQ(h100->topology.hbm_cap, int64_t{16} << 30);  // explicit in the file: kept
  // Removing the preset brings TorchRec's defaults back.
  auto none = edit_scenario(*h100, {"topology", "gpu"}, "null", "tiny");
  ASSERT_TRUE(none.is_ok()) << none.status().message();
  EXPECT_EQ(none->topology.hbm_mem_bw, s.topology.hbm_mem_bw);
  EXPECT_EQ(none->topology.intra_host_bw, s.topology.intra_host_bw);
  EXPECT_EQ(none->topology.bwd_compute_multiplier, s.topology.bwd_compute_multiplier);
  // A field set by an edit is explicit from then on: a preset does not replace it.
  auto set = edit_scenario(s, {"topology", "hbm_mem_bw"}, "1e9", "tiny");
  ASSERT_TRUE(set.is_ok());
  auto kept = edit_scenario(*set, {"topology", "gpu"}, "\"h100-sxm\"", "tiny");
  ASSERT_TRUE(kept.is_ok());
  EXPECT_DOUBLE_EQ(kept->topology.hbm_mem_bw, 1e9);
}

TEST(ScenarioEditTest, RefusesWithTheLoadersMessage) {
  const planner::Scenario s = load("tiny_2gpu.json");
  auto zero = edit_scenario(s, {"tables", 2, "embedding_dim"}, "0", "tiny.json");
  ASSERT_FALSE(zero.is_ok());
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(),
            "tiny.json: tables[2].embedding_dim: must be an integer in [1, 1073741824]: got 0");
  auto negative =
      edit_scenario(s, {"constraints", "user_history", "pooling_factors"}, "[-1]", "tiny.json");
  ASSERT_FALSE(negative.is_ok());
  EXPECT_NE(negative.status().message().find("constraints.user_history.pooling_factors[0]"),
            std::string::npos)
      << negative.status().message();
  // Lists of different lengths: a rule across fields.
  auto lengths =
      edit_scenario(s, {"constraints", "item_id", "num_poolings"}, "[1, 2, 3]", "tiny.json");
  ASSERT_FALSE(lengths.is_ok());
  EXPECT_NE(lengths.status().message().find("differ in length"), std::string::npos);
  // Not a value, and not a place in the document.
  auto garbage = edit_scenario(s, {"batch_size"}, "12 34", "tiny.json");
  ASSERT_FALSE(garbage.is_ok());
  EXPECT_NE(garbage.status().message().find("tiny.json: batch_size: the value is not JSON"),
            std::string::npos);
  auto no_table = edit_scenario(s, {"tables", 9, "embedding_dim"}, "8", "tiny.json");
  ASSERT_FALSE(no_table.is_ok());
  EXPECT_NE(no_table.status().message().find("no element 9"), std::string::npos);
  EXPECT_EQ(to_string(FieldPath{"constraints", "a.b", "min_partition"}),
            "constraints[\"a.b\"].min_partition");
}

// The file as written with the edits set and nothing else: keys keep their
// order, absent fields stay absent, null removes, a path that does not fit
// the document is refused naming it.
TEST(ScenarioEditTest, EditsAppliedToTheFileAsWritten) {
  const std::string original =
      R"({"name": "x", "topology": {"world_size": 2, "local_world_size": 2},
          "tables": [{"name": "a", "num_embeddings": 10, "embedding_dim": 8,
                      "feature_names": ["f"]}]})";
  Result<std::string> text =
      apply_edits_to_text(original,
                          {{{"topology", "hbm_cap"}, R"("8 GiB")"},
                           {{"tables", 0, "embedding_dim"}, "16"},
                           {{"constraints", "a", "sharding_types"}, R"(["row_wise"])"},
                           {{"topology", "local_world_size"}, "null"}},
                          "s.json");
  ASSERT_TRUE(text.is_ok()) << text.status().message();
  EXPECT_EQ(*text, R"({
  "name": "x",
  "topology": {
    "world_size": 2,
    "hbm_cap": "8 GiB"
  },
  "tables": [
    {
      "name": "a",
      "num_embeddings": 10,
      "embedding_dim": 16,
      "feature_names": [
        "f"
      ]
    }
  ],
  "constraints": {
    "a": {
      "sharding_types": [
        "row_wise"
      ]
    }
  }
}
)");
  Result<std::string> bad = apply_edits_to_text(original, {{{"tables", 3, "name"}, "1"}}, "s.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("tables[3].name"), std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(apply_edits_to_text("[1]", {}, "s.json").is_ok());
}

}  // namespace
}  // namespace shardlab::data
