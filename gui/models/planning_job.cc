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

CompareOutcome run_compare_job(const ScenarioPtr& scenario, const PlanSettings& settings,
                               std::vector<sim::CompareConfig> grid,
                               const std::atomic<bool>& cancel, const ProgressFn& progress,
                               const ComparePartialFn& partial) {
  CompareOutcome out;
  out.scenario = scenario;
  out.settings = settings;
  out.grid = std::move(grid);
  out.comparison.scenario = scenario->name;
  out.comparison.iterations = settings.sim_iterations;
  const int rows = static_cast<int>(out.grid.size());
  // Partial outcomes at most this often while a row plans (every row's end is sent).
  constexpr double kPartialEveryMs = 150.0;
  auto last_partial = Clock::now();
  sim::CompareOptions options{
      .sim = sim::SimOptions{.iterations = settings.sim_iterations, .record_phases = false},
      .calibration = settings.parameters(),
      .cancel = &cancel};
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
    const int percent = 100 * p.row / std::max(1, p.rows);
    report(progress, percent,
           "compare: row " + std::to_string(p.row + 1) + " of " + std::to_string(p.rows) + ", " +
               status);
    out.running_row = p.row;
    out.running_status = status;
    if (partial && ms_since(last_partial) >= kPartialEveryMs) {
      last_partial = Clock::now();
      partial(out);
    }
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
  sim::Comparison done = sim::compare_configurations(*scenario, out.grid, options);
  out.running_row = -1;
  out.running_status.clear();
  out.cancelled = done.cancelled || cancel.load();
  out.comparison = std::move(done);
  out.complete = !out.cancelled;
  report(progress, 100, "compare: done");
  return out;
}

}  // namespace shardlab::gui
