#include "calibration_option.h"

#include <set>
#include <utility>

#include "cli_common.h"

namespace shardlab::cli {

void add_calibration_option(CLI::App* cmd, std::string* path, std::string help) {
  if (help.empty()) {
    help =
        "Rate shards with the cost-model parameters of this calibration profile (written by "
        "'shardlab calibrate'; docs/calibration.md) instead of TorchRec's constants, or with "
        "TorchRec's constants even under a GPU preset: 'torchrec' (default: the preset's default "
        "profile under topology.gpu, else TorchRec's constants; docs/presets.md)";
  }
  cmd->add_option("--calibration", *path, std::move(help))->type_name("PROFILE");
}

Result<CalibrationChoice> CalibrationChoice::load(const std::string& path,
                                                  planner::Scenario* scenario) {
  CalibrationChoice choice;
  if (path.empty()) return choice;
  if (path == kTorchRecConstants) {
    choice.torchrec_ = true;
    scenario->preset_calibration.reset();
    return choice;
  }
  Result<data::CalibrationProfile> profile = data::load_calibration_file(path);
  if (!profile.is_ok()) return profile.status();
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

void CalibrationChoice::warn_uncalibrated(const planner::PlannerResult& result) const {
  if (!profile_ || !result.best || !result.search_space) return;
  std::set<std::string> missing;
  for (int index : result.best->proposal) {
    const planner::ShardingOption& o = result.search_space->options[static_cast<size_t>(index)];
    const int64_t dim = o.shards.empty() ? o.tensor_cols : o.shards.front().cols;
    const planner::DimClass c = planner::dim_class(dim);
    if (profile_->parameters.bandwidth(o.compute_kernel, c)) continue;
    missing.insert(std::string(planner::to_string(o.compute_kernel)) + "/" +
                   std::string(planner::to_string(c)));
  }
  if (missing.empty()) return;
  std::string list;
  for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
  print_warning("calibration profile '" + shown(profile_->name) + "' has no bandwidth for " + list +
                ", used by the plan: those shards keep TorchRec's figures (calibrate them, or "
                "constrain the tables' "
                "compute_kernels)");
}

}  // namespace shardlab::cli
