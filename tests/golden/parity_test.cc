// Parity with TorchRec: for every golden pair of every TorchRec version,
// ShardLab's options, plan, counters, reservation and errors must equal
// TorchRec's (perf within a relative 1e-9, bytes and placements exact) when
// the scenario is planned with that version (planner.torchrec_version).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "golden_files.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"

namespace shardlab {
namespace {

using nlohmann::json;
using planner::PlannerResult;
using planner::ShardingOption;

constexpr double kRelTol = 1e-9;

bool close(double want, double got) {
  return want == got ||
         std::fabs(want - got) <= kRelTol * std::max(std::fabs(want), std::fabs(got)) ||
         std::fabs(want - got) < 1e-15;
}

json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

std::string expected_error_type(const json& err) {
  if (err.value("stage", "") == "build") return "invalid_scenario";
  if (err.value("exception", "") == "PlannerError") {
    return err["error_type"].is_string() ? err["error_type"].get<std::string>() : "other";
  }
  if (err.value("message", "").find("No available sharding type and compute kernel") !=
      std::string::npos) {
    return "no_options";
  }
  return "other";
}

// A golden storage object {hbm, ddr} (and ssd in the goldens of TorchRec
// 2026-08's SSD tier; without it the SSD must be 0).
bool same_storage(const json& g, const planner::Storage& s) {
  return g["hbm"].get<int64_t>() == s.hbm && g["ddr"].get<int64_t>() == s.ddr &&
         g.value("ssd", int64_t{0}) == s.ssd;
}

// Compares one shard (size, offset, perf terms, storage) and records mismatches.
void compare_shard(const std::string& where, const json& g, const ShardingOption& o, int j,
                   std::vector<std::string>* out) {
  const planner::Shard& s = o.shards[j];
  if (g["size"] != json::array({s.rows, s.cols})) out->push_back(where + ".size");
  if (g["offset"] != json::array({s.row_offset, s.col_offset})) out->push_back(where + ".offset");
  const auto& p = o.shard_perf;
  const std::pair<const char*, double> terms[] = {{"fwd_compute", p.fwd_compute},
                                                  {"fwd_comms", p.fwd_comms},
                                                  {"bwd_compute", p.bwd_compute},
                                                  {"bwd_comms", p.bwd_comms},
                                                  {"prefetch_compute", p.prefetch_compute}};
  for (const auto& [k, v] : terms) {
    if (!close(g["perf"][k].get<double>(), v)) {
      out->push_back(where + ".perf." + k + ": want " + g["perf"][k].dump() + " got " +
                     json(v).dump());
    }
  }
  if (!same_storage(g["storage"], s.storage)) {
    out->push_back(
        where + ".storage: want " + g["storage"].dump() + " got " +
        json({{"hbm", s.storage.hbm}, {"ddr", s.storage.ddr}, {"ssd", s.storage.ssd}}).dump());
  }
}

std::string summary(const std::vector<std::string>& m) {
  std::string s = std::to_string(m.size()) + " mismatches:";
  for (size_t i = 0; i < m.size() && i < 6; ++i) s += "\n  " + m[i];
  return s;
}

class GoldenParity : public ::testing::TestWithParam<testing::GoldenPair> {};

TEST_P(GoldenParity, MatchesTorchRec) {
  const auto& pair = GetParam();
  const json golden = read_json(pair.golden);
  auto scenario = data::load_scenario_file(pair.scenario.string());
  const json& gerr = golden["error"];
  if (!gerr.is_null() && gerr.value("stage", "") == "build") {
    ASSERT_FALSE(scenario.is_ok()) << "TorchRec refused this scenario at build time";
    EXPECT_EQ(scenario.status().code(), StatusCode::kInvalidArgument);
    return;
  }
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  scenario->planner.torchrec_version = pair.version;
  const PlannerResult result = planner::plan(*scenario);
  std::vector<std::string> mismatches;

  // Reservation.
  if (golden.contains("reserved") && golden["reserved"].is_object()) {
    ASSERT_TRUE(result.reserved.has_value()) << result.error.message();
    const auto& gdev = golden["reserved"]["devices"];
    ASSERT_EQ(gdev.size(), result.reserved->devices.size());
    for (size_t r = 0; r < gdev.size(); ++r) {
      // The reservation keeps each device's SSD; goldens without the tier have none.
      const bool ssd_ok = !gdev[r].contains("ssd") ||
                          gdev[r]["ssd"].get<int64_t>() == result.reserved->devices[r].ssd;
      if (gdev[r]["hbm"].get<int64_t>() != result.reserved->devices[r].hbm ||
          gdev[r]["ddr"].get<int64_t>() != result.reserved->devices[r].ddr || !ssd_ok) {
        mismatches.push_back("reserved[" + std::to_string(r) + "]: want " + gdev[r].dump());
      }
    }
  } else {
    EXPECT_FALSE(result.reserved.has_value());
  }

  // Options: same list, same order, same numbers.
  if (golden.contains("options") && golden["options"].is_array()) {
    ASSERT_TRUE(result.search_space.has_value()) << result.error.message();
    const auto& gopts = golden["options"];
    const auto& opts = result.search_space->options;
    ASSERT_EQ(gopts.size(), result.search_space->num_enumerated()) << "option count";
    for (size_t i = 0; i < gopts.size(); ++i) {
      const json& g = gopts[i];
      const ShardingOption& o = opts[i];
      const std::string where = "option[" + std::to_string(i) + "] " + o.fqn + "/" +
                                std::string(to_string(o.sharding_type)) + "/" +
                                std::string(to_string(o.compute_kernel));
      if (g["fqn"] != o.fqn || g["sharding_type"] != to_string(o.sharding_type) ||
          g["compute_kernel"] != to_string(o.compute_kernel)) {
        mismatches.push_back(where + ": want " + g["fqn"].dump() + "/" + g["sharding_type"].dump() +
                             "/" + g["compute_kernel"].dump());
        continue;
      }
      if (g["shards"].size() != o.shards.size()) {
        mismatches.push_back(where + ": shard count");
        continue;
      }
      for (size_t j = 0; j < o.shards.size(); ++j) {
        compare_shard(where + ".shards[" + std::to_string(j) + "]", g["shards"][j], o,
                      static_cast<int>(j), &mismatches);
      }
    }
  } else {
    EXPECT_FALSE(result.search_space.has_value());
  }

  // Counters.
  if (golden["num_proposals"].is_number()) {
    EXPECT_EQ(golden["num_proposals"].get<int>(), result.num_proposals);
    EXPECT_EQ(golden["num_plans"].get<int>(), result.num_plans);
  }

  // Error or plan.
  if (!gerr.is_null()) {
    EXPECT_FALSE(result.ok());
    ASSERT_EQ(result.error.code(), StatusCode::kPlanner) << result.error.message();
    EXPECT_EQ(expected_error_type(gerr), to_string(result.error.planner_error()))
        << result.error.message();
  } else {
    ASSERT_TRUE(result.ok()) << result.error.message();
    const json& gplan = golden["plan"];
    if (!close(gplan["perf_rating_ms"].get<double>(), result.perf_rating)) {
      mismatches.push_back("perf_rating_ms: want " + gplan["perf_rating_ms"].dump() + " got " +
                           json(result.perf_rating).dump());
    }
    const auto& space = *result.search_space;
    const auto& best = *result.best;
    for (size_t i = 0; i < best.proposal.size(); ++i) {
      const ShardingOption& o = space.options[best.proposal[i]];
      if (!gplan["tables"].contains(o.name)) {
        mismatches.push_back("unexpected table " + o.name);
        continue;
      }
      const json& gt = gplan["tables"][o.name];
      if (gt["sharding_type"] != to_string(o.sharding_type) ||
          gt["compute_kernel"] != to_string(o.compute_kernel)) {
        mismatches.push_back(o.name + ": want " + gt["sharding_type"].dump() + "/" +
                             gt["compute_kernel"].dump() + " got " +
                             std::string(to_string(o.sharding_type)) + "/" +
                             std::string(to_string(o.compute_kernel)));
        continue;
      }
      std::vector<int> ranks(best.ranks.begin() + best.first_shard[i],
                             best.ranks.begin() + best.first_shard[i + 1]);
      if (gt["ranks"] != json(ranks)) {
        mismatches.push_back(o.name + ".ranks: want " + gt["ranks"].dump() + " got " +
                             json(ranks).dump());
      }
      for (size_t j = 0; j < o.shards.size() && j < gt["shards"].size(); ++j) {
        compare_shard(o.name + ".shards[" + std::to_string(j) + "]", gt["shards"][j], o,
                      static_cast<int>(j), &mismatches);
      }
    }
    EXPECT_EQ(gplan["tables"].size(), best.proposal.size());
  }
  EXPECT_TRUE(mismatches.empty()) << summary(mismatches);
}

// SHARDLAB_GOLDEN_MAX_MB raises the size limit (e.g. 100 to include the
// 43 MB golden of the 512-table scenario).
INSTANTIATE_TEST_SUITE_P(
    Goldens, GoldenParity,
    ::testing::ValuesIn(testing::find_golden_pairs(testing::golden_max_bytes())),
    [](const auto& info) { return info.param.id; });

}  // namespace
}  // namespace shardlab
