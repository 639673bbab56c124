// The numbers follow stats.cc's (docs/cost-model.md §10): per-rank storage and
// perf over the plan's shards, I/O sizes from shard_io_sizes, the parameter
// table's per-option sums.
#include "shardlab/planner/plan_summary.h"

#include <algorithm>
#include <map>
#include <utility>

#include "shardlab/planner/estimators.h"

namespace shardlab::planner {
namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;

TableSummary summarize_table(const Scenario& scenario, const SearchSpace& space,
                             const PartitionedPlan& plan, size_t i) {
  const ShardingOption& o = space.options[static_cast<size_t>(plan.proposal[i])];
  TableSummary t;
  t.table = o.table;
  t.option = plan.proposal[i];
  t.name = o.name;
  t.fqn = o.fqn;
  t.sharding_type = o.sharding_type;
  t.compute_kernel = o.compute_kernel;
  for (int j = 0; j < o.num_shards(); ++j) t.perf += o.shard_perf;
  t.storage = o.total_storage;
  t.cache_load_factor =
      o.cache_load_factor ? o.cache_load_factor : scenario.sharder.cache_load_factor;
  for (double x : o.input_lengths) t.pooling_factor += x;
  if (o.num_poolings.size() == o.input_lengths.size()) {
    for (double x : o.num_poolings) t.num_poolings += x;
  } else {
    t.num_poolings = static_cast<double>(o.input_lengths.size());
  }
  t.pooled = o.is_pooled;
  t.weighted = o.is_weighted;
  if (o.module >= 0 && o.module < static_cast<int>(space.modules.size())) {
    t.sharder = space.modules[static_cast<size_t>(o.module)].sharder_name;
  }
  t.num_inputs = static_cast<int>(o.input_lengths.size());
  t.embedding_dim = o.tensor_cols;
  if ((o.sharding_type == ShardingType::kColumnWise ||
       o.sharding_type == ShardingType::kTableColumnWise ||
       o.sharding_type == ShardingType::kGridShard) &&
      !o.shards.empty()) {
    t.column_shard_dim = o.shards.front().cols;
  }
  t.hash_size = o.tensor_rows;
  t.ranks.assign(plan.ranks.begin() + plan.first_shard[i],
                 plan.ranks.begin() + plan.first_shard[i + 1]);
  t.shards = o.shards;
  return t;
}

Storage non_negative(const Storage& s) {
  return Storage{std::max<int64_t>(0, s.hbm), std::max<int64_t>(0, s.ddr),
                 std::max<int64_t>(0, s.ssd)};
}

}  // namespace

Storage RankSummary::free() const { return non_negative(available - shards); }
Storage RankSummary::margin() const { return non_negative(capacity - available - dense - kjt); }
Storage RankSummary::overflow() const { return non_negative(shards - available); }

PlannerResult with_best_plan(const PlannerResult& base, PartitionedPlan plan,
                             const PlanSummary& summary) {
  PlannerResult r = base;
  r.best = std::move(plan);
  r.error = Status::ok();
  r.last_proposal.reset();
  r.device_perf_total.clear();
  for (const RankSummary& rank : summary.ranks) r.device_perf_total.push_back(rank.perf_total);
  r.perf_rating = summary.torchrec_rating;
  return r;
}

PlanSummary summarize_plan(const Scenario& scenario, const PlannerResult& result,
                           const PartitionedPlan& plan) {
  const SearchSpace& space = *result.search_space;
  const Topology& topo = result.topology;
  const int w = std::max(1, topo.world_size);
  PlanSummary out;
  out.ranks.resize(static_cast<size_t>(w));
  // The reservation's dense and KJT storage, as the stats table adds them to
  // every rank (the 2026-08 fixed-percentage KJT estimate included).
  Storage dense;
  Storage kjt;
  if (result.reserved) {
    dense = result.reserved->dense.value_or(Storage{});
    kjt = result.reserved->kjt.value_or(Storage{});
  }
  for (int r = 0; r < w; ++r) {
    RankSummary& rs = out.ranks[static_cast<size_t>(r)];
    rs.rank = r;
    rs.dense = dense;
    rs.kjt = kjt;
    if (r < static_cast<int>(topo.devices.size()))
      rs.capacity = topo.devices[static_cast<size_t>(r)].storage;
    if (result.reserved && r < static_cast<int>(result.reserved->devices.size())) {
      rs.available = result.reserved->devices[static_cast<size_t>(r)];
    }
  }
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& o = space.options[static_cast<size_t>(plan.proposal[i])];
    const BatchSums sums = batch_sums(o);
    for (int j = 0; j < o.num_shards(); ++j) {
      const int r = plan.ranks[static_cast<size_t>(plan.first_shard[i] + j)];
      if (r < 0 || r >= w) continue;
      RankSummary& rs = out.ranks[static_cast<size_t>(r)];
      const Shard& shard = o.shards[static_cast<size_t>(j)];
      rs.shards += shard.storage;
      rs.perf += o.shard_perf;
      const IoSizes io = shard_io_sizes(o, sums, shard, topo.world_size, topo.intra_group_size,
                                        scenario.behaviour());
      rs.input_mb += static_cast<double>(io.input) / kBytesPerMb;
      rs.output_mb += static_cast<double>(io.output) / kBytesPerMb;
      ++rs.shards_by_type[static_cast<size_t>(o.sharding_type)];
      ++rs.num_shards;
    }
    out.tables.push_back(summarize_table(scenario, space, plan, i));
  }
  std::vector<double> device_perf;
  rate_plan(space, plan, w, &device_perf, &out.torchrec_rating);
  for (int r = 0; r < w; ++r) {
    out.ranks[static_cast<size_t>(r)].perf_total = device_perf[static_cast<size_t>(r)];
    out.peak_shard_hbm = std::max(out.peak_shard_hbm, out.ranks[static_cast<size_t>(r)].shards.hbm);
  }
  return out;
}

PlanDiff diff_plans(const PlanSummary& a, const PlanSummary& b) {
  PlanDiff d;
  std::map<std::string, const TableSummary*> in_b;
  for (const TableSummary& t : b.tables) in_b.emplace(t.name, &t);
  for (const TableSummary& t : a.tables) {
    const auto it = in_b.find(t.name);
    if (it == in_b.end()) {
      d.moved_tables.push_back(t.name);
      continue;
    }
    const TableSummary& u = *it->second;
    if (t.sharding_type != u.sharding_type || t.compute_kernel != u.compute_kernel ||
        t.ranks != u.ranks) {
      d.moved_tables.push_back(t.name);
    }
    in_b.erase(it);
  }
  for (const TableSummary& t : b.tables) {
    if (in_b.count(t.name) != 0) d.moved_tables.push_back(t.name);
  }
  const size_t n = std::max(a.ranks.size(), b.ranks.size());
  d.hbm_delta.resize(n);
  d.perf_delta.resize(n);
  for (size_t r = 0; r < n; ++r) {
    const int64_t ha = r < a.ranks.size() ? a.ranks[r].shards.hbm : 0;
    const int64_t hb = r < b.ranks.size() ? b.ranks[r].shards.hbm : 0;
    const double pa = r < a.ranks.size() ? a.ranks[r].perf_total : 0.0;
    const double pb = r < b.ranks.size() ? b.ranks[r].perf_total : 0.0;
    d.hbm_delta[r] = hb - ha;
    d.perf_delta[r] = pb - pa;
  }
  return d;
}

}  // namespace shardlab::planner
