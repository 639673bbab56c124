// The plan search end to end: it finds the optimum of a tiny instance known
// by enumeration, repeats itself for a seed, keeps the objective of the plan
// it writes, never returns a worse plan than it started from, and stops when
// asked.

#include "shardlab/search/optimizer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <vector>

#include "search_test_helpers.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/planner/placement.h"
#include "shardlab/search/plan_state.h"
#include "shardlab/search/report.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::search {
namespace {

using planner::ComputeKernel;
using planner::ShardingType;
using testing::Planned;

// Three tables on two ranks of one host, each table-wise (on either rank)
// or data-parallel: 3^3 = 27 plans.
planner::Scenario tiny() {
  planner::Scenario s = testing::base_scenario("tiny", 2, 2);
  const std::vector<ShardingType> types = {ShardingType::kTableWise, ShardingType::kDataParallel};
  const std::vector<ComputeKernel> kernels = {ComputeKernel::kFused, ComputeKernel::kDense};
  testing::add_table(&s, "big_hot", 4000000, 128, 30.0, types, kernels);
  testing::add_table(&s, "mid", 500000, 64, 8.0, types, kernels);
  testing::add_table(&s, "small_cold", 20000, 32, 2.0, types, kernels);
  return s;
}

// The best simulated time over every plan of `planned`, by brute force: each
// table's options in turn, table-wise on each rank.
double enumerated_optimum(const Planned& p, int* plans) {
  const planner::SearchSpace& space = *p.result.search_space;
  const int tables = static_cast<int>(space.fqns.size());
  double best = std::numeric_limits<double>::infinity();
  *plans = 0;
  // Per table: the (option, rank) choices; uniform options have one.
  std::vector<std::vector<std::pair<int, int>>> choices(tables);
  for (int t = 0; t < tables; ++t) {
    for (const int o : space.options_by_fqn[t]) {
      if (space.options[o].partition_by == planner::PartitionBy::kUniform) {
        choices[t].emplace_back(o, -1);
      } else {
        for (int r = 0; r < p.scenario.topology.world_size; ++r) choices[t].emplace_back(o, r);
      }
    }
  }
  std::vector<size_t> pick(tables, 0);
  for (;;) {
    planner::Proposal proposal(tables);
    for (int t = 0; t < tables; ++t) proposal[t] = choices[t][pick[t]].first;
    planner::PartitionedPlan plan;
    planner::layout_partitioned_plan(space, proposal, &plan);
    for (int t = 0; t < tables; ++t) {
      const int rank = choices[t][pick[t]].second;
      for (int s = plan.first_shard[t]; s < plan.first_shard[t + 1]; ++s) {
        plan.ranks[s] = rank < 0 ? s - plan.first_shard[t] : rank;
      }
    }
    if (planner::check_plan_fits(space, plan, p.result.topology, p.result.reserved->devices)
            .is_ok()) {
      ++*plans;
      Result<sim::SimResult> r = sim::simulate(p.scenario, space, plan);
      EXPECT_TRUE(r.is_ok());
      if (r.is_ok()) best = std::min(best, r->iteration_ms);
    }
    int t = tables - 1;
    while (t >= 0 && ++pick[t] == choices[t].size()) pick[t--] = 0;
    if (t < 0) break;
  }
  return best;
}

OptimizeOptions bounded(int64_t evaluations, uint64_t seed = 1) {
  OptimizeOptions o;
  o.seed = seed;
  o.time_limit_s = 0.0;  // deterministic: only the evaluation budget stops it
  o.max_evaluations = evaluations;
  o.patience = 3;  // small instances converge in a few cycles
  return o;
}

TEST(Optimizer, FindsTheOptimumOfATinyInstanceKnownByEnumeration) {
  auto p = testing::plan_for_search(tiny());
  int plans = 0;
  const double optimum = enumerated_optimum(*p, &plans);
  EXPECT_EQ(plans, 27);
  auto objective = testing::simulated_objective(*p->problem);

  // The exact search: every plan evaluated.
  OptimizeOptions exact = bounded(0);
  Result<OptimizeResult> r = optimize(*p->problem, *objective, *p->result.best, exact);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->method, "exhaustive");
  EXPECT_EQ(r->stop, StopReason::kExhausted);
  EXPECT_EQ(r->best_value, optimum);

  // The local search, with the exact search switched off, finds it too.
  OptimizeOptions local = bounded(200);
  local.exhaustive_limit = 0;
  r = optimize(*p->problem, *objective, *p->result.best, local);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->method, "local search");
  EXPECT_EQ(r->best_value, optimum);
}

TEST(Optimizer, SameSeedGivesTheSamePlan) {
  auto p = testing::plan_for_search(testing::mixed_scenario(40, 8, 4));
  auto objective = testing::simulated_objective(*p->problem);
  Result<OptimizeResult> a = optimize(*p->problem, *objective, *p->result.best, bounded(25, 42));
  Result<OptimizeResult> b = optimize(*p->problem, *objective, *p->result.best, bounded(25, 42));
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(a->stop, b->stop);
  EXPECT_EQ(a->best.proposal, b->best.proposal);
  EXPECT_EQ(a->best.ranks, b->best.ranks);
  EXPECT_EQ(a->best_value, b->best_value);  // bit for bit
  EXPECT_EQ(a->moves, b->moves);
  EXPECT_EQ(a->evaluations, b->evaluations);
}

// The value the search keeps is the simulator's for the plan it returns,
// also after the plan has been written and read back as a file.
TEST(Optimizer, KeptObjectiveEqualsAFreshSimulationOfTheWrittenPlan) {
  auto p = testing::plan_for_search(testing::mixed_scenario(40, 8, 4));
  auto objective = testing::simulated_objective(*p->problem);
  Result<OptimizeResult> r = optimize(*p->problem, *objective, *p->result.best, bounded(30));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_LT(r->best_value, r->start_value);

  planner::PlannerResult written = p->result;
  written.best = r->best;
  const std::string json = data::plan_to_json(p->scenario, written);
  Result<planner::PartitionedPlan> read =
      data::parse_plan(json, "plan.json", p->scenario, *p->result.search_space);
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  Result<sim::SimResult> fresh = sim::simulate(p->scenario, *p->result.search_space, *read);
  ASSERT_TRUE(fresh.is_ok());
  EXPECT_EQ(fresh->iteration_ms, r->best_value);
  EXPECT_TRUE(planner::check_plan_fits(*p->result.search_space, *read, p->result.topology,
                                       p->result.reserved->devices)
                  .is_ok());
}

TEST(Optimizer, NeverReturnsAWorsePlanAndListsWhatMoved) {
  auto p = testing::plan_for_search(testing::mixed_scenario(30, 8, 8));
  auto objective = testing::simulated_objective(*p->problem);
  Result<OptimizeResult> r = optimize(*p->problem, *objective, *p->result.best, bounded(20));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_LE(r->best_value, r->start_value);
  ASSERT_FALSE(r->history.empty());
  EXPECT_EQ(r->history.front().value, r->start_value);
  EXPECT_EQ(r->history.back().value, r->best_value);
  for (size_t i = 1; i < r->history.size(); ++i)
    EXPECT_LT(r->history[i].value, r->history[i - 1].value);
  EXPECT_EQ(r->moved.size(), changed_tables(*p->problem, r->start, r->best).size());
  for (const TableMove& m : r->moved) {
    const bool same_option = m.from_option == m.to_option;
    EXPECT_TRUE(!same_option || m.from_ranks != m.to_ranks) << m.name;
  }
}

TEST(Optimizer, TorchRecObjectiveLowersTorchRecsRating) {
  planner::Scenario s = testing::mixed_scenario(30, 8, 8);
  // Memory-balanced partitioning leaves TorchRec's rating room to improve.
  s.planner.partitioner.kind = planner::PartitionerKind::kMemoryBalanced;
  auto p = testing::plan_for_search(s);
  std::unique_ptr<Objective> objective = make_torchrec_objective(*p->problem);
  Result<OptimizeResult> r = optimize(*p->problem, *objective, *p->result.best, bounded(50));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  std::vector<double> per_rank;
  double rating = 0.0;
  planner::rate_plan(*p->result.search_space, r->best, 8, &per_rank, &rating);
  EXPECT_EQ(rating, r->best_value);
  EXPECT_EQ(r->start_value, p->result.perf_rating);
  EXPECT_LE(r->best_value, r->start_value);
}

TEST(Optimizer, StopsWhenCancelledAndReportsProgress) {
  auto p = testing::plan_for_search(testing::mixed_scenario(30, 8, 8));
  auto objective = testing::simulated_objective(*p->problem);
  std::atomic<bool> cancel{false};
  int calls = 0;
  OptimizeOptions o = bounded(0);
  o.cancel = &cancel;
  o.on_progress = [&](const Progress& progress) {
    ++calls;
    EXPECT_NE(progress.best, nullptr);
    if (progress.evaluations >= 3) cancel.store(true);
  };
  Result<OptimizeResult> r = optimize(*p->problem, *objective, *p->result.best, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->stop, StopReason::kCancelled);
  EXPECT_GE(calls, 1);
  EXPECT_LE(r->best_value, r->start_value);
}

TEST(Optimizer, RefusesAStartPlanThatDoesNotFit) {
  auto p = testing::plan_for_search(testing::mixed_scenario(20, 4, 4));
  auto objective = testing::simulated_objective(*p->problem);
  planner::PartitionedPlan crowded = *p->result.best;
  // Every table-wise shard on rank 0, beyond its HBM once it is small.
  planner::PlannerResult small = p->result;
  for (planner::Storage& d : small.reserved->devices) d.hbm = 1;
  Result<Problem> tight = Problem::create(p->scenario, small);
  ASSERT_TRUE(tight.is_ok());
  Result<OptimizeResult> r = optimize(*tight, *objective, crowded, bounded(5));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(
      r.status().message().find("start plan: the plan does not fit this scenario's GPUs: rank"),
      std::string::npos)
      << r.status().message();
}

// --max-moved-tables: the best plan differs from the start in at most the
// cap's tables (0: it is the start), where the uncapped search moves more.
TEST(Optimizer, MovesAtMostTheCapsTables) {
  auto p = testing::plan_for_search(testing::mixed_scenario(30, 8, 8));
  auto objective = testing::simulated_objective(*p->problem);
  Result<OptimizeResult> free = optimize(*p->problem, *objective, *p->result.best, bounded(40));
  ASSERT_TRUE(free.is_ok()) << free.status().message();
  ASSERT_GT(free->moved.size(), 2u);  // else the cap below proves nothing
  for (const int cap : {0, 2}) {
    OptimizeOptions o = bounded(40);
    o.max_moved_tables = cap;
    Result<OptimizeResult> r = optimize(*p->problem, *objective, *p->result.best, o);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    EXPECT_LE(r->moved.size(), static_cast<size_t>(cap));
    EXPECT_LE(r->best_value, r->start_value);
    EXPECT_EQ(changed_tables(*p->problem, *p->result.best, r->best).size(), r->moved.size());
  }
}

// The moves come in the order of the path their shares are measured along:
// replaying them from the start with a fresh estimator gives each share; the
// first is the move that gains most alone (the path is greedy at this
// size), and the last share is the whole estimated gain.
TEST(Optimizer, MovesComeInTheOrderOfTheirShareOfTheGain) {
  auto p = testing::plan_for_search(testing::mixed_scenario(30, 8, 8));
  auto objective = testing::simulated_objective(*p->problem);
  Result<OptimizeResult> r = optimize(*p->problem, *objective, *p->result.best, bounded(40));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_GT(r->moved.size(), 2u);
  Result<std::unique_ptr<Estimator>> made = objective->make_estimator();
  ASSERT_TRUE(made.is_ok());
  Estimator& e = **made;
  PlanState state(*p->problem, r->start);
  state.add_all(&e);
  const double start = e.value();
  // What each move gives alone, from the start.
  Change step, undo, redo;
  const auto apply = [&](const TableMove& m) {
    step.clear();
    step.add(m.table, m.to_option).ranks = m.to_ranks;
    state.apply(step, &e, &undo);
    return e.value();
  };
  double best_alone = std::numeric_limits<double>::infinity();
  for (const TableMove& m : r->moved) {
    best_alone = std::min(best_alone, apply(m));
    state.apply(undo, &e, &redo);
  }
  std::vector<double> after;
  for (const TableMove& m : r->moved) after.push_back(apply(m));
  EXPECT_DOUBLE_EQ(after.front(), best_alone);
  const double gain = start - after.back();
  ASSERT_GT(gain, 0.0);
  for (size_t k = 0; k < after.size(); ++k) {
    EXPECT_NEAR(r->moved[k].cumulative_share, (start - after[k]) / gain, 1e-9) << k;
  }
  EXPECT_NEAR(r->moved.back().cumulative_share, 1.0, 1e-9);
  EXPECT_EQ(changed_tables(*p->problem, r->start, r->best).size(), r->moved.size());
  EXPECT_EQ(move_share_text(r->moved.back()), "(100.0%)");
}

// An estimator that fails (as the phase model does when an all-to-all's
// tables would not fit the memory budget) after `after` additions; the rest
// is the wrapped one's.
class FailingEstimator final : public Estimator {
 public:
  FailingEstimator(std::unique_ptr<Estimator> inner, int after)
      : inner_(std::move(inner)), after_(after) {}
  void add(int option, const int* ranks, double sign) override {
    count();
    inner_->add(option, ranks, sign);
  }
  void add_shard(int option, int shard, int rank, double sign) override {
    count();
    inner_->add_shard(option, shard, rank, sign);
  }
  double value() override { return inner_->value(); }
  int busiest_rank(Rng& rng) override { return inner_->busiest_rank(rng); }
  void clear() override { inner_->clear(); }
  Status failure() const override {
    return added_ > after_ ? Status::invalid_argument("the estimator's tables would not fit")
                           : Status::ok();
  }

 private:
  void count() { ++added_; }
  std::unique_ptr<Estimator> inner_;
  int after_;
  int added_ = 0;
};

class FailingObjective final : public Objective {
 public:
  FailingObjective(std::unique_ptr<Objective> inner, int after)
      : inner_(std::move(inner)), after_(after) {}
  std::string_view name() const override { return inner_->name(); }
  Result<Evaluation> evaluate(const planner::PartitionedPlan& plan) override {
    return inner_->evaluate(plan);
  }
  Result<std::unique_ptr<Estimator>> make_estimator() override {
    Result<std::unique_ptr<Estimator>> made = inner_->make_estimator();
    if (!made.is_ok()) return made.status();
    return std::unique_ptr<Estimator>(new FailingEstimator(std::move(*made), after_));
  }

 private:
  std::unique_ptr<Objective> inner_;
  int after_;
};

// The search stops with the estimator's failure, not with a plan chosen by
// estimates that no longer mean anything.
TEST(Optimizer, StopsWithTheEstimatorsFailure) {
  auto p = testing::plan_for_search(testing::mixed_scenario(30, 8, 8));
  FailingObjective objective(make_torchrec_objective(*p->problem), 50);
  Result<OptimizeResult> r = optimize(*p->problem, objective, *p->result.best, bounded(0));
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "the estimator's tables would not fit");
  // Without the failure the same search runs to its evaluation budget.
  FailingObjective never(make_torchrec_objective(*p->problem), 1 << 30);
  EXPECT_TRUE(optimize(*p->problem, never, *p->result.best, bounded(20)).is_ok());
}

}  // namespace
}  // namespace shardlab::search
