// Scenario fields the loader refuses by what they name: an optimizer name
// that cannot be one (TorchRec sizes any optimizer class, so other names are
// accepted), and a host larger than the world.

#include <string>

#include "loader_test_helpers.h"

namespace shardlab::data {
namespace {

using testing::load_ok;

std::string with(const std::string& topology, const std::string& optimizer) {
  return R"({"topology": )" + topology + R"(, "sharder": {"optimizer": )" + optimizer +
         R"(}, "tables": [{"name": "t", "num_embeddings": 10, "embedding_dim": 8,
                          "feature_names": ["f"]}]})";
}

TEST(LoaderNames, OptimizerNames) {
  const std::string ws2 = R"({"world_size": 2})";
  EXPECT_EQ(load_ok(with(ws2, R"("adam")")).sharder.optimizer, planner::OptimizerKind::kAdam);
  EXPECT_EQ(load_ok(with(ws2, R"("rowwise_adagrad")")).sharder.optimizer,
            planner::OptimizerKind::kRowwiseAdagrad);
  // Another optimizer class counts one copy of the table, as in TorchRec.
  for (const char* other : {R"("adamw")", R"("lamb")", R"("torch.optim.AdamW")", R"("LARS_v2")"}) {
    const planner::Scenario s = load_ok(with(ws2, other));
    EXPECT_EQ(s.sharder.optimizer, planner::OptimizerKind::kOther) << other;
  }
  EXPECT_ERROR(with(ws2, R"("5 parsecs")"),
               "s.json: sharder.optimizer: not an optimizer name: got \"5 parsecs\", expected "
               "none, sgd, adam, "
               "rowwise_adagrad, adagrad, or another optimizer's name (a letter, then letters, "
               "digits, '_' or '.', "
               "e.g. adamw), whose state counts as one copy of the table");
  for (const char* bad : {R"("")", R"("adam ")", R"("_x")", R"("x\u001b")", R"("🙂")", "3"}) {
    EXPECT_ERROR_CONTAINS(with(ws2, bad), "s.json: sharder.optimizer: ");
  }
  EXPECT_ERROR_CONTAINS(with(ws2, "\"" + std::string(300, 'a') + "\""), "not an optimizer name");
}

TEST(LoaderNames, LocalWorldSizeAtMostWorldSize) {
  EXPECT_EQ(load_ok(with(R"({"world_size": 8, "local_world_size": 8})", R"("sgd")"))
                .topology.local_world_size,
            8);
  EXPECT_EQ(load_ok(with(R"({"world_size": 8, "local_world_size": 3})", R"("sgd")"))
                .topology.local_world_size,
            3);
  EXPECT_ERROR(with(R"({"world_size": 8, "local_world_size": 16})", R"("sgd")"),
               "s.json: topology.local_world_size: more ranks per host than the world has: got 16, "
               "expected at "
               "most world_size (8)");
}

}  // namespace
}  // namespace shardlab::data
