// Tests of data/run_records.h and data/run_export.h: the rows built from a
// real plan and a simulation result, the summary writer, the export
// document, and the diff of two runs.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_store_test_helpers.h"
#include "shardlab/data/run_export.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"

namespace shardlab::data {
namespace {

using Json = nlohmann::ordered_json;
using testing::full_run;
using testing::sample_run;

TEST(RunRecords, EstimateRowsFollowThePlanShardByShard) {
  Result<planner::Scenario> scenario = load_scenario_file(
      std::string(SHARDLAB_SOURCE_DIR) + "/data/scenarios/dlrm_criteo_kaggle.json");
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  const planner::PlannerResult result = planner::plan(*scenario);
  ASSERT_TRUE(result.ok());
  const planner::SearchSpace& space = *result.search_space;
  const planner::PartitionedPlan& plan = *result.best;

  const std::vector<EstimateRow> rows = estimate_rows(space, plan);
  ASSERT_EQ(rows.size(), plan.ranks.size());
  size_t k = 0;
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const planner::ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
    for (int s = 0; s < opt.num_shards(); ++s, ++k) {
      const EstimateRow& r = rows[k];
      EXPECT_EQ(r.fqn, opt.fqn);
      EXPECT_EQ(r.table, opt.name);
      EXPECT_EQ(r.shard, s);
      EXPECT_EQ(r.rank, plan.ranks[k]);
      EXPECT_EQ(r.sharding_type, opt.sharding_type);
      EXPECT_EQ(r.compute_kernel, opt.compute_kernel);
      EXPECT_EQ(r.rows, opt.shards[static_cast<size_t>(s)].rows);
      EXPECT_EQ(r.col_offset, opt.shards[static_cast<size_t>(s)].col_offset);
      EXPECT_EQ(r.total_ms(), opt.shard_perf.total());
      EXPECT_EQ(r.hbm_bytes, opt.shards.storage(static_cast<size_t>(s)).hbm);
    }
  }
  // Per rank, the rows add up to the planner's device totals.
  std::map<int, double> per_rank;
  for (const EstimateRow& r : rows) per_rank[r.rank] += r.total_ms();
  ASSERT_EQ(per_rank.size(), result.device_perf_total.size());
  for (const auto& [rank, total] : per_rank) {
    EXPECT_NEAR(total, result.device_perf_total[static_cast<size_t>(rank)], 1e-12 * total) << rank;
  }
}

sim::SimResult two_rank_result() {
  sim::SimResult r;
  r.iterations = 3;
  for (int rank = 0; rank < 2; ++rank) {
    sim::RankResult rr;
    rr.rank = rank;
    for (int it = 0; it < 3; ++it) {
      rr.phases.push_back({.phase = sim::Phase::kFwdCompute,
                           .stream = sim::Stream::kCompute,
                           .iteration = it,
                           .start_ms = it + 0.1,
                           .end_ms = it + 0.4,
                           .bytes = 0,
                           .tables = 2});
      rr.phases.push_back({.phase = sim::Phase::kInputDist,
                           .stream = sim::Stream::kComm,
                           .iteration = it + 1,
                           .start_ms = it + 0.2,
                           .end_ms = it + 0.3,
                           .bytes = 64.0 * (rank + 1),
                           .tables = 2});
    }
    r.ranks.push_back(rr);
  }
  return r;
}

TEST(RunRecords, SimPhaseRowsKeepTheLastIterationByDefault) {
  const sim::SimResult r = two_rank_result();
  const std::vector<SimPhaseRow> all = sim_phase_rows(r, SimPhaseSelection::kAll);
  EXPECT_EQ(all.size(), 12u);
  const std::vector<SimPhaseRow> last = sim_phase_rows(r);
  // Per rank: fwd_compute of iteration 2 and input_dist issued in iteration 1 for batch 2.
  ASSERT_EQ(last.size(), 4u);
  for (const SimPhaseRow& p : last) EXPECT_EQ(p.iteration, 2);
  EXPECT_EQ(last[0].rank, 0);
  EXPECT_EQ(last[0].phase, sim::Phase::kInputDist);
  EXPECT_EQ(last[0].start_ms, 1.2);
  EXPECT_EQ(last[1].phase, sim::Phase::kFwdCompute);
  EXPECT_EQ(last[1].start_ms, 2.1);
  EXPECT_EQ(last[3].rank, 1);
  EXPECT_EQ(last[2].bytes, 128.0);
  EXPECT_EQ(last[2].stream, sim::Stream::kComm);
}

TEST(RunRecords, SummaryJsonKeepsOrderTypesAndExactDoubles) {
  const std::string s = summary_json({{"rating_ms", 0.1 + 0.2},
                                      {"tables", int64_t{26}},
                                      {"overlap", true},
                                      {"model", std::string("say \"hi\"")},
                                      {"bad", std::nan("")}});
  const Json j = Json::parse(s);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"rating_ms", "tables", "overlap", "model", "bad"}));
  EXPECT_EQ(j["rating_ms"].get<double>(), 0.1 + 0.2);
  EXPECT_TRUE(j["tables"].is_number_integer());
  EXPECT_EQ(j["overlap"], true);
  EXPECT_EQ(j["model"], "say \"hi\"");
  EXPECT_TRUE(j["bad"].is_null());
  EXPECT_EQ(s.find('\n'), std::string::npos);
  // Read back: the same fields in order, the null one skipped.
  const std::vector<std::pair<std::string, SummaryValue>> fields = summary_fields(s);
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].first, "rating_ms");
  EXPECT_EQ(std::get<double>(fields[0].second), 0.1 + 0.2);
  EXPECT_EQ(std::get<int64_t>(fields[1].second), 26);
  EXPECT_EQ(std::get<bool>(fields[2].second), true);
  EXPECT_EQ(std::get<std::string>(fields[3].second), "say \"hi\"");
  EXPECT_TRUE(summary_fields("[1, 2]").empty());
  EXPECT_TRUE(summary_fields("not json").empty());
}

StoredRun stored(const NewRun& in, int64_t id) {
  StoredRun s;
  s.summary.id = id;
  s.summary.kind = in.kind;
  s.summary.scenario_name = in.scenario_name;
  s.summary.device = in.device;
  s.summary.backend = in.backend;
  s.summary.summary_json = in.summary_json.empty() ? "{}" : in.summary_json;
  s.scenario_json = in.scenario_json;
  s.plan_json = in.plan_json;
  s.estimates = in.estimates;
  s.sim_phases = in.sim_phases;
  s.measurements = in.measurements;
  s.calibration = in.calibration;
  s.inputs = in.inputs;
  return s;
}

TEST(RunExport, DocumentHoldsEveryRowAndEmbedsTheJsonTexts) {
  NewRun in = full_run(1);
  in.scenario_json = "not { json";
  in.inputs = {3, 4};
  const Json j = Json::parse(run_to_json(stored(in, 9)));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys,
            (std::vector<std::string>{
                "id", "kind", "created_at", "scenario_name", "scenario_hash", "shardlab_version",
                "host", "device", "backend", "torchrec_version", "label", "inputs", "summary",
                "scenario", "plan", "estimates", "sim_phases", "measurements", "calibration"}));
  EXPECT_EQ(j["id"], 9);
  EXPECT_EQ(j["kind"], "replay");
  EXPECT_EQ(j["inputs"], Json::array({3, 4}));
  EXPECT_EQ(j["summary"]["rows"], 4);
  EXPECT_EQ(j["scenario"], "not { json");  // kept as a string
  EXPECT_EQ(j["plan"]["tables"][0], 1);
  ASSERT_EQ(j["estimates"].size(), 4u);
  EXPECT_EQ(j["estimates"][1]["sharding_type"], "table_wise");
  EXPECT_EQ(j["estimates"][0]["compute_kernel"], "fused_uvm_caching");
  EXPECT_EQ(j["estimates"][2]["fwd_compute_ms"].get<double>(), in.estimates[2].fwd_compute_ms);
  EXPECT_EQ(j["estimates"][3]["hbm_bytes"].get<int64_t>(), in.estimates[3].hbm_bytes);
  ASSERT_EQ(j["sim_phases"].size(), 4u);
  EXPECT_EQ(j["sim_phases"][0]["phase"], "input_dist");
  EXPECT_EQ(j["sim_phases"][0]["stream"], "comm");
  ASSERT_EQ(j["measurements"].size(), 2u);
  EXPECT_EQ(j["measurements"][0]["precision"], "fp16");
  EXPECT_EQ(j["measurements"][0]["median_ms"], 0.2);
  EXPECT_EQ(j["measurements"][1]["collective_kind"], "reduce_scatter");
  EXPECT_EQ(j["measurements"][1]["inter_host"], true);
  EXPECT_EQ(j["calibration"]["profile"]["hbm_bw"], 2.5e9);
  EXPECT_EQ(j["calibration"]["mape_after"], 6.25);

  NewRun plain = sample_run(RunKind::kPlan, 2);
  plain.plan_json.clear();
  const Json p = Json::parse(run_to_json(stored(plain, 1)));
  EXPECT_TRUE(p["plan"].is_null());
  EXPECT_TRUE(p["calibration"].is_null());
  EXPECT_TRUE(p["measurements"].empty());
}

TEST(RunExport, SummariesListHasCountsAndEmbeddedSummary) {
  RunSummary s;
  s.id = 4;
  s.kind = RunKind::kSimulate;
  s.summary_json = R"({"iteration_ms": 2.5})";
  s.estimate_count = 10;
  s.sim_phase_count = 7;
  const Json j = Json::parse(run_summaries_to_json({s}));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["kind"], "simulate");
  EXPECT_EQ(j[0]["summary"]["iteration_ms"], 2.5);
  EXPECT_EQ(j[0]["estimates"], 10);
  EXPECT_EQ(j[0]["sim_phases"], 7);
  EXPECT_EQ(j[0]["calibration"], false);
}

TEST(RunDiff, IdenticalRunsHaveOnlyTheirSummaryNumbers) {
  const NewRun in = sample_run(RunKind::kPlan, 1, 6);
  const RunDiff d = diff_runs(stored(in, 1), stored(in, 2));
  // Summary fields are listed even when equal; nothing else is.
  ASSERT_EQ(d.fields.size(), 2u);
  EXPECT_EQ(d.fields[0].name, "rows");
  EXPECT_EQ(d.fields[0].delta, 0.0);
  EXPECT_TRUE(d.placements.empty());
  EXPECT_TRUE(d.rank_perf_ms.empty());
  EXPECT_TRUE(d.rank_hbm_bytes.empty());
  EXPECT_TRUE(d.phase_median_ms.empty());

  NewRun bare = in;
  bare.summary_json = "{}";
  EXPECT_EQ(diff_to_text(diff_runs(stored(bare, 1), stored(bare, 2))),
            "runs 1 and 2: no differences");
}

TEST(RunDiff, FindsChangedPlacementsRankTotalsAndPhaseTimes) {
  NewRun a = sample_run(RunKind::kSimulate, 0, 4);
  a.summary_json = R"({"iteration_ms": 2.0, "comm_model": "flows"})";
  NewRun b = a;
  b.kind = RunKind::kReplay;
  b.summary_json = R"({"iteration_ms": 2.5, "median_ms": 1.0})";
  // Table ebc.t1 (rows 2 and 3) moves its second shard from rank 3 to rank 0.
  ASSERT_EQ(b.estimates[3].fqn, "ebc.t1");
  ASSERT_EQ(b.estimates[3].rank, 3);
  b.estimates[3].rank = 0;
  // a: simulated fwd_compute 1 ms on rank 0, 3 ms on rank 1 (median 2);
  // b: measured fwd_compute of two shards on rank 0 (0.5 + 1.0) and one on rank 1 (4.0).
  a.sim_phases = {{.rank = 0, .phase = sim::Phase::kFwdCompute, .start_ms = 1, .end_ms = 2},
                  {.rank = 1, .phase = sim::Phase::kFwdCompute, .start_ms = 1, .end_ms = 4},
                  {.rank = 0, .phase = sim::Phase::kDenseFwd, .start_ms = 4, .end_ms = 5}};
  auto m = [](int rank, sim::Phase phase, double ms) {
    kernels::Measurement x;
    x.rank = rank;
    x.phase = phase;
    x.timing.median_ms = ms;
    return x;
  };
  b.measurements = {m(0, sim::Phase::kFwdCompute, 0.5), m(0, sim::Phase::kFwdCompute, 1.0),
                    m(1, sim::Phase::kFwdCompute, 4.0), m(0, sim::Phase::kOutputDist, 2.0)};
  const RunDiff d = diff_runs(stored(a, 10), stored(b, 11));

  EXPECT_EQ(d.a_id, 10);
  EXPECT_EQ(d.b_id, 11);
  ASSERT_GE(d.fields.size(), 4u);
  EXPECT_EQ(d.fields[0].name, "kind");
  EXPECT_EQ(d.fields[0].a, "\"simulate\"");
  EXPECT_EQ(d.fields[0].b, "\"replay\"");
  EXPECT_EQ(d.fields[1].name, "iteration_ms");
  ASSERT_TRUE(d.fields[1].delta.has_value());
  EXPECT_DOUBLE_EQ(*d.fields[1].delta, 0.5);
  EXPECT_EQ(d.fields[2].name, "comm_model");
  EXPECT_FALSE(d.fields[2].b.has_value());
  EXPECT_EQ(d.fields[3].name, "median_ms");
  EXPECT_FALSE(d.fields[3].a.has_value());

  ASSERT_EQ(d.placements.size(), 1u);
  EXPECT_EQ(d.placements[0].fqn, "ebc.t1");
  EXPECT_EQ(d.placements[0].a, "row_wise/fused on ranks 2,3");
  EXPECT_EQ(d.placements[0].b, "row_wise/fused on ranks 2,0");

  ASSERT_EQ(d.rank_perf_ms.size(), 2u);
  EXPECT_EQ(d.rank_perf_ms[0].name, "rank 0");
  EXPECT_EQ(d.rank_perf_ms[1].name, "rank 3");
  EXPECT_DOUBLE_EQ(d.rank_perf_ms[0].delta, a.estimates[3].total_ms());
  EXPECT_DOUBLE_EQ(d.rank_perf_ms[1].delta, -a.estimates[3].total_ms());
  ASSERT_EQ(d.rank_hbm_bytes.size(), 2u);

  EXPECT_EQ(d.a_phase_source, "simulated");
  EXPECT_EQ(d.b_phase_source, "measured");
  // Only fwd_compute is in both.
  ASSERT_EQ(d.phase_median_ms.size(), 1u);
  EXPECT_EQ(d.phase_median_ms[0].name, "fwd_compute");
  EXPECT_DOUBLE_EQ(d.phase_median_ms[0].a, 2.0);
  EXPECT_DOUBLE_EQ(d.phase_median_ms[0].b, 2.75);
  EXPECT_DOUBLE_EQ(d.phase_median_ms[0].delta, 0.75);

  const std::string text = diff_to_text(d);
  EXPECT_NE(text.find("runs 10 (a) and 11 (b)"), std::string::npos) << text;
  EXPECT_NE(text.find("placement differs for 1 table:"), std::string::npos) << text;
  EXPECT_NE(text.find("ebc.t1"), std::string::npos) << text;
  EXPECT_NE(text.find("a simulated, b measured"), std::string::npos) << text;
  EXPECT_NE(text.find("+0.75"), std::string::npos) << text;

  const Json j = Json::parse(diff_to_json(d));
  EXPECT_EQ(j["a"], 10);
  EXPECT_EQ(j["fields"][0]["a"], "simulate");
  EXPECT_EQ(j["fields"][1]["a"], 2.0);
  EXPECT_EQ(j["fields"][1]["delta"], 0.5);
  EXPECT_TRUE(j["fields"][2]["b"].is_null());
  EXPECT_EQ(j["placements"][0]["b"], "row_wise/fused on ranks 2,0");
  EXPECT_EQ(j["phase_median_ms"][0]["b"], 2.75);
  EXPECT_EQ(j["phase_source"]["b"], "measured");
}

// The run lists' text of a summary: units, spaces, 4 digits; every digit on demand.
TEST(RunRecords, SummaryTextReadsAsNumbersWithUnits) {
  const std::string j = summary_json({{"iteration_ms", 0.0337261},
                                      {"iterations", int64_t{4}},
                                      {"overlap", true},
                                      {"comm_model", std::string("flows")}});
  EXPECT_EQ(summary_text(j), "iteration 0.03373 ms, iterations 4, overlap true, comm model flows");
  EXPECT_EQ(summary_text(j, 0, "\n"),
            "iteration 0.0337261 ms\niterations 4\noverlap true\ncomm model flows");
  EXPECT_EQ(summary_text("{}"), "");
  EXPECT_EQ(summary_text("not json"), "");
}

}  // namespace
}  // namespace shardlab::data
