// Lookups measured in a trace of a job whose scenario and plan are known
// (trace_lookups.h): each rank's forward and backward embedding time, shared
// among the shards the plan gives it in proportion to TorchRec's estimates.
#include "shardlab/trace/trace_lookups.h"

#include <gtest/gtest.h>

#include <string>

#include "shardlab/data/scenario_loader.h"
#include "tbe_step_events.h"
#include "trace_files.h"

namespace shardlab::trace {
namespace {

using TraceLookupsTest = testing::TraceFilesTest;

// Rank 0 of 2, two steps. Each step's forward launches one TBE kernel (300
// µs in step 1, 500 in step 2) and its backward one (600, 1000).
const std::string kTrace = R"({"distributedInfo": {"rank": 0, "world_size": 2},
  "traceEvents": [)" + testing::tbe_step_events(1, 0, 300, 600) +
                           ",\n    " + testing::tbe_step_events(2, 5000, 500, 1000) + "]}";

// Two ranks; tables t0 (dim 128) and t1 (dim 64) placed table-wise.
constexpr const char* kScenario = R"({"topology": {"world_size": 2, "local_world_size": 2},
  "tables": [{"name": "t0", "num_embeddings": 100000, "embedding_dim": 128, "feature_names": ["f0"]},
             {"name": "t1", "num_embeddings": 100000, "embedding_dim": 64, "feature_names": ["f1"]},
             {"name": "t2", "num_embeddings": 100000, "embedding_dim": 64, "feature_names": ["f2"]}],
  "constraints": {"t0": {"sharding_types": ["table_wise"], "compute_kernels": ["fused"]},
                  "t1": {"sharding_types": ["table_wise"], "compute_kernels": ["fused"]},
                  "t2": {"sharding_types": ["table_wise"], "compute_kernels": ["fused"]}}})";

TEST_F(TraceLookupsTest, ARanksTimeIsSharedByItsShardsEstimates) {
  Result<planner::Scenario> s = data::parse_scenario(kScenario, "job.json");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const planner::PlannerResult planned = planner::plan(*s);
  ASSERT_TRUE(planned.ok()) << planned.error.message();
  Result<TraceSummary> summary = summarize_traces({write("rank-0.json", kTrace)});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  Result<TraceLookups> got = trace_lookups(*summary, *s, planned);
  ASSERT_TRUE(got.is_ok()) << got.status().message();

  // Rank 0's shards, and TorchRec's estimates of them.
  double fwd_estimate = 0.0;
  int shards = 0;
  for (const kernels::Measurement& m : got->measurements) {
    EXPECT_EQ(m.rank, 0);
    if (m.phase != sim::Phase::kFwdCompute) continue;
    fwd_estimate += m.estimated_ms;
    ++shards;
  }
  ASSERT_GT(shards, 0);
  EXPECT_EQ(got->measurements.size(), 2u * static_cast<size_t>(shards));
  // Each shard's median is its share of the rank's median step (forward: the
  // nearest-rank median of 0.3 and 0.5 ms is 0.3), and the shares add up to
  // the rank's time.
  double fwd_sum = 0.0;
  double bwd_sum = 0.0;
  for (const kernels::Measurement& m : got->measurements) {
    (m.phase == sim::Phase::kFwdCompute ? fwd_sum : bwd_sum) += m.timing.median_ms;
    EXPECT_EQ(m.timing.samples, 2);
    EXPECT_GT(m.model_bytes, 0.0);
    if (m.phase == sim::Phase::kFwdCompute) {
      EXPECT_NEAR(m.timing.median_ms, 0.3 * m.estimated_ms / fwd_estimate, 1e-12);
    }
  }
  EXPECT_NEAR(fwd_sum, 0.3, 1e-12);
  EXPECT_NEAR(bwd_sum, 0.6, 1e-12);

  // A rank the scenario does not have is left out with a note; with nothing
  // left, kInvalidArgument.
  std::string far = kTrace;
  far.replace(far.find("\"rank\": 0"), 9, "\"rank\": 5");
  Result<TraceSummary> other = summarize_traces({write("rank-5.json", far)});
  ASSERT_TRUE(other.is_ok());
  Result<TraceLookups> none = trace_lookups(*other, *s, planned);
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("rank 5"), std::string::npos) << none.status().message();
  planner::PlannerResult failed;
  failed.error = Status::invalid_argument("no plan");
  EXPECT_EQ(trace_lookups(*summary, *s, failed).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shardlab::trace
