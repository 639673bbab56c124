// The calibration a verb rates shards with (docs/calibration.md,
// docs/presets.md), chosen once for every front end: a profile file, TorchRec's
// constants even under a GPU preset ("torchrec"), or nothing (the preset's
// default profile under topology.gpu, else TorchRec's constants).
#pragma once

#include <optional>
#include <string>

#include "shardlab/data/calibration_json.h"
#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::data {

class CalibrationChoice {
 public:
  // "torchrec" is no file: it asks for TorchRec's constants even under a GPU
  // preset, whose default profile it drops from the scenario (a file of that
  // name is "./torchrec").
  static constexpr const char* kTorchRecConstants = "torchrec";

  // Loads `path` when it is non-empty (see above). Errors name the file,
  // field and value (load_calibration_file's): kInvalidArgument for a bad
  // profile, kNotFound for a missing file, kIo for one that cannot be read.
  static Result<CalibrationChoice> load(const std::string& path, planner::Scenario* scenario);
  // The same from a profile's JSON text named `origin` (kInvalidArgument).
  static Result<CalibrationChoice> parse(const std::string& text, const std::string& origin);

  // The parameters for PlannerOptions::calibration; null without a profile.
  // Valid while this object lives.
  const planner::CostCalibration* get() const { return profile_ ? &profile_->parameters : nullptr; }
  // What rates the shards, for summary lines: "; calibration NAME" with a
  // profile, "; preset NAME default profile" under a GPU preset that brings
  // one, "; TorchRec's constants" when asked for them under a preset, else ""
  // (TorchRec's constants).
  std::string note(const planner::Scenario& scenario) const;
  // The (kernel/dim class) pairs, comma-separated, that the plan's shards use
  // and the profile has no bandwidth for (those keep TorchRec's figures);
  // empty without a profile, a plan, or such pairs.
  std::string uncalibrated(const planner::PlannerResult& result) const;
  const std::optional<CalibrationProfile>& profile() const { return profile_; }

 private:
  std::optional<CalibrationProfile> profile_;
  bool torchrec_ = false;  // kTorchRecConstants
};

}  // namespace shardlab::data
