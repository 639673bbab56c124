// Every bundled scenario (data/scenarios/) simulates, and its Chrome trace is
// well formed: each complete event carries the fields a trace viewer needs,
// no duration is negative, and the events of one stream of one GPU (a
// (pid, tid) track) never overlap, since a stream runs one phase at a time.

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli_fixture.h"

namespace {

using namespace shardlab_cli_test;

// Trace timestamps are microseconds; differences below this are rounding.
constexpr double kSlackUs = 1e-6;

std::vector<fs::path> bundled_scenarios() {
  std::vector<fs::path> out;
  for (const auto& entry :
       fs::directory_iterator(fs::path(SHARDLAB_SOURCE_DIR) / "data" / "scenarios")) {
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void check_trace(const Json& trace) {
  ASSERT_TRUE(trace.contains("traceEvents"));
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>>
      tracks;  // (pid, tid) -> (ts, dur)
  for (const Json& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph")) << e.dump();
    if (e["ph"] != "X") continue;
    for (const char* field : {"name", "cat", "ph", "ts", "dur", "pid", "tid"}) {
      ASSERT_TRUE(e.contains(field)) << field << " missing in " << e.dump();
    }
    ASSERT_TRUE(e["name"].is_string() && e["cat"].is_string()) << e.dump();
    ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number()) << e.dump();
    ASSERT_TRUE(e["pid"].is_number_integer() && e["tid"].is_number_integer()) << e.dump();
    EXPECT_GE(e["dur"].get<double>(), 0.0) << e.dump();
    tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(e["ts"].get<double>(),
                                                                    e["dur"].get<double>());
  }
  EXPECT_FALSE(tracks.empty());
  for (auto& [track, events] : tracks) {
    std::sort(events.begin(), events.end());
    for (size_t i = 1; i < events.size(); ++i) {
      const double previous_end = events[i - 1].first + events[i - 1].second;
      EXPECT_GE(events[i].first, previous_end - kSlackUs)
          << "pid " << track.first << " tid " << track.second << ": event at " << events[i].first
          << " us starts before the previous one ends at " << previous_end << " us";
    }
  }
}

TEST_F(CliTest, TraceOfEveryBundledScenarioIsWellFormed) {
  const std::vector<fs::path> scenarios = bundled_scenarios();
  ASSERT_FALSE(scenarios.empty());
  for (const fs::path& scenario : scenarios) {
    SCOPED_TRACE(scenario.filename().string());
    const std::string trace = path("trace.json");
    const CliRun r =
        run({"simulate", scenario.string(), "--iterations", "2", "--trace", trace, "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    check_trace(Json::parse(read_file(trace)));
  }
}

}  // namespace
