// Comparing planner configurations on one scenario: the one definition that
// `shardlab compare` prints and the workbench's Compare view shows (same
// grid, same rows, same numbers; docs/gui.md "Compare").
//
// Each row is one configuration (CompareConfig). Its plan is found by the
// planner with the row's proposer, partitioner and perf model, then
// simulated with the comparison's SimOptions. Every row is measured the same
// way, whatever chose its plan:
//   torchrec_rating_ms  TorchRec's rating of the plan (planner::rate_plan:
//                       max over ranks of the summed shard perf)
//   iteration_ms        the simulated steady-state iteration time
//   peak_hbm_bytes      the largest HBM of one rank's shards
//   imbalance           max / mean of the per-rank TorchRec perf
//   ranks               per rank: TorchRec perf, shard HBM, simulated busy time
// The winner is the row with the lowest simulated iteration time (ties: the
// lower TorchRec rating, then the earlier row); every row with a simulated
// time states its difference to the winner, relative, and the tables whose
// placement differs from the winner's.
//
// Extending the grid: a configuration is a small value. Axes other modules
// add (a planner version, a search method) go in CompareConfig::extra_axes,
// which labels and the JSON carry; a RowPlanner (CompareOptions::plan_row)
// finds the plan of rows the default planner call does not handle.
//
// Thread safety: compare_configurations() has no shared state; the callbacks
// run on the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/torchrec_version.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {

// How a row's planner rates the plans it considers.
enum class RatingModel {
  kTorchRec,   // TorchRec's perf model (planner's default)
  kSimulated,  // simulated iteration time (SimulatedPerfModel)
};

std::string_view to_string(RatingModel m);  // "torchrec", "simulated"

struct CompareConfig {
  // Unset: as the scenario gives them (its proposer list, its partitioner).
  std::optional<planner::ProposerKind> proposer;  // one proposer, TorchRec's default arguments
  std::optional<planner::PartitionerKind>
      partitioner;  // the file's other partitioner settings stay
  RatingModel rating = RatingModel::kTorchRec;
  // The TorchRec model that plans (docs/torchrec-versions.md); unset: the
  // scenario's planner.torchrec_version.
  std::optional<planner::TorchRecVersion> torchrec_version;
  // Further axes, (name, value) in display order, e.g. {"version", "2026-08"}.
  std::vector<std::pair<std::string, std::string>> extra_axes;

  bool operator==(const CompareConfig&) const = default;
};

// "greedy", "uniform", "grid_search", "embedding_offload_scaleup"; "scenario" when unset.
std::string proposer_name(const CompareConfig& c);
// "greedy_perf", "memory_balanced"; the scenario's own when unset.
std::string partitioner_name(const CompareConfig& c, const planner::Scenario& scenario);
// "greedy + greedy_perf + torchrec" (then the extra axes' values).
std::string label(const CompareConfig& c, const planner::Scenario& scenario);

// `scenario` with the row's proposer and partitioner.
planner::Scenario configure(const planner::Scenario& scenario, const CompareConfig& c);

// The comparison both front ends run: first the scenario as configured
// (its proposers and partitioner, TorchRec's model: what `shardlab plan`
// gives), then every proposer (greedy, uniform, grid_search,
// embedding_offload_scaleup) x partitioner (greedy_perf, memory_balanced) x
// rating model (torchrec, simulated).
std::vector<CompareConfig> default_compare_grid();

// The rows of `grid` whose proposer (proposer_name), partitioner
// (partitioner_name) and rating model (to_string) are among the names given;
// an empty list keeps every value of its axis. kInvalidArgument naming the
// option (--proposers, --partitioners, --perf-models), the unknown name and
// the names the grid has, or saying that no row is left.
Result<std::vector<CompareConfig>> select_rows(const std::vector<CompareConfig>& grid,
                                               const planner::Scenario& scenario,
                                               const std::vector<std::string>& proposers,
                                               const std::vector<std::string>& partitioners,
                                               const std::vector<std::string>& perf_models);

// `grid` once per TorchRec model version, the versions of one configuration
// next to each other (oldest first), so a comparison shows what the newer
// model changes.
std::vector<CompareConfig> each_torchrec_version(const std::vector<CompareConfig>& grid);

struct CompareRank {
  double torchrec_perf_ms = 0.0;  // planner's per-rank perf total (rate_plan)
  int64_t shard_hbm = 0;          // bytes of the plan's shards
  double busy_compute_ms = 0.0;   // simulated, per steady-state iteration
  double busy_comm_ms = 0.0;
};

struct CompareRow {
  CompareConfig config;
  std::string label;
  planner::TorchRecVersion torchrec_version{};  // the model that planned the row
  // Ok, or why this row has no plan (planning failed) or no simulated time
  // (the simulation failed).
  Status status;
  std::optional<planner::PartitionedPlan> plan;  // in the scenario's search space
  // The plan in numbers (planner/plan_summary.h), set with `plan`: what the
  // differences to the winner are computed from.
  std::shared_ptr<const planner::PlanSummary> summary;
  // Set when the row has a plan.
  std::optional<double> torchrec_rating_ms;
  std::optional<int64_t> peak_hbm_bytes;
  std::optional<double> imbalance;
  // Set when the plan was simulated.
  std::optional<double> iteration_ms;
  std::vector<CompareRank> ranks;  // per rank, when the row has a plan
  int num_proposals = 0;
  int num_plans = 0;
  int simulations = 0;        // simulations the perf model ran while planning
  double plan_seconds = 0.0;  // wall time of planning
  // Against the winner (set for rows with a simulated time, the winner's own
  // are 0 and empty): iteration_ms / winner's - 1, torchrec_rating_ms /
  // winner's - 1, and the tables (by name, plan order) whose sharding type,
  // kernel or ranks differ from the winner's plan.
  std::optional<double> iteration_vs_winner;
  std::optional<double> rating_vs_winner;
  std::vector<std::string> moved_vs_winner;
  // False for a combination that cannot apply to the scenario: its planning
  // failed before evaluating any proposal (its proposer proposed nothing or
  // refused the scenario) while another row did evaluate proposals, so the
  // scenario itself is not what failed. `not_applicable` says why, on one
  // line. Set by rank_rows.
  bool applies = true;
  std::string not_applicable;
};

// Why `row` failed, on one line: that its proposer proposed nothing when
// TorchRec's insufficient storage comes after no proposal was evaluated
// (with TorchRec's grid-search rule for a grid-search row), else the first
// line of its error without trailing spaces and periods. REQUIRES: the row
// failed.
std::string failure_line(const CompareRow& row);

struct CompareProgress {
  int row = 0;  // the row being computed
  int rows = 0;
  enum class Stage { kPlanning, kSimulating, kDone } stage = Stage::kPlanning;
  planner::PlannerProgress planner;  // while planning
};

struct CompareOptions {
  // The simulation of each row's plan (record_phases is ignored: off).
  SimOptions sim;
  // Fitted cost-model parameters for every row (planner/cost_calibration.h);
  // null: TorchRec's constants. Not owned; must outlive the call.
  const planner::CostCalibration* calibration = nullptr;
  // Polled between proposals and rows; rows not finished when it reads true
  // are dropped and Comparison::cancelled is set (the finished rows keep
  // their winner). Not owned.
  const std::atomic<bool>* cancel = nullptr;
  // The whole comparison's time limit, seconds (<= 0: none): at the limit it
  // stops as `cancel` stops it, and Comparison::timed_out is set too.
  double time_limit_s = 0.0;
  // Progress, on the calling thread: as each row starts planning and
  // simulating, every PlannerOptions::kProgressEvery proposals, and when it
  // is done.
  std::function<void(const CompareProgress&)> progress;
  // Each finished row (its winner fields are not known yet), in order.
  std::function<void(int row, const CompareRow&)> row_done;
  // Each row whose plan was simulated, with the planner's result for the
  // row's configured scenario (e.g. to record the plan), before row_done.
  std::function<void(int row, const planner::PlannerResult& result, const CompareRow&)> row_planned;
  // Plans a row's configured scenario; empty: planner::plan with the row's
  // rating model. A replacement must honour `base` (cancel, calibration,
  // progress) and may read the row's extra axes.
  using RowPlanner = std::function<planner::PlannerResult(
      const planner::Scenario& configured, const CompareConfig& config,
      const planner::PlannerOptions& base, int* simulations)>;
  RowPlanner plan_row;
};

struct Comparison {
  std::string scenario;  // Scenario::name
  int iterations = 0;    // simulated per row
  std::vector<CompareRow> rows;
  int winner = -1;         // index into rows, -1 when no row has a simulated time
  bool cancelled = false;  // stopped before every row was done (cancel or time limit)
  bool timed_out = false;  // ... by CompareOptions::time_limit_s
};

// Runs `grid` on `scenario`. A row whose planning or simulation fails keeps
// its error in CompareRow::status; the others still run.
Comparison compare_configurations(const planner::Scenario& scenario,
                                  const std::vector<CompareConfig>& grid,
                                  const CompareOptions& options);

// The default RowPlanner: planner::plan of `configured` with the row's
// rating model (SimulatedPerfModel for RatingModel::kSimulated); counts the
// simulations that model ran in *simulations.
planner::PlannerResult plan_configuration(const planner::Scenario& configured,
                                          const CompareConfig& config,
                                          const planner::PlannerOptions& base, int* simulations);

// Sets c.winner and every row's differences to it (the rules above) from the
// rows' simulated times, ratings and summaries, e.g. after rows of two runs
// of compare_configurations() on the same scenario were put together.
void rank_rows(Comparison& c);

// (to - from) / from; 0 when both are 0, +-inf when only `from` is.
double relative_change(double from, double to);

}  // namespace shardlab::sim
