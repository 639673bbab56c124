// compare_with_simulation (against.h): medians of a trace's steps beside a
// hand-made simulation's last iteration, and its errors.
#include "shardlab/trace/against.h"

#include <gtest/gtest.h>

namespace shardlab::trace {
namespace {

using sim::Phase;
using sim::Stream;

StepSummary step(double step_ms, double busy, double input_dist, double other,
                 double host_wait = 0.0) {
  StepSummary s;
  s.step_ms = step_ms;
  s.host_wait_ms = host_wait;
  s.gpu_busy_ms = busy;
  s.phase_ms[static_cast<size_t>(Phase::kInputDist)] = input_dist;
  s.other_ms = other;
  return s;
}

// Two simulated ranks, three iterations; rank 1's last iteration (2) has a
// lookup [10, 12), an output dist [11, 14) on the comm stream (busy: the
// union, 4 ms), an input dist [13, 14) and a host step that is no GPU time.
sim::SimResult simulation() {
  sim::SimResult r;
  r.iterations = 3;
  r.iteration_ms = 5.0;
  r.ranks.resize(2);
  r.ranks[1].rank = 1;
  r.ranks[1].phases = {
      {.phase = Phase::kFwdCompute,
       .stream = Stream::kCompute,
       .iteration = 1,
       .start_ms = 5,
       .end_ms = 7},
      {.phase = Phase::kFwdCompute,
       .stream = Stream::kCompute,
       .iteration = 2,
       .start_ms = 10,
       .end_ms = 12},
      {.phase = Phase::kOutputDist,
       .stream = Stream::kComm,
       .iteration = 2,
       .start_ms = 11,
       .end_ms = 14},
      {.phase = Phase::kInputDist,
       .stream = Stream::kComm,
       .iteration = 2,
       .start_ms = 13,
       .end_ms = 14},
      {.phase = Phase::kHostSync,
       .stream = Stream::kHost,
       .iteration = 2,
       .start_ms = 9,
       .end_ms = 15},
  };
  r.ranks[1].gpu_waits_host_ms = 1.5;
  r.ranks[0].phases = r.ranks[1].phases;
  return r;
}

TEST(Against, MediansOfTheStepsBesideTheLastIteration) {
  TraceSummary t;
  RankTrace r{.file = "rank-1.json", .rank = 1, .world_size = 2};
  r.steps = {step(10, 8, 2, 0.5, 3), step(30, 6, 1, 0.5, 1), step(12, 4, 4, 0.5, 2)};
  t.ranks.push_back(r);
  sim::SimResult simulated = simulation();
  simulated.host.modelled = true;
  Result<std::vector<Against>> a = compare_with_simulation(t, simulated);
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  ASSERT_EQ(a->size(), 1u);
  const Against& x = a->front();
  EXPECT_EQ(x.rank, 1);
  EXPECT_EQ(x.steps, 3);
  const auto row = [&](const std::string& what) {
    for (const AgainstRow& w : x.rows) {
      if (w.what == what) return w;
    }
    ADD_FAILURE() << "no row " << what;
    return AgainstRow{};
  };
  EXPECT_DOUBLE_EQ(row("step").measured_ms, 12.0);  // median of 10, 30, 12
  EXPECT_DOUBLE_EQ(row("step").simulated_ms, 5.0);
  EXPECT_DOUBLE_EQ(row("step").error(), (5.0 - 12.0) / 12.0);
  EXPECT_DOUBLE_EQ(row("gpu_busy").measured_ms, 6.0);
  EXPECT_DOUBLE_EQ(row("gpu_busy").simulated_ms, 4.0);  // [10, 14), the host step left out
  EXPECT_DOUBLE_EQ(row("input_dist").measured_ms, 2.0);
  EXPECT_DOUBLE_EQ(row("input_dist").simulated_ms, 1.0);
  EXPECT_DOUBLE_EQ(row("fwd_compute").measured_ms, 0.0);
  EXPECT_DOUBLE_EQ(row("fwd_compute").simulated_ms, 2.0);  // iteration 2 only
  EXPECT_DOUBLE_EQ(row("fwd_compute").error(), 0.0);       // nothing measured
  EXPECT_FALSE(row("other").simulated_known);
  EXPECT_DOUBLE_EQ(row("other").error(), 0.0);
  // The GPU's waits for the host: median of 3, 1, 2 against the rank's
  // simulated waits for launches.
  EXPECT_DOUBLE_EQ(row("gpu_waits_host").measured_ms, 2.0);
  EXPECT_DOUBLE_EQ(row("gpu_waits_host").simulated_ms, 1.5);
  EXPECT_TRUE(row("gpu_waits_host").simulated_known);
  const std::string text = against_text(*a);
  EXPECT_NE(text.find("against rank-1.json: rank 1, medians of 3 steps"), std::string::npos)
      << text;
  EXPECT_NE(text.find("-58.3%"), std::string::npos) << text;  // the step
}

// Without a host lane the simulation says nothing of the GPU waiting for the
// host: the row is measured only.
TEST(Against, WaitsForTheHostAreUnknownWithoutAHostLane) {
  TraceSummary t;
  RankTrace r{.file = "rank-1.json", .rank = 1, .world_size = 2};
  r.steps = {step(10, 8, 2, 0.5, 3)};
  t.ranks.push_back(r);
  Result<std::vector<Against>> a = compare_with_simulation(t, simulation());
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  for (const AgainstRow& w : a->front().rows) {
    if (w.what != "gpu_waits_host") continue;
    EXPECT_DOUBLE_EQ(w.measured_ms, 3.0);
    EXPECT_FALSE(w.simulated_known);
    EXPECT_DOUBLE_EQ(w.error(), 0.0);
    return;
  }
  ADD_FAILURE() << "no gpu_waits_host row";
}

TEST(Against, ErrorsNameTheRankOrWhatIsMissing) {
  TraceSummary t;
  t.ranks.push_back(RankTrace{.file = "rank-5.json", .rank = 5, .world_size = 8});
  Result<std::vector<Against>> a = compare_with_simulation(t, simulation());
  ASSERT_FALSE(a.is_ok());
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.status().message(), "trace rank 5 (rank-5.json): the simulation has 2 ranks");
  t.ranks[0].rank = 1;
  a = compare_with_simulation(t, simulation());  // the rank has no steps
  ASSERT_FALSE(a.is_ok());
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.status().message(), "trace rank 1 (rank-5.json): no steps to compare");
  t.ranks[0].steps = {step(1, 1, 1, 0)};
  sim::SimResult bare = simulation();
  bare.ranks[1].phases.clear();
  a = compare_with_simulation(t, bare);
  ASSERT_FALSE(a.is_ok());
  EXPECT_NE(a.status().message().find("kept no phase records"), std::string::npos);
}

}  // namespace
}  // namespace shardlab::trace
