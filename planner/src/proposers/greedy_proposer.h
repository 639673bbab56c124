// GreedyProposer (planner-model.md §7.1): starts every table at its best-scored
// option and, after each proposal, moves the table with the largest current
// storage footprint to its next option.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "shardlab/planner/proposer.h"

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

 private:
  // (max shard hbm, sum hbm, max shard ddr, sum ddr), compared
  // lexicographically like the Python tuple TorchRec builds.
  using StorageKey = std::array<int64_t, 4>;

  void stop() { active_ = false; }

  bool use_depth_;
  std::optional<int64_t> threshold_;

  // Each fqn's options sorted by score, groups concatenated in fqn order:
  // fqn f owns sorted_[group_begin_[f] .. group_begin_[f + 1]).
  std::vector<int> sorted_;
  std::vector<StorageKey> keys_;  // storage key of sorted_[i], computed at load
  std::vector<int> group_begin_;
  std::vector<int> pos_;  // per fqn: current position inside its group
  bool active_ = false;   // false: propose() returns nullopt

  double best_rating_ = 0.0;  // best truthy rating seen (starts at +inf)
  int64_t num_inferior_ = 0;  // consecutive ratings not improving on it
};

}  // namespace shardlab::planner
