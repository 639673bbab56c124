// Tests of data/plan_json.h on a hand-built search space and planner result:
// field names and order, placements, DP specs, cache params, exact doubles,
// error shapes, and reading plans back in both shapes.

#include "shardlab/data/plan_json.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace shardlab::data {
namespace {

using Json = nlohmann::ordered_json;
using planner::ComputeDevice;
using planner::ComputeKernel;
using planner::PartitionBy;
using planner::Perf;
using planner::PlannerResult;
using planner::Scenario;
using planner::SearchSpace;
using planner::Shard;
using planner::ShardingOption;
using planner::ShardingType;
using planner::ShardList;
using planner::Storage;

constexpr int64_t kGiB = int64_t{1} << 30;

// Awkward doubles: none has a short decimal form except 0.1 (which is not
// exact in binary either).
const Perf kRwPerf{.fwd_compute = 0.1,
                   .fwd_comms = 1.0 / 3.0,
                   .bwd_compute = 2.0 / 3.0,
                   .bwd_comms = 1e-300,
                   .prefetch_compute = 0.0};
const Perf kTwPerf{.fwd_compute = 0.015695348422598773,
                   .fwd_comms = 0.0016276041666666667,
                   .bwd_compute = 0.031390696845197547,
                   .bwd_comms = 123456.78901234567,
                   .prefetch_compute = 0.0};
const Perf kDpPerf{.fwd_compute = 0.006072895981396321,
                   .fwd_comms = 0.0,
                   .bwd_compute = 0.012145791962792642,
                   .bwd_comms = 116.03569107310828,
                   .prefetch_compute = 0.0};

ShardingOption make_option(int table, const std::string& name, ShardingType st, ComputeKernel ck,
                           PartitionBy pb, const Perf& perf, ShardList shards) {
  ShardingOption o;
  o.table = table;
  o.module = 0;
  o.name = name;
  o.fqn = "ebc." + name;
  o.sharding_type = st;
  o.compute_kernel = ck;
  o.partition_by = pb;
  o.input_lengths = {4.0};
  o.num_poolings = {1.0};
  o.batch_sizes = {512};
  o.shard_perf = perf;
  o.shards = std::move(shards);
  for (const Shard& s : o.shards) {
    o.total_perf += perf.total();
    o.total_storage += s.storage;
  }
  return o;
}

// Two tables on two cuda ranks: t0 (1000 x 64) with DP and RW options, t1
// (100 x 32) with a TW option.
struct Fixture {
  Scenario scenario;
  SearchSpace space;

  Fixture() {
    scenario.name = "tiny";
    scenario.topology.world_size = 2;
    scenario.topology.local_world_size = 2;
    scenario.tables = {
        {.name = "t0", .num_embeddings = 1000, .embedding_dim = 64, .feature_names = {"f0"}},
        {.name = "t1", .num_embeddings = 100, .embedding_dim = 32, .feature_names = {"f1"}},
    };
    planner::ConstraintSpec c0;
    c0.cache_params = planner::CacheParams{.algorithm = planner::CacheAlgorithm::kLfu,
                                           .load_factor = 0.25,
                                           .reserved_memory = 7,
                                           .precision = planner::DataType::kFp16,
                                           .prefetch_pipeline = std::nullopt};
    c0.enforce_hbm = true;
    planner::ConstraintSpec c1;
    c1.cache_params = planner::CacheParams{};  // "cache_params": {} in the scenario
    c1.stochastic_rounding = false;
    c1.bounds_check_mode = planner::BoundsCheckMode::kIgnore;
    scenario.constraints = {c0, c1};

    space.modules = {planner::ModuleInfo{.path = "ebc", .tables = {0, 1}}};
    const Storage dp_storage{.hbm = 256000 + 1, .ddr = 0};
    space.options.push_back(make_option(0, "t0", ShardingType::kDataParallel, ComputeKernel::kDense,
                                        PartitionBy::kUniform, kDpPerf,
                                        {Shard{.rows = 1000, .cols = 64, .storage = dp_storage},
                                         Shard{.rows = 1000, .cols = 64, .storage = dp_storage}}));
    space.options.push_back(make_option(
        0, "t0", ShardingType::kRowWise, ComputeKernel::kFused, PartitionBy::kUniform, kRwPerf,
        {Shard{.rows = 500, .row_offset = 0, .cols = 64, .storage = {.hbm = 128000, .ddr = 3}},
         Shard{.rows = 500, .row_offset = 500, .cols = 64, .storage = {.hbm = 128001, .ddr = 4}}}));
    space.options.push_back(make_option(
        1, "t1", ShardingType::kTableWise, ComputeKernel::kFused, PartitionBy::kDevice, kTwPerf,
        {Shard{.rows = 100, .cols = 32, .storage = {.hbm = 12800, .ddr = 0}}}));
    space.options[0].cache_params = c0.cache_params;
    space.options[1].cache_params = c0.cache_params;
    space.options[2].cache_params = c1.cache_params;
    space.fqns = {"ebc.t0", "ebc.t1"};
    space.options_by_fqn = {{0, 1}, {2}};
    space.fqn_of_option = {0, 0, 1};
  }

  // A successful result whose best plan takes options `t0_option` (0 or 1)
  // and 2, with t1 on `t1_rank`.
  PlannerResult result(int t0_option, int t1_rank,
                       ComputeDevice device = ComputeDevice::kCuda) const {
    PlannerResult r;
    r.topology.world_size = 2;
    r.topology.local_world_size = 2;
    r.topology.compute_device = device;
    const int64_t hbm = device == ComputeDevice::kCuda ? 32 * kGiB : 0;
    r.topology.devices = {{.rank = 0, .storage = {hbm, 128 * kGiB}},
                          {.rank = 1, .storage = {hbm, 128 * kGiB}}};
    planner::ReservationResult reserved;
    reserved.devices = {{29205449932, 128 * kGiB}, {29205449932, 128 * kGiB}};
    r.reserved = reserved;
    r.search_space = space;
    r.num_proposals = 61;
    r.num_plans = 60;
    planner::PartitionedPlan plan;
    plan.proposal = {t0_option, 2};
    plan.ranks = {0, 1, t1_rank};
    plan.first_shard = {0, 2, 3};
    r.best = plan;
    const double t0 = space.options[static_cast<size_t>(t0_option)].shard_perf.total();
    r.device_perf_total = {t0, t0};
    r.device_perf_total[static_cast<size_t>(t1_rank)] += kTwPerf.total();
    r.perf_rating = std::max(r.device_perf_total[0], r.device_perf_total[1]);
    return r;
  }
};

std::vector<std::string> keys(const Json& j) {
  std::vector<std::string> out;
  for (const auto& [k, v] : j.items()) out.push_back(k);
  return out;
}

using Keys = std::vector<std::string>;

TEST(ShardPlacement, CudaMtiaCpu) {
  EXPECT_EQ(shard_placement(ComputeDevice::kCuda, 3, 8), "rank:3/cuda:3");
  EXPECT_EQ(shard_placement(ComputeDevice::kCuda, 13, 8), "rank:13/cuda:5");
  EXPECT_EQ(shard_placement(ComputeDevice::kMtia, 5, 4), "rank:5/mtia:1");
  EXPECT_EQ(shard_placement(ComputeDevice::kCpu, 7, 4), "rank:7/cpu");
}

TEST(PlanToJson, FieldsInDocumentedOrder) {
  Fixture f;
  const Json j = Json::parse(plan_to_json(f.scenario, f.result(1, 1)));
  EXPECT_EQ(keys(j), (Keys{"scenario", "torchrec_version", "perf_rating_ms", "num_proposals",
                           "num_plans", "tables", "devices", "reserved"}));
  EXPECT_EQ(j["scenario"], "tiny");
  EXPECT_EQ(j["num_proposals"], 61);
  EXPECT_EQ(j["num_plans"], 60);
  EXPECT_EQ(keys(j["tables"]), (Keys{"t0", "t1"}));
  const Json& t0 = j["tables"]["t0"];
  EXPECT_EQ(keys(t0), (Keys{"module", "sharding_type", "compute_kernel", "ranks", "sharding_spec",
                            "cache_params", "enforce_hbm", "shards"}));
  EXPECT_EQ(t0["module"], "ebc");
  EXPECT_EQ(t0["sharding_type"], "row_wise");
  EXPECT_EQ(t0["compute_kernel"], "fused");
  EXPECT_EQ(t0["ranks"], Json::array({0, 1}));
  EXPECT_EQ(t0["sharding_spec"], true);
  EXPECT_EQ(t0["enforce_hbm"], true);
  ASSERT_EQ(t0["shards"].size(), 2u);
  const Json& s1 = t0["shards"][1];
  EXPECT_EQ(keys(s1), (Keys{"offset", "size", "rank", "placement", "perf", "storage"}));
  EXPECT_EQ(s1["offset"], Json::array({500, 0}));
  EXPECT_EQ(s1["size"], Json::array({500, 64}));
  EXPECT_EQ(s1["rank"], 1);
  EXPECT_EQ(s1["placement"], "rank:1/cuda:1");
  EXPECT_EQ(keys(s1["perf"]), (Keys{"fwd_compute", "fwd_comms", "bwd_compute", "bwd_comms",
                                    "prefetch_compute", "total"}));
  EXPECT_EQ(keys(s1["storage"]), (Keys{"hbm", "ddr"}));
  EXPECT_EQ(s1["storage"]["hbm"], 128001);
  EXPECT_EQ(s1["storage"]["ddr"], 4);

  ASSERT_EQ(j["devices"].size(), 2u);
  const Json& d1 = j["devices"][1];
  EXPECT_EQ(keys(d1), (Keys{"rank", "hbm_used", "hbm_cap", "hbm_available", "ddr_used", "ddr_cap",
                            "ddr_available", "perf"}));
  EXPECT_EQ(d1["rank"], 1);
  EXPECT_EQ(d1["hbm_used"], 128001 + 12800);
  EXPECT_EQ(d1["ddr_used"], 4);
  EXPECT_EQ(d1["hbm_cap"], 32 * kGiB);
  EXPECT_EQ(d1["hbm_available"], 29205449932);
  EXPECT_EQ(d1["ddr_cap"], 128 * kGiB);
  EXPECT_EQ(d1["ddr_available"], 128 * kGiB);
  EXPECT_EQ(j["devices"][0]["hbm_used"], 128000);
  EXPECT_EQ(keys(j["reserved"][0]), (Keys{"rank", "hbm", "ddr"}));
  EXPECT_EQ(j["reserved"][1]["hbm"], 29205449932);
}

// The plan for people: a row per table in plan order, ranks as ranges, then
// the rating line; a failed result gives its message.
TEST(PlanToText, ARowPerTableThenTheRating) {
  Fixture f;
  const PlannerResult r = f.result(1, 1);
  const std::string text = plan_to_text(f.scenario, r);
  const std::string rw = fmt::format("{:.4f}", 2 * kRwPerf.total());
  const std::string tw = fmt::format("{:.4f}", kTwPerf.total());
  EXPECT_EQ(
      text,
      "table  sharding_type    compute_kernel shards  ranks                   perf ms         "
      "HBM\n"
      "t0     row_wise         fused               2  0-1                  " +
          fmt::format("{:>10}", rw) +
          "  250.00 KiB\n"
          "t1     table_wise       fused               1  1                    " +
          fmt::format("{:>10}", tw) +
          "   12.50 KiB\n"
          "tiny: 2 tables on 2 ranks, rating " +
          fmt::format("{:.6g}", r.perf_rating) +
          " ms (TorchRec 2026-08); the plan's JSON with -o FILE, or -o - for stdout\n");
  PlannerResult failed;
  failed.error = Status::invalid_argument("no plan");
  EXPECT_EQ(plan_to_text(f.scenario, failed), "no plan\n");
}

TEST(PlanToJson, DoublesRoundTripExactly) {
  Fixture f;
  const PlannerResult r = f.result(1, 0);
  for (int indent : {kDefaultJsonIndent, kCompactJson}) {
    const Json j = Json::parse(plan_to_json(f.scenario, r, indent));
    const Json& p = j["tables"]["t0"]["shards"][0]["perf"];
    EXPECT_EQ(p["fwd_compute"].get<double>(), kRwPerf.fwd_compute);
    EXPECT_EQ(p["fwd_comms"].get<double>(), kRwPerf.fwd_comms);
    EXPECT_EQ(p["bwd_compute"].get<double>(), kRwPerf.bwd_compute);
    EXPECT_EQ(p["bwd_comms"].get<double>(), kRwPerf.bwd_comms);
    EXPECT_EQ(p["total"].get<double>(), kRwPerf.total());
    const Json& q = j["tables"]["t1"]["shards"][0]["perf"];
    EXPECT_EQ(q["bwd_comms"].get<double>(), kTwPerf.bwd_comms);
    EXPECT_EQ(q["total"].get<double>(), kTwPerf.total());
    EXPECT_EQ(j["perf_rating_ms"].get<double>(), r.perf_rating);
    EXPECT_EQ(j["devices"][0]["perf"]["total"].get<double>(), r.device_perf_total[0]);
    EXPECT_EQ(j["devices"][1]["perf"]["total"].get<double>(), r.device_perf_total[1]);
  }
}

TEST(PlanToJson, CompactIsOneLine) {
  Fixture f;
  const std::string s = plan_to_json(f.scenario, f.result(1, 0), kCompactJson);
  EXPECT_EQ(s.find('\n'), std::string::npos);
}

// A document written once, compact, and laid out afterwards is byte for byte
// what the writer gives with that indent: plans, options and errors, names
// with quotes, backslashes, control and non-ASCII characters, empty containers.
TEST(IndentJson, LaysOutACompactDocumentAsTheWriterDoes) {
  Fixture f;
  f.scenario.name = "ti\"ny\\ \t\u00e9 {[,:]}";
  const PlannerResult planned = f.result(1, 0);
  PlannerResult options = f.result(1, 0);
  options.best.reset();
  const std::vector<std::function<std::string(int)>> writers = {
      [&](int indent) { return plan_to_json(f.scenario, planned, indent); },
      [&](int indent) { return options_to_json(f.scenario, options, indent); },
      [&](int indent) { return plan_to_torchrec_json(f.scenario, planned, indent); },
      [&](int indent) {
        return error_to_json(f.scenario.name, Status::invalid_argument("a \"b\"\n"), nullptr,
                             indent);
      },
  };
  for (const auto& write : writers) {
    const std::string compact = write(kCompactJson);
    for (int indent : {0, 1, 2, 4})
      EXPECT_EQ(indent_json(compact, indent), write(indent)) << indent;
    EXPECT_EQ(indent_json(compact, kCompactJson), compact);
  }
  EXPECT_EQ(indent_json("{\"a\":{},\"b\":[],\"c\":[{}]}", 1),
            "{\n \"a\": {},\n \"b\": [],\n \"c\": [\n  {}\n ]\n}");
}

TEST(PlanToJson, DataParallelHasNoShardingSpec) {
  Fixture f;
  const Json j = Json::parse(plan_to_json(f.scenario, f.result(0, 0)));
  const Json& t0 = j["tables"]["t0"];
  EXPECT_EQ(t0["sharding_type"], "data_parallel");
  EXPECT_EQ(t0["compute_kernel"], "dense");
  EXPECT_EQ(t0["sharding_spec"], false);
  EXPECT_EQ(t0["ranks"], Json::array({0, 1}));
  EXPECT_EQ(t0["shards"][1]["offset"], Json::array({0, 0}));
  EXPECT_EQ(t0["shards"][1]["size"], Json::array({1000, 64}));
  EXPECT_EQ(j["tables"]["t1"]["sharding_spec"], true);

  const Json tr = Json::parse(plan_to_torchrec_json(f.scenario, f.result(0, 0)));
  EXPECT_TRUE(tr["plan"]["ebc"]["t0"]["sharding_spec"].is_null());
  EXPECT_TRUE(tr["plan"]["ebc"]["t1"]["sharding_spec"].is_array());
}

TEST(PlanToJson, CacheParamsNullEmptyAndGiven) {
  Fixture f;
  f.space.options[1].cache_params = std::nullopt;  // t0 RW: constraint without cache_params
  f.scenario.constraints[0]->enforce_hbm = std::nullopt;
  const Json j = Json::parse(plan_to_json(f.scenario, f.result(1, 0)));
  EXPECT_TRUE(j["tables"]["t0"]["cache_params"].is_null());
  EXPECT_TRUE(j["tables"]["t0"]["enforce_hbm"].is_null());
  const Json& empty = j["tables"]["t1"]["cache_params"];
  EXPECT_EQ(keys(empty), (Keys{"algorithm", "load_factor", "reserved_memory", "precision",
                               "prefetch_pipeline"}));
  for (const auto& [k, v] : empty.items()) EXPECT_TRUE(v.is_null()) << k;

  Fixture g;
  const Json given =
      Json::parse(plan_to_json(g.scenario, g.result(1, 0)))["tables"]["t0"]["cache_params"];
  EXPECT_EQ(keys(given), (Keys{"algorithm", "load_factor", "reserved_memory", "precision",
                               "prefetch_pipeline"}));
  EXPECT_EQ(given["algorithm"], "lfu");
  EXPECT_EQ(given["load_factor"].get<double>(), 0.25);
  EXPECT_EQ(given["reserved_memory"], 7);
  EXPECT_EQ(given["precision"], "fp16");
  EXPECT_TRUE(given["prefetch_pipeline"].is_null());
}

// TorchRec 2026-08's SSD tier: a scenario that says anything of it gets
// "ssd" in every storage object, the devices' SSD columns and
// key_value_params on tables and options; any other keeps the two tiers.
TEST(PlanToJson, SsdMembersOnlyForScenariosOfTheSsdTier) {
  Fixture f;
  const Json two = Json::parse(plan_to_json(f.scenario, f.result(1, 0)));
  EXPECT_FALSE(two["tables"]["t0"].contains("key_value_params"));
  EXPECT_EQ(keys(two["tables"]["t0"]["shards"][0]["storage"]), (Keys{"hbm", "ddr"}));
  EXPECT_FALSE(two["devices"][0].contains("ssd_used"));

  Fixture g;
  g.scenario.constraints[0]->key_value_params = planner::KeyValueParams{.max_l1_cache_size = 8};
  g.space.options[1].key_value_params = g.scenario.constraints[0]->key_value_params;
  ShardList with_ssd;  // shard 1 of option 1 on SSD
  for (Shard s : g.space.options[1].shards) {
    if (with_ssd.size() == 1) s.storage.ssd = 77;
    with_ssd.push_back(s);
  }
  g.space.options[1].shards = with_ssd;
  g.space.options[1].total_storage.ssd = 77;
  const Json three = Json::parse(plan_to_json(g.scenario, g.result(1, 0)));
  const Json& t0 = three["tables"]["t0"];
  EXPECT_EQ(t0["key_value_params"],
            Json::parse(R"({"max_l1_cache_size": 8, "l2_cache_size": null})"));
  EXPECT_TRUE(three["tables"]["t1"]["key_value_params"].is_null());
  EXPECT_EQ(keys(t0["shards"][1]["storage"]), (Keys{"hbm", "ddr", "ssd"}));
  EXPECT_EQ(t0["shards"][1]["storage"]["ssd"], 77);
  EXPECT_EQ(three["devices"][1]["ssd_used"], 77);
  EXPECT_TRUE(three["devices"][1].contains("ssd_cap"));
  const Json opts = Json::parse(options_to_json(g.scenario, g.result(1, 0)));
  EXPECT_EQ(opts["options"][1]["total_storage"]["ssd"], 77);
  EXPECT_EQ(opts["options"][1]["key_value_params"]["max_l1_cache_size"], 8);
  const Json tr = Json::parse(plan_to_torchrec_json(g.scenario, g.result(1, 0)));
  EXPECT_EQ(tr["plan"]["ebc"]["t0"]["key_value_params"]["max_l1_cache_size"], 8);
}

TEST(PlanToJson, PlacementsFollowTheDevice) {
  Fixture f;
  Json j = Json::parse(plan_to_json(f.scenario, f.result(1, 1, ComputeDevice::kCpu)));
  EXPECT_EQ(j["tables"]["t0"]["shards"][1]["placement"], "rank:1/cpu");
  EXPECT_EQ(j["devices"][0]["hbm_cap"], 0);
  j = Json::parse(plan_to_json(f.scenario, f.result(1, 1, ComputeDevice::kMtia)));
  EXPECT_EQ(j["tables"]["t1"]["shards"][0]["placement"], "rank:1/mtia:1");
  PlannerResult r = f.result(1, 1);
  r.topology.local_world_size = 1;  // two hosts of one rank
  j = Json::parse(plan_to_json(f.scenario, r));
  EXPECT_EQ(j["tables"]["t0"]["shards"][1]["placement"], "rank:1/cuda:0");
}

TEST(PlanToJson, FailedResultGivesTheErrorShape) {
  Fixture f;
  PlannerResult r = f.result(1, 0);
  r.best.reset();
  r.error = Status::planner(PlannerErrorType::kStrictConstraints, "nothing fits");
  const Json j = Json::parse(plan_to_json(f.scenario, r));
  EXPECT_EQ(keys(j), (Keys{"scenario", "error", "num_proposals", "num_plans", "reserved"}));
  EXPECT_EQ(j["error"]["type"], "strict_constraints");
}

TEST(ErrorToJson, Shapes) {
  Fixture f;
  PlannerResult r = f.result(1, 0);
  r.best.reset();

  Json j = Json::parse(error_to_json("tiny", Status::invalid_argument("bad key"), nullptr));
  EXPECT_EQ(keys(j), (Keys{"scenario", "error"}));
  EXPECT_EQ(keys(j["error"]), (Keys{"type", "message"}));
  EXPECT_EQ(j["error"]["type"], "invalid_scenario");
  EXPECT_EQ(j["error"]["message"], "bad key");

  j = Json::parse(error_to_json("tiny", Status::io_error("x.json: cannot open"), &r));
  EXPECT_EQ(keys(j), (Keys{"scenario", "error"}));
  EXPECT_EQ(j["error"]["type"], "invalid_scenario");

  j = Json::parse(error_to_json(
      "tiny", Status::planner(PlannerErrorType::kInsufficientStorage, "too big"), &r));
  EXPECT_EQ(keys(j), (Keys{"scenario", "error", "num_proposals", "num_plans", "reserved"}));
  EXPECT_EQ(j["error"]["type"], "insufficient_storage");
  EXPECT_EQ(j["num_proposals"], 61);
  EXPECT_EQ(j["num_plans"], 60);
  ASSERT_TRUE(j["reserved"].is_array());
  EXPECT_EQ(j["reserved"][0]["hbm"], 29205449932);

  r.reserved.reset();  // the reservation itself failed
  r.num_proposals = r.num_plans = 0;
  j = Json::parse(
      error_to_json("tiny", Status::planner(PlannerErrorType::kInsufficientStorage, "neg"), &r));
  EXPECT_TRUE(j["reserved"].is_null());
  EXPECT_EQ(j["num_proposals"], 0);

  j = Json::parse(
      error_to_json("tiny", Status::planner(PlannerErrorType::kNoOptions, "none left"), nullptr));
  EXPECT_EQ(j["error"]["type"], "no_options");
  EXPECT_EQ(j["num_plans"], 0);
  EXPECT_TRUE(j["reserved"].is_null());
}

// A filter lists the options of the named tables and sharding types, each
// with its enumeration index.
TEST(OptionsToJson, AFilterKeepsTheNamedTablesAndTypes) {
  Fixture f;
  PlannerResult r = f.result(1, 0);
  r.best.reset();
  const auto listed = [&](const OptionFilter& filter) {
    std::vector<std::pair<int, std::string>> out;
    const Json doc = Json::parse(options_to_json(f.scenario, r, 2, filter));
    for (const Json& o : doc["options"])
      out.emplace_back(o["index"].get<int>(), o["sharding_type"].get<std::string>());
    return out;
  };
  using Listed = std::vector<std::pair<int, std::string>>;
  EXPECT_EQ(listed({}), (Listed{{0, "data_parallel"}, {1, "row_wise"}, {2, "table_wise"}}));
  EXPECT_EQ(listed({.tables = {"t0"}}), (Listed{{0, "data_parallel"}, {1, "row_wise"}}));
  EXPECT_EQ(listed({.sharding_types = {ShardingType::kRowWise, ShardingType::kTableWise}}),
            (Listed{{1, "row_wise"}, {2, "table_wise"}}));
  EXPECT_EQ(listed({.tables = {"t1"}, .sharding_types = {ShardingType::kRowWise}}), Listed{});
}

TEST(OptionsToJson, EveryOptionInEnumerationOrder) {
  Fixture f;
  PlannerResult r = f.result(1, 0);
  r.best.reset();  // enumerate_only results have no plan
  const Json j = Json::parse(options_to_json(f.scenario, r));
  EXPECT_EQ(keys(j), (Keys{"scenario", "torchrec_version", "options"}));
  ASSERT_EQ(j["options"].size(), 3u);
  const Json& o = j["options"][1];
  EXPECT_EQ(keys(o), (Keys{"index", "name", "fqn", "sharding_type", "compute_kernel",
                           "partition_by", "is_pooled", "is_weighted", "input_lengths",
                           "cache_params", "total_perf", "total_storage", "shards"}));
  EXPECT_EQ(o["index"], 1);
  EXPECT_EQ(o["name"], "t0");
  EXPECT_EQ(o["fqn"], "ebc.t0");
  EXPECT_EQ(o["sharding_type"], "row_wise");
  EXPECT_EQ(o["partition_by"], "uniform");
  EXPECT_EQ(o["is_pooled"], true);
  EXPECT_EQ(o["input_lengths"], Json::array({4.0}));
  EXPECT_EQ(o["total_perf"].get<double>(), f.space.options[1].total_perf);
  EXPECT_EQ(o["total_storage"]["hbm"], 256001);
  ASSERT_EQ(o["shards"].size(), 2u);
  EXPECT_EQ(keys(o["shards"][1]), (Keys{"offset", "size", "perf", "storage"}));
  EXPECT_EQ(o["shards"][1]["offset"], Json::array({500, 0}));
  EXPECT_EQ(o["shards"][1]["perf"]["fwd_comms"].get<double>(), kRwPerf.fwd_comms);
  EXPECT_EQ(j["options"][0]["sharding_type"], "data_parallel");
  EXPECT_EQ(j["options"][2]["partition_by"], "device");

  r.search_space.reset();
  r.error = Status::planner(PlannerErrorType::kOther, "enumeration failed");
  const Json e = Json::parse(options_to_json(f.scenario, r));
  EXPECT_EQ(e["error"]["type"], "other");
}

TEST(PlanToTorchrecJson, Shape) {
  Fixture f;
  const Json j = Json::parse(plan_to_torchrec_json(f.scenario, f.result(1, 0)));
  EXPECT_EQ(j["format"], kTorchrecPlanFormat);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(keys(j["plan"]), (Keys{"ebc"}));
  EXPECT_EQ(keys(j["plan"]["ebc"]), (Keys{"t0", "t1"}));
  const Json& t0 = j["plan"]["ebc"]["t0"];
  EXPECT_EQ(keys(t0),
            (Keys{"sharding_type", "compute_kernel", "ranks", "sharding_spec", "cache_params",
                  "enforce_hbm", "stochastic_rounding", "bounds_check_mode"}));
  ASSERT_EQ(t0["sharding_spec"].size(), 2u);
  EXPECT_EQ(keys(t0["sharding_spec"][1]), (Keys{"shard_offsets", "shard_sizes", "placement"}));
  EXPECT_EQ(t0["sharding_spec"][1]["shard_offsets"], Json::array({500, 0}));
  EXPECT_EQ(t0["sharding_spec"][1]["shard_sizes"], Json::array({500, 64}));
  EXPECT_EQ(t0["sharding_spec"][1]["placement"], "rank:1/cuda:1");
  EXPECT_EQ(t0["enforce_hbm"], true);
  EXPECT_TRUE(t0["stochastic_rounding"].is_null());
  const Json& t1 = j["plan"]["ebc"]["t1"];
  EXPECT_EQ(t1["ranks"], Json::array({0}));
  EXPECT_EQ(t1["stochastic_rounding"], false);
  EXPECT_EQ(t1["bounds_check_mode"], "ignore");
  EXPECT_TRUE(t1["enforce_hbm"].is_null());
}

// ---------------------------------------------------------------------------
// Reading plans.

void expect_same_plan(const planner::PartitionedPlan& a, const planner::PartitionedPlan& b) {
  EXPECT_EQ(a.proposal, b.proposal);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.first_shard, b.first_shard);
}

TEST(ParsePlan, RoundTripsBothShapes) {
  Fixture f;
  for (int t0_option : {0, 1}) {
    for (int t1_rank : {0, 1}) {
      const PlannerResult r = f.result(t0_option, t1_rank);
      Result<planner::PartitionedPlan> a =
          parse_plan(plan_to_json(f.scenario, r), "a.json", f.scenario, f.space);
      ASSERT_TRUE(a.is_ok()) << a.status().message();
      expect_same_plan(*a, *r.best);
      Result<planner::PartitionedPlan> b =
          parse_plan(plan_to_torchrec_json(f.scenario, r), "b.json", f.scenario, f.space);
      ASSERT_TRUE(b.is_ok()) << b.status().message();
      expect_same_plan(*b, *r.best);
      // Without the wrapper, as a bare module map; module paths need not match.
      Json bare = Json::parse(plan_to_torchrec_json(f.scenario, r))["plan"];
      Json renamed = Json::object();
      renamed["model.sparse.ebc"] = bare["ebc"];
      Result<planner::PartitionedPlan> c =
          parse_plan(renamed.dump(), "c.json", f.scenario, f.space);
      ASSERT_TRUE(c.is_ok()) << c.status().message();
      expect_same_plan(*c, *r.best);
    }
  }
}

TEST(ParsePlan, ProposalIsInFqnOrder) {
  Fixture f;
  // Tables listed t1 first: the proposal still follows the search space's fqns.
  const std::string text = R"({"tables": {
      "t1": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [1]},
      "t0": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1]}}})";
  Result<planner::PartitionedPlan> p = parse_plan(text, "p.json", f.scenario, f.space);
  ASSERT_TRUE(p.is_ok()) << p.status().message();
  EXPECT_EQ(p->proposal, (planner::Proposal{1, 2}));
  EXPECT_EQ(p->ranks, (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(p->first_shard, (std::vector<int>{0, 2, 3}));
}

// Parses `text` and expects the kInvalidArgument error `message` exactly.
void expect_error(const Fixture& f, const std::string& text, const std::string& message) {
  SearchSpace space = f.space;
  Result<planner::PartitionedPlan> p = parse_plan(text, "plan.json", f.scenario, space);
  ASSERT_FALSE(p.is_ok()) << text;
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), message);
}

// Every error is one line in the scenario loader's style: file, JSON path
// (which names the table), what is wrong, the value, what was expected.
TEST(ParsePlan, Errors) {
  Fixture f;
  const std::string t1 =
      R"("t1": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [0]})";
  const auto with_t0 = [&](const std::string& t0) {
    return R"({"tables": {)" + t1 + R"(, "t0": )" + t0 + "}}";
  };
  Result<planner::PartitionedPlan> p = parse_plan("{not json", "plan.json", f.scenario, f.space);
  ASSERT_FALSE(p.is_ok());
  EXPECT_TRUE(p.status().message().starts_with("plan.json: malformed JSON at line 1, column 3: "))
      << p.status().message();
  expect_error(f, R"({"tables": {)" + t1 + ", " + t1 + "}}",
               "plan.json: tables: duplicate key: got \"t1\", expected each key once per object");
  expect_error(f, "[1, 2]",
               "plan.json: <root>: must be a plan object: got [1,2], expected a ShardLab plan "
               "(\"tables\") or a "
               "TorchRec ShardingPlan (\"plan\")");
  expect_error(f, R"({"something": 1})",
               "plan.json: <root>: not a plan: expected top-level \"tables\" (a ShardLab plan) or "
               "\"plan\" (a "
               "TorchRec ShardingPlan, as the planner writes with the torchrec format)");
  expect_error(f, R"({"scenario": "tiny", "error": {"type": "partition", "message": "boom"}})",
               "plan.json: error: the file holds a failed plan, not a plan: boom");
  expect_error(f, R"({"tables": {)" + t1 + "}}",
               "plan.json: <root>: table t0 of the scenario is missing from the plan");
  expect_error(
      f,
      R"({"tables": {)" + t1 +
          R"(, "t9": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [0]}}})",
      "plan.json: tables.t9: not a table of scenario \"tiny\": got \"t9\", expected the name of a "
      "table in "
      "the scenario");
  expect_error(
      f, with_t0(R"({"sharding_type": "column_wise", "compute_kernel": "fused", "ranks": [0]})"),
      "plan.json: tables.t0.compute_kernel: no column_wise/fused option for this table in the "
      "search space, "
      "expected one of data_parallel/dense, row_wise/fused");
  expect_error(
      f, with_t0(R"({"sharding_type": "sideways", "compute_kernel": "fused", "ranks": [0]})"),
      "plan.json: tables.t0.sharding_type: unknown sharding type: got \"sideways\", expected one "
      "of "
      "data_parallel, table_wise, column_wise, table_column_wise, row_wise, table_row_wise, "
      "grid_shard");
  expect_error(
      f, with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused"})"),
      "plan.json: tables.t0.ranks: missing required key, expected a list of ranks, one per shard");
  expect_error(
      f, with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 2]})"),
      "plan.json: tables.t0.ranks[1]: must be an integer in [0, 1]: got 2");
  expect_error(
      f, with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, "1"]})"),
      "plan.json: tables.t0.ranks[1]: must be an integer in [0, 1]: got \"1\"");
  expect_error(f,
               with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0]})"),
               "plan.json: tables.t0.ranks: has 1 ranks, but the row_wise/fused option has 2 "
               "shards, expected one "
               "rank per shard");
  expect_error(
      f,
      with_t0(
          R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1], "rank": 0})"),
      "plan.json: tables.t0: unknown key: got \"rank\", expected one of module, sharding_type, "
      "compute_kernel, ranks, sharding_spec, cache_params, enforce_hbm, stochastic_rounding, "
      "bounds_check_mode, key_value_params, shards, layout");
  // Shard geometry that is not the option's.
  expect_error(f,
               with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
                  "shards": [{"offset": [0, 0], "size": [500, 64]}, {"offset": [400, 0], "size": [600, 64]}]})"),
               "plan.json: tables.t0.shards[1].offset: is not where the row_wise/fused option's "
               "shard starts: got "
               "[400,0], expected [500,0]");
  expect_error(f,
               with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
                  "shards": [{"offset": [0, 0], "size": [500]}, {}]})"),
               "plan.json: tables.t0.shards[0].size: must be a pair of integers: got [500], "
               "expected [rows, columns]");
  expect_error(f,
               with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
                  "shards": [{"rank": 1}, {}]})"),
               "plan.json: tables.t0.shards[0].rank: disagrees with ranks[0]: got 1, expected 0");
  expect_error(
      f,
      R"({"format": "torchrec.ShardingPlan", "version": 1, "plan": {"ebc": {)" + t1 +
          R"(, "t0": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
                  "sharding_spec": [{"shard_offsets": [0, 0], "shard_sizes": [500, 64], "placement": "rank:0/cuda:0"},
                                    {"shard_offsets": [500, 0], "shard_sizes": [500, 32], "placement": "rank:1/cuda:1"}]}}}})",
      "plan.json: plan.ebc.t0.sharding_spec[1].shard_sizes: is not the row_wise/fused option's "
      "shard size: "
      "got [500,32], expected [500,64]");
  expect_error(
      f,
      R"({"plan": {"ebc": {)" + t1 +
          R"(, "t0": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
                  "sharding_spec": [{"shard_offsets": [0, 0], "shard_sizes": [500, 64], "placement": "rank:1/cuda:1"},
                                    {"shard_offsets": [500, 0], "shard_sizes": [500, 64], "placement": "rank:1/cuda:1"}]}}}})",
      "plan.json: plan.ebc.t0.sharding_spec[0].placement: names a rank other than the shard's: got "
      "\"rank:1/cuda:1\", expected rank 0");
  expect_error(
      f,
      R"({"plan": {"ebc": {)" + t1 +
          R"(, "t0": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
                  "sharding_spec": [{"shard_offsets": [0, 0], "shard_sizes": [500, 64], "placement": "gpu0"}, {}]}}}})",
      "plan.json: plan.ebc.t0.sharding_spec[0].placement: not a placement: got \"gpu0\", expected "
      "\"rank:R/cuda:L\" or \"rank:R/cpu\"");
  // The same table twice (two modules).
  expect_error(f, R"({"plan": {"ebc": {)" + t1 + R"(}, "other": {)" + t1 + "}}}",
               "plan.json: plan.other.t1: table listed twice: got \"t1\", expected once (it is "
               "also at plan.ebc.t1)");
  expect_error(f, R"({"format": "something.else", "plan": {}})",
               "plan.json: format: unknown plan format: got \"something.else\", expected "
               "\"torchrec.ShardingPlan\"");
  expect_error(f, R"({"version": 2, "plan": {}})",
               "plan.json: version: unsupported plan version: got 2, expected 1");
  expect_error(
      f,
      R"({"plan": {"ebc": {)" + t1 +
          R"(, "t0": {"sharding_type": "row_wise", "compute_kernel": "fused",
                  "ranks": [0, 1], "cache_params": {"load_factor": "high"}}}}})",
      "plan.json: plan.ebc.t0.cache_params.load_factor: must be a number >= 0: got \"high\"");
  expect_error(f,
               R"({"plan": {"ebc": {)" + t1 +
                   R"(, "t0": {"sharding_type": "row_wise", "compute_kernel": "fused",
                  "ranks": [0, 1], "bounds_check_mode": "loud"}}}})",
               "plan.json: plan.ebc.t0.bounds_check_mode: unknown bounds check mode: got \"loud\", "
               "expected one of "
               "fatal, warning, ignore, none");
}

// Layouts TorchRec would not build as written are refused, not rated.
TEST(ParsePlan, LayoutsTorchRecWouldNotBuild) {
  Fixture f;
  const std::string t1 =
      R"("t1": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [0]})";
  const auto with_t0 = [&](const std::string& t0) {
    return R"({"tables": {)" + t1 + R"(, "t0": )" + t0 + "}}";
  };
  // Row-wise ranks permuted, or two row-wise shards on one rank.
  expect_error(
      f, with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [1, 0]})"),
      "plan.json: tables.t0.ranks[0]: TorchRec's row-wise sharding sends the ids of row block 0 to "
      "rank 0, "
      "so shard 0 must be there: got 1, expected rank 0");
  expect_error(
      f, with_t0(R"({"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 0]})"),
      "plan.json: tables.t0.ranks[1]: TorchRec's row-wise sharding sends the ids of row block 1 to "
      "rank 1, "
      "so shard 1 must be there: got 0, expected rank 1");
  // Data-parallel: every rank in order, and no sharding_spec of replicas.
  expect_error(
      f,
      with_t0(R"({"sharding_type": "data_parallel", "compute_kernel": "dense", "ranks": [1, 1]})"),
      "plan.json: tables.t0.ranks[0]: TorchRec replicates a data_parallel table on every rank, in "
      "rank "
      "order: got 1, expected rank 0");
  expect_error(
      f,
      R"({"plan": {"ebc": {)" + t1 +
          R"(, "t0": {"sharding_type": "data_parallel", "compute_kernel": "dense",
                  "ranks": [0, 1], "sharding_spec": [{"shard_offsets": [0, 0], "shard_sizes": [1000, 64], "placement": "rank:0/cuda:0"},
                  {"shard_offsets": [0, 0], "shard_sizes": [1000, 64], "placement": "rank:1/cuda:1"}]}}}})",
      "plan.json: plan.ebc.t0.sharding_spec: TorchRec replicates a data_parallel table whole: it "
      "has no "
      "sharding_spec: got [{\"shard_offsets\":[0,0],\"shard_sizes\":[1000,64],\"placement\":..., "
      "expected null");
  expect_error(
      f, with_t0(R"({"sharding_type": "data_parallel", "compute_kernel": "dense", "ranks": [0, 1],
                  "sharding_spec": true})"),
      "plan.json: tables.t0.sharding_spec: disagrees with the sharding type: got true, expected "
      "false for "
      "data_parallel");
}

// A table-row-wise table on a 2 x 2 cluster: its two shards go to the local
// ranks 0 and 1 of one host.
TEST(ParsePlan, TableRowWiseStaysOnOneHostInOrder) {
  Scenario s;
  s.name = "twrw";
  s.topology.world_size = 4;
  s.topology.local_world_size = 2;
  s.tables = {{.name = "t0", .num_embeddings = 1000, .embedding_dim = 64, .feature_names = {"f0"}}};
  s.constraints = {
      planner::ConstraintSpec{.sharding_types = std::vector{ShardingType::kTableRowWise},
                              .compute_kernels = std::vector{ComputeKernel::kFused}}};
  s.planner.proposers = planner::default_proposers();
  PlannerResult r = planner::plan(s, {.enumerate_only = true});
  ASSERT_TRUE(r.search_space.has_value()) << r.error.message();
  const auto parse = [&](const std::string& ranks) {
    return parse_plan(
        R"({"tables": {"t0": {"sharding_type": "table_row_wise", "compute_kernel": "fused", "ranks": )" +
            ranks + "}}}",
        "p.json", s, *r.search_space);
  };
  for (const char* ok : {"[0, 1]", "[2, 3]"}) {
    const Result<planner::PartitionedPlan> p = parse(ok);
    EXPECT_TRUE(p.is_ok()) << ok << ": " << p.status().message();
  }
  const char* kWhy =
      "TorchRec's table-row-wise sharding puts shard i on local rank i of one host (here host 0, "
      "ranks 0 to 1)";
  EXPECT_EQ(parse("[0, 2]").status().message(),
            std::string("p.json: tables.t0.ranks[1]: ") + kWhy + ": got 2, expected rank 1");
  EXPECT_EQ(parse("[1, 0]").status().message(),
            std::string("p.json: tables.t0.ranks[0]: ") + kWhy + ": got 1, expected rank 0");
  EXPECT_EQ(parse("[3, 2]").status().message(),
            "p.json: tables.t0.ranks[0]: TorchRec's table-row-wise sharding puts shard i on local "
            "rank i of one host "
            "(here host 1, ranks 2 to 3): got 3, expected rank 2");
}

// Settings the rating ignores: where the file disagrees with the scenario, a
// warning says so (the plan still reads).
TEST(ParsePlan, WarnsWhereTheFileDisagreesWithTheScenario) {
  Fixture f;
  const PlannerResult r = f.result(1, 1);
  Json doc = Json::parse(plan_to_torchrec_json(f.scenario, r));
  std::vector<std::string> warnings;
  ASSERT_TRUE(parse_plan(doc.dump(), "w.json", f.scenario, f.space, &warnings).is_ok());
  EXPECT_TRUE(warnings.empty()) << warnings.front();  // the planner's own file agrees

  Json& t0 = doc["plan"]["ebc"]["t0"];
  t0["sharding_spec"][1]["placement"] = "rank:1/cpu";
  t0["cache_params"]["load_factor"] = 0.5;
  t0["enforce_hbm"] = false;
  Result<planner::PartitionedPlan> p =
      parse_plan(doc.dump(), "w.json", f.scenario, f.space, &warnings);
  ASSERT_TRUE(p.is_ok()) << p.status().message();
  expect_same_plan(*p, *r.best);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0],
            "w.json: plan.ebc.t0.sharding_spec[1].placement: places the shard on \"rank:1/cpu\", "
            "but this scenario's "
            "rank 1 is \"rank:1/cuda:1\"; the rating uses the scenario's device");
  EXPECT_EQ(warnings[1],
            "w.json: plan.ebc.t0.cache_params: differs from the scenario's constraint (its "
            "cache_params): TorchRec "
            "would build the file's, the rating estimates the scenario's");
  EXPECT_EQ(warnings[2],
            "w.json: plan.ebc.t0.enforce_hbm: is false but the scenario's constraint says true: "
            "TorchRec would build "
            "the file's, the rating assumes the scenario's");
}

// A plan made for another number of GPUs per host names other devices for
// many shards: one warning, at the first, counts them all.
TEST(ParsePlan, CountsMisplacedShardsInOneWarning) {
  Fixture f;
  const PlannerResult r = f.result(1, 1);
  const std::string text = plan_to_torchrec_json(f.scenario, r);
  Scenario one_per_host = f.scenario;
  one_per_host.topology.local_world_size = 1;  // rank 1 is "rank:1/cuda:0" now
  std::vector<std::string> warnings;
  ASSERT_TRUE(parse_plan(text, "w.json", one_per_host, f.space, &warnings).is_ok());
  int misplaced = 0;
  std::set<std::string> tables;
  const Json doc = Json::parse(text);
  for (const auto& [name, table] : doc["plan"]["ebc"].items()) {
    if (!table["sharding_spec"].is_array()) continue;
    for (const Json& spec : table["sharding_spec"]) {
      if (spec["placement"] == "rank:1/cuda:1") {
        ++misplaced;
        tables.insert(name);
      }
    }
  }
  ASSERT_GE(misplaced, 2) << text;  // the fixture puts several shards on rank 1
  ASSERT_EQ(warnings.size(), 1u) << warnings.back();
  EXPECT_NE(warnings[0].find("places the shard on \"rank:1/cuda:1\", but this scenario's rank 1 "
                             "is \"rank:1/cuda:0\""),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find(fmt::format("; so do {} more shard", misplaced - 1)),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find(fmt::format("({} table", tables.size())), std::string::npos)
      << warnings[0];
}

TEST(ReadPlanFile, ReadsAFileAndNamesAMissingOne) {
  Fixture f;
  const PlannerResult r = f.result(1, 1);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("shardlab_plan_json_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "plan.json").string();
  {
    std::ofstream out(path);
    out << plan_to_torchrec_json(f.scenario, r);
  }
  Result<planner::PartitionedPlan> p = read_plan_file(path, f.scenario, f.space);
  ASSERT_TRUE(p.is_ok()) << p.status().message();
  expect_same_plan(*p, *r.best);

  const std::string missing = (dir / "nope.json").string();
  Result<planner::PartitionedPlan> q = read_plan_file(missing, f.scenario, f.space);
  ASSERT_FALSE(q.is_ok());
  EXPECT_EQ(q.status().code(), StatusCode::kNotFound);
  EXPECT_NE(q.status().message().find(missing), std::string::npos);
  // The scenario loader's limits: a directory, or a device that never ends.
  Result<planner::PartitionedPlan> d = read_plan_file(dir.string(), f.scenario, f.space);
  ASSERT_FALSE(d.is_ok());
  EXPECT_EQ(d.status().message(), dir.string() + ": cannot read plan file: is a directory");
  if (std::filesystem::exists("/dev/zero")) {
    Result<planner::PartitionedPlan> z = read_plan_file("/dev/zero", f.scenario, f.space);
    ASSERT_FALSE(z.is_ok());
    EXPECT_EQ(z.status().message(), "/dev/zero: cannot read plan file: not a regular file");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shardlab::data
