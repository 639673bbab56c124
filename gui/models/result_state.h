// Whether a result on screen belongs to the scenario and settings on screen
// (the workbench's plan_state(), the comparison's state()).
//
// Threading: values; reentrant.
#pragma once

#include <QString>

#include "models/planning_job.h"

namespace shardlab::gui {

struct ResultState {
  enum class Freshness { kNone, kCurrent, kStale };
  Freshness freshness = Freshness::kNone;
  bool refreshing = false;  // a request that replaces it is running
  QString reason;           // why it is stale (or why there is none)

  bool current() const { return freshness == Freshness::kCurrent; }
  bool stale() const { return freshness == Freshness::kStale; }
};

// Why a result computed with `then` is stale under `now` ("the rating model
// changed", "the calibration profile changed", "the simulated iterations
// changed"), or empty when the settings are the same.
QString settings_difference(const PlanSettings& then, const PlanSettings& now);

}  // namespace shardlab::gui
