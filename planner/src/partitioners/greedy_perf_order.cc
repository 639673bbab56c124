// The greedy perf partitioner's per-position data and placement order
// (docs/cost-model.md §8.1 step 3), kept up to date by difference: consecutive
// proposals usually differ in one table.
#include <algorithm>

#include "greedy_perf_partitioner.h"

namespace shardlab::planner {
namespace {

// Up to this many changed tables, each is put back by a binary search and an
// insertion; beyond, they are sorted and merged into the order.
constexpr size_t kMaxInsertedChanges = 16;

}  // namespace

void GreedyPerfPartitioner::mark_pending(int p) {
  if (is_pending_[p]) return;
  is_pending_[p] = 1;
  pending_.push_back(p);
}

// TorchRec sorts the groups by key descending with a stable sort, which is
// the order (key descending, proposal position ascending): a strict total
// order, so repairing the previous order yields exactly the sorted one.
bool GreedyPerfPartitioner::before(int a, int b) const {
  const HotOption& oa = pos_hot_[a];
  const HotOption& ob = pos_hot_[b];
  if (balance_modules_) {
    const int pa = param_counts_[oa.module];
    const int pb = param_counts_[ob.module];
    if (pa != pb) return pa > pb;
  }
  if (sort_by_ == SortBy::kPerf) {
    if (oa.total_perf != ob.total_perf) return oa.total_perf > ob.total_perf;
  } else if (oa.total_storage != ob.total_storage) {
    return oa.total_storage > ob.total_storage;
  }
  // Stable: proposal order among equal keys (the proposer's table order
  // when it has one).
  return tie_rank_.empty() ? a < b : tie_rank_[a] < tie_rank_[b];
}

void GreedyPerfPartitioner::set_table_order(const std::vector<int>* order) {
  std::vector<int> rank;
  if (order != nullptr) {
    rank.assign(order->size(), 0);
    for (size_t i = 0; i < order->size(); ++i) rank[(*order)[i]] = static_cast<int>(i);
  }
  if (rank != tie_rank_) positions_valid_ = false;  // the order to repair is another
  tie_rank_ = std::move(rank);
}

void GreedyPerfPartitioner::sync_position(const Proposal& proposal, int p) {
  pos_hot_[p] = hot_[proposal[p]];
  pos_shards_[p] = pos_hot_[p].num_shards;
  pos_uniform_[p] = is_uniform_[proposal[p]];
  const HotOption& h = pos_hot_[p];
  pos_perf_[p] = h.shard_perf.total() * h.num_shards;
  pos_storage_[p] = h.total_storage;
}

void GreedyPerfPartitioner::sync_positions(const Proposal& proposal) {
  const auto cmp = [this](int a, int b) { return before(a, b); };
  const int n = static_cast<int>(proposal.size());
  if (positions_valid_ && 2 * pending_.size() <= proposal.size()) {
    // Repair: take the changed tables out of the order, then put back those
    // placed after the uniform phase at their sorted position.
    for (const int p : pending_) sync_position(proposal, p);
    order_.erase(
        std::remove_if(order_.begin(), order_.end(), [&](int p) { return is_pending_[p] != 0; }),
        order_.end());
    if (pending_.size() <= kMaxInsertedChanges) {
      for (const int p : pending_) {
        if (!pos_uniform_[p])
          order_.insert(std::lower_bound(order_.begin(), order_.end(), p, cmp), p);
      }
    } else {
      // Many changed (the dynamic-programming proposer's neighbouring bins):
      // sort them alone and merge; the order is strict, so the merge is the
      // sorted order.
      changed_.clear();
      for (const int p : pending_) {
        if (!pos_uniform_[p]) changed_.push_back(p);
      }
      std::sort(changed_.begin(), changed_.end(), cmp);
      merged_.resize(order_.size() + changed_.size());
      std::merge(order_.begin(), order_.end(), changed_.begin(), changed_.end(), merged_.begin(),
                 cmp);
      order_.swap(merged_);
    }
  } else {
    pos_hot_.resize(n);
    pos_shards_.resize(n);
    pos_uniform_.resize(n);
    pos_perf_.resize(n);
    pos_storage_.resize(n);
    order_.clear();
    for (int p = 0; p < n; ++p) {
      sync_position(proposal, p);
      if (!pos_uniform_[p]) order_.push_back(p);
    }
    std::sort(order_.begin(), order_.end(), cmp);
    positions_valid_ = true;
  }
  for (const int p : pending_) is_pending_[p] = 0;
  pending_.clear();
}

}  // namespace shardlab::planner
