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

// measured_timeline: the median step (of those both ranks have) laid out from
// the simulation's last iteration's start (10 ms here), by rank then lane.
// Steps 1..3 last 3, 5 and 4 ms on rank 0: step 3 (4 ms) is shown. Unaligned,
// each rank's own step start goes to 10; aligned, rank 1's clock is 0.5 ms
// ahead of rank 0's, so its spans keep that offset.
TEST(Against, MeasuredTimelineShowsTheMedianStepFromTheLastIteration) {
  const auto with_spans = [](int64_t n, double start, double len) {
    StepSummary s = step(len, len, 0, 0);
    s.step = n;
    s.start_ms = start;
    s.spans = {{Phase::kFwdCompute, Stream::kCompute, 1, 2, 3},
               {std::nullopt, Stream::kCompute, 2.5, 3, 1},
               {Phase::kOutputDist, Stream::kComm, 1.5, 2.5, 1}};
    return s;
  };
  TraceSummary t;
  t.ranks.push_back(RankTrace{.file = "r0", .rank = 0, .world_size = 2});
  t.ranks.push_back(RankTrace{.file = "r1", .rank = 1, .world_size = 2});
  t.ranks[0].steps = {with_spans(1, 100, 3), with_spans(2, 103, 5), with_spans(3, 108, 4)};
  t.ranks[1].steps = {with_spans(2, 203.5, 5), with_spans(3, 208.5, 4), with_spans(4, 212, 9)};
  Result<MeasuredTimeline> m = measured_timeline(t, simulation());
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  // Common steps 2 and 3 (5 and 4 ms): the nearest-rank median of two is the lower.
  EXPECT_EQ(m->step, 3);
  EXPECT_DOUBLE_EQ(m->step_ms, 4.0);
  EXPECT_EQ(m->steps, 2);
  EXPECT_FALSE(m->aligned);
  EXPECT_DOUBLE_EQ(m->origin_ms, 9.0);  // the host step of iteration 2 starts at 9
  ASSERT_EQ(m->lanes.size(), 4u);
  EXPECT_EQ(m->lanes[0].rank, 0);
  EXPECT_EQ(m->lanes[0].stream, Stream::kCompute);
  ASSERT_EQ(m->lanes[0].spans.size(), 2u);
  EXPECT_DOUBLE_EQ(m->lanes[0].spans[0].start_ms, 10.0);
  EXPECT_DOUBLE_EQ(m->lanes[0].spans[1].end_ms, 12.0);
  EXPECT_FALSE(m->lanes[0].spans[1].phase.has_value());
  EXPECT_EQ(m->lanes[1].stream, Stream::kComm);
  EXPECT_DOUBLE_EQ(m->lanes[1].spans[0].start_ms, 10.5);
  EXPECT_EQ(m->lanes[2].rank, 1);
  EXPECT_DOUBLE_EQ(m->lanes[2].spans[0].start_ms, 10.0);  // its own step start at 9

  t.alignment.aligned = true;
  t.ranks[0].clock_offset_ms = 0.0;
  t.ranks[1].clock_offset_ms = 100.0;  // rank 1's step 3 starts at 108.5 on rank 0's clock
  m = measured_timeline(t, simulation());
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_TRUE(m->aligned);
  EXPECT_DOUBLE_EQ(m->lanes[0].spans[0].start_ms, 10.0);
  EXPECT_DOUBLE_EQ(m->lanes[2].spans[0].start_ms, 10.5);
}

TEST(Against, MeasuredTimelineErrorsSayWhatIsMissing) {
  TraceSummary t;
  t.ranks.push_back(RankTrace{.file = "rank-5.json", .rank = 5, .world_size = 8});
  Result<MeasuredTimeline> m = measured_timeline(t, simulation());
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.status().message(), "trace rank 5 (rank-5.json): the simulation has 2 ranks");
  t.ranks[0].rank = 1;
  t.ranks[0].steps = {step(1, 1, 1, 0)};  // no spans kept
  m = measured_timeline(t, simulation());
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("without its spans"), std::string::npos);
  t.ranks.push_back(RankTrace{.file = "rank-0.json", .rank = 0, .world_size = 8});
  t.ranks[1].steps = {step(1, 1, 1, 0)};
  t.ranks[1].steps[0].step = 9;  // no step number both have
  m = measured_timeline(t, simulation());
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("no step number"), std::string::npos);
  m = measured_timeline(TraceSummary{}, simulation());
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().message(), "no traced ranks");
  t.ranks.pop_back();
  sim::SimResult bare = simulation();
  bare.ranks[1].phases.clear();
  m = measured_timeline(t, bare);
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("kept no phase records"), std::string::npos);
}

}  // namespace
}  // namespace shardlab::trace
