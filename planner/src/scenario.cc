#include "shardlab/planner/scenario.h"

#include <algorithm>

namespace shardlab::planner {

int Scenario::table_index(const std::string& table_name) const {
  for (size_t i = 0; i < tables.size(); ++i) {
    if (tables[i].name == table_name) return static_cast<int>(i);
  }
  return -1;
}

bool Scenario::uses_ssd_tier() const {
  if (!behaviour().ssd_tier) return false;
  if (topology.ssd_cap || topology.ssd_mem_bw) return true;
  for (const TableSpec& t : tables) {
    if (t.use_virtual_table || t.total_num_buckets) return true;
  }
  for (const auto& c : constraints) {
    if (!c) continue;
    if (c->key_value_params || c->use_virtual_table) return true;
    if (c->compute_kernels &&
        std::any_of(c->compute_kernels->begin(), c->compute_kernels->end(), is_guarded)) {
      return true;
    }
  }
  return false;
}

std::string_view to_string(ProposerKind k) {
  switch (k) {
    case ProposerKind::kGreedy:
      return "greedy";
    case ProposerKind::kUniform:
      return "uniform";
    case ProposerKind::kGridSearch:
      return "grid_search";
    case ProposerKind::kEmbeddingOffloadScaleup:
      return "embedding_offload_scaleup";
    case ProposerKind::kDynamicProgramming:
      return "dynamic_programming";
  }
  return "greedy";
}

std::string_view to_string(PartitionerKind k) {
  return k == PartitionerKind::kGreedyPerf ? "greedy_perf" : "memory_balanced";
}

std::vector<ProposerSpec> default_proposers() {
  // TorchRec's EmbeddingShardingPlanner default list.
  return {
      {.kind = ProposerKind::kGridSearch},
      {.kind = ProposerKind::kGreedy, .use_depth = true},
      {.kind = ProposerKind::kGreedy, .use_depth = false},
      {.kind = ProposerKind::kUniform, .use_depth = true},
  };
}

std::string_view to_string(Framework f) {
  return f == Framework::kHugeCtr ? "hugectr" : "torchrec";
}

}  // namespace shardlab::planner
