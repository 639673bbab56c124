// shardlab calibrate and --calibration through the real binary: a CPU replay
// of tiny_2gpu calibrated and planned with; synthetic replay runs written to
// the store directly, whose known constants come back through the profile
// and into the options' estimates; and the errors.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "shardlab/data/run_store.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/estimators.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/topology.h"

namespace {

using namespace shardlab_cli_test;
namespace data = shardlab::data;
namespace kernels = shardlab::kernels;
namespace planner = shardlab::planner;

// Every option's shard perfs, in option order.
std::vector<Json> shard_perfs(const Json& options) {
  std::vector<Json> out;
  for (const Json& o : options["options"]) out.push_back(o["shards"][0]["perf"]);
  return out;
}

TEST_F(CliTest, CalibrateACpuReplayAndPlanWithIt) {
  const std::string db = path("runs.db");
  ASSERT_EQ(run({"plan", kTiny, "-o", path("plan.json"), "--db", db, "-q"}).exit_code, 0);
  const CliRun replay = run(
      {"replay", kTiny, path("plan.json"), "--iterations", "3", "--warmup", "1", "--db", db, "-q"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;

  const CliRun cal = run({"calibrate", "--db", db, "-o", path("cal.json"), "--name", "tiny-cpu"});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  EXPECT_NE(cal.out.find("calibrated from run 2 on cpu: "), std::string::npos) << cal.out;
  EXPECT_NE(cal.out.find("held-out error (MAPE of "), std::string::npos) << cal.out;
  EXPECT_NE(cal.out.find("comm intra_host"), std::string::npos) << cal.out;
  EXPECT_NE(cal.err.find("recorded run 3 in "), std::string::npos) << cal.err;
  expect_no_temp_files();

  const Json profile = Json::parse(read_file(path("cal.json")));
  EXPECT_EQ(profile["format"], "shardlab-calibration");
  EXPECT_EQ(profile["version"], 1);
  EXPECT_EQ(profile["name"], "tiny-cpu");
  EXPECT_EQ(profile["source_runs"], Json::parse("[2]"));
  EXPECT_EQ(profile["device"].get<std::string>().rfind("cpu: ", 0), 0u);
  // The replay's records all count: 2 ranks' lookups and collectives.
  auto store = data::RunStore::open(db);
  ASSERT_TRUE(store.is_ok());
  auto replayed = store->get_run(2);
  ASSERT_TRUE(replayed.is_ok());
  const Json& fit = profile["fit"];
  EXPECT_EQ(fit["count"].get<int>() + fit["held_out"].get<int>(),
            static_cast<int>(replayed->measurements.size()));
  EXPECT_GT(fit["held_out"].get<int>(), 0);
  // The CPU is far slower than TorchRec's 897 GiB/s HBM: the defaults miss by
  // nearly 100% and the fit does better on the records it did not see.
  ASSERT_TRUE(fit["mape_before"].is_number() && fit["mape_after"].is_number()) << fit.dump();
  EXPECT_GT(fit["mape_before"].get<double>(), 90.0);
  EXPECT_LT(fit["mape_after"].get<double>(), fit["mape_before"].get<double>());

  auto calibrated = store->get_run(3);
  ASSERT_TRUE(calibrated.is_ok());
  EXPECT_EQ(calibrated->summary.kind, data::RunKind::kCalibrate);
  EXPECT_EQ(calibrated->inputs, (std::vector<int64_t>{2}));
  // The calibrate run names the scenario its source was replayed with, text and hash.
  EXPECT_EQ(calibrated->summary.scenario_name, replayed->summary.scenario_name);
  EXPECT_EQ(calibrated->scenario_json, replayed->scenario_json);
  EXPECT_EQ(calibrated->summary.scenario_hash, replayed->summary.scenario_hash);
  EXPECT_FALSE(calibrated->scenario_json.empty());
  // The replay run's device reads as the calibration names it.
  const CliRun listed = run({"runs", "list", "--db", db, "--kind", "replay"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("  cpu: "), std::string::npos) << listed.out;
  ASSERT_TRUE(calibrated->calibration.has_value());
  EXPECT_EQ(calibrated->calibration->name, "tiny-cpu");
  EXPECT_EQ(Json::parse(calibrated->calibration->profile_json)["parameters"],
            profile["parameters"]);
  EXPECT_DOUBLE_EQ(calibrated->calibration->mape_after, fit["mape_after"].get<double>());

  // Planning with the profile rates the shards with the fitted constants.
  const CliRun plain = run({"options", kTiny, "-o", path("plain.json"), "-q"});
  const CliRun with =
      run({"options", kTiny, "--calibration", path("cal.json"), "-o", path("with.json"), "-q"});
  ASSERT_EQ(plain.exit_code, 0);
  ASSERT_EQ(with.exit_code, 0) << with.err;
  const std::vector<Json> a = shard_perfs(Json::parse(read_file(path("plain.json"))));
  const std::vector<Json> b = shard_perfs(Json::parse(read_file(path("with.json"))));
  ASSERT_EQ(a.size(), b.size());
  int changed = 0;
  for (size_t i = 0; i < a.size(); ++i) changed += a[i] != b[i];
  EXPECT_GT(changed, 0);

  const CliRun planned = run({"plan", kTiny, "--calibration", path("cal.json"), "--no-record", "-o",
                              path("plan_cal.json")});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_NE(planned.err.find("; calibration tiny-cpu)"), std::string::npos) << planned.err;
  const Json p0 = Json::parse(read_file(path("plan.json")));
  const Json p1 = Json::parse(read_file(path("plan_cal.json")));
  EXPECT_NE(p0["perf_rating_ms"], p1["perf_rating_ms"]);

  const CliRun sim = run({"simulate", kTiny, "--plan", path("plan.json"), "--calibration",
                          path("cal.json"), "--no-record"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.out.find("calibrated (" + path("cal.json") + ") rating"), std::string::npos)
      << sim.out;
}

// A replay-shaped measurement of a fused or dense lookup, or a collective.
kernels::Measurement lookup(planner::ComputeKernel k, int64_t dim, shardlab::sim::Phase phase,
                            double bytes, double ms) {
  kernels::Measurement m;
  m.rank = 0;
  m.phase = phase;
  m.option = 0;
  m.shard = 0;
  m.table = "t";
  m.compute_kernel = k;
  m.dim = dim;
  m.bags = 1024;
  m.pooling_factor = 1.0;
  m.bytes = bytes;
  m.model_bytes = bytes;
  m.timing = {.median_ms = ms, .p90_ms = ms, .min_ms = ms, .samples = 5};
  return m;
}

kernels::Measurement collective(double bytes, double ms) {
  kernels::Measurement m;
  m.rank = 0;
  m.phase = shardlab::sim::Phase::kOutputDist;
  m.collective = 1;
  m.collective_kind = shardlab::sim::CollectiveKind::kAllToAll;
  m.members = 2;
  m.bytes = bytes;
  m.model_bytes = bytes;
  m.timing = {.median_ms = ms, .p90_ms = ms, .min_ms = ms, .samples = 5};
  return m;
}

// Constants of the synthetic device (bytes/ms, ms).
constexpr double kFusedHalfBw = 4.0e7, kFusedNarrowBw = 2.5e7, kDenseHalfBw = 1.5e7,
                 kFusedOverhead = 0.02;
constexpr double kBwdMultiplier = 3.0, kIntraBw = 5.0e6, kIntraLatency = 0.04;

// Noiseless measurements: 12 per group, bytes spread over two decades.
std::vector<kernels::Measurement> synthetic(int part) {
  std::vector<kernels::Measurement> out;
  for (int i = 0; i < 12; ++i) {
    const double bytes = 1e5 * std::pow(1.5, i + part);
    const double half = kFusedOverhead + bytes / kFusedHalfBw;
    const double narrow = kFusedOverhead + bytes / kFusedNarrowBw;
    const double dense = bytes / kDenseHalfBw;
    out.push_back(
        lookup(planner::ComputeKernel::kFused, 64, shardlab::sim::Phase::kFwdCompute, bytes, half));
    out.push_back(lookup(planner::ComputeKernel::kFused, 64, shardlab::sim::Phase::kBwdCompute,
                         bytes, kBwdMultiplier * half));
    out.push_back(lookup(planner::ComputeKernel::kFused, 32, shardlab::sim::Phase::kFwdCompute,
                         bytes, narrow));
    out.push_back(lookup(planner::ComputeKernel::kDense, 64, shardlab::sim::Phase::kFwdCompute,
                         bytes, dense));
    out.push_back(collective(bytes, kIntraLatency + bytes / kIntraBw));
  }
  return out;
}

int64_t add_synthetic_run(data::RunStore& store, int part) {
  data::NewRun run;
  run.kind = data::RunKind::kReplay;
  run.scenario_name = "tiny_2gpu";
  run.scenario_json = read_file(kTiny);
  run.device = "synthetic device";
  run.backend = "cpu";
  run.measurements = synthetic(part);
  auto id = store.add_run(run);
  EXPECT_TRUE(id.is_ok()) << id.status().message();
  return id.is_ok() ? *id : -1;
}

TEST_F(CliTest, CalibrateRecoversSyntheticConstantsIntoTheEstimates) {
  const std::string db = path("runs.db");
  {
    auto store = data::RunStore::open(db);
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    ASSERT_EQ(add_synthetic_run(*store, 0), 1);
    ASSERT_EQ(add_synthetic_run(*store, 1), 2);
  }
  const CliRun cal = run({"calibrate", "--db", db, "--runs", "1-2", "--holdout", "0.25", "--seed",
                          "9", "-o", path("p.json")});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  EXPECT_NE(
      cal.out.find(
          "calibrated from runs 1-2 on cpu: synthetic device: 120 measurements, 90 fitted, 30 held "
          "out, 0 skipped"),
      std::string::npos)
      << cal.out;

  const Json profile = Json::parse(read_file(path("p.json")));
  EXPECT_EQ(profile["name"], "runs-1-2");
  EXPECT_EQ(profile["source_runs"], Json::parse("[1, 2]"));
  const Json& params = profile["parameters"];
  ASSERT_EQ(params["compute"].size(), 3u) << params.dump();
  const auto near = [](const Json& v, double want) {
    EXPECT_NEAR(v.get<double>(), want, std::abs(want) * 1e-8 + 1e-12) << v.dump();
  };
  // Kernel order (dense before fused), then dim class order.
  EXPECT_EQ(params["compute"][0]["kernel"], "dense");
  near(params["compute"][0]["bandwidth_bytes_per_ms"], kDenseHalfBw);
  EXPECT_EQ(params["compute"][1]["dim_class"], "narrow");
  near(params["compute"][1]["bandwidth_bytes_per_ms"], kFusedNarrowBw);
  near(params["compute"][1]["overhead_ms"], kFusedOverhead);
  EXPECT_EQ(params["compute"][2]["dim_class"], "half");
  near(params["compute"][2]["bandwidth_bytes_per_ms"], kFusedHalfBw);
  near(params["compute"][2]["bwd_multiplier"], kBwdMultiplier);  // fused's, in each fused entry
  near(params["compute"][1]["bwd_multiplier"], kBwdMultiplier);
  EXPECT_FALSE(params["compute"][0].contains("bwd_multiplier")) << "dense had no backward records";
  EXPECT_TRUE(params["bwd_multiplier"].is_null());
  near(params["comm"]["intra_host"]["bandwidth_bytes_per_ms"], kIntraBw);
  near(params["comm"]["intra_host"]["latency_ms"], kIntraLatency);
  EXPECT_FALSE(params["comm"].contains("inter_host"));
  EXPECT_LT(profile["fit"]["mape_after"].get<double>(), 1e-6);
  EXPECT_EQ(profile["fit"]["count"], 90);
  EXPECT_EQ(profile["fit"]["held_out"], 30);

  // The options' estimates follow the calibrated formulas: for every fused
  // option of a dim-64 table, fwd = overhead + fwd_bytes / bw and bwd = 3·fwd
  // (plus TorchRec's weighted term).
  const CliRun opts =
      run({"options", kTiny, "--calibration", path("p.json"), "-o", path("opts.json"), "-q"});
  ASSERT_EQ(opts.exit_code, 0) << opts.err;
  const Json options = Json::parse(read_file(path("opts.json")));
  auto scenario = data::load_scenario_file(kTiny);
  ASSERT_TRUE(scenario.is_ok());
  const planner::PlannerResult space =
      planner::plan(*scenario, planner::PlannerOptions{.enumerate_only = true});
  ASSERT_TRUE(space.search_space.has_value());
  const planner::EstimatorContext ctx = planner::estimator_context(*scenario, space.topology);
  ASSERT_EQ(options["options"].size(), space.search_space->options.size());
  int checked = 0;
  for (size_t i = 0; i < space.search_space->options.size(); ++i) {
    const planner::ShardingOption& o = space.search_space->options[i];
    if (o.compute_kernel != planner::ComputeKernel::kFused || o.shards.front().cols != 64) continue;
    const Json& perf = options["options"][i]["shards"][0]["perf"];
    const double fwd = kFusedOverhead + planner::fwd_compute_bytes(ctx, o) / kFusedHalfBw;
    EXPECT_NEAR(perf["fwd_compute"].get<double>(), fwd, fwd * 1e-8) << o.fqn;
    const double bwd = fwd * kBwdMultiplier + (o.is_weighted ? fwd * 1.1 : 0.0);
    EXPECT_NEAR(perf["bwd_compute"].get<double>(), bwd, bwd * 1e-8) << o.fqn;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST_F(CliTest, CalibrateErrors) {
  const std::string db = path("runs.db");
  // No store at all.
  CliRun r = run({"calibrate", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(db + ": no run store here; run `shardlab replay` first"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(db)) << "calibrate must not create a store";

  // A store with a plan run only.
  ASSERT_EQ(run({"plan", kTiny, "-o", path("plan.json"), "--db", db, "-q"}).exit_code, 0);
  r = run({"calibrate", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no replay runs to calibrate from; run `shardlab replay` first"),
            std::string::npos)
      << r.err;
  r = run({"calibrate", "--db", db, "--runs", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run 1 (plan) has no measurements"), std::string::npos) << r.err;
  r = run({"calibrate", "--db", db, "--runs", "7"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no run 7"), std::string::npos) << r.err;
  for (const std::string bad : {"x", "3-1", "0", "2,", "1-"}) {
    r = run({"calibrate", "--db", db, "--runs", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--runs: \""), std::string::npos) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("is not a run id or a range FIRST-LAST of run ids >= 1"),
              std::string::npos)
        << bad << ": " << r.err;
  }
  r = run({"calibrate", "--db", db, "--holdout", "1.5"});
  EXPECT_EQ(r.exit_code, 2);
  r = run({"calibrate", "--db", db, "--holdout", "nan"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--holdout: nan is not a finite number"), std::string::npos) << r.err;

  // Huge id ranges are counted before they are expanded: refused at once.
  std::string many;
  for (int i = 0; i < 2000; ++i) {
    if (i > 0) many += ',';
    many += std::to_string(int64_t{i} * 1000000 + 1);
    many += '-';
    many += std::to_string(int64_t{i + 1} * 1000000);
  }
  for (const std::string& ids :
       {std::string("1-2000000000"), many, std::string("1-9223372036854775807")}) {
    r = run({"calibrate", "--db", db, "--runs", ids});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--runs: names more than 1000000 run ids"), std::string::npos) << r.err;
  }
  r = run({"calibrate", "--db", db, "--runs", many});
  EXPECT_NE(r.err.find("--runs: names more than 1000000 run ids (at \"1000001-2000000\")"),
            std::string::npos)
      << r.err;
  r = run({"calibrate", "--db", db, "--runs", "99999999999999999999"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not a run id"), std::string::npos) << r.err;
  // The largest id, alone or ending a short range, expands without overflow.
  for (const std::string ids : {"9223372036854775807", "9223372036854775805-9223372036854775807"}) {
    r = run({"calibrate", "--db", db, "--runs", ids});
    EXPECT_EQ(r.exit_code, 2) << ids;
    EXPECT_NE(r.err.find("no run 92233720368547758"), std::string::npos) << ids << ": " << r.err;
  }
  // An empty list is no list, not "every run".
  r = run({"calibrate", "--db", db, "--runs", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--runs: \"\" is empty: give a value, or leave the option out"),
            std::string::npos)
      << r.err;

  // --calibration with a bad profile names the file, field and value.
  write("bad.json", R"({"format": "shardlab-calibration", "version": 1, "name": "b",
                        "parameters": {"comm": {"intra_host": {"bandwidth_bytes_per_ms": 0}}}})");
  for (const std::string verb : {"plan", "options", "simulate"}) {
    r = run({verb, kTiny, "--calibration", path("bad.json")});
    EXPECT_EQ(r.exit_code, 2) << verb;
    EXPECT_NE(r.err.find(path("bad.json") + ": parameters.comm.intra_host.bandwidth_bytes_per_ms: "
                                            "must be a number in [0.001, 1e+15]: got 0"),
              std::string::npos)
        << verb << ": " << r.err;
  }
}

}  // namespace
