// Helpers shared by the replay backend tests (tests/kernels/ and, through an
// include directory, tests/kernels_cuda/): the tiny_2gpu workload and the
// checks every timing summary must pass.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/kernels/measurement.h"
#include "shardlab/kernels/workload.h"
#include "shardlab/planner/planner.h"

namespace shardlab::kernels::testing {

// tiny_2gpu.json planned, as a workload of at most `max_rows` rows per shard
// (an empty workload, with a failed expectation, when any step fails).
inline ReplayWorkload tiny_workload(int64_t max_rows) {
  auto scenario =
      data::load_scenario_file(std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/tiny_2gpu.json");
  EXPECT_TRUE(scenario) << scenario.status().message();
  if (!scenario) return {};
  const planner::PlannerResult planned = planner::plan(*scenario);
  EXPECT_TRUE(planned.ok());
  if (!planned.ok()) return {};
  auto w = build_workload(*scenario, *planned.search_space, *planned.best,
                          WorkloadOptions{.max_rows = max_rows});
  EXPECT_TRUE(w) << w.status().message();
  return w ? std::move(w).value() : ReplayWorkload{};
}

// `samples` timings, all positive, ordered min <= median <= p90.
inline void expect_sane(const TimingSummary& t, int samples) {
  EXPECT_EQ(t.samples, samples);
  EXPECT_GT(t.min_ms, 0.0);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.p90_ms);
}

}  // namespace shardlab::kernels::testing
