#include "greedy_proposer.h"

#include <algorithm>
#include <limits>

#include "proposer_common.h"

namespace shardlab::planner {

GreedyProposer::GreedyProposer(bool use_depth, std::optional<int64_t> threshold)
    : use_depth_(use_depth), threshold_(threshold && *threshold != 0 ? threshold : std::nullopt) {}

void GreedyProposer::load(const SearchSpace& space) {
  const std::vector<std::vector<int>> groups = options_by_fqn_sorted(space, use_depth_);
  ProposerShared own;
  const std::vector<StorageKey>& option_keys =
      (shared_ != nullptr ? *shared_ : own).storage_keys(space);

  sorted_.clear();
  keys_.clear();
  group_begin_.assign(1, 0);
  sorted_.reserve(space.options.size());
  keys_.reserve(space.options.size());
  for (const auto& group : groups) {
    for (int o : group) {
      // The walk compares these keys after every proposal; they are
      // computed once.
      sorted_.push_back(o);
      keys_.push_back(option_keys[o]);
    }
    group_begin_.push_back(static_cast<int>(sorted_.size()));
  }
  pos_.assign(groups.size(), 0);
  moves_ = 0;
  most_moves_ = static_cast<int64_t>(sorted_.size()) - static_cast<int64_t>(groups.size());
  current_.resize(groups.size());
  for (size_t f = 0; f < groups.size(); ++f) current_[f] = sorted_[group_begin_[f]];
  const int num_fqns = static_cast<int>(groups.size());
  walk_.build(num_fqns, WalkLess{this});
  for (int f = 0; f < num_fqns; ++f) {
    if (group_begin_[f] + 1 >= group_begin_[f + 1])
      walk_.exclude(f);  // a single option never advances
  }
  // TorchRec proposes nothing when its pointer map is empty (no tables).
  active_ = !groups.empty();
  best_rating_ = std::numeric_limits<double>::infinity();
  num_inferior_ = 0;
}

std::optional<Proposal> GreedyProposer::propose() {
  if (!active_) return std::nullopt;
  return current_;
}

double GreedyProposer::walked() const {
  if (!active_ || most_moves_ <= 0) return 1.0;
  return static_cast<double>(moves_) / static_cast<double>(most_moves_);
}

void GreedyProposer::feedback(bool /*partitionable*/, const PartitionedPlan* /*plan*/,
                              std::optional<double> rating,
                              const std::vector<Storage>& /*reserved*/) {
  if (!active_) return;

  // Threshold: only truthy ratings count, so a failed proposal (no rating)
  // and a rating of exactly 0.0 are skipped [docs/cost-model.md O6]. Every counted rating is
  // first assumed inferior, then a strict improvement resets the streak.
  if (threshold_ && rating && *rating != 0.0) {
    ++num_inferior_;
    if (*rating < best_rating_) {
      best_rating_ = *rating;
      num_inferior_ = 0;
    }
    if (num_inferior_ > *threshold_) {
      stop();
      return;
    }
  }

  // The walk is static: partitionability is ignored. Advance the table whose
  // *current* option has the largest storage key, strictly above the running
  // maximum that starts at all zeros. The strict comparison makes the earliest
  // table (fqn order) win ties, and means a table whose current option uses
  // no storage at all is never advanced [docs/cost-model.md O22]. Tables already at their
  // last option are not candidates.
  // The tree's minimum is the first fqn with the largest key among those
  // that can advance: the scan's winner, provided its key beats zeros.
  const int f = walk_.min(WalkLess{this});
  if (f == static_cast<int>(pos_.size()) ||
      !(keys_[group_begin_[f] + pos_[f]] > StorageKey{0, 0, 0, 0})) {
    stop();
    return;
  }
  const int at = group_begin_[f] + ++pos_[f];
  ++moves_;
  current_[f] = sorted_[at];
  if (at + 1 >= group_begin_[f + 1]) {
    walk_.exclude(f);  // now at its last option
  } else {
    walk_.mark(f);
  }
}

}  // namespace shardlab::planner
