#include "calibration_option.h"

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

void warn_uncalibrated(const CalibrationChoice& choice, const planner::PlannerResult& result) {
  const std::string missing = choice.uncalibrated(result);
  if (missing.empty()) return;
  print_warning("calibration profile '" + shown(choice.profile()->name) +
                "' has no bandwidth for " + missing +
                ", used by the plan: those shards keep TorchRec's figures (calibrate them, or "
                "constrain the tables' "
                "compute_kernels)");
}

}  // namespace shardlab::cli
