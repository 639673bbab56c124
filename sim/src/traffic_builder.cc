#include "shardlab/sim/traffic_builder.h"

#include <utility>

#include "traffic.h"

namespace shardlab::sim {

TrafficBuilder::TrafficBuilder(const planner::Scenario& scenario,
                               const planner::CostCalibration* calibration, TopologyGraph graph)
    : scenario_(&scenario),
      calibration_(calibration),
      graph_(std::move(graph)),
      topology_(planner::make_topology(scenario)) {}

Result<TrafficBuilder> TrafficBuilder::create(const planner::Scenario& scenario,
                                              const planner::CostCalibration* calibration) {
  auto graph = TopologyGraph::build(scenario.topology, scenario.fabric);
  if (!graph) return graph.status();
  return TrafficBuilder(scenario, calibration, std::move(graph).value());
}

Result<IterationTraffic> TrafficBuilder::build(const planner::SearchSpace& space,
                                               const planner::PartitionedPlan& plan) const {
  return detail::build_traffic(*scenario_, space, plan, topology_, calibration_);
}

}  // namespace shardlab::sim
