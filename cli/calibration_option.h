// --calibration PROFILE on the verbs that rate shards (plan, options,
// simulate): a calibration profile (docs/calibration.md) whose parameters
// replace TorchRec's constants in the per-shard perf model.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "shardlab/data/calibration_json.h"
#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/status.h"

namespace shardlab::cli {

// Adds --calibration PROFILE to `cmd`, storing the path in *path. `help`
// replaces the text of the verbs that rate shards (sweep rates none).
void add_calibration_option(CLI::App* cmd, std::string* path, std::string help = {});

// The profile a verb was given, loaded once; empty when --calibration was not.
class CalibrationChoice {
 public:
  // Loads `path` when it is non-empty. Errors name the file, field and value
  // (invalid_scenario, or io_error when the file cannot be read). The path
  // kTorchRecConstants ("torchrec") is no file: it asks for TorchRec's
  // constants even under a GPU preset, whose default profile it drops from
  // `scenario` (a file of that name is "./torchrec").
  static Result<CalibrationChoice> load(const std::string& path, planner::Scenario* scenario);
  static constexpr const char* kTorchRecConstants = "torchrec";

  // The parameters for PlannerOptions::calibration; null without a profile.
  // Valid while this object lives.
  const planner::CostCalibration* get() const { return profile_ ? &profile_->parameters : nullptr; }
  // What rates the shards, for summary lines: "; calibration NAME" with a
  // profile, "; preset NAME default profile" under a GPU preset that brings
  // one (docs/presets.md), "; TorchRec's constants" when asked for them under
  // a preset, else "" (TorchRec's constants).
  std::string note(const planner::Scenario& scenario) const;

  // Warns (stderr) when the planned shards use (kernel, dim class) pairs the
  // profile has no bandwidth for: those keep TorchRec's figures, which can
  // make an unmeasured kernel look faster than a measured one. No-op without
  // a profile or a plan.
  void warn_uncalibrated(const planner::PlannerResult& result) const;

 private:
  std::optional<data::CalibrationProfile> profile_;
  bool torchrec_ = false;  // kTorchRecConstants
};

}  // namespace shardlab::cli
