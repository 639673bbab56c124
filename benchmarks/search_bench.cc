// Speed of the plan search (docs/optimize.md) on planned synthetic models
// (benchmarks/synthetic_scenario.h): a move tried on the phase model (propose,
// check storage, apply, estimate, undo), against one exact evaluation (a full
// simulation of the plan). Counters: moves or simulations per second.
//
//   build/benchmarks/search_bench --benchmark_filter=search/
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "shardlab/planner/planner.h"
#include "shardlab/search/move.h"
#include "shardlab/search/objective.h"
#include "shardlab/search/plan_state.h"
#include "shardlab/search/problem.h"
#include "synthetic_scenario.h"

namespace {

using namespace shardlab;

struct Planned {
  planner::Scenario scenario;
  planner::PlannerResult result;
  std::unique_ptr<search::Problem> problem;
  std::unique_ptr<search::Objective> objective;
};

const Planned& planned(int tables, int world) {
  static std::map<std::pair<int, int>, std::unique_ptr<Planned>> cache;
  auto& slot = cache[{tables, world}];
  if (!slot) {
    slot = std::make_unique<Planned>();
    slot->scenario = bench::synthetic_scenario(tables, world);
    slot->result = planner::plan(slot->scenario);
    if (slot->result.ok()) {
      Result<search::Problem> p = search::Problem::create(slot->scenario, slot->result);
      if (p.is_ok()) {
        slot->problem = std::make_unique<search::Problem>(std::move(p).value());
        Result<std::unique_ptr<search::Objective>> o =
            search::make_simulated_objective(*slot->problem);
        if (o.is_ok()) slot->objective = std::move(o).value();
      }
    }
  }
  return *slot;
}

// One move of each kind in turn from TorchRec's plan, tried and undone.
void BM_TryMove(benchmark::State& state) {
  const Planned& p = planned(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  if (!p.objective) {
    state.SkipWithError("planning failed");
    return;
  }
  Result<std::unique_ptr<search::Estimator>> estimator = p.objective->make_estimator();
  search::PlanState plan(*p.problem, *p.result.best);
  plan.add_all(estimator->get());
  search::Rng rng(1);
  search::MoveContext ctx{*p.problem, plan, **estimator, rng};
  std::vector<search::WeightedMove> moves = search::default_moves();
  search::Change change, undo, redo;
  size_t next = 0;
  for (auto _ : state) {
    search::Move& move = *moves[next++ % 4].move;  // convert_tables aside: it re-places many
    if (!move.propose(ctx, &change) || !plan.fits(change)) continue;
    (*estimator)->checkpoint();
    plan.apply(change, estimator->get(), &undo);
    benchmark::DoNotOptimize((*estimator)->value());
    plan.apply(undo, estimator->get(), &redo);
    (*estimator)->restore();
  }
  state.counters["moves_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The exact evaluation the estimate stands in for.
void BM_Evaluate(benchmark::State& state) {
  const Planned& p = planned(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  if (!p.objective) {
    state.SkipWithError("planning failed");
    return;
  }
  for (auto _ : state) {
    Result<search::Evaluation> e = p.objective->evaluate(*p.result.best);
    benchmark::DoNotOptimize(e);
  }
  state.counters["evaluations_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_TryMove)
    ->Name("search/try_move")
    ->Args({300, 16})
    ->Args({800, 64})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Evaluate)
    ->Name("search/evaluate")
    ->Args({300, 16})
    ->Args({800, 64})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
