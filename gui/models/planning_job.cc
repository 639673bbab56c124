#include "models/planning_job.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "shardlab/sim/simulated_perf_model.h"

namespace shardlab::gui {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void report(const ProgressFn& progress, int percent, const std::string& stage) {
  if (progress) progress(percent, stage);
}

// Partial comparison outcomes at most this often while a row runs.
constexpr double kPartialEveryMs = 150.0;

std::string thousands(int n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// Planning's share of a plan job's progress bar, from the proposals counted
// so far: against the expected count when known, else by proposer, each
// proposer's share filling as 1 - 1/(1 + n/1000) of it.
int planning_percent(const planner::PlannerProgress& p, int expected) {
  constexpr int kFrom = 2;
  constexpr int kTo = 85;
  double f = 0.0;
  if (expected > 0) {
    f = std::min(0.98, static_cast<double>(p.proposals) / expected);
  } else if (p.num_proposers > 0) {
    const double within = 1.0 - 1.0 / (1.0 + p.proposals / 1000.0);
    f = (p.proposer + within) / p.num_proposers;
  }
  return kFrom + static_cast<int>((kTo - kFrom) * std::clamp(f, 0.0, 1.0));
}

}  // namespace

sim::SimOptions timeline_sim_options(const PlanSettings& settings) {
  return sim::SimOptions{.iterations = settings.sim_iterations, .record_phases = true};
}

PlanOutcome run_plan_job(const PlanJob& job, const std::atomic<bool>& cancel,
                         const ProgressFn& progress) {
  PlanOutcome out;
  out.scenario = job.scenario;
  out.settings = job.settings;
  const planner::Scenario& scenario = *job.scenario;
  report(progress, 1, "planning");
  std::unique_ptr<sim::SimulatedPerfModel> model;
  if (job.settings.perf_model == PerfModelChoice::kSimulated) {
    model = std::make_unique<sim::SimulatedPerfModel>(scenario,
                                                      sim::SimOptions{.record_phases = false});
  }
  planner::PlannerOptions options{
      .perf_model = model.get(),
      .proposal_log = &out.proposals,
      .cancel = &cancel,
      .calibration = job.settings.parameters(),
  };
  if (progress) {
    const int expected = job.expected_proposals;
    const int proposers = static_cast<int>(scenario.planner.proposers.size());
    options.progress = [&progress, expected, proposers](const planner::PlannerProgress& p) {
      progress(planning_percent(p, expected),
               "planning: proposer " + std::to_string(p.proposer + 1) + " of " +
                   std::to_string(proposers) + ", " + thousands(p.proposals) + " proposals");
    };
  }
  const auto plan_start = Clock::now();
  out.result = planner::plan(scenario, options);
  out.plan_ms = ms_since(plan_start);
  if (cancel.load()) {
    out.cancelled = true;
    return out;
  }
  if (!out.result.ok()) {
    // Why-not of the failure: the last proposal, placed again.
    if (!out.proposals.empty() && out.result.search_space && out.result.reserved) {
      auto placed = planner::place_proposal(scenario, out.result,
                                            out.proposals.proposal(out.proposals.size() - 1));
      if (placed.is_ok()) out.last_failure = std::move(placed).value();
    }
    return out;
  }
  out.summary = planner::summarize_plan(scenario, out.result, *out.result.best);
  if (!job.simulate) return out;
  report(progress, 86, "simulating " + std::to_string(job.settings.sim_iterations) + " iterations");
  const auto sim_start = Clock::now();
  Result<sim::SimResult> simulated = sim::simulate(
      scenario, *out.result.search_space, *out.result.best, timeline_sim_options(job.settings));
  out.simulate_ms = ms_since(sim_start);
  if (cancel.load()) {
    out.cancelled = true;
    return out;
  }
  if (simulated.is_ok()) {
    out.simulation = std::move(simulated).value();
  } else {
    out.simulation_status = simulated.status();
  }
  report(progress, 97, "showing the plan");
  return out;
}

SimulationOutcome run_simulation_job(const PlanOutcome& base, const planner::PartitionedPlan& plan,
                                     const std::atomic<bool>& cancel) {
  SimulationOutcome out;
  if (!base.result.search_space) {
    out.status = Status::invalid_argument("nothing to simulate: the scenario has no search space");
    return out;
  }
  Result<sim::SimResult> simulated = sim::simulate(*base.scenario, *base.result.search_space, plan,
                                                   timeline_sim_options(base.settings));
  out.cancelled = cancel.load();
  if (simulated.is_ok()) {
    out.simulation = std::move(simulated).value();
  } else {
    out.status = simulated.status();
  }
  return out;
}

namespace {

// Shows `status` as row `row`'s while it runs, sending a partial outcome at
// most every kPartialEveryMs.
void show_running(CompareOutcome& out, int row, const std::string& status,
                  const ComparePartialFn& partial, Clock::time_point& last_partial) {
  out.running_row = row;
  out.running_status = status;
  if (partial && ms_since(last_partial) >= kPartialEveryMs) {
    last_partial = Clock::now();
    partial(out);
  }
}

// Runs the rows of out.grid from out.comparison.rows.size() on (the rows
// before it are kept), reporting progress and partial outcomes, then ranks
// all rows (sim::rank_rows). `plan_row` (may be empty) plans the rows.
void run_rows(CompareOutcome& out, const std::atomic<bool>& cancel, const ProgressFn& progress,
              const ComparePartialFn& partial, sim::CompareOptions::RowPlanner plan_row) {
  const ScenarioPtr& scenario = out.scenario;
  const PlanSettings& settings = out.settings;
  const int kept = static_cast<int>(out.comparison.rows.size());
  const int rows = static_cast<int>(out.grid.size());
  const std::vector<sim::CompareConfig> to_run(out.grid.begin() + kept, out.grid.end());
  out.comparison.scenario = scenario->name;
  out.comparison.iterations = settings.sim_iterations;
  auto last_partial = Clock::now();
  sim::CompareOptions options{
      .sim = sim::SimOptions{.iterations = settings.sim_iterations, .record_phases = false},
      .calibration = settings.parameters(),
      .cancel = &cancel};
  options.plan_row = std::move(plan_row);
  options.progress = [&](const sim::CompareProgress& p) {
    std::string status;
    switch (p.stage) {
      case sim::CompareProgress::Stage::kPlanning:
        status = p.planner.num_proposers == 0
                     ? std::string("planning")
                     : "planning: " + thousands(p.planner.proposals) + " proposals";
        break;
      case sim::CompareProgress::Stage::kSimulating:
        status = "simulating";
        break;
      case sim::CompareProgress::Stage::kDone:
        return;
    }
    const int row = kept + p.row;
    report(
        progress, 100 * row / std::max(1, rows),
        "compare: row " + std::to_string(row + 1) + " of " + std::to_string(rows) + ", " + status);
    show_running(out, row, status, partial, last_partial);
  };
  options.row_done = [&](int, const sim::CompareRow& row) {
    out.comparison.rows.push_back(row);
    out.running_row = static_cast<int>(out.comparison.rows.size()) < rows
                          ? static_cast<int>(out.comparison.rows.size())
                          : -1;
    out.running_status = out.running_row >= 0 ? "waiting" : "";
    last_partial = Clock::now();
    if (partial) partial(out);
  };
  sim::Comparison done = sim::compare_configurations(*scenario, to_run, options);
  out.running_row = -1;
  out.running_status.clear();
  out.cancelled = done.cancelled || cancel.load();
  out.comparison.rows.resize(static_cast<size_t>(kept));
  for (sim::CompareRow& r : done.rows) out.comparison.rows.push_back(std::move(r));
  out.comparison.cancelled = out.cancelled;
  sim::rank_rows(out.comparison);
  out.complete = !out.cancelled;
  report(progress, 100, "compare: done");
}

}  // namespace

CompareOutcome run_compare_job(const ScenarioPtr& scenario, const PlanSettings& settings,
                               std::vector<sim::CompareConfig> grid,
                               const std::atomic<bool>& cancel, const ProgressFn& progress,
                               const ComparePartialFn& partial) {
  CompareOutcome out;
  out.scenario = scenario;
  out.settings = settings;
  out.grid = std::move(grid);
  run_rows(out, cancel, progress, partial, nullptr);
  return out;
}

CompareOutcome run_optimize_job(const ScenarioPtr& scenario, const PlanSettings& settings,
                                const std::shared_ptr<const CompareOutcome>& previous,
                                const OptimizeRequest& request, const std::atomic<bool>& cancel,
                                const std::atomic<bool>& stop, const ProgressFn& progress,
                                const ComparePartialFn& partial) {
  CompareOutcome out;
  out.scenario = scenario;
  out.settings = settings;
  if (previous) {
    for (size_t i = 0; i < previous->grid.size() && i < previous->comparison.rows.size(); ++i) {
      if (search::is_optimizer_config(previous->grid[i])) continue;
      out.grid.push_back(previous->grid[i]);
      out.comparison.rows.push_back(previous->comparison.rows[i]);
    }
  } else {
    out.grid.push_back(sim::default_compare_grid().front());
  }
  search::OptimizeOptions options{.seed = request.seed,
                                  .time_limit_s = request.time_limit_s,
                                  .max_evaluations = request.max_evaluations,
                                  .cancel = &stop};
  out.grid.push_back(search::optimizer_config(options));
  const int row = static_cast<int>(out.grid.size()) - 1;
  const int rows = static_cast<int>(out.grid.size());
  auto last_partial = Clock::now();
  options.progress_interval_s = 0.25;
  options.on_progress = [&](const search::Progress& p) {
    double done = 0.0;
    if (request.time_limit_s > 0) {
      done = p.elapsed_s / request.time_limit_s;
    } else if (request.max_evaluations > 0) {
      done = static_cast<double>(p.evaluations) / static_cast<double>(request.max_evaluations);
    }
    const std::string status = "optimizing: " + search::progress_text(p);
    report(
        progress, static_cast<int>(100 * std::clamp(done, 0.0, 0.99)),
        "optimize: row " + std::to_string(row + 1) + " of " + std::to_string(rows) + ", " + status);
    show_running(out, row, status, partial, last_partial);
  };
  std::shared_ptr<const search::OptimizerRun> run;
  const sim::SimOptions sim_options{.iterations = settings.sim_iterations, .record_phases = false};
  run_rows(out, cancel, progress, partial,
           search::optimizer_row_planner(std::move(options), sim_options,
                                         [&run](const search::OptimizerRun& r) {
                                           run = std::make_shared<const search::OptimizerRun>(r);
                                         }));
  if (run && static_cast<int>(out.comparison.rows.size()) > row) {
    out.optimizer_row = row;
    out.optimizer = std::move(run);
  }
  return out;
}

}  // namespace shardlab::gui
