// The plan a search is at: each table's option and the rank of each of its
// shards, with every rank's storage and the shards on each rank kept up to
// date as changes are applied.
//
// A Change gives new assignments (option and ranks) for one or more tables;
// apply() installs them, updating an estimator as it goes, and returns the
// change that undoes it. fits() tells, before applying, whether every rank
// the change touches would still fit its capacity (Problem::capacity).
// Storage sums are integers, so they never drift.
//
// Thread safety: none; one search owns one state.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/types.h"
#include "shardlab/search/estimator.h"
#include "shardlab/search/problem.h"

namespace shardlab::search {

// One table's new assignment: option `option` of table position `table`,
// shard i on ranks[i].
struct TableAssignment {
  int table = -1;
  int option = -1;
  std::vector<int> ranks;
};

// New assignments for a few tables (each table at most once). Entries are
// reused between moves to spare allocations: clear() keeps their storage.
class Change {
 public:
  void clear() { size_ = 0; }
  TableAssignment& add(int table, int option);
  int size() const { return size_; }
  const TableAssignment& operator[](int i) const { return entries_[i]; }
  TableAssignment& operator[](int i) { return entries_[i]; }
  bool empty() const { return size_ == 0; }

 private:
  std::vector<TableAssignment> entries_;
  int size_ = 0;
};

// A shard of the plan: table position and shard index within its option.
struct ShardRef {
  int table = -1;
  int shard = -1;
};

class PlanState {
 public:
  // `plan` in fqn order over problem.space(), every shard placed.
  PlanState(const Problem& problem, const planner::PartitionedPlan& plan);

  const Problem& problem() const { return *problem_; }
  int num_tables() const { return static_cast<int>(option_.size()); }
  int option(int table) const { return option_[table]; }
  std::span<const int> ranks(int table) const { return ranks_[table]; }
  const planner::Storage& used(int rank) const { return used_[rank]; }
  // Shards on `rank`, in no particular order.
  const std::vector<ShardRef>& shards_on(int rank) const { return on_rank_[rank]; }
  // Shards of separable options (movable one at a time), in no particular order.
  const std::vector<ShardRef>& movable_shards() const { return movable_; }

  // Whether every rank `change` touches fits its capacity after it.
  bool fits(const Change& change) const;

  // Installs `change`: removes the tables' old assignments from `estimator`
  // (when not null) and adds the new ones. *undo receives the change that
  // restores the previous assignments.
  void apply(const Change& change, Estimator* estimator, Change* undo);

  // Adds every table to `estimator`.
  void add_all(Estimator* estimator) const;

  // The plan, in fqn order.
  planner::PartitionedPlan to_plan() const;

  // Counts from now on the tables whose option or ranks differ from
  // `start`'s (same problem; not owned, must outlive the state).
  void count_moves_from(const planner::PartitionedPlan* start);
  // Tables moved from the start now, and after `change` would be applied.
  // REQUIRES: count_moves_from was called.
  int moved() const { return moved_; }
  int moved_after(const Change& change) const;

 private:
  void place(int table, int option, std::span<const int> ranks);
  void unplace(int table);
  bool moved_from_start(int table, int option, std::span<const int> ranks) const;

  const Problem* problem_;
  std::vector<int> option_;
  std::vector<std::vector<int>> ranks_;
  std::vector<planner::Storage> used_;
  std::vector<std::vector<ShardRef>> on_rank_;
  // Position of each placed shard in on_rank_[rank] and in movable_ (-1: not movable).
  std::vector<std::vector<int>> rank_slot_;
  std::vector<std::vector<int>> movable_slot_;
  std::vector<ShardRef> movable_;
  const planner::PartitionedPlan* start_ = nullptr;  // count_moves_from
  int moved_ = 0;
  // Scratch for fits(): per-rank storage deltas and the ranks touched.
  mutable std::vector<planner::Storage> delta_;
  mutable std::vector<int> touched_;
  mutable std::vector<char> is_touched_;
};

}  // namespace shardlab::search
