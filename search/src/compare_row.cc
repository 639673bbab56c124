#include "shardlab/search/compare_row.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <utility>

#include "shardlab/search/objective.h"
#include "shardlab/search/problem.h"

namespace shardlab::search {
namespace {

constexpr const char* kAxis = "search";

planner::PlannerResult failed(const planner::PlannerResult& start, Status status) {
  planner::PlannerResult out = start;
  out.best.reset();
  out.error = std::move(status);
  return out;
}

}  // namespace

sim::CompareConfig optimizer_config(const OptimizeOptions& options) {
  char limit[64];
  if (options.time_limit_s > 0) {
    std::snprintf(limit, sizeof(limit), "%g s", options.time_limit_s);
  } else if (options.max_evaluations > 0) {
    std::snprintf(limit, sizeof(limit), "%lld evaluations",
                  static_cast<long long>(options.max_evaluations));
  } else {
    std::snprintf(limit, sizeof(limit), "no limit");
  }
  std::string value = "optimized (seed " + std::to_string(options.seed) + ", " + limit + ")";
  sim::CompareConfig c;
  c.extra_axes.emplace_back(kAxis, std::move(value));
  return c;
}

bool is_optimizer_config(const sim::CompareConfig& config) {
  for (const auto& [axis, value] : config.extra_axes) {
    if (axis == kAxis) return true;
  }
  return false;
}

sim::CompareOptions::RowPlanner optimizer_row_planner(
    OptimizeOptions options, sim::SimOptions sim_options,
    std::function<void(const OptimizerRun&)> on_done) {
  return [options = std::move(options), sim_options, on_done = std::move(on_done)](
             const planner::Scenario& configured, const sim::CompareConfig& config,
             const planner::PlannerOptions& base, int* simulations) -> planner::PlannerResult {
    if (!is_optimizer_config(config)) {
      return sim::plan_configuration(configured, config, base, simulations);
    }
    // TorchRec's plan: the start and what the summary compares with.
    const planner::PlannerResult start =
        sim::plan_configuration(configured, config, base, simulations);
    if (!start.ok()) return start;
    if (base.cancel != nullptr && base.cancel->load()) return start;
    Result<Problem> problem = Problem::create(configured, start);
    if (!problem.is_ok()) return failed(start, problem.status());
    sim::SimOptions objective_sim = sim_options;
    objective_sim.record_phases = false;
    Result<std::unique_ptr<Objective>> objective =
        make_simulated_objective(*problem, objective_sim);
    if (!objective.is_ok()) return failed(start, objective.status());
    Result<OptimizeResult> searched = optimize(*problem, **objective, *start.best, options);
    if (!searched.is_ok()) return failed(start, searched.status());
    *simulations =
        static_cast<int>(std::min<int64_t>(searched->evaluations, std::numeric_limits<int>::max()));
    planner::PlannerResult out = as_planner_result(start, *searched);
    out.num_proposals = start.num_proposals;
    out.num_plans = start.num_plans;
    out.wall_seconds = start.wall_seconds + searched->wall_seconds;
    if (on_done) {
      Result<OptimizeSummary> summary = summarize(*problem, *searched, &start, sim_options);
      if (!summary.is_ok()) return failed(start, summary.status());
      OptimizerRun run{.result = std::move(searched).value(), .summary = *summary, .moves = {}};
      for (const TableMove& m : run.result.moved) run.moves.push_back(move_text(*problem, m));
      on_done(run);
    }
    return out;
  };
}

}  // namespace shardlab::search
