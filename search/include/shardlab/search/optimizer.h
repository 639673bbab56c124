// The plan search (docs/optimize.md): from a start plan (usually TorchRec's),
// find a plan with a lower objective (simulated iteration time, or TorchRec's
// rating) that still fits every rank's storage after the reservation and
// honours the scenario's constraints.
//
// Method. When the whole space of plans is small (exhaustive_limit), every
// plan is evaluated and the best one returned. Otherwise a local search: a
// sweep first turns all tables of one sharding type into another, for each
// pair of types, and evaluates each result; then cycles of simulated
// annealing over the objective's estimator (moves in move.h, acceptance in
// acceptance.h). Cycles take turns among lineages, the start plan's and the
// sweep's best, each cycle starting from its lineage's best plan. Whenever
// the estimate of the current plan falls clearly below the last one checked,
// the plan is evaluated exactly; only exact evaluations decide the best
// plan, so the result's value is the objective's, never an estimate.
//
// Determinism. Every decision follows from the seed, the scenario and the
// counts of moves and evaluations, never from the clock: two runs with the
// same seed walk the same path. The clock (time_limit_s) and `cancel` only
// decide where on the path a run stops, so runs bounded by max_evaluations
// alone give bit-identical results, and a run stopped by the clock returns
// the best plan of a prefix of that path.
//
// Anytime. The best plan so far is always kept: when the time limit passes,
// `cancel` reads true or the evaluation budget is spent, optimize() returns
// it. on_progress sees it whenever it improves.
//
// Thread safety: optimize() runs on the calling thread and keeps no global
// state; separate calls (with separate objectives) may run concurrently.
// `cancel` may be set from any thread; on_progress is called on the calling
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/search/objective.h"
#include "shardlab/search/problem.h"

namespace shardlab::search {

enum class StopReason {
  kTimeLimit,        // time_limit_s passed
  kEvaluationLimit,  // max_evaluations exact evaluations done
  kCancelled,        // *cancel read true
  kConverged,        // every lineage went several cycles without a better plan
  kExhausted,        // every plan was evaluated (small spaces)
};
std::string_view to_string(StopReason r);  // "time_limit", "evaluation_limit", ...

struct Progress {
  double elapsed_s = 0.0;
  int64_t moves = 0;        // moves proposed so far
  int64_t evaluations = 0;  // exact evaluations so far
  double start_value = 0.0;
  double best_value = 0.0;
  bool improved = false;  // this call reports a new best plan
  // The best plan so far; valid only during the call.
  const planner::PartitionedPlan* best = nullptr;
};

struct OptimizeOptions {
  uint64_t seed = 1;
  double time_limit_s = 30.0;   // <= 0: no limit
  int64_t max_evaluations = 0;  // exact evaluations; 0: no limit
  // Polled between moves; stops the search when it reads true. Not owned.
  const std::atomic<bool>* cancel = nullptr;
  // Called about every progress_interval_s seconds and at every new best.
  std::function<void(const Progress&)> on_progress;
  double progress_interval_s = 0.5;
  // Evaluate every plan when there are at most this many (0: never).
  int64_t exhaustive_limit = 20000;
  // Local search: cycles in a row without a better plan after which a
  // lineage stops; the search stops when every lineage has (0: never stop
  // for that).
  int patience = 8;
  // Tables whose option or ranks may differ from the start plan's (a team
  // reviews and deploys every moved table); < 0: no cap. With a cap the
  // search is local (never exhaustive) and skips moves past it.
  int max_moved_tables = -1;
};

// The best point reached so far, each time it improves.
struct Improvement {
  double elapsed_s = 0.0;
  int64_t moves = 0;
  int64_t evaluations = 0;
  double value = 0.0;
};

// A table whose option or shard ranks differ between two plans.
struct TableMove {
  int table = -1;  // fqn position
  std::string name;
  int from_option = -1;  // indices into the search space
  int to_option = -1;
  std::vector<int> from_ranks;
  std::vector<int> to_ranks;
  // The share of the gain, estimated by the objective's estimator (e.g. the
  // phase model) along a path from the start: the moves are applied one after
  // another, those that gain most on their own first, and this is the share
  // of the estimated gain (start to best) once this move and every one before
  // it are applied. Rises along OptimizeResult::moved, to 1 at its last (up
  // to the estimator's rounding); 0 when nothing is gained. Set by optimize().
  double cumulative_share = 0.0;
};

// Tables of `b` whose option or ranks differ from `a` (both fqn order over
// problem.space()), in fqn order.
std::vector<TableMove> changed_tables(const Problem& problem, const planner::PartitionedPlan& a,
                                      const planner::PartitionedPlan& b);

struct OptimizeResult {
  planner::PartitionedPlan start;
  planner::PartitionedPlan best;
  double start_value = 0.0;  // the objective's value of each
  double best_value = 0.0;
  std::string method;  // "local search" or "exhaustive"
  StopReason stop = StopReason::kConverged;
  int64_t moves = 0;           // proposed
  int64_t feasible_moves = 0;  // proposed and fitting every rank
  int64_t accepted_moves = 0;
  int64_t evaluations = 0;  // exact evaluations, the start plan's included
  int64_t cycles = 0;
  double wall_seconds = 0.0;
  std::vector<Improvement> history;  // the start, then every new best
  // changed_tables(start, best), in the order of the path their
  // cumulative_share is measured along: what gains most on its own first
  // (ties in fqn order), so the first N are the N to deploy first.
  std::vector<TableMove> moved;
};

// Searches from `start` (fqn order over problem.space(), every shard placed).
// Fails with kInvalidArgument when `start` breaks the placement rules or
// does not fit (planner::check_plan_fits), or with the objective's error
// when it cannot evaluate a plan.
Result<OptimizeResult> optimize(const Problem& problem, Objective& objective,
                                const planner::PartitionedPlan& start,
                                const OptimizeOptions& options = {});

}  // namespace shardlab::search
