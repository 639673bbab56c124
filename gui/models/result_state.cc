#include "models/result_state.h"

namespace shardlab::gui {

QString settings_difference(const PlanSettings& then, const PlanSettings& now) {
  if (then.perf_model != now.perf_model) return QStringLiteral("the rating model changed");
  if (then.calibration != now.calibration) return QStringLiteral("the calibration profile changed");
  if (then.sim_iterations != now.sim_iterations)
    return QStringLiteral("the simulated iterations changed");
  return {};
}

}  // namespace shardlab::gui
