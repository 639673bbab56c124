// The work the workbench runs off the UI thread, as plain functions of plain
// values: plan a scenario (with the proposal log) and simulate the best plan,
// simulate one placed plan, or run the comparison of planner configurations
// (sim/compare.h, the one `shardlab compare` runs). They only call the core
// (planner/, sim/); PlanningWorker runs them on a thread pool.
//
// Every result carries what it was computed from: the scenario (an
// immutable snapshot, compared by identity) and the PlanSettings. The
// session compares them with what is on screen to mark results stale
// (workbench.h).
//
// Thread safety: each call works on its own copies; the shared scenario and
// calibration profile are immutable. `cancel` is polled (between proposals
// and between stages) and may be set from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/data/calibration_json.h"
#include "shardlab/kernels/measurement.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/search/compare_row.h"
#include "shardlab/search/optimizer.h"
#include "shardlab/sim/compare.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::gui {

using ScenarioPtr = std::shared_ptr<const planner::Scenario>;
using ProfilePtr = std::shared_ptr<const data::CalibrationProfile>;

enum class PerfModelChoice { kTorchRec, kSimulated };

// What a plan is computed with besides the scenario.
struct PlanSettings {
  PerfModelChoice perf_model = PerfModelChoice::kTorchRec;
  // A calibration profile whose parameters replace TorchRec's constants
  // (docs/calibration.md); null: TorchRec's constants. Compared by identity.
  ProfilePtr calibration;
  int sim_iterations = sim::SimOptions{}.iterations;

  bool operator==(const PlanSettings&) const = default;
  const planner::CostCalibration* parameters() const {
    return calibration ? &calibration->parameters : nullptr;
  }
};

// Progress reports: percent in [0, 100] and a short text.
using ProgressFn = std::function<void(int percent, const std::string& stage)>;

struct PlanJob {
  ScenarioPtr scenario;
  PlanSettings settings;
  bool simulate = true;
  // Proposals the previous plan of a similar scenario evaluated (0: unknown);
  // progress is reported against it.
  int expected_proposals = 0;
};

// Where a plan shown in the workbench comes from.
enum class PlanSource { kPlanner, kPlanFile, kCompareRow, kStoredRun };

struct PlanOutcome {
  ScenarioPtr scenario;
  PlanSettings settings;
  PlanSource source = PlanSource::kPlanner;
  std::string source_name;  // the plan file, the comparison row's label, "run 7 (replay)"
  // A replay run's measurements of this plan (kStoredRun), for the measured
  // per-phase times beside the simulated ones.
  std::shared_ptr<const kernels::ReplayResult> replay;
  planner::PlannerResult result;
  planner::ProposalLog proposals;
  std::optional<planner::PlanSummary> summary;  // of result.best
  std::optional<sim::SimResult> simulation;     // of result.best
  Status simulation_status;                     // why `simulation` is absent
  // When no proposal fits: the last proposal placed again, for why-not.
  std::optional<planner::ProposalPlacement> last_failure;
  bool cancelled = false;
  double plan_ms = 0.0;      // wall time of planning
  double simulate_ms = 0.0;  // wall time of the simulation
};

PlanOutcome run_plan_job(const PlanJob& job, const std::atomic<bool>& cancel,
                         const ProgressFn& progress);

// The simulation options of the workbench's timeline: every phase recorded.
sim::SimOptions timeline_sim_options(const PlanSettings& settings);

struct SimulationOutcome {
  std::optional<sim::SimResult> simulation;
  Status status;
  bool cancelled = false;
};

// Simulates `plan` placed in `base`'s search space.
SimulationOutcome run_simulation_job(const PlanOutcome& base, const planner::PartitionedPlan& plan,
                                     const std::atomic<bool>& cancel);

// A comparison (sim/compare.h) of one scenario: complete, or the rows done
// so far while it runs. It may end with the optimizer's row
// (search/compare_row.h).
struct CompareOutcome {
  ScenarioPtr scenario;
  PlanSettings settings;  // its calibration and sim_iterations apply
  std::vector<sim::CompareConfig> grid;
  sim::Comparison comparison;
  bool complete = false;  // every row ran (else: rows done so far, or cancelled)
  bool cancelled = false;
  // While running: the row being computed and a short status of it.
  int running_row = -1;
  std::string running_status;
  // The optimizer's row and what its search did, once done (-1 and null
  // when the comparison has no optimizer row or it failed).
  int optimizer_row = -1;
  std::shared_ptr<const search::OptimizerRun> optimizer;
};

// Reports each finished row (and progress within a row) as a partial
// outcome, on the job's thread.
using ComparePartialFn = std::function<void(const CompareOutcome& partial)>;

// Runs `grid` (sim/compare.h; e.g. sim::default_compare_grid()).
CompareOutcome run_compare_job(const ScenarioPtr& scenario, const PlanSettings& settings,
                               std::vector<sim::CompareConfig> grid,
                               const std::atomic<bool>& cancel, const ProgressFn& progress,
                               const ComparePartialFn& partial);

// What the Compare view's "Optimize" runs: `shardlab optimize`'s search
// (search/optimizer.h) with its defaults.
struct OptimizeRequest {
  uint64_t seed = search::OptimizeOptions{}.seed;
  double time_limit_s = search::OptimizeOptions{}.time_limit_s;  // <= 0: none
  int64_t max_evaluations = 0;                                   // 0: none
};

// Adds the optimizer's row (search/compare_row.h) to `previous` (a complete
// comparison of the same scenario and settings, whose rows are kept; an
// optimizer row of it is replaced), or, when `previous` is null, to the
// comparison's first row alone (the scenario as configured: TorchRec's
// plan, the search's start). `cancel` drops the run as for any comparison;
// `stop` ends the search and keeps its best plan so far, measured as a row.
// Progress reports the search's (elapsed, moves per second, best simulated
// time and its gain) as the running row's status.
CompareOutcome run_optimize_job(const ScenarioPtr& scenario, const PlanSettings& settings,
                                const std::shared_ptr<const CompareOutcome>& previous,
                                const OptimizeRequest& request, const std::atomic<bool>& cancel,
                                const std::atomic<bool>& stop, const ProgressFn& progress,
                                const ComparePartialFn& partial);

}  // namespace shardlab::gui
