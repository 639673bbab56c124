#include "shardlab/search/plan_state.h"

#include <cassert>

#include "shardlab/planner/placement.h"

namespace shardlab::search {

TableAssignment& Change::add(int table, int option) {
  if (size_ == static_cast<int>(entries_.size())) entries_.emplace_back();
  TableAssignment& a = entries_[size_++];
  a.table = table;
  a.option = option;
  a.ranks.clear();
  return a;
}

PlanState::PlanState(const Problem& problem, const planner::PartitionedPlan& plan)
    : problem_(&problem) {
  const int tables = problem.num_tables();
  const int w = problem.world_size();
  option_.assign(tables, -1);
  ranks_.resize(tables);
  rank_slot_.resize(tables);
  movable_slot_.resize(tables);
  used_.assign(w, planner::Storage{});
  on_rank_.resize(w);
  delta_.assign(w, planner::Storage{});
  is_touched_.assign(w, 0);
  for (int t = 0; t < tables; ++t) {
    const int begin = plan.first_shard[t];
    const int end = plan.first_shard[t + 1];
    place(t, plan.proposal[t],
          std::span<const int>(plan.ranks.data() + begin, static_cast<size_t>(end - begin)));
  }
}

void PlanState::place(int table, int option, std::span<const int> ranks) {
  const planner::ShardingOption& o = problem_->option(option);
  assert(static_cast<int>(ranks.size()) == o.num_shards());
  assert(planner::placement_allowed(o, ranks.data(), problem_->topology()));
  option_[table] = option;
  ranks_[table].assign(ranks.begin(), ranks.end());
  rank_slot_[table].resize(ranks.size());
  movable_slot_[table].assign(ranks.size(), -1);
  const bool movable = problem_->separable(option);
  for (int s = 0; s < static_cast<int>(ranks.size()); ++s) {
    const int r = ranks[s];
    used_[r] += o.shards.storage(s);
    rank_slot_[table][s] = static_cast<int>(on_rank_[r].size());
    on_rank_[r].push_back(ShardRef{table, s});
    if (movable) {
      movable_slot_[table][s] = static_cast<int>(movable_.size());
      movable_.push_back(ShardRef{table, s});
    }
  }
}

void PlanState::unplace(int table) {
  const planner::ShardingOption& o = problem_->option(option_[table]);
  for (int s = 0; s < static_cast<int>(ranks_[table].size()); ++s) {
    const int r = ranks_[table][s];
    used_[r] -= o.shards.storage(s);
    // Swap-remove from the rank's list, fixing the moved entry's slot.
    std::vector<ShardRef>& list = on_rank_[r];
    const int slot = rank_slot_[table][s];
    list[slot] = list.back();
    rank_slot_[list[slot].table][list[slot].shard] = slot;
    list.pop_back();
    const int m = movable_slot_[table][s];
    if (m >= 0) {
      movable_[m] = movable_.back();
      movable_slot_[movable_[m].table][movable_[m].shard] = m;
      movable_.pop_back();
    }
  }
  option_[table] = -1;
}

bool PlanState::fits(const Change& change) const {
  touched_.clear();
  auto touch = [&](int r, const planner::Storage& s, bool add) {
    if (!is_touched_[r]) {
      is_touched_[r] = 1;
      delta_[r] = planner::Storage{};
      touched_.push_back(r);
    }
    if (add) {
      delta_[r] += s;
    } else {
      delta_[r] -= s;
    }
  };
  for (int i = 0; i < change.size(); ++i) {
    const TableAssignment& a = change[i];
    const planner::ShardingOption& old = problem_->option(option_[a.table]);
    for (int s = 0; s < old.num_shards(); ++s)
      touch(ranks_[a.table][s], old.shards.storage(s), false);
    const planner::ShardingOption& now = problem_->option(a.option);
    for (int s = 0; s < now.num_shards(); ++s) touch(a.ranks[s], now.shards.storage(s), true);
  }
  bool ok = true;
  for (const int r : touched_) {
    is_touched_[r] = 0;
    // Only ranks that gain storage can stop fitting (a plan that fits stays
    // fitting where it shrinks).
    const planner::Storage after = used_[r] + delta_[r];
    if ((delta_[r].hbm > 0 || delta_[r].ddr > 0) && !after.fits_in(problem_->capacity()[r]))
      ok = false;
  }
  return ok;
}

void PlanState::apply(const Change& change, Estimator* estimator, Change* undo) {
  undo->clear();
  for (int i = 0; i < change.size(); ++i) {
    const int t = change[i].table;
    TableAssignment& back = undo->add(t, option_[t]);
    back.ranks = ranks_[t];
  }
  if (start_ != nullptr) moved_ = moved_after(change);
  for (int i = 0; i < change.size(); ++i) {
    const TableAssignment& a = change[i];
    if (estimator != nullptr) estimator->add(option_[a.table], ranks_[a.table].data(), -1.0);
    unplace(a.table);
    place(a.table, a.option, a.ranks);
    if (estimator != nullptr) estimator->add(a.option, ranks_[a.table].data(), 1.0);
  }
}

bool PlanState::moved_from_start(int table, int option, std::span<const int> ranks) const {
  if (option != start_->proposal[static_cast<size_t>(table)]) return true;
  const auto first = start_->ranks.begin() + start_->first_shard[static_cast<size_t>(table)];
  return !std::equal(ranks.begin(), ranks.end(), first);
}

void PlanState::count_moves_from(const planner::PartitionedPlan* start) {
  start_ = start;
  moved_ = 0;
  for (int t = 0; t < num_tables(); ++t) moved_ += moved_from_start(t, option_[t], ranks_[t]);
}

int PlanState::moved_after(const Change& change) const {
  int moved = moved_;
  for (int i = 0; i < change.size(); ++i) {
    const TableAssignment& a = change[i];
    moved += static_cast<int>(moved_from_start(a.table, a.option, a.ranks)) -
             static_cast<int>(moved_from_start(a.table, option_[a.table], ranks_[a.table]));
  }
  return moved;
}

void PlanState::add_all(Estimator* estimator) const {
  for (int t = 0; t < num_tables(); ++t) estimator->add(option_[t], ranks_[t].data(), 1.0);
}

planner::PartitionedPlan PlanState::to_plan() const {
  planner::PartitionedPlan plan;
  layout_partitioned_plan(problem_->space(), option_, &plan);
  for (int t = 0; t < num_tables(); ++t) {
    std::copy(ranks_[t].begin(), ranks_[t].end(), plan.ranks.begin() + plan.first_shard[t]);
  }
  return plan;
}

}  // namespace shardlab::search
