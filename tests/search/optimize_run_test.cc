// OptimizeRun (optimize_run.h): the run every front end makes, and each error
// its contract names.
#include "shardlab/search/optimize_run.h"

#include <gtest/gtest.h>

#include <string>

#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"

namespace shardlab::search {
namespace {

planner::Scenario scenario(const std::string& hbm = "\"16 GiB\"") {
  std::string tables;
  for (int t = 0; t < 12; ++t) {
    tables += std::string(t ? ", " : "") + R"({"name": "t)" + std::to_string(t) +
              R"(", "num_embeddings": )" + std::to_string(1000 + 977 * t) +
              R"(, "embedding_dim": 64, "feature_names": ["f)" + std::to_string(t) + R"("]})";
  }
  auto s = data::parse_scenario(R"({"name": "r", "topology": {"world_size": 4, "hbm_cap": )" + hbm +
                                    R"(}, "tables": [)" + tables + "]}",
                                "r.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return *s;
}

TEST(OptimizeRun, StartsFromTorchRecAndNeverEndsWorse) {
  const planner::Scenario s = scenario();
  OptimizeRequest request;
  request.objective = ObjectiveKind::kTorchRec;
  request.time_limit_s = 0;
  request.max_evaluations = 30;
  Result<std::unique_ptr<OptimizeRun>> run = OptimizeRun::run(s, request);
  ASSERT_TRUE(run.is_ok()) << run.status().message();
  const OptimizeRun& r = **run;
  ASSERT_TRUE(r.torchrec().ok());
  EXPECT_EQ(r.start().best->ranks, r.torchrec().best->ranks);
  EXPECT_LE(r.result().best_value, r.result().start_value);
  EXPECT_NE(r.result().stop, StopReason::kTimeLimit);  // no limit
  EXPECT_LE(r.result().evaluations, 30);
  ASSERT_TRUE(r.summary().torchrec.has_value());
  ASSERT_TRUE(r.best().best.has_value());
  EXPECT_EQ(r.best().best->ranks, r.result().best.ranks);
}

TEST(OptimizeRun, Errors) {
  OptimizeRequest request;
  request.time_limit_s = 0;
  request.max_evaluations = 5;
  // TorchRec's planner finds no plan (1 KiB of HBM): its failure, with the result.
  {
    const planner::Scenario tiny = scenario("1024");
    planner::PlannerResult failed;
    Result<std::unique_ptr<OptimizeRun>> run = OptimizeRun::run(tiny, request, &failed);
    ASSERT_FALSE(run.is_ok());
    EXPECT_EQ(run.status().code(), StatusCode::kPlanner);
    EXPECT_FALSE(failed.ok());
  }
  const planner::Scenario s = scenario();
  // A start plan that fails (a table missing).
  {
    OptimizeRequest bad = request;
    bad.start_plan = [&](const planner::CostCalibration* c) {
      return planner::rate_placement(
          s,
          [&](planner::SearchSpace& space) {
            return data::parse_plan(
                R"({"tables": {"t0": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [0]}}})",
                "p.json", s, space);
          },
          c);
    };
    Result<std::unique_ptr<OptimizeRun>> run = OptimizeRun::run(s, bad);
    ASSERT_FALSE(run.is_ok());
    EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(run.status().message().find("missing from the plan"), std::string::npos);
  }
  // A start of HugeCTR's layout.
  {
    std::string tables;
    for (int t = 1; t < 12; ++t) {
      tables += R"(, "t)" + std::to_string(t) +
                R"(": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [1]})";
    }
    const std::string text =
        R"({"tables": {"t0": {"sharding_type": "row_wise", "compute_kernel": "fused", "layout": "hugectr", "ranks": [2, 3]})" +
        tables + "}}";
    OptimizeRequest hugectr = request;
    hugectr.start_plan = [&](const planner::CostCalibration* c) {
      return planner::rate_placement(
          s,
          [&](planner::SearchSpace& space) { return data::parse_plan(text, "p.json", s, space); },
          c);
    };
    Result<std::unique_ptr<OptimizeRun>> run = OptimizeRun::run(s, hugectr);
    ASSERT_FALSE(run.is_ok());
    EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(run.status().message().find("HugeCTR"), std::string::npos);
  }
}

}  // namespace
}  // namespace shardlab::search
