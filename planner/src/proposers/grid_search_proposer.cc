#include "grid_search_proposer.h"

#include "proposer_common.h"

namespace shardlab::planner {

GridSearchProposer::GridSearchProposer(int64_t max_proposals) : max_proposals_(max_proposals) {}

void GridSearchProposer::load(const SearchSpace& space) {
  // TorchRec's grid search always ranks by depth, whatever the other
  // proposers use.
  groups_ = options_by_fqn_sorted(space, /*use_depth=*/true);
  digits_.assign(groups_.size(), 0);
  active_ = false;

  // Product of the group sizes. Every group is non-empty, so once the running
  // product passes max_proposals (or int64) the answer is known: skip. No
  // pruning happens at this commit [docs/cost-model.md O23].
  int64_t total = 1;
  for (const auto& group : groups_) {
    if (__builtin_mul_overflow(total, static_cast<int64_t>(group.size()), &total) ||
        total > max_proposals_) {
      return;  // TorchRec logs "Skipping grid search proposer ..." and proposes nothing
    }
  }
  if (total > max_proposals_) return;  // also covers no tables with max_proposals < 1
  // With no tables TorchRec would offer a single empty proposal, which its
  // planner loop treats as the end; proposing nothing is the same.
  active_ = !groups_.empty();
}

std::optional<Proposal> GridSearchProposer::propose() {
  if (!active_) return std::nullopt;
  Proposal proposal(groups_.size());
  for (size_t f = 0; f < groups_.size(); ++f) proposal[f] = groups_[f][digits_[f]];
  return proposal;
}

void GridSearchProposer::advance() {
  if (!active_) return;
  // itertools.product order: the last table varies fastest. Generated one step
  // at a time instead of materialising up to max_proposals index tuples.
  for (size_t f = groups_.size(); f-- > 0;) {
    if (++digits_[f] < static_cast<int>(groups_[f].size())) return;
    digits_[f] = 0;
  }
  active_ = false;  // the odometer wrapped: every combination was proposed
}

}  // namespace shardlab::planner
