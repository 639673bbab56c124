#include "greedy_perf_partitioner.h"
#include "memory_balanced_partitioner.h"

namespace shardlab::planner {

std::unique_ptr<Partitioner> make_partitioner(const PartitionerSpec& spec,
                                              const TorchRecBehaviour& behaviour) {
  switch (spec.kind) {
    case PartitionerKind::kGreedyPerf:
      return std::make_unique<GreedyPerfPartitioner>(spec.sort_by, spec.balance_modules);
    case PartitionerKind::kMemoryBalanced:
      return std::make_unique<MemoryBalancedPartitioner>(
          spec.max_search_count, spec.tolerance, spec.balance_modules,
          behaviour.memory_balanced_bounds_from_default_plan);
  }
  return nullptr;
}

}  // namespace shardlab::planner
