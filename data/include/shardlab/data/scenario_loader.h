// Loading scenario files (docs/scenario-format.md) with validation.
//
// Every error names the file, the JSON path (e.g. `tables[3].embedding_dim`),
// the offending value and what was expected; malformed JSON reports line and
// column. Errors are StatusCode::kInvalidArgument (CLI exit status 2), or
// Status::io_error when the file cannot be read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::data {

// Reads and validates the scenario at `path`.
Result<planner::Scenario> load_scenario_file(const std::string& path);

// Parses and validates `text`; `origin` names the source in error messages.
Result<planner::Scenario> parse_scenario(const std::string& text, const std::string& origin);

// What `shardlab validate` reports of the scenario at `path`: the scenario
// when it loads, else every problem found, each as load_scenario_file would
// report it alone. Every member's value, type and name is checked and each
// problem named (a member that does not convert is read on as absent); the
// checks across members (limits, constraints naming tables, TorchRec's
// build-time refusals) run on what converted, so they report only when no
// member failed: fix those first, and run it again.
struct ScenarioCheck {
  std::optional<planner::Scenario> scenario;
  std::vector<Status> problems;  // empty exactly when `scenario` is set
};
ScenarioCheck check_scenario_file(const std::string& path);
// The same for `text`; `origin` names the source in the messages.
ScenarioCheck check_scenario(const std::string& text, const std::string& origin);

// Unit strings (docs/scenario-format.md): "32 GiB" -> bytes; "897 GiB/s" -> bytes/ms.
// Errors are plain messages saying what was expected.
Result<int64_t> parse_size_string(const std::string& text);
Result<double> parse_bandwidth_string(const std::string& text);
// The other way, for people: "512 B", "1.50 KiB", "3.20 GiB" (binary units,
// two decimals), "-" for NaN and infinities.
std::string format_bytes(double bytes);

}  // namespace shardlab::data
