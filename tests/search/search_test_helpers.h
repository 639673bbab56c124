// Scenarios and plumbing the plan search tests share.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/search/objective.h"
#include "shardlab/search/problem.h"

namespace shardlab::search::testing {

// A table with one feature of pooling factor `pooling`.
inline void add_table(planner::Scenario* s, const std::string& name, int64_t rows, int64_t dim,
                      double pooling,
                      std::optional<std::vector<planner::ShardingType>> types = std::nullopt,
                      std::optional<std::vector<planner::ComputeKernel>> kernels = std::nullopt) {
  planner::TableSpec t;
  t.name = name;
  t.num_embeddings = rows;
  t.embedding_dim = dim;
  t.feature_names = {name + "_f0"};
  s->tables.push_back(t);
  planner::ConstraintSpec c;
  c.pooling_factors = std::vector<double>{pooling};
  c.sharding_types = std::move(types);
  c.compute_kernels = std::move(kernels);
  s->constraints.emplace_back(c);
}

inline planner::Scenario base_scenario(const std::string& name, int world, int local) {
  planner::Scenario s;
  s.name = name;
  s.topology.world_size = world;
  s.topology.local_world_size = local;
  s.batch_size = 1024;
  s.planner.proposers = planner::default_proposers();
  s.sharder.optimizer = planner::OptimizerKind::kRowwiseAdagrad;
  s.sharder.optimizer_name = "rowwise_adagrad";
  return s;
}

// A heavy-tailed mix: a few large hot tables, many small cold ones, over
// `world` ranks in hosts of `local`. With `hbm_cap` set, HBM is that small.
inline planner::Scenario mixed_scenario(int tables, int world, int local, int64_t hbm_cap = 0,
                                        uint64_t seed = 7) {
  planner::Scenario s = base_scenario("mixed", world, local);
  // Unset unless given: in TorchRec 2026-08 an explicit 0 means no HBM.
  if (hbm_cap > 0) s.topology.hbm_cap = hbm_cap;
  uint64_t x = seed;
  auto next = [&x]() {  // splitmix64: the same numbers on every platform
    x += 0x9e3779b97f4a7c15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  const int64_t dims[] = {32, 64, 128, 256};
  for (int t = 0; t < tables; ++t) {
    const bool big = t % 7 == 0;
    const int64_t rows = big ? 2000000 + static_cast<int64_t>(next() * 8e6)
                             : 1000 + static_cast<int64_t>(next() * 2e5);
    const double pooling = big ? 20.0 + next() * 60.0 : 1.0 + next() * 5.0;
    add_table(&s, "t" + std::to_string(t), rows, dims[static_cast<int>(next() * 4) % 4], pooling);
  }
  return s;
}

// A scenario planned by TorchRec's planner, with the search's problem over it.
struct Planned {
  planner::Scenario scenario;
  planner::PlannerResult result;
  std::optional<Problem> problem;
};

inline std::unique_ptr<Planned> plan_for_search(planner::Scenario s) {
  auto p = std::make_unique<Planned>();
  p->scenario = std::move(s);
  p->result = planner::plan(p->scenario);
  EXPECT_TRUE(p->result.ok()) << p->result.error.message();
  Result<Problem> problem = Problem::create(p->scenario, p->result);
  EXPECT_TRUE(problem.is_ok()) << problem.status().message();
  if (problem.is_ok()) p->problem.emplace(std::move(problem).value());
  return p;
}

inline std::unique_ptr<Objective> simulated_objective(const Problem& problem) {
  Result<std::unique_ptr<Objective>> o = make_simulated_objective(problem);
  EXPECT_TRUE(o.is_ok()) << o.status().message();
  return o.is_ok() ? std::move(o).value() : nullptr;
}

}  // namespace shardlab::search::testing
