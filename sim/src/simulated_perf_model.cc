#include "shardlab/sim/simulated_perf_model.h"

#include <limits>

namespace shardlab::sim {

SimulatedPerfModel::SimulatedPerfModel(const planner::Scenario& scenario, SimOptions options)
    : scenario_(scenario), options_(options) {
  options_.record_phases = false;
}

double SimulatedPerfModel::rate(const planner::SearchSpace& space,
                                const planner::PartitionedPlan& plan, const planner::Topology&,
                                const std::vector<double>&) {
  ++simulations_;
  auto result = simulate(scenario_, space, plan, options_);
  // A plan the simulator cannot run (an invalid fabric) is never preferred;
  // the CLI validates the fabric before planning, so this is a safety net.
  if (!result) return std::numeric_limits<double>::infinity();
  return result->iteration_ms;
}

}  // namespace shardlab::sim
