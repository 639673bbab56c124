// The work the workbench runs off the UI thread, as plain functions of plain
// values: plan a scenario (with the proposal log) and simulate the best plan,
// simulate one placed plan, or plan and simulate several planner
// configurations for the Compare view. They only call the core (planner/,
// sim/); PlanningWorker runs them on a thread pool.
//
// Thread safety: each call works on its own copies; the shared scenario is
// immutable. `cancel` is polled (between proposals and between stages) and
// may be set from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::gui {

using ScenarioPtr = std::shared_ptr<const planner::Scenario>;

enum class PerfModelChoice { kTorchRec, kSimulated };

// Stage reports: percent in [0, 100] and a short stage name.
using ProgressFn = std::function<void(int percent, const std::string& stage)>;

struct PlanJob {
  ScenarioPtr scenario;
  PerfModelChoice perf_model = PerfModelChoice::kTorchRec;
  bool simulate = true;
  sim::SimOptions sim_options;  // phases recorded for the timeline
};

struct PlanOutcome {
  ScenarioPtr scenario;
  planner::PlannerResult result;
  std::vector<planner::ProposalRecord> proposals;
  std::optional<planner::PlanSummary> summary;  // of result.best
  std::optional<sim::SimResult> simulation;     // of result.best
  Status simulation_status;                     // why `simulation` is absent
  bool cancelled = false;
  double plan_ms = 0.0;      // wall time of planning
  double simulate_ms = 0.0;  // wall time of the simulation
};

PlanOutcome run_plan_job(const PlanJob& job, const std::atomic<bool>& cancel, const ProgressFn& progress);

struct SimulationOutcome {
  std::optional<sim::SimResult> simulation;
  Status status;
  bool cancelled = false;
};

// Simulates `plan` placed in `base`'s search space.
SimulationOutcome run_simulation_job(const PlanOutcome& base, const planner::PartitionedPlan& plan,
                                     const sim::SimOptions& options, const std::atomic<bool>& cancel);

// One planner configuration of the Compare view.
struct CompareVariant {
  std::string label;  // "greedy_perf + torchrec"
  planner::PartitionerKind partitioner = planner::PartitionerKind::kGreedyPerf;
  PerfModelChoice perf_model = PerfModelChoice::kTorchRec;
  // The TorchRec model that plans (docs/torchrec-versions.md); absent: the
  // scenario's planner.torchrec_version.
  std::optional<planner::TorchRecVersion> torchrec_version;
};

// The default comparison: greedy_perf and memory_balanced partitioners, each
// with TorchRec's rating and with the simulated perf model; the scenario's
// proposers and TorchRec model.
std::vector<CompareVariant> default_compare_variants();

// The default comparison once per TorchRec model version, the versions of one
// configuration next to each other (oldest first), labelled
// "greedy_perf + torchrec, TorchRec 2024-02".
std::vector<CompareVariant> torchrec_version_compare_variants();

struct CompareRow {
  CompareVariant variant;
  Status status;                          // planning or simulation failure
  std::optional<planner::PlanSummary> summary;
  double rating = 0.0;                    // the chosen model's rating of the plan
  std::optional<double> iteration_ms;     // simulated steady-state iteration
  int num_proposals = 0;
  double plan_ms = 0.0;
  // Against the first row with a plan (empty for that row itself).
  std::optional<planner::PlanDiff> diff;
};

struct CompareOutcome {
  ScenarioPtr scenario;
  std::vector<CompareRow> rows;
  bool cancelled = false;
};

CompareOutcome run_compare_job(const ScenarioPtr& scenario, const std::vector<CompareVariant>& variants,
                               const sim::SimOptions& options, const std::atomic<bool>& cancel,
                               const ProgressFn& progress);

}  // namespace shardlab::gui
