// compare_phases: measured phase times per rank next to TorchRec's estimates
// and the simulator's last iteration.

#include "shardlab/kernels/phase_report.h"

#include <gtest/gtest.h>

namespace shardlab::kernels {
namespace {

Measurement lookup(int rank, sim::Phase phase, double median, double p90) {
  Measurement m;
  m.rank = rank;
  m.phase = phase;
  m.timing = TimingSummary{.median_ms = median, .p90_ms = p90, .min_ms = median / 2, .samples = 5};
  return m;
}

TEST(PhaseReportTest, SumsRecordsWhenTheBackendGaveNoPhaseTimings) {
  ReplayResult r;
  r.measurements = {lookup(0, sim::Phase::kFwdCompute, 1.0, 2.0),
                    lookup(0, sim::Phase::kFwdCompute, 0.5, 0.75),
                    lookup(1, sim::Phase::kBwdCompute, 3.0, 4.0)};
  std::vector<sim::RankWork> estimates(2);
  estimates[0].fwd_ms = 0.25;
  estimates[1].bwd_ms = 0.5;
  estimates[1].dp_allreduce_estimate_ms = 0.125;  // estimated, not measured: still a row
  sim::SimResult simulated;
  simulated.iterations = 2;
  simulated.ranks.resize(2);
  simulated.ranks[0].rank = 0;
  simulated.ranks[0].phases = {
      {.phase = sim::Phase::kFwdCompute, .iteration = 0, .start_ms = 0, .end_ms = 9},
      {.phase = sim::Phase::kFwdCompute, .iteration = 1, .start_ms = 10, .end_ms = 10.5}};
  simulated.ranks[1].rank = 1;

  const auto rows = compare_phases(r, estimates, &simulated);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].phase, sim::Phase::kFwdCompute);
  EXPECT_DOUBLE_EQ(rows[0].measured.median_ms, 1.5);
  EXPECT_DOUBLE_EQ(rows[0].measured.p90_ms, 2.75);
  EXPECT_EQ(rows[0].measured.samples, 5);
  EXPECT_EQ(rows[0].estimate_ms, 0.25);
  EXPECT_EQ(rows[0].simulated_ms, 0.5);  // last iteration only
  EXPECT_EQ(rows[1].rank, 1);
  EXPECT_EQ(rows[1].phase, sim::Phase::kBwdCompute);
  EXPECT_EQ(rows[1].estimate_ms, 0.5);
  EXPECT_FALSE(rows[1].simulated_ms.has_value());
  EXPECT_EQ(rows[2].phase, sim::Phase::kDpAllreduce);
  EXPECT_EQ(rows[2].measured.samples, 0);
  EXPECT_EQ(rows[2].estimate_ms, 0.125);
}

TEST(PhaseReportTest, PrefersTheBackendsPerIterationPhaseTimings) {
  ReplayResult r;
  r.measurements = {lookup(0, sim::Phase::kFwdCompute, 1.0, 2.0)};
  r.phase_timings = {
      {.rank = 0,
       .phase = sim::Phase::kFwdCompute,
       .timing = TimingSummary{.median_ms = 0.9, .p90_ms = 1.5, .min_ms = 0.8, .samples = 5}}};
  const auto rows = compare_phases(r, {}, nullptr);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].measured.median_ms, 0.9);
  EXPECT_FALSE(rows[0].estimate_ms.has_value());
  EXPECT_FALSE(rows[0].simulated_ms.has_value());
}

}  // namespace
}  // namespace shardlab::kernels
