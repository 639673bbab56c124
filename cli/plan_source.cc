#include "plan_source.h"

#include <chrono>
#include <utility>

#include "cli_common.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/sim/simulation_memory.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::cli {

planner::PlannerResult read_and_rate_plan(const planner::Scenario& scenario,
                                          const std::string& path, planner::PerfModel* perf_model,
                                          const planner::CostCalibration* calibration) {
  const auto start = std::chrono::steady_clock::now();
  planner::PlannerResult result = planner::plan(
      scenario, planner::PlannerOptions{.enumerate_only = true, .calibration = calibration});
  if (!result.search_space.has_value()) {
    if (result.error.is_ok())
      result.error = Status::internal("enumeration returned no search space");
    return result;
  }
  std::vector<std::string> warnings;
  Result<planner::PartitionedPlan> read =
      data::read_plan_file(path, scenario, *result.search_space, &warnings);
  for (const std::string& w : warnings) print_warning(w);
  if (!read.is_ok()) {
    result.error = read.status();
    return result;
  }
  result.best = std::move(read).value();
  result.num_proposals = 0;
  result.num_plans = 0;
  planner::rate_plan(*result.search_space, *result.best, result.topology.world_size,
                     &result.device_perf_total, &result.perf_rating);
  if (perf_model != nullptr) {
    result.perf_rating = perf_model->rate(*result.search_space, *result.best, result.topology,
                                          result.device_perf_total);
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

Status check_fabric(const planner::Scenario& scenario) {
  // The simulations must fit in memory, and the graph built here too.
  if (Status st = sim::check_simulation_memory(scenario); !st) return st;
  auto graph = sim::TopologyGraph::build(scenario.topology, scenario.fabric);
  return graph.is_ok() ? Status::ok() : graph.status();
}

}  // namespace shardlab::cli
