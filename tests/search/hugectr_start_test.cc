// The search moves TorchRec's layouts: a plan with a table of HugeCTR's
// layout (planner/hugectr_layout.h) is refused as its start.
#include <gtest/gtest.h>

#include <string>

#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/search/problem.h"

namespace shardlab::search {
namespace {

TEST(HugectrStart, ProblemRefusesAHugectrPlan) {
  auto s = data::parse_scenario(R"({"name": "h", "topology": {"world_size": 4},
      "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["f0"]}]})",
                                "h.json");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  planner::PlannerResult r = planner::rate_placement(*s, [&](planner::SearchSpace& space) {
    return data::parse_plan(R"({"tables": {"t0": {"sharding_type": "row_wise",
        "compute_kernel": "fused", "layout": "hugectr", "ranks": [2, 3]}}})",
                            "p.json", *s, space);
  });
  ASSERT_TRUE(r.ok()) << r.error.message();
  r.reserved = planner::plan(*s).reserved;  // the search needs a reservation
  Result<Problem> p = Problem::create(*s, r);
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("table t0 is split by rows as HugeCTR splits it"),
            std::string::npos);
}

}  // namespace
}  // namespace shardlab::search
