#include "shardlab/search/optimizer.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include "exhaustive.h"
#include "move_helpers.h"
#include "shardlab/planner/placement.h"
#include "shardlab/search/acceptance.h"
#include "shardlab/search/move.h"
#include "shardlab/search/plan_state.h"

namespace shardlab::search {

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::kTimeLimit:
      return "time_limit";
    case StopReason::kEvaluationLimit:
      return "evaluation_limit";
    case StopReason::kCancelled:
      return "cancelled";
    case StopReason::kConverged:
      return "converged";
    case StopReason::kExhausted:
      return "exhausted";
  }
  return "?";
}

std::vector<TableMove> changed_tables(const Problem& problem, const planner::PartitionedPlan& a,
                                      const planner::PartitionedPlan& b) {
  std::vector<TableMove> out;
  for (int t = 0; t < problem.num_tables(); ++t) {
    const std::vector<int> ra(a.ranks.begin() + a.first_shard[t],
                              a.ranks.begin() + a.first_shard[t + 1]);
    const std::vector<int> rb(b.ranks.begin() + b.first_shard[t],
                              b.ranks.begin() + b.first_shard[t + 1]);
    if (a.proposal[t] == b.proposal[t] && ra == rb) continue;
    out.push_back(
        TableMove{t, problem.option(b.proposal[t]).name, a.proposal[t], b.proposal[t], ra, rb});
  }
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

// The median rise of the estimate over up to kSamples feasible moves from
// `state`, each undone again; 0 when none rises.
double typical_rise(PlanState& state, Estimator& estimator, std::vector<WeightedMove>& moves,
                    double total_weight, Rng& rng, double current) {
  constexpr int kSamples = 64;
  constexpr int kAttempts = 4 * kSamples;
  MoveContext ctx{state.problem(), state, estimator, rng};
  Change change, undo, redo;
  std::vector<double> rises;
  for (int i = 0; i < kAttempts && static_cast<int>(rises.size()) < kSamples; ++i) {
    double pick = rng.uniform() * total_weight;
    size_t m = 0;
    while (m + 1 < moves.size() && pick >= moves[m].weight) pick -= moves[m++].weight;
    if (!moves[m].move->propose(ctx, &change) || !state.fits(change)) continue;
    estimator.checkpoint();
    state.apply(change, &estimator, &undo);
    const double rise = estimator.value() - current;
    state.apply(undo, &estimator, &redo);
    estimator.restore();
    if (rise > 0.0) rises.push_back(rise);
  }
  if (rises.empty()) return 0.0;
  std::nth_element(rises.begin(), rises.begin() + rises.size() / 2, rises.end());
  return rises[rises.size() / 2];
}

// The search's shared state: clock, budget, best plan and reporting.
class Search {
 public:
  Search(const Problem& problem, Objective& objective, const OptimizeOptions& options)
      : problem_(problem), objective_(objective), options_(options), started_(Clock::now()) {}

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  // Whether the search must stop now; sets result_.stop. Reads the clock.
  bool must_stop() {
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
      result_.stop = StopReason::kCancelled;
      return true;
    }
    if (options_.max_evaluations > 0 && result_.evaluations >= options_.max_evaluations) {
      result_.stop = StopReason::kEvaluationLimit;
      return true;
    }
    if (options_.time_limit_s > 0 && elapsed() >= options_.time_limit_s) {
      result_.stop = StopReason::kTimeLimit;
      return true;
    }
    return false;
  }

  // Calls on_progress when the interval has passed (or `improved`).
  void report(bool improved) {
    if (!options_.on_progress) return;
    const double now = elapsed();
    if (!improved && now < next_report_) return;
    next_report_ = now + options_.progress_interval_s;
    Progress p;
    p.elapsed_s = now;
    p.moves = result_.moves;
    p.evaluations = result_.evaluations;
    p.start_value = result_.start_value;
    p.best_value = result_.best_value;
    p.improved = improved;
    p.best = &result_.best;
    options_.on_progress(p);
  }

  // Evaluates `plan` exactly; keeps it when it is the best so far.
  Result<Evaluation> evaluate(const planner::PartitionedPlan& plan) {
    Result<Evaluation> e = objective_.evaluate(plan);
    if (!e.is_ok()) return e;
    ++result_.evaluations;
    if (e->value < result_.best_value) {
      result_.best_value = e->value;
      result_.best = plan;
      best_eval_ = *e;
      result_.history.push_back(
          Improvement{elapsed(), result_.moves, result_.evaluations, e->value});
      improved_ = true;
      report(true);
    }
    return e;
  }

  Status run(const planner::PartitionedPlan& start);

  OptimizeResult take() {
    result_.moved = changed_tables(problem_, result_.start, result_.best);
    result_.wall_seconds = elapsed();
    return std::move(result_);
  }

 private:
  Status local_search();

  const Problem& problem_;
  Objective& objective_;
  const OptimizeOptions& options_;
  Clock::time_point started_;
  double next_report_ = 0.0;
  bool improved_ = false;  // set by evaluate() on a new best
  OptimizeResult result_;
  Evaluation best_eval_;  // the objective's evaluation of result_.best
};

Status Search::run(const planner::PartitionedPlan& start) {
  Result<Evaluation> first = objective_.evaluate(start);
  if (!first.is_ok()) return first.status();
  result_.evaluations = 1;
  result_.start = start;
  result_.best = start;
  result_.start_value = result_.best_value = first->value;
  best_eval_ = *first;
  result_.history.push_back(Improvement{elapsed(), 0, 1, first->value});
  report(true);

  const int64_t plans = detail::count_plans(problem_, options_.exhaustive_limit);
  const bool exhaustive = options_.exhaustive_limit > 0 && plans <= options_.exhaustive_limit &&
                          (options_.max_evaluations <= 0 || plans <= options_.max_evaluations);
  if (exhaustive) {
    result_.method = "exhaustive";
    result_.stop = StopReason::kExhausted;
    return detail::enumerate_plans(problem_,
                                   [&](const planner::PartitionedPlan& plan) -> Result<bool> {
                                     if (must_stop()) return false;
                                     Result<Evaluation> e = evaluate(plan);
                                     if (!e.is_ok()) return e.status();
                                     report(false);
                                     return true;
                                   });
  }
  result_.method = "local search";
  return local_search();
}

Status Search::local_search() {
  Result<std::unique_ptr<Estimator>> made = objective_.make_estimator();
  if (!made.is_ok()) return made.status();
  Estimator& estimator = **made;
  std::vector<WeightedMove> moves = default_moves();
  double total_weight = 0.0;
  for (const WeightedMove& m : moves) total_weight += m.weight;
  std::unique_ptr<AcceptanceRule> acceptance = make_annealing();
  Rng rng(options_.seed);
  Change change, undo, redo;

  // Moves per cycle grow with the shards that can move: every shard gets
  // tried a number of times per cycle.
  const int64_t units = static_cast<int64_t>(problem_.space().options.size()) +
                        static_cast<int64_t>(result_.start.ranks.size());
  const int64_t cycle_moves = std::clamp<int64_t>(40 * units, 20000, 400000);
  // Evaluate exactly once the estimate fell this much below the last check.
  constexpr double kCheckStep = 0.002;
  constexpr int kStopCheckEvery = 256;
  constexpr int kSweepTries = 4;

  // The sweep: from the start plan, every table of one sharding type that
  // can takes another, for each pair of types in turn; each result is
  // evaluated exactly. Far-off mixes of sharding types (every table-wise
  // table table-row-wise, say) are then known before the first cycle, which
  // starts from the best of them.
  for (int from = 0; from < detail::kNumShardingTypes; ++from) {
    for (int to = 0; to < detail::kNumShardingTypes; ++to) {
      if (must_stop()) return Status::ok();
      PlanState trial(problem_, result_.start);
      estimator.clear();
      trial.add_all(&estimator);
      MoveContext ctx{problem_, trial, estimator, rng};
      change.clear();
      if (detail::convert_tables(ctx, static_cast<planner::ShardingType>(from),
                                 static_cast<planner::ShardingType>(to), 1.0, kSweepTries,
                                 &change) == 0 ||
          !trial.fits(change)) {
        continue;
      }
      trial.apply(change, &estimator, &undo);
      Result<Evaluation> e = evaluate(trial.to_plan());
      if (!e.is_ok()) return e.status();
    }
  }

  int stale_cycles = 0;
  for (int64_t cycle = 0;; ++cycle) {
    if (must_stop()) return Status::ok();
    ++result_.cycles;
    improved_ = false;
    PlanState state(problem_, result_.best);
    estimator.clear();
    state.add_all(&estimator);
    // Fit the estimator to the plan the cycle starts from.
    estimator.observe(best_eval_);
    double current = estimator.value();
    acceptance->start_cycle(current,
                            typical_rise(state, estimator, moves, total_weight, rng, current));
    double check_below = current * (1.0 - kCheckStep);
    MoveContext ctx{problem_, state, estimator, rng};

    auto check = [&]() -> Status {
      Result<Evaluation> e = evaluate(state.to_plan());
      if (!e.is_ok()) return e.status();
      estimator.observe(*e);
      current = estimator.value();
      check_below = current * (1.0 - kCheckStep);
      return Status::ok();
    };

    for (int64_t step = 0; step < cycle_moves; ++step) {
      if (step % kStopCheckEvery == 0) {
        if (must_stop()) return Status::ok();
        report(false);
      }
      double pick = rng.uniform() * total_weight;
      size_t m = 0;
      while (m + 1 < moves.size() && pick >= moves[m].weight) pick -= moves[m++].weight;
      ++result_.moves;
      if (!moves[m].move->propose(ctx, &change)) continue;
      if (!state.fits(change)) continue;
      ++result_.feasible_moves;
      estimator.checkpoint();
      state.apply(change, &estimator, &undo);
      const double after = estimator.value();
      const double progress = static_cast<double>(step) / static_cast<double>(cycle_moves);
      if (!acceptance->accept(current, after, progress, rng)) {
        state.apply(undo, &estimator, &redo);
        estimator.restore();
        continue;
      }
      estimator.release();
      ++result_.accepted_moves;
      current = after;
      if (current < check_below) {
        if (Status st = check(); !st.is_ok()) return st;
        if (must_stop()) return Status::ok();
      }
    }
    // The cycle ends cold, in a local minimum of the estimate: check it.
    if (Status st = check(); !st.is_ok()) return st;
    stale_cycles = improved_ ? 0 : stale_cycles + 1;
    if (options_.patience > 0 && stale_cycles >= options_.patience) {
      result_.stop = StopReason::kConverged;
      return Status::ok();
    }
  }
}

}  // namespace

Result<OptimizeResult> optimize(const Problem& problem, Objective& objective,
                                const planner::PartitionedPlan& start,
                                const OptimizeOptions& options) {
  if (start.proposal.size() != static_cast<size_t>(problem.num_tables())) {
    return Status::invalid_scenario("start plan: " + std::to_string(start.proposal.size()) +
                                    " tables, but the scenario has " +
                                    std::to_string(problem.num_tables()));
  }
  if (Status st =
          planner::check_plan_fits(problem.space(), start, problem.topology(), problem.capacity());
      !st.is_ok()) {
    return st.with_context("start plan");
  }
  Search search(problem, objective, options);
  if (Status st = search.run(start); !st.is_ok()) return st;
  return search.take();
}

}  // namespace shardlab::search
