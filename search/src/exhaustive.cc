#include "exhaustive.h"

#include <algorithm>
#include <vector>

#include "shardlab/planner/placement.h"

namespace shardlab::search::detail {
namespace {

// Placements of option `o`: uniform 1, table-row-wise one per group (host
// or pod), table-wise and column-wise W^n, table-column-wise groups · G^n,
// grid groups^blocks (a group per column block); capped.
int64_t placements(const Problem& p, int o, int64_t cap) {
  const planner::ShardingOption& opt = p.option(o);
  const int n = opt.num_shards();
  if (opt.partition_by == planner::PartitionBy::kUniform) return 1;
  if (opt.sharding_type == planner::ShardingType::kTableRowWise) return p.num_groups();
  if (opt.partition_by == planner::PartitionBy::kMultiHost) {
    int64_t count = 1;
    for (int b = 0; b < n / p.group_size() && count <= cap; ++b) count *= p.num_groups();
    return std::min(count, cap + 1);
  }
  const bool by_host = opt.sharding_type == planner::ShardingType::kTableColumnWise;
  const int64_t base = by_host ? p.group_size() : p.world_size();
  int64_t count = by_host ? p.num_groups() : 1;
  for (int s = 0; s < n && count <= cap; ++s) count *= base;
  return std::min(count, cap + 1);
}

// Placement `index` of option `o` (0 <= index < placements(o)).
void placement(const Problem& p, int o, int64_t index, std::vector<int>* ranks) {
  const planner::ShardingOption& opt = p.option(o);
  const int n = opt.num_shards();
  const int lw = p.group_size();
  ranks->assign(n, 0);
  if (opt.partition_by == planner::PartitionBy::kUniform) {
    for (int s = 0; s < n; ++s) (*ranks)[s] = s;
    return;
  }
  if (opt.sharding_type == planner::ShardingType::kTableRowWise) {
    for (int s = 0; s < n; ++s) (*ranks)[s] = static_cast<int>(index) * lw + s;
    return;
  }
  if (opt.partition_by == planner::PartitionBy::kMultiHost) {
    // Block b's group is digit b of `index` in base groups (the last block
    // the lowest digit).
    for (int b = n / lw - 1; b >= 0; --b) {
      const int group = static_cast<int>(index % p.num_groups());
      index /= p.num_groups();
      for (int s = 0; s < lw; ++s) (*ranks)[b * lw + s] = group * lw + s;
    }
    return;
  }
  const bool by_host = opt.sharding_type == planner::ShardingType::kTableColumnWise;
  const int base = by_host ? lw : p.world_size();
  int offset = 0;
  if (by_host) {
    int64_t per_host = 1;
    for (int s = 0; s < n; ++s) per_host *= base;
    offset = static_cast<int>(index / per_host) * lw;
    index %= per_host;
  }
  for (int s = n - 1; s >= 0; --s) {
    (*ranks)[s] = offset + static_cast<int>(index % base);
    index /= base;
  }
}

}  // namespace

int64_t count_plans(const Problem& problem, int64_t limit) {
  int64_t total = 1;
  for (int t = 0; t < problem.num_tables(); ++t) {
    int64_t table = 0;
    for (const int o : problem.options_of(t)) table += placements(problem, o, limit);
    if (table > limit) return limit + 1;
    total *= table;
    if (total > limit) return limit + 1;
  }
  return total;
}

Status enumerate_plans(const Problem& problem,
                       const std::function<Result<bool>(const planner::PartitionedPlan&)>& visit) {
  const int tables = problem.num_tables();
  // Per table: (option position, placement index), advanced like an odometer.
  std::vector<int> option_pos(tables, 0);
  std::vector<int64_t> place(tables, 0);
  std::vector<int> ranks;
  for (;;) {
    planner::Proposal proposal(tables);
    for (int t = 0; t < tables; ++t) proposal[t] = problem.options_of(t)[option_pos[t]];
    planner::PartitionedPlan plan;
    planner::layout_partitioned_plan(problem.space(), proposal, &plan);
    for (int t = 0; t < tables; ++t) {
      placement(problem, proposal[t], place[t], &ranks);
      std::copy(ranks.begin(), ranks.end(), plan.ranks.begin() + plan.first_shard[t]);
    }
    if (planner::check_plan_fits(problem.space(), plan, problem.topology(), problem.capacity())
            .is_ok()) {
      Result<bool> go_on = visit(plan);
      if (!go_on.is_ok()) return go_on.status();
      if (!*go_on) return Status::ok();
    }
    int t = tables - 1;
    for (; t >= 0; --t) {
      const int o = problem.options_of(t)[option_pos[t]];
      if (++place[t] < placements(problem, o, int64_t{1} << 40)) break;
      place[t] = 0;
      if (++option_pos[t] < static_cast<int>(problem.options_of(t).size())) break;
      option_pos[t] = 0;
    }
    if (t < 0) return Status::ok();
  }
}

}  // namespace shardlab::search::detail
