// check_scenario_file (scenario_loader.h): what `shardlab validate` reports,
// every member's problem at once, each as the loader reports it alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shardlab/data/scenario_loader.h"

namespace shardlab::data {
namespace {

namespace fs = std::filesystem;

std::string write_scenario(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("shardlab_scenario_check_" + name);
  std::ofstream(p) << text;
  return p.string();
}

std::vector<std::string> messages(const ScenarioCheck& c) {
  std::vector<std::string> out;
  for (const Status& s : c.problems) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    out.push_back(s.message());
  }
  return out;
}

TEST(ScenarioCheck, NamesEveryMembersProblem) {
  const std::string path = write_scenario("many.json", R"({
    "name": "x", "batch_sise": 512,
    "topology": {"world_size": 0, "local_world_size": -1},
    "tables": [{"name": "a", "num_embeddings": -5, "embedding_dim": 0},
               {"name": "b", "num_embeddings": 100, "embedding_dim": 64,
                "feature_names": ["g"], "pooling": "avg"}]})");
  const ScenarioCheck c = check_scenario_file(path);
  EXPECT_FALSE(c.scenario.has_value());
  const std::vector<std::string> want = {
      path +
          ": <root>: unknown key: got \"batch_sise\", expected one of name, topology, "
          "batch_size, module, tables, constraints, sharder, planner, workload",
      path +
          ": tables[1]: unknown key: got \"pooling\", expected one of name, num_embeddings, "
          "embedding_dim, feature_names, data_type, is_weighted, use_virtual_table, "
          "total_num_buckets",
      path + ": topology.world_size: must be an integer in [1, 65536]: got 0",
      path + ": topology.local_world_size: must be an integer in [1, 65536]: got -1",
      path + ": tables[0].num_embeddings: must be an integer in [1, 9007199254740992]: got -5",
      path + ": tables[0].embedding_dim: must be an integer in [1, 1073741824]: got 0",
      path +
          ": tables[0].feature_names: missing required key, expected a non-empty list of "
          "feature names"};
  EXPECT_EQ(messages(c), want);
  // Each is what the loader says when it is the only problem: the first here.
  EXPECT_EQ(load_scenario_file(path).status().message(), want.front());
  fs::remove(path);
}

TEST(ScenarioCheck, AScenarioThatLoadsHasNoProblems) {
  const std::string path = write_scenario("ok.json", R"({
    "name": "fine", "topology": {"world_size": 2, "local_world_size": 2},
    "tables": [{"name": "a", "num_embeddings": 100, "embedding_dim": 64,
                "feature_names": ["f"]}]})");
  const ScenarioCheck c = check_scenario_file(path);
  ASSERT_TRUE(c.scenario.has_value());
  EXPECT_EQ(c.scenario->name, "fine");
  EXPECT_TRUE(c.problems.empty());
  fs::remove(path);
}

// A check across members (a constraint naming a table that does not exist)
// reports when every member converted, as the loader alone does; a file that
// cannot be read or parsed is one problem.
TEST(ScenarioCheck, ChecksAcrossMembersAndUnreadableFiles) {
  const std::string path = write_scenario("cross.json", R"({
    "name": "x", "topology": {"world_size": 2, "local_world_size": 2},
    "tables": [{"name": "a", "num_embeddings": 100, "embedding_dim": 64,
                "feature_names": ["f"]}],
    "constraints": {"nope": {"sharding_types": ["table_wise"]}}})");
  const ScenarioCheck c = check_scenario_file(path);
  EXPECT_FALSE(c.scenario.has_value());
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0].message(), load_scenario_file(path).status().message());
  fs::remove(path);

  const std::string broken = write_scenario("broken.json", R"({"name": )");
  const ScenarioCheck b = check_scenario_file(broken);
  ASSERT_EQ(b.problems.size(), 1u);
  EXPECT_EQ(b.problems[0].message(), load_scenario_file(broken).status().message());
  fs::remove(broken);
  const ScenarioCheck missing = check_scenario_file(broken);
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_EQ(missing.problems[0].code(), load_scenario_file(broken).status().code());
}

}  // namespace
}  // namespace shardlab::data
