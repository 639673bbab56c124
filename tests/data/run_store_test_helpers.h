// Helpers shared by the run store tests: runs with every kind of row, and a
// temporary directory per test for the file-based cases.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "shardlab/data/run_records.h"
#include "shardlab/data/run_store.h"

namespace shardlab::data::testing {

// A run of `kind` whose rows differ by `seed`, with `estimates` estimate rows
// and the row count in its summary ({"rows": estimates, "seed": seed}).
inline NewRun sample_run(RunKind kind, int seed, int estimates = 3) {
  NewRun run;
  run.kind = kind;
  run.scenario_name = "scenario-" + std::to_string(seed % 3);
  run.scenario_json = "{\"name\": \"scenario-" + std::to_string(seed % 3) + "\", \"tables\": []}";
  run.plan_json = "{\"tables\": [" + std::to_string(seed) + "]}";
  run.summary_json = summary_json(
      {{"rows", static_cast<int64_t>(estimates)}, {"seed", static_cast<int64_t>(seed)}});
  run.device = "NVIDIA H100 80GB HBM3";
  run.backend = kind == RunKind::kReplay ? "cuda" : "";
  for (int i = 0; i < estimates; ++i) {
    EstimateRow e;
    // Appended rather than "lit" + string: GCC 12 warns falsely (-Wrestrict) on the latter.
    e.table = "t";
    e.table += std::to_string(i / 2);
    e.fqn = "ebc.";
    e.fqn += e.table;
    e.shard = i % 2;
    e.rank = (i + seed) % 4;
    e.sharding_type =
        i % 2 == 0 ? planner::ShardingType::kRowWise : planner::ShardingType::kTableWise;
    e.compute_kernel =
        i % 3 == 0 ? planner::ComputeKernel::kFusedUvmCaching : planner::ComputeKernel::kFused;
    e.rows = 1000 + i;
    e.cols = 64;
    e.row_offset = 500 * (i % 2);
    e.col_offset = 0;
    e.fwd_compute_ms = 0.1 + i * 1e-3 + seed;
    e.fwd_comms_ms = 0.2 / 3.0;
    e.bwd_compute_ms = 0.3 + 1e-17;
    e.bwd_comms_ms = 1.0 / 7.0;
    e.prefetch_ms = i == 0 ? 0.05 : 0.0;
    e.hbm_bytes = (int64_t{1} << 40) + i;
    e.ddr_bytes = i * 17;
    run.estimates.push_back(e);
  }
  return run;
}

// A run that also carries simulated phases, measurements, a calibration.
inline NewRun full_run(int seed) {
  NewRun run = sample_run(RunKind::kReplay, seed, 4);
  for (int rank = 0; rank < 2; ++rank) {
    run.sim_phases.push_back(SimPhaseRow{.rank = rank,
                                         .phase = sim::Phase::kInputDist,
                                         .stream = sim::Stream::kComm,
                                         .iteration = 3,
                                         .start_ms = 0.25,
                                         .end_ms = 0.5 + rank,
                                         .bytes = 1e9 + 0.5,
                                         .tables = 2});
    run.sim_phases.push_back(SimPhaseRow{.rank = rank,
                                         .phase = sim::Phase::kBwdCompute,
                                         .stream = sim::Stream::kCompute,
                                         .iteration = 3,
                                         .start_ms = 1.0 / 3.0,
                                         .end_ms = 2.0,
                                         .bytes = 0,
                                         .tables = 1});
  }
  kernels::Measurement lookup;
  lookup.rank = 1;
  lookup.phase = sim::Phase::kFwdCompute;
  lookup.option = 7;
  lookup.shard = 1;
  lookup.table = "t3";
  lookup.sharding_type = planner::ShardingType::kColumnWise;
  lookup.compute_kernel = planner::ComputeKernel::kFusedUvm;
  lookup.dim = 128;
  lookup.precision = kernels::Precision::kFp16;
  lookup.bags = 8192;
  lookup.pooling_factor = 31.5;
  lookup.bytes = 123456789.0;
  lookup.model_bytes = 98765432.25;
  lookup.estimated_ms = 0.125;
  lookup.timing =
      kernels::TimingSummary{.median_ms = 0.2, .p90_ms = 0.3, .min_ms = 0.1, .samples = 20};
  lookup.wrong_elements = 3;
  kernels::Measurement coll;
  coll.rank = 0;
  coll.phase = sim::Phase::kOutputDist;
  coll.collective = 2;
  coll.collective_kind = sim::CollectiveKind::kReduceScatter;
  coll.members = 8;
  coll.inter_host = true;
  coll.bytes = 4e6;
  coll.model_bytes = 4e6;
  coll.timing =
      kernels::TimingSummary{.median_ms = 1.5, .p90_ms = 1.75, .min_ms = 1.25, .samples = 10};
  run.measurements = {lookup, coll};
  run.calibration = CalibrationRow{.name = "h100-fit",
                                   .profile_json = "{\"hbm_bw\": 2.5e9}",
                                   .mape_before = 41.5,
                                   .mape_after = 6.25,
                                   .fit_count = 30,
                                   .held_out_count = 8};
  return run;
}

// Expects `out` to hold `in`'s estimates, simulated phases, measurements
// and calibration, every value equal (doubles bit for bit).
inline void expect_same_rows(const NewRun& in, const StoredRun& out) {
  ASSERT_EQ(out.estimates.size(), in.estimates.size());
  for (size_t i = 0; i < in.estimates.size(); ++i) {
    const EstimateRow& a = in.estimates[i];
    const EstimateRow& b = out.estimates[i];
    EXPECT_EQ(a.fqn, b.fqn);
    EXPECT_EQ(a.table, b.table);
    EXPECT_EQ(a.shard, b.shard);
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_EQ(a.sharding_type, b.sharding_type);
    EXPECT_EQ(a.compute_kernel, b.compute_kernel);
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.cols, b.cols);
    EXPECT_EQ(a.row_offset, b.row_offset);
    EXPECT_EQ(a.col_offset, b.col_offset);
    EXPECT_EQ(a.fwd_compute_ms, b.fwd_compute_ms);
    EXPECT_EQ(a.fwd_comms_ms, b.fwd_comms_ms);
    EXPECT_EQ(a.bwd_compute_ms, b.bwd_compute_ms);
    EXPECT_EQ(a.bwd_comms_ms, b.bwd_comms_ms);
    EXPECT_EQ(a.prefetch_ms, b.prefetch_ms);
    EXPECT_EQ(a.hbm_bytes, b.hbm_bytes);
    EXPECT_EQ(a.ddr_bytes, b.ddr_bytes);
  }
  ASSERT_EQ(out.sim_phases.size(), in.sim_phases.size());
  for (size_t i = 0; i < in.sim_phases.size(); ++i) {
    const SimPhaseRow& a = in.sim_phases[i];
    const SimPhaseRow& b = out.sim_phases[i];
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_EQ(a.phase, b.phase);
    EXPECT_EQ(a.stream, b.stream);
    EXPECT_EQ(a.iteration, b.iteration);
    EXPECT_EQ(a.start_ms, b.start_ms);
    EXPECT_EQ(a.end_ms, b.end_ms);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.tables, b.tables);
  }
  ASSERT_EQ(out.measurements.size(), in.measurements.size());
  for (size_t i = 0; i < in.measurements.size(); ++i) {
    const kernels::Measurement& a = in.measurements[i];
    const kernels::Measurement& b = out.measurements[i];
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_EQ(a.phase, b.phase);
    EXPECT_EQ(a.option, b.option);
    EXPECT_EQ(a.shard, b.shard);
    EXPECT_EQ(a.table, b.table);
    EXPECT_EQ(a.sharding_type, b.sharding_type);
    EXPECT_EQ(a.compute_kernel, b.compute_kernel);
    EXPECT_EQ(a.dim, b.dim);
    EXPECT_EQ(a.precision, b.precision);
    EXPECT_EQ(a.bags, b.bags);
    EXPECT_EQ(a.pooling_factor, b.pooling_factor);
    EXPECT_EQ(a.collective, b.collective);
    EXPECT_EQ(a.collective_kind, b.collective_kind);
    EXPECT_EQ(a.members, b.members);
    EXPECT_EQ(a.inter_host, b.inter_host);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.model_bytes, b.model_bytes);
    EXPECT_EQ(a.estimated_ms, b.estimated_ms);
    EXPECT_EQ(a.timing.median_ms, b.timing.median_ms);
    EXPECT_EQ(a.timing.p90_ms, b.timing.p90_ms);
    EXPECT_EQ(a.timing.min_ms, b.timing.min_ms);
    EXPECT_EQ(a.timing.samples, b.timing.samples);
    EXPECT_EQ(a.wrong_elements, b.wrong_elements);
  }
  ASSERT_EQ(out.calibration.has_value(), in.calibration.has_value());
  if (in.calibration) {
    EXPECT_EQ(out.calibration->name, in.calibration->name);
    EXPECT_EQ(out.calibration->profile_json, in.calibration->profile_json);
    EXPECT_EQ(out.calibration->mape_before, in.calibration->mape_before);
    EXPECT_EQ(out.calibration->mape_after, in.calibration->mape_after);
    EXPECT_EQ(out.calibration->fit_count, in.calibration->fit_count);
    EXPECT_EQ(out.calibration->held_out_count, in.calibration->held_out_count);
  }
}

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("shardlab_run_store_" + std::to_string(::getpid()) + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace shardlab::data::testing
