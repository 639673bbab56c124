#include "shardlab/search/optimizer.h"

#include <algorithm>
#include <chrono>
#include <limits>
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

// A low quantile (a fifth of the way up) of the rises of the estimate over
// up to kSamples feasible moves from `state`, each undone again; 0 when none
// rises. Rises spread over orders of magnitude (a shard moved between quiet
// ranks, a large table given a poor option); the low end is what annealing
// should let through.
double typical_rise(PlanState& state, Estimator& estimator, std::vector<WeightedMove>& moves,
                    double total_weight, Rng& rng, double current) {
  constexpr int kSamples = 64;
  constexpr double kQuantile = 0.2;
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
  const size_t q = static_cast<size_t>(static_cast<double>(rises.size()) * kQuantile);
  std::nth_element(rises.begin(), rises.begin() + q, rises.end());
  return rises[q];
}

// The search's shared state: clock, budget, best plan and reporting.
// A line of cycles, each starting from the best plan the line found.
struct Lineage {
  planner::PartitionedPlan plan;
  Evaluation eval;
  int stale = 0;   // cycles in a row without a better plan
  int cycles = 0;  // cycles run
};

struct Walk;

class Search {
 public:
  Search(const Problem& problem, Objective& objective, const OptimizeOptions& options)
      : problem_(problem), objective_(objective), options_(options), started_(Clock::now()) {}

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  // Whether `change` would move more tables from the start plan than
  // OptimizeOptions::max_moved_tables allows.
  bool over_move_cap(const PlanState& state, const Change& change) const {
    return options_.max_moved_tables >= 0 && state.moved_after(change) > options_.max_moved_tables;
  }

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

  // Calls on_progress at every new best (`improved`) and when the interval
  // has passed. A new best does not move the next periodic report, so a
  // front end that shows only some of the improvements still hears from the
  // search every interval.
  void report(bool improved) {
    if (!options_.on_progress) return;
    const double now = elapsed();
    if (!improved && now < next_report_) return;
    if (!improved) next_report_ = now + options_.progress_interval_s;
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
      result_.history.push_back(
          Improvement{elapsed(), result_.moves, result_.evaluations, e->value});
      report(true);
    }
    return e;
  }

  Status run(const planner::PartitionedPlan& start);

  // Orders result_.moved along a path from the start and sets each move's
  // cumulative_share (TableMove): from the start plan, each step applies the
  // remaining move that leaves the lowest estimate (greedy), for as many
  // steps as kShareEvaluations estimates allow; the rest follow in the order
  // of their gains alone. Left in fqn order with shares of 0 when the
  // objective makes no estimator or it fails.
  void order_moves_by_share() {
    constexpr int64_t kShareEvaluations = 200000;
    std::vector<TableMove>& moved = result_.moved;
    if (moved.empty()) return;
    Result<std::unique_ptr<Estimator>> made = objective_.make_estimator();
    if (!made.is_ok()) return;
    Estimator& estimator = **made;
    PlanState state(problem_, result_.start);
    state.add_all(&estimator);
    const double start = estimator.value();
    Change step, undo, redo;
    // The estimate with `m` applied on top of the current state; keeps it
    // applied when `keep`.
    const auto try_move = [&](const TableMove& m, bool keep) {
      step.clear();
      step.add(m.table, m.to_option).ranks = m.to_ranks;
      state.apply(step, &estimator, &undo);
      const double v = estimator.value();
      if (!keep) state.apply(undo, &estimator, &redo);
      return v;
    };
    const size_t n = moved.size();
    std::vector<size_t> left(n);
    for (size_t i = 0; i < n; ++i) left[i] = i;
    // The rest's order: their gains alone, from the start.
    std::vector<double> alone(n);
    for (size_t i = 0; i < n; ++i) alone[i] = try_move(moved[i], false);
    std::stable_sort(left.begin(), left.end(),
                     [&](size_t a, size_t b) { return alone[a] < alone[b]; });
    const size_t greedy_steps =
        std::min<size_t>(n, static_cast<size_t>(kShareEvaluations / static_cast<int64_t>(n)));
    std::vector<size_t> order;
    std::vector<double> after;
    for (size_t k = 0; k < greedy_steps; ++k) {
      // The first step's estimates are the gains alone: `left` starts with the lowest.
      size_t pick = 0;  // index into `left`
      double lowest = std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < left.size() && k > 0; ++j) {
        const double v = try_move(moved[left[j]], false);
        if (v < lowest) {
          lowest = v;
          pick = j;
        }
      }
      order.push_back(left[pick]);
      after.push_back(try_move(moved[left[pick]], true));
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    for (const size_t i : left) {  // the rest, by their gains alone
      order.push_back(i);
      after.push_back(try_move(moved[i], true));
    }
    if (!estimator.failure().is_ok()) return;
    const double gain = start - after.back();
    std::vector<TableMove> ordered;
    ordered.reserve(n);
    for (size_t k = 0; k < n; ++k) {
      ordered.push_back(std::move(moved[order[k]]));
      ordered.back().cumulative_share = gain > 0.0 ? (start - after[k]) / gain : 0.0;
    }
    moved = std::move(ordered);
  }

  OptimizeResult take() {
    result_.moved = changed_tables(problem_, result_.start, result_.best);
    order_moves_by_share();
    result_.wall_seconds = elapsed();
    return std::move(result_);
  }

 private:
  // Local search (docs/optimize.md): the sweep's lineages beside the
  // start's, then cycles of moves on the lineage next_lineage picks until
  // none is left or a stop condition holds. Each step returns a Status when
  // the search must end with it (OK: a stop condition), else nullopt.
  Status local_search();
  std::optional<Status> halt(const Walk& walk);
  // From the start plan, every table of one sharding type that can takes
  // another, for each pair of types; each result is evaluated exactly, and
  // the best results below the start start lineages of their own.
  std::optional<Status> sweep(Walk& walk, std::vector<Lineage>* lineages);
  // The live lineage (close to the best, not out of patience) that has run
  // the fewest cycles, the better one first; null when none is live.
  Lineage* next_lineage(std::vector<Lineage>& lineages) const;
  // One cycle of moves from the lineage's best plan, annealed after its first.
  std::optional<Status> cycle(Walk& walk, Lineage& lineage);
  static size_t pick_move(Walk& walk);

  const Problem& problem_;
  Objective& objective_;
  const OptimizeOptions& options_;
  Clock::time_point started_;
  double next_report_ = 0.0;
  OptimizeResult result_;
  Evaluation start_eval_;  // the objective's evaluation of result_.start
};

Status Search::run(const planner::PartitionedPlan& start) {
  Result<Evaluation> first = objective_.evaluate(start);
  if (!first.is_ok()) return first.status();
  result_.evaluations = 1;
  result_.start = start;
  result_.best = start;
  result_.start_value = result_.best_value = first->value;
  start_eval_ = *first;
  result_.history.push_back(Improvement{elapsed(), 0, 1, first->value});
  report(true);

  const int64_t plans = detail::count_plans(problem_, options_.exhaustive_limit);
  const bool exhaustive = options_.exhaustive_limit > 0 && plans <= options_.exhaustive_limit &&
                          options_.max_moved_tables < 0 &&
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

// What local search carries from step to step: the estimator, the moves
// and their weights, the acceptance rule, the random stream and the
// scratch changes. Every step draws from `rng` in the same order as one
// loop would, so a seed gives the same search.
struct Walk {
  Estimator& estimator;
  std::vector<WeightedMove> moves;
  double total_weight = 0.0;
  std::unique_ptr<AcceptanceRule> acceptance;
  Rng rng;
  Change change, undo, redo;
  int64_t cycle_moves = 0;  // moves per cycle
};

// Moves per cycle grow with the options and shards: each gets tried a
// number of times per cycle.
constexpr int64_t kMovesPerUnit = 10;
// Evaluate exactly once the estimate fell this much below the last check.
constexpr double kCheckStep = 0.002;
constexpr int kStopCheckEvery = 256;
constexpr int kSweepTries = 4;
// Lineages whose best is this much worse than the best plan stop.
constexpr double kLineageSlack = 0.10;
constexpr int kSweepLineages = 2;

Status Search::local_search() {
  Result<std::unique_ptr<Estimator>> made = objective_.make_estimator();
  if (!made.is_ok()) return made.status();
  Walk walk{.estimator = **made,
            .moves = default_moves(),
            .acceptance = make_annealing(),
            .rng = Rng(options_.seed)};
  for (const WeightedMove& m : walk.moves) walk.total_weight += m.weight;
  const int64_t units = static_cast<int64_t>(problem_.space().options.size()) +
                        static_cast<int64_t>(result_.start.ranks.size());
  walk.cycle_moves = std::clamp<int64_t>(kMovesPerUnit * units, 10000, 50000);

  std::vector<Lineage> lineages;
  lineages.push_back(Lineage{result_.start, start_eval_});
  if (std::optional<Status> stop = sweep(walk, &lineages)) return *stop;
  for (;;) {
    if (auto h = halt(walk)) return *h;
    Lineage* lineage = next_lineage(lineages);
    if (lineage == nullptr) {
      result_.stop = StopReason::kConverged;
      return Status::ok();
    }
    if (std::optional<Status> stop = cycle(walk, *lineage)) return *stop;
  }
}

std::optional<Status> Search::halt(const Walk& walk) {
  if (Status st = walk.estimator.failure(); !st.is_ok()) return st;
  if (must_stop()) return Status::ok();
  return std::nullopt;
}

std::optional<Status> Search::sweep(Walk& walk, std::vector<Lineage>* lineages) {
  std::vector<Lineage> swept;
  for (int from = 0; from < problem_.sharding_types(); ++from) {
    for (int to = 0; to < problem_.sharding_types(); ++to) {
      if (auto h = halt(walk)) return h;
      PlanState trial(problem_, result_.start);
      if (options_.max_moved_tables >= 0) trial.count_moves_from(&result_.start);
      walk.estimator.clear();
      trial.add_all(&walk.estimator);
      MoveContext ctx{problem_, trial, walk.estimator, walk.rng};
      walk.change.clear();
      if (detail::convert_tables(ctx, static_cast<planner::ShardingType>(from),
                                 static_cast<planner::ShardingType>(to), 1.0, kSweepTries,
                                 &walk.change) == 0 ||
          !trial.fits(walk.change) || over_move_cap(trial, walk.change)) {
        continue;
      }
      trial.apply(walk.change, &walk.estimator, &walk.undo);
      planner::PartitionedPlan plan = trial.to_plan();
      Result<Evaluation> e = evaluate(plan);
      if (!e.is_ok()) return e.status();
      report(false);
      if (e->value < result_.start_value) swept.push_back(Lineage{std::move(plan), *e});
    }
  }
  std::stable_sort(swept.begin(), swept.end(),
                   [](const Lineage& a, const Lineage& b) { return a.eval.value < b.eval.value; });
  for (size_t i = 0; i < swept.size() && i < kSweepLineages; ++i)
    lineages->push_back(std::move(swept[i]));
  return std::nullopt;
}

Lineage* Search::next_lineage(std::vector<Lineage>& lineages) const {
  Lineage* pick = nullptr;
  for (Lineage& l : lineages) {
    const bool close = l.eval.value <= result_.best_value * (1.0 + kLineageSlack);
    const bool fresh = options_.patience <= 0 || l.stale < options_.patience;
    if (!close || !fresh) continue;
    if (pick == nullptr || l.cycles < pick->cycles ||
        (l.cycles == pick->cycles && l.eval.value < pick->eval.value)) {
      pick = &l;
    }
  }
  return pick;
}

std::optional<Status> Search::cycle(Walk& walk, Lineage& lineage) {
  ++lineage.cycles;
  ++result_.cycles;
  bool improved = false;
  Estimator& estimator = walk.estimator;
  PlanState state(problem_, lineage.plan);
  if (options_.max_moved_tables >= 0) state.count_moves_from(&result_.start);
  estimator.clear();
  state.add_all(&estimator);
  // Fit the estimator to the plan the cycle starts from.
  estimator.observe(lineage.eval);
  double current = estimator.value();
  // A lineage's first cycle descends (no rise is kept): the quickest way
  // down from a plan no search has refined yet. Later cycles anneal.
  const double rise = lineage.cycles == 1 ? 0.0
                                          : typical_rise(state, estimator, walk.moves,
                                                         walk.total_weight, walk.rng, current);
  walk.acceptance->start_cycle(current, rise);
  double check_below = current * (1.0 - kCheckStep);
  MoveContext ctx{problem_, state, estimator, walk.rng};

  // Evaluates the state exactly: a better plan is the lineage's, and the
  // estimator is fitted to it.
  auto check = [&]() -> Status {
    planner::PartitionedPlan plan = state.to_plan();
    Result<Evaluation> e = evaluate(plan);
    if (!e.is_ok()) return e.status();
    if (e->value < lineage.eval.value) {
      lineage.plan = std::move(plan);
      lineage.eval = *e;
      improved = true;
    }
    estimator.observe(*e);
    current = estimator.value();
    check_below = current * (1.0 - kCheckStep);
    return Status::ok();
  };

  for (int64_t step = 0; step < walk.cycle_moves; ++step) {
    if (step % kStopCheckEvery == 0) {
      if (auto h = halt(walk)) return h;
      report(false);
    }
    const size_t m = pick_move(walk);
    ++result_.moves;
    if (!walk.moves[m].move->propose(ctx, &walk.change)) continue;
    if (!state.fits(walk.change) || over_move_cap(state, walk.change)) continue;
    ++result_.feasible_moves;
    estimator.checkpoint();
    state.apply(walk.change, &estimator, &walk.undo);
    const double after = estimator.value();
    const double progress = static_cast<double>(step) / static_cast<double>(walk.cycle_moves);
    if (!walk.acceptance->accept(current, after, progress, walk.rng)) {
      state.apply(walk.undo, &estimator, &walk.redo);
      estimator.restore();
      continue;
    }
    estimator.release();
    ++result_.accepted_moves;
    current = after;
    if (current < check_below) {
      if (Status st = check(); !st.is_ok()) return st;
      if (auto h = halt(walk)) return h;
    }
  }
  // The cycle ends cold, in a local minimum of the estimate: check it.
  if (Status st = check(); !st.is_ok()) return st;
  lineage.stale = improved ? 0 : lineage.stale + 1;
  return std::nullopt;
}

size_t Search::pick_move(Walk& walk) {
  double pick = walk.rng.uniform() * walk.total_weight;
  size_t m = 0;
  while (m + 1 < walk.moves.size() && pick >= walk.moves[m].weight) pick -= walk.moves[m++].weight;
  return m;
}

}  // namespace

Result<OptimizeResult> optimize(const Problem& problem, Objective& objective,
                                const planner::PartitionedPlan& start,
                                const OptimizeOptions& options) {
  if (start.proposal.size() != static_cast<size_t>(problem.num_tables())) {
    return Status::invalid_argument("start plan: " + std::to_string(start.proposal.size()) +
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
