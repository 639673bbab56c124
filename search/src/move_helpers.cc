#include "move_helpers.h"

#include <algorithm>
#include <limits>

namespace shardlab::search::detail {

std::optional<ShardRef> pick_movable_shard(MoveContext& ctx, double focus) {
  const std::vector<ShardRef>& all = ctx.state.movable_shards();
  if (all.empty()) return std::nullopt;
  if (ctx.rng.chance(focus)) {
    const int r = ctx.estimator.busiest_rank(ctx.rng);
    const std::vector<ShardRef>& on = ctx.state.shards_on(r);
    // A few draws among the rank's shards for a movable one.
    for (int k = 0; k < 4 && !on.empty(); ++k) {
      const ShardRef s = on[ctx.rng.below(static_cast<int>(on.size()))];
      if (ctx.problem.separable(ctx.state.option(s.table))) return s;
    }
  }
  return all[ctx.rng.below(static_cast<int>(all.size()))];
}

RankRange shard_ranks(const Problem& problem, int option, int current_rank) {
  if (problem.option(option).sharding_type == planner::ShardingType::kTableColumnWise) {
    const int lw = problem.group_size();
    return RankRange{current_rank / lw * lw, lw};
  }
  return RankRange{0, problem.world_size()};
}

planner::Storage Room::delta(int rank) const {
  if (!by_rank_.empty()) return by_rank_[static_cast<size_t>(rank)];
  for (const auto& [r, d] : listed_) {
    if (r == rank) return d;
  }
  return planner::Storage{};
}

planner::Storage Room::left(int rank) const {
  return ctx_.problem.capacity()[rank] - (ctx_.state.used(rank) + delta(rank));
}

bool Room::fits(int rank, const planner::Storage& need) const { return need.fits_in(left(rank)); }

void Room::change(int rank, const planner::Storage& s, int sign) {
  planner::Storage* d = nullptr;
  if (!by_rank_.empty()) {
    d = &by_rank_[static_cast<size_t>(rank)];
  } else {
    for (auto& [r, listed] : listed_) {
      if (r == rank) d = &listed;
    }
    if (d == nullptr && listed_.size() == kListedRanks) {
      // Many ranks changed: a table of every rank from now on.
      by_rank_.assign(static_cast<size_t>(ctx_.problem.world_size()), planner::Storage{});
      for (const auto& [r, listed] : listed_) by_rank_[static_cast<size_t>(r)] = listed;
      listed_.clear();
      d = &by_rank_[static_cast<size_t>(rank)];
    } else if (d == nullptr) {
      d = &listed_.emplace_back(rank, planner::Storage{}).second;
    }
  }
  sign > 0 ? * d += s : * d -= s;
}

void Room::change(int option, const int* ranks, int sign) {
  const planner::ShardingOption& o = ctx_.problem.option(option);
  for (int s = 0; s < o.num_shards(); ++s) change(ranks[s], o.shards.storage(s), sign);
}

bool place_table(MoveContext& ctx, const Room& room, int table, int option, int tries,
                 const std::vector<int>& hint, std::vector<int>* ranks, double* estimate) {
  (void)table;
  const Problem& p = ctx.problem;
  const planner::ShardingOption& o = p.option(option);
  const int n = o.num_shards();
  const int lw = p.group_size();
  ranks->assign(n, -1);
  Estimator& est = ctx.estimator;
  // The estimate with `trial` as the table's placement.
  auto try_whole = [&](const std::vector<int>& trial) {
    est.checkpoint();
    est.add(option, trial.data(), 1.0);
    const double v = est.value();
    est.add(option, trial.data(), -1.0);
    est.restore();
    return v;
  };
  bool ok = false;
  double best = std::numeric_limits<double>::infinity();
  if (o.partition_by == planner::PartitionBy::kUniform) {
    ok = true;
    for (int s = 0; s < n; ++s) {
      (*ranks)[s] = s;
      ok = ok && room.fits(s, o.shards.storage(s));
    }
    if (ok) best = try_whole(*ranks);
  } else if (o.sharding_type == planner::ShardingType::kTableRowWise) {
    std::vector<int> trial(n);
    for (int h = 0; h < p.num_groups(); ++h) {
      bool fits = true;
      for (int s = 0; s < n; ++s) {
        trial[s] = h * lw + s;
        fits = fits && room.fits(trial[s], o.shards.storage(s));
      }
      if (!fits) continue;
      const double v = try_whole(trial);
      if (v < best) {
        best = v;
        *ranks = trial;
        ok = true;
      }
    }
  } else if (o.partition_by == planner::PartitionBy::kMultiHost) {
    // Grid: column block b on group (start + b) mod groups, for each start
    // (TorchRec's windows of groups, and its circle when there are more
    // blocks than groups); the best estimate among those where every shard
    // fits its rank (a rank may take several blocks).
    const int groups = p.num_groups();
    std::vector<int> trial(n);
    for (int start = 0; start < groups; ++start) {
      Room placed = room;
      bool fits = true;
      for (int s = 0; s < n && fits; ++s) {
        trial[s] = (start + s / lw) % groups * lw + s % lw;
        fits = placed.fits(trial[s], o.shards.storage(s));
        placed.change(trial[s], o.shards.storage(s), 1);
      }
      if (!fits) continue;
      const double v = try_whole(trial);
      if (v < best) {
        best = v;
        *ranks = trial;
        ok = true;
      }
    }
  } else {
    // Separable. Table-column-wise: a random host with room for the whole table.
    RankRange range{0, p.world_size()};
    if (o.sharding_type == planner::ShardingType::kTableColumnWise) {
      const int first = ctx.rng.below(p.num_groups());
      range.count = 0;
      for (int k = 0; k < p.num_groups() && range.count == 0; ++k) {
        const int h = (first + k) % p.num_groups();
        planner::Storage free;
        for (int r = h * lw; r < (h + 1) * lw; ++r) free += room.left(r);
        if (o.total_storage.fits_in(free)) range = RankRange{h * lw, lw};
      }
    }
    ok = range.count > 0;
    Room placed = room;
    const bool use_hint = static_cast<int>(hint.size()) == n;
    est.checkpoint();
    for (int s = 0; s < n && ok; ++s) {
      const planner::Storage& need = o.shards.storage(s);
      double shard_best = std::numeric_limits<double>::infinity();
      int chosen = -1;
      auto consider = [&](int r) {
        if (r < range.first || r >= range.first + range.count || !placed.fits(r, need)) return;
        est.checkpoint();
        est.add_shard(option, s, r, 1.0);
        const double v = est.value();
        est.add_shard(option, s, r, -1.0);
        est.restore();
        if (v < shard_best) {
          shard_best = v;
          chosen = r;
        }
      };
      if (use_hint) consider(hint[s]);
      for (int k = 0; k < tries; ++k) consider(range.first + ctx.rng.below(range.count));
      if (chosen < 0) {
        ok = false;
        break;
      }
      est.add_shard(option, s, chosen, 1.0);
      placed.change(chosen, need, 1);
      (*ranks)[s] = chosen;
      best = shard_best;  // the last shard's: the whole table placed
    }
    for (int s = 0; s < n; ++s) {
      if ((*ranks)[s] >= 0) est.add_shard(option, s, (*ranks)[s], -1.0);
    }
    est.restore();
  }
  if (estimate != nullptr) *estimate = best;
  return ok;
}

int convert_tables(MoveContext& ctx, planner::ShardingType from, planner::ShardingType to,
                   double fraction, int tries, Change* change) {
  const Problem& p = ctx.problem;
  // Candidates: (table, target option).
  std::vector<std::pair<int, int>> candidates;
  for (int t = 0; t < p.num_tables(); ++t) {
    const planner::ShardingOption& now = p.option(ctx.state.option(t));
    if (now.sharding_type != from || from == to) continue;
    int target = -1;
    for (const int o : p.options_of(t)) {
      const planner::ShardingOption& opt = p.option(o);
      if (opt.sharding_type != to) continue;
      if (target < 0 || opt.compute_kernel == now.compute_kernel) target = o;
      if (opt.compute_kernel == now.compute_kernel) break;
    }
    if (target >= 0) candidates.emplace_back(t, target);
  }
  if (candidates.empty()) return 0;
  const int n = static_cast<int>(candidates.size());
  const int k = std::clamp(static_cast<int>(fraction * n + 0.5), 1, n);
  for (int i = 0; i < k; ++i) std::swap(candidates[i], candidates[i + ctx.rng.below(n - i)]);
  candidates.resize(k);
  // Largest first: the big tables choose while there is room.
  std::stable_sort(candidates.begin(), candidates.end(), [&](const auto& a, const auto& b) {
    return p.option(a.second).total_storage.hbm > p.option(b.second).total_storage.hbm;
  });
  Estimator& est = ctx.estimator;
  Room room(ctx);
  std::vector<int> ranks;
  const std::vector<int> no_hint;
  est.checkpoint();
  int changed = 0;
  const int first = change->size();
  for (const auto& [t, option] : candidates) {
    const int old = ctx.state.option(t);
    const auto old_ranks = ctx.state.ranks(t);
    est.add(old, old_ranks.data(), -1.0);
    room.change(old, old_ranks.data(), -1);
    if (place_table(ctx, room, t, option, tries, no_hint, &ranks, nullptr)) {
      est.add(option, ranks.data(), 1.0);
      room.change(option, ranks.data(), 1);
      change->add(t, option).ranks = ranks;
      ++changed;
    } else {
      est.add(old, old_ranks.data(), 1.0);
      room.change(old, old_ranks.data(), 1);
    }
  }
  // Back to the state's estimate.
  for (int i = change->size() - 1; i >= first; --i) {
    const TableAssignment& a = (*change)[i];
    est.add(a.option, a.ranks.data(), -1.0);
    est.add(ctx.state.option(a.table), ctx.state.ranks(a.table).data(), 1.0);
  }
  est.restore();
  return changed;
}

}  // namespace shardlab::search::detail
