// The planner loop (docs/cost-model.md §9): reservation, enumeration, proposers,
// partitioner, perf rating, best-plan choice, and the error when nothing fits.
//
// Thread safety: plan() has no shared state; separate calls may run
// concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/perf_model.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/storage_reservation.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

struct PlannerResult {
  Topology topology;                          // raw (unreserved) topology
  std::optional<ReservationResult> reserved;  // null if the reservation failed
  std::optional<SearchSpace> search_space;    // null if reservation or enumeration failed
  int num_proposals = 0;                      // proposals partitioned (cache hits not counted)
  int num_plans = 0;                          // proposals that partitioned

  // Set when planning succeeded.
  std::optional<PartitionedPlan> best;
  double perf_rating = 0.0;               // the perf model's rating of `best`
  std::vector<double> device_perf_total;  // per rank, summed in plan order
  // The order TorchRec lists `best`'s tables in (fqn positions), when the
  // proposer that proposed it orders its proposals otherwise (the dynamic-
  // programming proposer); empty: fqn order. The stats print in it.
  std::vector<int> table_order;

  // Set when planning failed. For failures inside the proposal loop,
  // `last_proposal` holds the last failed proposal with every rank -1.
  Status error;
  std::optional<PartitionedPlan> last_proposal;

  double wall_seconds = 0.0;  // time spent in plan()

  bool ok() const { return error.is_ok() && best.has_value(); }
  // Why there is no plan: `error`, or an internal error when planning left
  // neither a plan nor an error. REQUIRES: !ok().
  Status failure() const {
    return error.is_ok() ? Status::internal("the planner returned no plan") : error;
  }
};

// Where plan() is, for progress reports (PlannerOptions::progress).
struct PlannerProgress {
  int proposer = 0;  // index into Scenario::planner.proposers of the running proposer
  int num_proposers = 0;
  int proposals = 0;  // proposals evaluated so far (PlannerResult::num_proposals)
  int plans = 0;      // of which partitioned (PlannerResult::num_plans)
  // How far the running proposer's walk is, in [0, 1] (the greedy proposer:
  // the tables' moves made of the most it can make; it may end sooner), or
  // negative when the proposer does not say.
  double walked = -1.0;
  double proposer_seconds = 0.0;  // since the running proposer started
};

struct PlannerOptions {
  // Stop after storage reservation and enumeration (shardlab options).
  bool enumerate_only = false;
  // The caller writes every option's shards from the result (an options
  // listing, `shardlab options`); counted in the memory estimate checked
  // before enumerating. Otherwise the estimate counts the best plan's JSON.
  // Changes nothing plan() computes.
  bool lists_options = false;
  // Rates each plan that partitions; null means TorchRec's model (max over
  // ranks of device_perf_total). Not owned; must outlive the call. A model
  // with state makes concurrent plan() calls share it.
  PerfModel* perf_model = nullptr;
  // When set, every proposal the loop evaluates is appended here
  // (proposal_log.h). Logging changes nothing plan() computes. Not owned;
  // cleared first. Null: no log.
  ProposalLog* proposal_log = nullptr;
  // Polled before each proposal; when it reads true, plan() stops and fails
  // with PlannerErrorType::kOther "planning cancelled". Not owned.
  const std::atomic<bool>* cancel = nullptr;
  // Fitted cost-model parameters the estimators use instead of TorchRec's
  // constants (cost_calibration.h); null means TorchRec's model. Not owned;
  // must outlive the call.
  const CostCalibration* calibration = nullptr;
  // Called on the planning thread as each proposer starts and then after
  // every kProgressEvery evaluated proposals, or after the first proposal
  // evaluated kProgressInterval or more after the last report (slow ratings);
  // it must be cheap and must not call plan(). Empty: no reports. Reports
  // change nothing plan() computes.
  std::function<void(const PlannerProgress&)> progress;
  static constexpr int kProgressEvery = 256;
  static constexpr std::chrono::milliseconds kProgressInterval{500};
  // Threads planning may use: 1 settles proposals one at a time on the
  // calling thread; 0 (the default) uses two where the machine has two
  // cores or more (docs/cost-model.md §9.1, "Ratings skipped and shared").
  // The plan, counters, errors, stats and proposal log are the same for
  // every value.
  int threads = 0;
};

// Plans `scenario`. Errors (PlannerResult::error): invalid_argument for a
// scenario outside the limits, for a run that does not fit the memory budget
// (checked before enumerating, and again for the best plan's JSON once its
// shards are known: "writing the plan's N shards needs about ..."), or
// allocation failing anyway; a planner error (PlannerErrorType) when the
// reservation or no proposal fits, when a proposer cannot start, or when
// cancelled.
PlannerResult plan(const Scenario& scenario, const PlannerOptions& options = {});

// Re-rates an existing placement against `scenario`: per-rank perf and the
// NoopPerfModel rating, as plan() computes them for its best plan.
void rate_plan(const SearchSpace& space, const PartitionedPlan& plan, int world_size,
               std::vector<double>* device_perf_total, double* rating);

// Places `scenario`'s options the way `place` says and rates the placement, as
// plan() rates its best plan: enumerates (with `calibration`, not owned),
// calls `place` with the search space (e.g. reading a plan file against it),
// rates the result with TorchRec's model, then with `perf_model` when given.
// `place` may append options of HugeCTR's layout (hugectr_layout.h, as
// derived options); they are estimated here, with `calibration`.
// The result has num_proposals == 0. A failed enumeration leaves no search
// space; a failed `place` or estimate leaves the search space and its error.
PlannerResult rate_placement(const Scenario& scenario,
                             const std::function<Result<PartitionedPlan>(SearchSpace&)>& place,
                             const CostCalibration* calibration = nullptr,
                             PerfModel* perf_model = nullptr);

}  // namespace shardlab::planner
