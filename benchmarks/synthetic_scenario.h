// A synthetic DLRM-like model for benchmarks: T tables over W ranks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "shardlab/planner/scenario.h"

namespace shardlab::bench {

// Rows log-uniform in [1e3, 5e7], dims in {16..256}, pooling factors in
// [1, 40], 10% weighted, 25% fp16; 8 ranks per host; defaults for everything
// else (TorchRec's four proposers, greedy partitioner, 80 GiB HBM unless
// `hbm_cap` says otherwise).
inline planner::Scenario synthetic_scenario(int tables, int world_size,
                                            int64_t hbm_cap = int64_t{80} << 30) {
  planner::Scenario s;
  s.name = "synthetic_" + std::to_string(tables) + "x" + std::to_string(world_size);
  s.topology.world_size = world_size;
  s.topology.local_world_size = std::min(world_size, 8);
  s.topology.hbm_cap = hbm_cap;
  s.planner.proposers = planner::default_proposers();
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int dims[] = {16, 32, 64, 128, 256};
  for (int t = 0; t < tables; ++t) {
    planner::TableSpec table;
    table.name = "t" + std::to_string(t);
    table.num_embeddings =
        static_cast<int64_t>(std::exp(std::log(1e3) + u(rng) * (std::log(5e7) - std::log(1e3))));
    table.embedding_dim = dims[static_cast<int>(u(rng) * 5) % 5];
    table.feature_names = {table.name + "_f0"};
    table.is_weighted = u(rng) < 0.1;
    table.data_type = u(rng) < 0.25 ? planner::DataType::kFp16 : planner::DataType::kFp32;
    s.tables.push_back(table);
    planner::ConstraintSpec c;
    c.pooling_factors =
        std::vector<double>{std::round(std::exp(u(rng) * std::log(40.0)) * 10) / 10};
    s.constraints.emplace_back(c);
  }
  return s;
}

}  // namespace shardlab::bench
