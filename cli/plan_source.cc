#include "plan_source.h"

#include <utility>

#include "cli_common.h"
#include "shardlab/data/message_text.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/planner/placement_fit.h"
#include "shardlab/sim/simulation_memory.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::cli {

planner::PlannerResult read_and_rate_plan(const planner::Scenario& scenario,
                                          const std::string& path, planner::PerfModel* perf_model,
                                          const planner::CostCalibration* calibration,
                                          bool allow_over_capacity) {
  std::vector<std::string> warnings;
  planner::PlannerResult result = planner::rate_placement(
      scenario,
      [&](planner::SearchSpace& space) {
        return data::read_plan_file(path, scenario, space, &warnings);
      },
      calibration, perf_model);
  for (const std::string& w : warnings) print_warning(w);
  const Status fits = planner::refuse_over_capacity(
      result, data::printable(path), allow_over_capacity,
      "make the plan fit, or pass --allow-over-capacity (plan, simulate, replay) to run it all "
      "the same");
  if (!fits.is_ok() && allow_over_capacity) {
    print_warning(data::printable(path) + ": " + fits.message() +
                  " (--allow-over-capacity: run all the same; its outputs say so)");
  }
  return result;
}

CLI::Option* add_allow_over_capacity_flag(CLI::App* cmd, bool* allow) {
  return cmd->add_flag(
      "--allow-over-capacity", *allow,
      "Run a plan file whose shards do not fit a rank's HBM or DDR after the storage "
      "reservation (refused by default, naming the ranks, bytes and tables); the outputs say "
      "so");
}

Status check_fabric(const planner::Scenario& scenario) {
  // The simulations must fit in memory, and the graph built here too.
  if (Status st = sim::check_simulation_memory(scenario); !st) return st;
  auto graph = sim::TopologyGraph::build(scenario.topology, scenario.fabric);
  return graph.is_ok() ? Status::ok() : graph.status();
}

}  // namespace shardlab::cli
