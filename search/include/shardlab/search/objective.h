// What a plan search minimises. An objective gives the exact cost of a plan
// (the number the search keeps and reports) and makes the estimator that
// guides the search between exact evaluations (estimator.h).
//
// Two objectives:
//   simulated  the simulated steady-state iteration time, ms (sim::simulate
//              with the given options; docs/simulation.md), guided by the
//              phase model (phase_model.h);
//   torchrec   TorchRec's rating, ms: the largest per-rank sum of shard perf
//              estimates (planner::rate_plan), guided by the same sums kept
//              per rank.
// A new objective is one implementation of this interface.
#pragma once

#include <memory>
#include <string_view>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/search/estimator.h"
#include "shardlab/search/problem.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::search {

struct Evaluation {
  double value = 0.0;  // the objective's cost of the plan, lower is better
  // The simulated objective's run of the plan (phases recorded); null for
  // other objectives.
  std::shared_ptr<const sim::SimResult> simulation;
};

class Objective {
 public:
  virtual ~Objective() = default;

  // "simulated", "torchrec".
  virtual std::string_view name() const = 0;

  // The exact cost of `plan` (fqn order, every shard placed). Deterministic:
  // the same plan gives the same value, bit for bit.
  virtual Result<Evaluation> evaluate(const planner::PartitionedPlan& plan) = 0;

  // A new estimator of this objective for the problem's plans, empty.
  virtual Result<std::unique_ptr<Estimator>> make_estimator() = 0;
};

// `problem` must outlive the objective. The simulated objective fails on a
// fabric or workload the simulator refuses (as sim::simulate would).
Result<std::unique_ptr<Objective>> make_simulated_objective(const Problem& problem,
                                                            sim::SimOptions options = {});
std::unique_ptr<Objective> make_torchrec_objective(const Problem& problem);

}  // namespace shardlab::search
