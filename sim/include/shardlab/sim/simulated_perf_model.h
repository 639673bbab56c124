// The simulator as a planner perf model: a plan's rating is its simulated
// steady-state iteration time in ms (shardlab plan --perf-model simulated).
#pragma once

#include <string_view>
#include <vector>

#include "shardlab/planner/perf_model.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {

class SimulatedPerfModel final : public planner::PerfModel {
 public:
  // `scenario` must outlive the model. Phase records are never kept.
  SimulatedPerfModel(const planner::Scenario& scenario, SimOptions options = {});

  std::string_view name() const override { return "simulated"; }
  double rate(const planner::SearchSpace& space, const planner::PartitionedPlan& plan,
              const planner::Topology& topology,
              const std::vector<double>& device_perf_total) override;

  int simulations() const { return simulations_; }

 private:
  const planner::Scenario& scenario_;
  SimOptions options_;
  int simulations_ = 0;
};

}  // namespace shardlab::sim
