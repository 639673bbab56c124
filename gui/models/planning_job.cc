#include "models/planning_job.h"

#include <chrono>
#include <memory>

#include "shardlab/data/scenario_writer.h"
#include "shardlab/sim/simulated_perf_model.h"

namespace shardlab::gui {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void report(const ProgressFn& progress, int percent, const std::string& stage) {
  if (progress) progress(percent, stage);
}

}  // namespace

PlanOutcome run_plan_job(const PlanJob& job, const std::atomic<bool>& cancel, const ProgressFn& progress) {
  PlanOutcome out;
  out.scenario = job.scenario;
  const planner::Scenario& scenario = *job.scenario;
  report(progress, 5, "planning");
  std::unique_ptr<sim::SimulatedPerfModel> model;
  if (job.perf_model == PerfModelChoice::kSimulated) {
    model = std::make_unique<sim::SimulatedPerfModel>(scenario, sim::SimOptions{.record_phases = false});
  }
  const auto plan_start = std::chrono::steady_clock::now();
  out.result = planner::plan(scenario, planner::PlannerOptions{
                                           .perf_model = model.get(),
                                           .proposal_log = &out.proposals,
                                           .cancel = &cancel,
                                       });
  out.plan_ms = ms_since(plan_start);
  if (cancel.load()) {
    out.cancelled = true;
    return out;
  }
  if (!out.result.ok()) return out;
  out.summary = planner::summarize_plan(scenario, out.result, *out.result.best);
  if (!job.simulate) return out;
  report(progress, 60, "simulating");
  const auto sim_start = std::chrono::steady_clock::now();
  Result<sim::SimResult> simulated =
      sim::simulate(scenario, *out.result.search_space, *out.result.best, job.sim_options);
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
  report(progress, 100, "done");
  return out;
}

SimulationOutcome run_simulation_job(const PlanOutcome& base, const planner::PartitionedPlan& plan,
                                     const sim::SimOptions& options, const std::atomic<bool>& cancel) {
  SimulationOutcome out;
  if (!base.result.search_space) {
    out.status = Status::invalid_scenario("nothing to simulate: the scenario has no search space");
    return out;
  }
  Result<sim::SimResult> simulated = sim::simulate(*base.scenario, *base.result.search_space, plan, options);
  out.cancelled = cancel.load();
  if (simulated.is_ok()) {
    out.simulation = std::move(simulated).value();
  } else {
    out.status = simulated.status();
  }
  return out;
}

std::vector<CompareVariant> default_compare_variants() {
  std::vector<CompareVariant> v;
  for (const planner::PartitionerKind p :
       {planner::PartitionerKind::kGreedyPerf, planner::PartitionerKind::kMemoryBalanced}) {
    for (const PerfModelChoice m : {PerfModelChoice::kTorchRec, PerfModelChoice::kSimulated}) {
      v.push_back(CompareVariant{
          .label = data::to_string(p) + " + " + (m == PerfModelChoice::kTorchRec ? "torchrec" : "simulated"),
          .partitioner = p,
          .perf_model = m});
    }
  }
  return v;
}

std::vector<CompareVariant> torchrec_version_compare_variants() {
  std::vector<CompareVariant> v;
  for (const CompareVariant& base : default_compare_variants()) {
    for (const planner::TorchRecVersion version : planner::all_torchrec_versions()) {
      CompareVariant variant = base;
      variant.label += ", TorchRec " + std::string(planner::to_string(version));
      variant.torchrec_version = version;
      v.push_back(std::move(variant));
    }
  }
  return v;
}

CompareOutcome run_compare_job(const ScenarioPtr& scenario, const std::vector<CompareVariant>& variants,
                               const sim::SimOptions& options, const std::atomic<bool>& cancel,
                               const ProgressFn& progress) {
  CompareOutcome out;
  out.scenario = scenario;
  const planner::PlanSummary* first = nullptr;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (cancel.load()) {
      out.cancelled = true;
      return out;
    }
    report(progress, static_cast<int>(100 * i / variants.size()), variants[i].label);
    CompareRow row;
    row.variant = variants[i];
    planner::Scenario configured = *scenario;
    configured.planner.partitioner.kind = variants[i].partitioner;
    if (variants[i].torchrec_version)
      configured.planner.torchrec_version = *variants[i].torchrec_version;
    std::unique_ptr<sim::SimulatedPerfModel> model;
    if (variants[i].perf_model == PerfModelChoice::kSimulated) {
      model = std::make_unique<sim::SimulatedPerfModel>(configured, sim::SimOptions{.record_phases = false});
    }
    const planner::PlannerResult result =
        planner::plan(configured, planner::PlannerOptions{.perf_model = model.get(), .cancel = &cancel});
    row.num_proposals = result.num_proposals;
    row.plan_ms = result.wall_seconds * 1e3;
    if (!result.ok()) {
      row.status = result.error;
      out.rows.push_back(std::move(row));
      continue;
    }
    row.rating = result.perf_rating;
    row.summary = planner::summarize_plan(configured, result, *result.best);
    sim::SimOptions sim_options = options;
    sim_options.record_phases = false;
    Result<sim::SimResult> simulated = sim::simulate(configured, *result.search_space, *result.best, sim_options);
    if (simulated.is_ok()) {
      row.iteration_ms = simulated->iteration_ms;
    } else {
      row.status = simulated.status();
    }
    out.rows.push_back(std::move(row));
  }
  for (CompareRow& row : out.rows) {
    if (!row.summary) continue;
    if (first == nullptr) {
      first = &*row.summary;
      continue;
    }
    row.diff = planner::diff_plans(*first, *row.summary);
  }
  report(progress, 100, "done");
  return out;
}

}  // namespace shardlab::gui
