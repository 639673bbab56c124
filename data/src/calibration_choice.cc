#include "shardlab/data/calibration_choice.h"

#include <set>
#include <utility>

#include "shardlab/data/message_text.h"

namespace shardlab::data {

Result<CalibrationChoice> CalibrationChoice::load(const std::string& path,
                                                  planner::Scenario* scenario) {
  CalibrationChoice choice;
  if (path.empty()) return choice;
  if (path == kTorchRecConstants) {
    choice.torchrec_ = true;
    scenario->preset_calibration.reset();
    return choice;
  }
  Result<CalibrationProfile> profile = load_calibration_file(path);
  if (!profile.is_ok()) return profile.status();
  choice.profile_ = std::move(profile).value();
  return choice;
}

Result<CalibrationChoice> CalibrationChoice::parse(const std::string& text,
                                                   const std::string& origin) {
  Result<CalibrationProfile> profile = parse_calibration(text, origin);
  if (!profile.is_ok()) return profile.status();
  CalibrationChoice choice;
  choice.profile_ = std::move(profile).value();
  return choice;
}

std::string CalibrationChoice::note(const planner::Scenario& scenario) const {
  if (profile_) return "; calibration " + shown(profile_->name);
  if (torchrec_ && scenario.gpu) return "; TorchRec's constants";
  if (scenario.gpu && scenario.preset_calibration)
    return "; preset " + scenario.gpu->name + " default profile";
  return std::string();
}

std::string CalibrationChoice::uncalibrated(const planner::PlannerResult& result) const {
  if (!profile_ || !result.best || !result.search_space) return std::string();
  std::set<std::string> missing;
  for (int index : result.best->proposal) {
    const planner::ShardingOption& o = result.search_space->options[static_cast<size_t>(index)];
    const int64_t dim = o.shards.empty() ? o.tensor_cols : o.shards.front().cols;
    const planner::DimClass c = planner::dim_class(dim);
    if (profile_->parameters.bandwidth(o.compute_kernel, c)) continue;
    missing.insert(std::string(planner::to_string(o.compute_kernel)) + "/" +
                   std::string(planner::to_string(c)));
  }
  std::string list;
  for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
  return list;
}

}  // namespace shardlab::data
