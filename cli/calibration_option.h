// --calibration PROFILE on the verbs that rate shards (plan, options,
// simulate): a calibration profile (docs/calibration.md) whose parameters
// replace TorchRec's constants in the per-shard perf model.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "shardlab/data/calibration_choice.h"
#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/status.h"

namespace shardlab::cli {

// Adds --calibration PROFILE to `cmd`, storing the path in *path. `help`
// replaces the text of the verbs that rate shards (sweep rates none).
void add_calibration_option(CLI::App* cmd, std::string* path, std::string help = {});

// The profile a verb was given (data/calibration_choice.h), loaded once;
// empty when --calibration was not.
using data::CalibrationChoice;

// Warns (stderr) when the planned shards use (kernel, dim class) pairs the
// profile has no bandwidth for: those keep TorchRec's figures, which can make
// an unmeasured kernel look faster than a measured one.
void warn_uncalibrated(const CalibrationChoice& choice, const planner::PlannerResult& result);

}  // namespace shardlab::cli
