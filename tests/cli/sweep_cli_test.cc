// shardlab sweep through the real binary: sizes and their errors, the
// all-to-all's algorithm, the --calibration text; and the scenario files the
// examples of every verb's --help name, which must exist.

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace shardlab_cli_test {
namespace {

const std::string kSource = SHARDLAB_SOURCE_DIR;
const std::string kH100 = kSource + "/data/scenarios/validation/mlperf_dcnv2_h100_sxm.json";

class SweepCliTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    ::setenv("SHARDLAB_NO_RECORD", "1", 1);
  }
};

// A step factor is a finite number above 1: NaN and infinities are refused
// as numbers out of range are.
TEST_F(SweepCliTest, TheFactorIsAFiniteNumberAboveOne) {
  for (const std::string factor : {"nan", "NaN", "inf", "-inf", "1", "0.5"}) {
    const CliRun r = run({"sweep", kH100, "--factor", factor});
    EXPECT_EQ(r.exit_code, 2) << factor;
    EXPECT_NE(r.err.find("--factor: " + factor), std::string::npos) << factor << ": " << r.err;
  }
}

// An option given with an empty value is refused, whatever its verb and type:
// it never silently means the option's default.
TEST_F(SweepCliTest, AnEmptyValueIsNeverTheDefault) {
  const std::vector<std::vector<std::string>> runs = {
      {"sweep", kH100, "--factor", ""},  {"sweep", kH100, "--min-bytes", ""},
      {"sweep", kH100, "-o", ""},        {"simulate", kH100, "--iterations", ""},
      {"optimize", kH100, "--seed", ""}, {"plan", ""},
      {"runs", "list", "--db", ""},
  };
  for (const std::vector<std::string>& args : runs) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[args.size() - 2];
    EXPECT_NE(r.err.find("\"\" is empty: give a value, or leave the option out for its default"),
              std::string::npos)
        << args[0] << " " << args[args.size() - 2] << ": " << r.err;
  }
}

TEST_F(SweepCliTest, SizesBelowOneByteSayHowBigASizeMustBe) {
  for (const std::string size : {"0", "0 B", "0.0", "-8"}) {
    const CliRun r = run({"sweep", kH100, "--min-bytes", size});
    EXPECT_EQ(r.exit_code, 2) << size;
    EXPECT_NE(r.err.find("--min-bytes: must be at least 1 byte, got " + size), std::string::npos)
        << r.err;
  }
  CliRun r = run({"sweep", kH100, "--max-bytes", "1.5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-bytes: not a whole number of bytes: 1.5"), std::string::npos)
      << r.err;
  r = run({"sweep", kH100, "--min-bytes", "8", "--max-bytes", "16"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run({"sweep", kH100, "--min-bytes", "1 KiB", "--max-bytes", "2KiB"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  1024 "), std::string::npos) << r.out;
}

TEST_F(SweepCliTest, AllToAllIsPairwiseAndKeepsItsNumbers) {
  const CliRun r = run({"sweep", kH100, "--collective", "all_to_all", "--min-bytes", "1KiB",
                        "--max-bytes", "1MiB", "--factor", "1024", "-o", path("a2a.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(" ring "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" pairwise LL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" pairwise Simple"), std::string::npos) << r.out;
  const Json j = Json::parse(read_file(path("a2a.json")));
  ASSERT_EQ(j["points"].size(), 2u);
  for (const Json& p : j["points"]) {
    EXPECT_EQ(p["algorithm"], "pairwise");
    EXPECT_GT(p["time_us"].get<double>(), 0.0);
  }
  // The collectives with an algorithm of NCCL's still name it.
  const CliRun ar = run({"sweep", kH100, "--min-bytes", "1MiB", "--max-bytes", "1MiB"});
  ASSERT_EQ(ar.exit_code, 0) << ar.err;
  EXPECT_EQ(ar.out.find("pairwise"), std::string::npos) << ar.out;
}

TEST_F(SweepCliTest, CalibrationHelpSaysWhatItChangesInASweep) {
  const CliRun r = run({"sweep", "--help"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find("Rate shards"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("communication bandwidth and latency"), std::string::npos) << r.out;
  // The verbs that rate shards keep their text.
  EXPECT_NE(run({"plan", "--help"}).out.find("Rate shards with the cost-model parameters"),
            std::string::npos);
}

// Every data/scenarios/...json path quoted in a verb's --help exists.
TEST_F(SweepCliTest, EveryScenarioFileTheHelpNamesExists) {
  const CliRun top = run({"--help"});
  ASSERT_EQ(top.exit_code, 0);
  // The verbs, from the top-level listing: "  NAME  description" lines
  // after "Subcommands:".
  std::vector<std::vector<std::string>> helps = {{"--help"}};
  std::set<std::string> verbs;
  std::istringstream lines(top.out.substr(top.out.find("Subcommands:\n") + 13));
  for (std::string line; std::getline(lines, line) && line.rfind("  ", 0) == 0;)
    verbs.insert(line.substr(2, line.find(' ', 2) - 2));
  ASSERT_GE(verbs.size(), 12u) << top.out;
  for (const std::string& v : verbs) helps.push_back({v, "--help"});
  for (const char* sub : {"list", "show", "export", "diff", "delete", "prune", "label", "check"})
    helps.push_back({"runs", sub, "--help"});
  const std::regex scenario_path(R"(data/scenarios/[A-Za-z0-9_./-]+\.json)");
  int named = 0;
  for (const std::vector<std::string>& args : helps) {
    const CliRun r = run(args);
    ASSERT_EQ(r.exit_code, 0) << args.front() << ": " << r.err;
    for (std::sregex_iterator it(r.out.begin(), r.out.end(), scenario_path), end; it != end; ++it) {
      ++named;
      EXPECT_TRUE(fs::exists(kSource + "/" + it->str()))
          << args.front() << " --help names " << it->str() << ", which does not exist";
    }
  }
  EXPECT_GT(named, 0);
}

}  // namespace
}  // namespace shardlab_cli_test
