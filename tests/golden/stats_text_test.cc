// EmbeddingStats printout against TorchRec's own (docs/cost-model.md §10): for
// every golden pair NAME.json + NAME.golden.json of every TorchRec version,
// plan the scenario with that version, format the stats and compare with the
// golden's `stats_text` line by line.
//
// Goldens come from golden_files.h (the bundled copies and, when the checkout
// sits beside a shared/ folder, the full reference sets). Skipped: goldens
// over the size limit (SHARDLAB_GOLDEN_MAX_MB, 20 MB) and build-stage errors.
// Where TorchRec logged no stats (empty stats_text: failures before the
// proposal loop), format_stats must print nothing either.
//
// The run time in "--- Evaluated P proposal(s), found N possible plan(s), ran
// for T.TTs ---" is TorchRec's; the test formats our stats with the golden's
// T.TT in place of our own wall time, so that line (and its centring) must
// match too.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "golden_files.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/stats.h"

namespace shardlab {
namespace {

using GoldenCase = testing::GoldenPair;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Readable form of a long padded line: trailing spaces before the closing
// "#" trimmed.
std::string trimmed(const std::string& s) {
  if (s.size() < 2 || s.back() != '#') return s;
  size_t end = s.size() - 1;
  while (end > 1 && s[end - 1] == ' ') --end;
  return s.substr(0, end) + "...#";
}

class StatsTextGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(StatsTextGolden, MatchesTorchRec) {
  const GoldenCase& c = GetParam();
  nlohmann::json golden;
  {
    std::ifstream in(c.golden);
    ASSERT_TRUE(in) << "cannot read " << c.golden;
    golden = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(golden.is_discarded()) << "malformed JSON in " << c.golden;
  }
  const auto& error = golden.value("error", nlohmann::json());
  if (error.is_object() && error.value("stage", "") == "build") {
    // TorchRec refused the model before planning: so does the loader, and
    // there is no table to print.
    EXPECT_FALSE(data::load_scenario_file(c.scenario.string()).is_ok());
    return;
  }
  ASSERT_TRUE(golden.contains("stats_text") && golden["stats_text"].is_string())
      << "no stats_text in " << c.golden;
  const std::vector<std::string> expected = split_lines(golden["stats_text"].get<std::string>());

  Result<planner::Scenario> scenario = data::load_scenario_file(c.scenario.string());
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  scenario->planner.torchrec_version = c.version;
  planner::PlannerResult result = planner::plan(*scenario);

  // TorchRec logged no stats (failure before the proposal loop): neither do we.
  if (expected.empty()) {
    const std::vector<std::string> actual = planner::format_stats(*scenario, result);
    EXPECT_TRUE(actual.empty()) << c.name << ": TorchRec printed no stats, we printed "
                                << actual.size() << " lines, first: " << actual.front();
    return;
  }
  ASSERT_GE(expected.size(), 3u);

  // Our stats with TorchRec's run time.
  static const std::regex kRanFor(R"(ran for ([0-9]+\.[0-9]+)s ---)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(expected[2], m, kRanFor)) << "no run time in: " << expected[2];
  result.wall_seconds = std::stod(m[1].str());

  const std::vector<std::string> actual = planner::format_stats(*scenario, result);
  ASSERT_FALSE(actual.empty()) << "format_stats printed nothing; planner status: "
                               << result.error.message();

  const size_t n = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    if (expected[i] != actual[i]) {
      FAIL() << c.name << ": first difference at line " << (i + 1) << " of " << expected.size()
             << " (width expected " << expected[0].size() << ", got " << actual[0].size() << ")\n"
             << "  expected: " << trimmed(expected[i]) << "\n"
             << "  actual:   " << trimmed(actual[i]);
    }
  }
  EXPECT_EQ(actual.size(), expected.size()) << c.name << ": line counts differ; first extra line: "
                                            << trimmed(actual.size() > n ? actual[n] : expected[n]);
}

INSTANTIATE_TEST_SUITE_P(
    Goldens, StatsTextGolden,
    ::testing::ValuesIn(testing::find_golden_pairs(testing::golden_max_bytes())),
    [](const auto& info) { return info.param.id; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StatsTextGolden);

}  // namespace
}  // namespace shardlab
