#include "plan_source.h"

#include <utility>

#include "cli_common.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/sim/simulation_memory.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::cli {

planner::PlannerResult read_and_rate_plan(const planner::Scenario& scenario,
                                          const std::string& path, planner::PerfModel* perf_model,
                                          const planner::CostCalibration* calibration) {
  std::vector<std::string> warnings;
  planner::PlannerResult result = planner::rate_placement(
      scenario,
      [&](const planner::SearchSpace& space) {
        return data::read_plan_file(path, scenario, space, &warnings);
      },
      calibration, perf_model);
  for (const std::string& w : warnings) print_warning(w);
  return result;
}

Status check_fabric(const planner::Scenario& scenario) {
  // The simulations must fit in memory, and the graph built here too.
  if (Status st = sim::check_simulation_memory(scenario); !st) return st;
  auto graph = sim::TopologyGraph::build(scenario.topology, scenario.fabric);
  return graph.is_ok() ? Status::ok() : graph.status();
}

}  // namespace shardlab::cli
