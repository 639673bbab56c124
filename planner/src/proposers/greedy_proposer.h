// GreedyProposer (docs/cost-model.md §7.1): starts every table at its best-scored
// option and, after each proposal, moves the table with the largest current
// storage footprint to its next option.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "proposer.h"
#include "tournament_tree.h"

namespace shardlab::planner {

class GreedyProposer final : public Proposer {
 public:
  // `threshold`: stop after more than this many consecutive proposals rated
  // worse than the best so far; nullopt (or 0) disables it.
  GreedyProposer(bool use_depth, std::optional<int64_t> threshold);

  void load(const SearchSpace& space) override;
  std::optional<Proposal> propose() override;
  void feedback(bool partitionable, const PartitionedPlan* plan, std::optional<double> rating,
                const std::vector<Storage>& reserved) override;
  // Only the threshold reads ratings (never plans); the walk is static.
  bool reads_plan_or_rating() const override { return threshold_.has_value(); }
  void set_shared(ProposerShared* shared) override { shared_ = shared; }
  // Moves made of the most the walk can make (every table to its last
  // option); 1 once it stops.
  double walked() const override;

 private:
  // (max shard hbm, sum hbm, max shard ddr, sum ddr), compared
  // lexicographically like the Python tuple TorchRec builds.
  using StorageKey = ProposerShared::StorageKey;

  // Walk order over fqns: larger current key first, then the earlier fqn;
  // the tree's minimum is the fqn the walk advances next.
  struct WalkLess {
    const GreedyProposer* p;
    bool operator()(int a, int b) const {
      const StorageKey& ka = p->keys_[p->group_begin_[a] + p->pos_[a]];
      const StorageKey& kb = p->keys_[p->group_begin_[b] + p->pos_[b]];
      if (ka != kb) return ka > kb;
      return a < b;
    }
  };

  void stop() { active_ = false; }

  bool use_depth_;
  std::optional<int64_t> threshold_;
  ProposerShared* shared_ = nullptr;  // null: the keys are computed at each load

  // Each fqn's options sorted by score, groups concatenated in fqn order:
  // fqn f owns sorted_[group_begin_[f] .. group_begin_[f + 1]).
  std::vector<int> sorted_;
  std::vector<StorageKey> keys_;  // storage key of sorted_[i], computed at load
  std::vector<int> group_begin_;
  std::vector<int> pos_;    // per fqn: current position inside its group
  int64_t moves_ = 0;       // Σ pos_
  int64_t most_moves_ = 0;  // Σ (group size - 1)
  Proposal current_;        // sorted_[group_begin_[f] + pos_[f]] for every fqn f
  // Fqns that can still advance (not at their last option), by WalkLess.
  TournamentTree<WalkLess> walk_;
  bool active_ = false;  // false: propose() returns nullopt

  double best_rating_ = 0.0;  // best truthy rating seen (starts at +inf)
  int64_t num_inferior_ = 0;  // consecutive ratings not improving on it
};

}  // namespace shardlab::planner
